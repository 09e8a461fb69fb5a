// SPDX-License-Identifier: GPL-2.0
/*
 * scall_data.c - sockio's data (-x N): a uprobe in libc right after each
 * "syscall" instruction of the wrappers (read, write, readv, writev, send,
 * sendto, recv, recvfrom, sendmsg, recvmsg; found by scanning their code:
 * lib elf.c), where %ax holds the result and %si still points at the
 * buffer (readv/writev: at the iovec array, sendmsg/recvmsg: at the
 * msghdr; the first iovec is read). The probe fires after the call
 * completed, so received bytes are those the call returned. It is joined
 * to the task's sys_exit record when its %ax equals the record's result
 * (lib syscalls.c).
 */
#include "common.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int probe_add(void *ctx, const char *name, const char *def)
{
	struct tool_scall *st = ctx;
	/* said with libc's name: /proc/self/fd/N means nothing to a reader */
	size_t k = strlen(st->libc_kpath);
	const char *rest = !strncmp(def, st->libc_kpath, k) && def[k] == ':' ? def + k : NULL;
	int err;

	if (st->dry) {
		printf("p:%s %s%s\n", name, rest ? st->libc : "", rest ? rest : def);
		return 0;
	}
	if (st->nevs == TOOL_SCALL_MAXEVS)
		return tool_fail(-ENOSPC, "more than %d events", TOOL_SCALL_MAXEVS);
	if ((err = ftn_uprobe_create(st->inst, name, def, 0)))
		return tool_kfail(err, "cannot create the uprobe '%s%s'", rest ? st->libc : "",
				  rest ? rest : def);
	snprintf(st->evname[st->nevs], sizeof(st->evname[0]), "%s/%s", ftn_probe_group(st->inst), name);
	if ((err = ftn_event_enable(st->inst, ftn_probe_group(st->inst), name)))
		return tool_kfail(err, "cannot enable %s", st->evname[st->nevs]);
	st->evs[st->nevs] = st->evname[st->nevs];
	st->nevs++;
	st->nprobes++;
	return 0;
}

/* -x: the data probes in the libc the process maps (-c: ld.so's) */
int tool_scall_data_probes(struct tool_scall *st)
{
	const char *how = NULL;
	int err, fd;

	if ((err = ftn_elf_resolve("libc", st->pid, st->libc, sizeof(st->libc), &how)))
		return tool_fail(0, "no libc found (%s): data capture needs libc's wrappers; "
				 "calls and sizes only", strerror(-err));
	if (st->pid > 0 && strcmp(how, "maps")) {
		tool_fail(0, "process %d maps no libc (a static binary or another runtime?): "
			  "data capture needs libc's wrappers; calls and sizes only", (int)st->pid);
		return 0;
	}
	/* Opened once: the wrappers are read from this descriptor and the
	 * kernel is given /proc/self/fd/N, the same inode, never the name
	 * again (lib/trace/elf.c, ftn_elf_open: a process's libc may sit in a
	 * directory its user can point elsewhere meanwhile). */
	if ((fd = ftn_elf_open(st->libc, st->libc_kpath, sizeof(st->libc_kpath))) < 0)
		return tool_fail(fd == -EINVAL ? -EINVAL : fd, "cannot open %s: %s", st->libc,
				 fd == -EINVAL ? "not a regular file" : strerror(-fd));
	for (int c = 0; c < FTN_SC_N && err >= 0; c++) {
		if (st->only && !st->show[c])
			continue;
		err = ftn_scall_data_probes(st->libc_kpath, c, (unsigned int)st->xbytes,
					    probe_add, st);
		if (err > 0)
			ftn_scall_dec_data(st->dec, c, (unsigned int)st->xbytes);
	}
	close(fd);      /* the kernel holds the inode of each probe now */
	if (err == -ENOTSUP) {
		tool_fail(0, "data capture reads x86_64 wrappers only: calls and sizes only");
		return 0;
	}
	if (err < 0)
		return err == -ENOSPC || err == -EINVAL || err == -EPERM ? err :
		       tool_fail(err, "cannot read %s: %s", st->libc, strerror(-err));
	tool_info("data: %d uprobes in %s (%s) after the system calls of its wrappers",
		  st->nprobes, st->libc, how);
	return 0;
}
