// SPDX-License-Identifier: GPL-2.0
/* stack.c - one view of a kernel stack, whichever consumer read it.
 *
 * A stacktrace trigger records the whole stack at the moment the event
 * fired, so its top frames are the tracing machinery between the traced
 * code and the trigger: the tracepoint's trace_event_raw_event_* frame, or
 * for a kprobe kprobe_trace_func, kprobe_dispatcher, aggr_pre_handler,
 * kprobe_ftrace_handler and the anonymous ftrace trampoline (a bare
 * address: it has no symbol), or where a kprobe is a breakpoint (arm64)
 * the exception's path to kprobe_breakpoint_handler. Users want the stack
 * to start at the traced function. The text consumer sees frames as the kernel printed them, the
 * binary one as addresses it symbolises itself; both trim and render
 * through this file so that one event gives one stack. */
#include "ftnet_int.h"

#include <stdio.h>
#include <string.h>

/* Prefixes of machinery frames (with or without "+0xoff"). */
static const char *const machinery[] = {
	/* tracepoints and event triggers */
	"trace_event_raw_event_", "perf_trace_", "__traceiter_", "__bpf_trace_",
	"trace_event_buffer_commit", "event_triggers_call", "event_triggers_post_call",
	"stacktrace_trigger", "stacktrace_count_trigger", "__trace_stack",
	"__ftrace_trace_stack", "ftrace_trace_stack",
	/* kprobes, kretprobes, fprobes, rethook */
	"kprobe_trace_func", "kretprobe_trace_func", "kprobe_dispatcher",
	"kretprobe_dispatcher", "aggr_pre_handler", "kprobe_ftrace_handler",
	"pre_handler_kretprobe", "__kretprobe_trampoline_handler",
	"kretprobe_trampoline_handler", "trampoline_handler", "__kretprobe_trampoline",
	"kretprobe_trampoline", "arch_rethook_", "rethook_", "fprobe_handler",
	/* a kprobe that is a breakpoint, not an ftrace call: arm64's BRK
	 * exception path (el1h_64_sync, el1h_64_sync_handler, el1_dbg,
	 * do_debug_exception, brk_handler, call_break_hook), x86's int3 */
	"kprobe_breakpoint_handler", "call_break_hook", "brk_handler",
	"do_debug_exception", "el1_dbg", "el1h_64_sync", "kprobe_int3_handler",
	"do_int3", "exc_int3", "asm_exc_int3",
	/* ftrace entry code */
	"ftrace_regs_call", "ftrace_regs_caller", "ftrace_call", "ftrace_caller",
	"ftrace_trampoline", "ftrace_ops_assist_func", "ftrace_ops_list_func",
	"arch_ftrace_ops_list_func",
};

/* "0x" and hex digits only: an address nothing could name. */
static int bare_address(const char *f)
{
	if (f[0] != '0' || f[1] != 'x' || !f[2])
		return 0;
	return f[2 + strspn(f + 2, "0123456789abcdefABCDEF")] == '\0';
}

int ftn__frame_is_machinery(const char *f)
{
	for (size_t i = 0; i < sizeof(machinery) / sizeof(machinery[0]); i++)
		if (!strncmp(f, machinery[i], strlen(machinery[i])))
			return 1;
	return 0;
}

/* Frames come in from the top. Machinery frames are dropped while no
 * other frame has been kept; a bare address there only after a named
 * machinery frame (the trampoline between kprobe_ftrace_handler and the
 * probed function): when nothing could be symbolised (kptr_restrict)
 * every frame is a bare address and the stack is kept whole. */
int ftn__stack_trim_frame(int *state, const char *frame)
{
	if (*state == FTN__STACK_KEEPING)
		return 0;
	if (ftn__frame_is_machinery(frame)) {
		*state = FTN__STACK_TRIMMED;
		return 1;
	}
	if (*state == FTN__STACK_TRIMMED && bare_address(frame))
		return 1;
	*state = FTN__STACK_KEEPING;
	return 0;
}

/* As the kernel prints a stack entry in trace_pipe (the default, without
 * the sym-offset option): the symbol's name alone, without offset or
 * module; "0x<addr>" when no symbol holds the address. */
const char *ftn__frame_name(const struct ftn_ksyms *ks, uint64_t addr, char *buf, size_t size)
{
	const char *name = ks ? ftn_ksyms_find(ks, addr, NULL, NULL) : NULL;

	if (name)
		return name;
	snprintf(buf, size, "0x%llx", (unsigned long long)addr);
	return buf;
}

/* A stack deeper than FTN_MAX_FRAMES: the last slot says how many frames
 * are not shown (itself included), so a cut stack never passes for a
 * whole one, and both consumers say it the same way. */
const char *ftn__frames_more(unsigned int hidden, char *buf, size_t size)
{
	snprintf(buf, size, "[%u more frames]", hidden);
	return buf;
}
