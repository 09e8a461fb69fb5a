// SPDX-License-Identifier: GPL-2.0
/*
 * section_drops.c - drops per location and reason (skb:kfree_skb): the
 * counting tcpdrop -c and netreport share, and netreport's section of them.
 */
#include "common.h"

#include <stdio.h>
#include <string.h>

/* A new key gets its names once (from ev when set) */
static struct tool_counter_row *add(struct tool_counter *c, const void *key, size_t len, uint64_t n,
				    const struct ftn_event *ev, const char *loc, const char *reason,
				    int has_reason)
{
	char lbuf[600];
	int is_new;
	struct tool_counter_row *row = tool_counter_add(c, key, len, n, 0, &is_new);

	if (!row || !is_new)
		return row;
	if (ev) {
		loc = tool_sym_clean(ftn_event_str(ev, "location") ?: "?", lbuf, sizeof(lbuf));
		reason = has_reason ? ftn_event_str(ev, "reason") : NULL;
		reason = reason ? reason : "-";
	}
	tool_counter_set_label(c, row, 0, loc);
	tool_counter_set_label(c, row, 1, has_reason ? reason : NULL);
	return row;
}

struct tool_counter_row *tool_drop_count_names(struct tool_counter *c, const char *loc,
					       const char *reason, uint64_t n, int has_reason)
{
	char key[768];       /* KSYM_NAME_LEN 512 + offset + module + reason */
	int len = snprintf(key, sizeof(key), "%s%c%s", loc, 0, reason);

	return add(c, key, len < (int)sizeof(key) ? (size_t)len : sizeof(key) - 1, n, NULL, loc,
		   reason, has_reason);
}

struct tool_counter_row *tool_drop_count(struct tool_counter *c, const struct ftn_event *ev, int has_reason)
{
	uint64_t key[2] = { 0, 0 };
	const char *reason;
	char loc[600];

	if (ev->raw) {          /* text: the names are the key */
		tool_sym_clean(ftn_event_str(ev, "location") ?: "?", loc, sizeof(loc));
		reason = has_reason ? ftn_event_str(ev, "reason") : NULL;
		return tool_drop_count_names(c, loc, reason ? reason : "-", 1, has_reason);
	}
	/* binary: key on the numbers, symbolise new keys only */
	ftn_event_u64(ev, "location", &key[0]);
	if (has_reason)
		ftn_event_u64(ev, "reason", &key[1]);
	return add(c, key, sizeof(key), 1, ev, NULL, NULL, has_reason);
}

/* ---- netreport's section ---- */

struct drops { uint64_t events; };

static int setup(struct tool_section *s)
{
	if (!ftn_event_exists("skb", "kfree_skb"))
		tool_section_missing(s, 0, "no skb:kfree_skb tracepoint on this kernel");
	else
		s->have = !tool_section_add_event(s, "skb", "kfree_skb", NULL);
	return 0;
}

/* the reason read where the event has one ("-" where not) */
static int event(struct tool_section *s, const struct ftn_event *ev)
{
	struct drops *d = s->priv;

	if (strcmp(ev->name, "kfree_skb"))
		return 0;
	d->events++;
	if (!tool_drop_count(s->rows, ev, 1))
		s->env->uncounted++;
	return 1;
}

static uint64_t traced(const struct tool_section *s)
{
	return ((const struct drops *)s->priv)->events;
}

static void json_head(const struct tool_section *s, struct tool_json *j)
{
	tool_json_uint(j, "drops", traced(s));
}

static const struct tool_col cols[] = {
	{ "COUNT", "count", 8, TOOL_COL_UINT, 0, TOOL_SRC_N },
	{ "LOCATION", "location", -44, TOOL_COL_STR, 0, TOOL_SRC_LABEL(0) },
	{ "REASON", "reason", 0, TOOL_COL_STR, 0, TOOL_SRC_LABEL(1) },
};

const struct tool_section_ops tool_section_drops = {
	.name = "drops",
	.head = "Top drop locations and reasons (skb:kfree_skb)",
	.cols = cols, .ncols = 3, .nlabels = 2,
	.priv_size = sizeof(struct drops),
	.prom_name = "ftnet_netreport_drops_total",
	.prom_help = "Packets dropped during the run (skb:kfree_skb), top locations and reasons.",
	.prom_top = 1,
	.setup = setup, .event = event, .traced = traced, .json_head = json_head,
};
