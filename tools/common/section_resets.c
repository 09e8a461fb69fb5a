// SPDX-License-Identifier: GPL-2.0
/*
 * section_resets.c - netreport's section of resets per direction and
 * reason (tcp:tcp_send_reset, tcp:tcp_receive_reset; decoding: lib
 * reset.c). tcpreset -c keys its rows on the remote address too: its own.
 */
#include "common.h"

#include <errno.h>
#include <string.h>

struct resets {
	struct ftn_reset_dec *dec;
	uint64_t sent, received;
};

static void count(void *ctx, const struct ftn_reset *x)
{
	struct tool_section *s = ctx;
	struct resets *r = s->priv;
	struct { int32_t dir; uint64_t reason; } k;
	struct tool_counter_row *row;
	const char *rs;
	char rb[32];
	int is_new;

	memset(&k, 0, sizeof(k));       /* the padding is key bytes too */
	k.dir = x->dir;
	k.reason = x->has_reason ? x->reason : ~0ull;
	if (x->dir == 'S')
		r->sent++;
	else
		r->received++;
	if (!(row = tool_counter_add(s->rows, &k, sizeof(k), 1, 0, &is_new))) {
		s->env->uncounted++;
		return;
	}
	if (is_new) {
		rs = ftn_reset_reason(r->dec, x, rb, sizeof(rb));
		tool_counter_set_label(s->rows, row, 0, x->dir == 'S' ? "sent" : "received");
		tool_counter_set_label(s->rows, row, 1, rs ? rs : "-");
	}
}

static int setup(struct tool_section *s)
{
	struct resets *r = s->priv;

	if (s->env->reader != 'r')
		tool_section_missing(s, 0, "resets are keyed by socket pointers, and the binary "
				     "buffers (trace_pipe_raw) are not available");
	else if (!ftn_event_exists("tcp", "tcp_send_reset"))
		tool_section_missing(s, 0, "no tcp:tcp_send_reset tracepoint on this kernel (4.16+)");
	else if (!(r->dec = ftn_reset_dec_alloc()))
		tool_section_missing(s, -errno, "cannot read the tcp:tcp_send_reset format");
	else if (!tool_section_add_event(s, "tcp", "tcp_send_reset", NULL) &&
		 (!ftn_event_exists("tcp", "tcp_receive_reset") ||
		  !tool_section_add_event(s, "tcp", "tcp_receive_reset", NULL)))
		s->have = 1;
	if (s->have && !ftn_reset_tp_every(r->dec))
		tool_info("this kernel's tcp:tcp_send_reset fires for full sockets only: resets "
			  "for segments without one are not traced");
	return 0;
}

/* every event the other sections did not take: the decoder's to keep or not */
static int event(struct tool_section *s, const struct ftn_event *ev)
{
	struct resets *r = s->priv;

	if (!r->dec)
		return 0;
	ftn_reset_feed(r->dec, ev, count, s);
	return 1;
}

static void batch(struct tool_section *s)
{
	struct resets *r = s->priv;

	if (r->dec)
		ftn_reset_flush(r->dec, count, s);
}

static void end(struct tool_section *s, int err)
{
	(void)err;
	batch(s);
}

static void fini(struct tool_section *s)
{
	ftn_reset_dec_free(((struct resets *)s->priv)->dec);
}

static uint64_t traced(const struct tool_section *s)
{
	const struct resets *r = s->priv;

	return r->sent + r->received;
}

static void json_head(const struct tool_section *s, struct tool_json *j)
{
	const struct resets *r = s->priv;

	tool_json_uint(j, "sent", r->sent);
	tool_json_uint(j, "received", r->received);
}

uint64_t tool_section_resets_sent(const struct tool_section *s)
{
	return ((const struct resets *)s->priv)->sent;
}

static const struct tool_col cols[] = {
	{ "COUNT", "count", 8, TOOL_COL_UINT, 0, TOOL_SRC_N },
	{ "DIR", "dir", -44, TOOL_COL_STR, 0, TOOL_SRC_LABEL(0) },
	{ "REASON", "reason", 0, TOOL_COL_STR, 0, TOOL_SRC_LABEL(1) },
};

const struct tool_section_ops tool_section_resets = {
	.name = "resets",
	.head = "Resets by direction and reason (tcp:tcp_send_reset, tcp_receive_reset)",
	.cols = cols, .ncols = 3, .nlabels = 2,
	.priv_size = sizeof(struct resets),
	.prom_name = "ftnet_netreport_resets_total",
	.prom_help = "TCP resets during the run, by direction and reason.",
	.fini = fini, .setup = setup, .event = event, .batch = batch, .end = end,
	.traced = traced, .json_head = json_head,
};
