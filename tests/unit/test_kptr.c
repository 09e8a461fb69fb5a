/* test_kptr.c - the kptr_restrict record (lib/net/socktab.c) and the kill -9
 * test hook (lib/trace/teststep.c), offline: a socket-table snapshot over a fake
 * /proc whose sys/kernel/kptr_restrict is a plain file, killed by
 * FTNET_TEST_KILL_STEP at each of its steps in a child; the stale reaper
 * (ftn_reap_stale) must put the value back from the record and remove
 * the record; a live run's record, a changed value, a record naming
 * another file are left alone. The record names use the real /proc (our
 * children's PIDs and start times).
 *
 * With the argument "--snapshot [PROC]" it is the host test's helper instead
 * (tests/host/killstep.sh): one snapshot of the REAL /proc/net/tcp with
 * pointers, i.e. the real kptr_restrict lifted and put back (or those of
 * the fake PROC: the children above), under
 * whatever FTNET_TEST_* the caller set.
 *
 * A crash at each step instead (FTNET_TEST_KILL_SIG=SEGV; the helper's
 * handler calls ftn_cleanup_crash, as the tools' does): the value is back
 * and the record gone as soon as the child is dead, no reaper run. */
#include "ftnet_int.h"
#include "tap.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char tmp[128], proc[200], run[200], fs[200], kpath[300];

static const char tcp_rows[] =
	"  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
	"   0: 0100007F:1388 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1234 1 ffff888003f1a000 100 0 0 10 0\n";

/* mkdir base/rel */
static void mk(const char *base, const char *rel)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s%s", base, rel);
	mkdir(p, 0755);
}

static char *kval(void)
{
	static char v[32];
	char *s = tap_slurp(kpath, NULL);

	snprintf(v, sizeof(v), "%s", s ? s : "(none)");
	v[strcspn(v, "\n")] = '\0';
	free(s);
	return v;
}

/* Records left in the run directory. */
static int nrecords(void)
{
	char cmd[PATH_MAX];
	FILE *p;
	int n = 0, c;

	snprintf(cmd, sizeof(cmd), "ls -A '%s' 2>/dev/null", run);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	while ((c = fgetc(p)) != EOF)
		n += c == '\n';
	pclose(p);
	return n;
}

static const char *self_path = "/proc/self/exe";

/* A child snapshotting the fake /proc, killed after step kill_at (0:
 * not killed). Its wait status. */
static int child_snapshot_sig(int kill_at, const char *sig)
{
	char v[16];
	pid_t pid;
	int st = 0;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		snprintf(v, sizeof(v), "%d", kill_at);
		setenv("FTNET_TEST_KILL_STEP", v, 1);
		if (sig)
			setenv("FTNET_TEST_KILL_SIG", sig, 1);
		/* a fresh process: the hook reads its variables once */
		/* argv[0], not /proc/self/exe: under valgrind that is
		 * valgrind's own tool binary */
		execl(self_path, "test_kptr", "--snapshot", proc, (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &st, 0) < 0)
		return -1;
	return st;
}

static int child_snapshot(int kill_at)
{
	return child_snapshot_sig(kill_at, NULL);
}

/* --snapshot's handler of the crash: the tools' (tools/common/util.c) */
static void on_crash(int sig)
{
	ftn_cleanup_crash();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void offline(void)
{
	char rec[PATH_MAX], line[PATH_MAX];
	int st;

	snprintf(tmp, sizeof(tmp), "/tmp/ftnet-test-kptr.XXXXXX");
	if (!mkdtemp(tmp)) {
		ok(0, "mkdtemp");
		return;
	}
	snprintf(proc, sizeof(proc), "%s/proc", tmp);
	snprintf(run, sizeof(run), "%s/run", tmp);
	snprintf(fs, sizeof(fs), "%s/tracefs", tmp);
	mk(proc, "");
	mk(proc, "/net");
	mk(proc, "/sys");
	mk(proc, "/sys/kernel");
	mk(fs, "");
	snprintf(kpath, sizeof(kpath), "%s/sys/kernel/kptr_restrict", proc);
	snprintf(line, sizeof(line), "%s/net/tcp", proc);
	tap_put(line, tcp_rows);
	tap_put(kpath, "0\n");
	setenv("FTNET_RUNDIR", run, 1);
	/* the reaper must not reach the real tracefs */
	setenv("FTNET_TRACEFS", fs, 1);

	if (geteuid() != 0) {
		/* the library lifts kptr_restrict only as root */
		tap_skip("kptr_restrict record and kill steps", "needs root (make check as root: CI, VM)");
		return;
	}

	/* a run that is not killed: 3 steps, nothing left */
	st = child_snapshot(0);
	ok(WIFEXITED(st) && WEXITSTATUS(st) == 0, "a snapshot run ends normally");
	is_str(kval(), "0", "after a normal run kptr_restrict is back at 0");
	is_int(nrecords(), 0, "after a normal run no record is left");

	/* killed at each step, from a value of 0 or 2: what the dead run
	 * left (value, records), then what the reaper leaves */
	{
		static const struct {
			const char *start, *left, *after, *what;
			int records;
		} k[] = {
			{ "0\n", "0", "0", "record written, the sysctl not changed yet", 1 },
			{ "2\n", "1", "2", "kptr_restrict 1, killed before the restore", 1 },
			{ "0\n", "0", "0", "restored, killed before the record's removal", 1 },
		};

		for (int i = 0; i < 3; i++) {
			tap_put(kpath, k[i].start);
			st = child_snapshot(i + 1);
			ok(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL, "killed at step %d (%s)", i + 1,
			   k[i].what);
			is_str(kval(), k[i].left, "the value the dead run left");
			is_int(nrecords(), k[i].records, "its record is there");
			ftn_reap_stale();
			is_str(kval(), k[i].after, "after the reaper: the original value");
			is_int(nrecords(), 0, "after the reaper: no record");
		}
	}

	/* crashed at each step: the crash handler puts the value back and
	 * removes the record before the run is gone */
	for (int i = 0; i < 3; i++) {
		tap_put(kpath, i == 1 ? "2\n" : "0\n");
		st = child_snapshot_sig(i + 1, "SEGV");
		ok(WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV, "crashed (SIGSEGV) at step %d", i + 1);
		is_str(kval(), i == 1 ? "2" : "0", "crashed: the original value, no reaper run");
		is_int(nrecords(), 0, "crashed: no record left");
	}

	/* a killed run whose 1 someone changed since: value kept */
	st = child_snapshot(2);
	tap_put(kpath, "2\n");
	ftn_reap_stale();
	is_str(kval(), "2", "a value set after the kill is not overwritten");
	is_int(nrecords(), 0, "that record is removed all the same");

	/* a record of a live run (ours), and a dead run's record naming a
	 * file that is not kptr_restrict: neither touched */
	tap_put(kpath, "1\n");
	{
		char name[128], group[128];
		struct ftn__runid self;

		ftn__run_names("kptr", name, sizeof(name), group, sizeof(group));
		snprintf(rec, sizeof(rec), "%s/%s", run, name);
		snprintf(line, sizeof(line), "0 %s\n", kpath);
		tap_put(rec, line);
		ftn_reap_stale();
		is_str(kval(), "1", "a live run's record is not applied");
		is_int(nrecords(), 1, "a live run's record is kept");
		unlink(rec);
		ok(ftn__runid_self("/proc", "kptr", &self) == 0, "runid of self");
		/* a dead run: a PID nobody has (start time differs) */
		self.start += 1;
		ftn__runid_format(&self, '-', name, sizeof(name));
		snprintf(rec, sizeof(rec), "%s/%s", run, name);
		snprintf(line, sizeof(line), "0 %s/net/tcp\n", proc);
		tap_put(rec, line);
		ftn_reap_stale();
		snprintf(line, sizeof(line), "%s/net/tcp", proc);
		{
			char *t = tap_slurp(line, NULL);

			ok(t && !strcmp(t, tcp_rows), "a record naming another file writes nothing");
			free(t);
		}
		is_int(nrecords(), 0, "that record is removed");
	}
	snprintf(line, sizeof(line), "rm -rf '%s'", tmp);
	if (system(line) != 0)
		printf("# cannot remove %s\n", tmp);
}

int main(int argc, char **argv)
{
	if (argv[0] && strchr(argv[0], '/'))
		self_path = argv[0];
	if (argc > 1 && !strcmp(argv[1], "--snapshot")) {
		struct ftn_socktab *t;

		if (getenv("FTNET_TEST_KILL_SIG"))
			signal(SIGSEGV, on_crash);
		t = ftn_socktab_snapshot(argc > 2 ? argv[2] : NULL, 0, 1);

		if (!t) {
			fprintf(stderr, "test_kptr: snapshot: %s\n", strerror(errno));
			return 1;
		}
		ftn_socktab_free(t);
		return 0;
	}
	offline();
	return tap_done();
}
