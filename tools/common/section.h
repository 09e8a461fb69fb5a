/* SPDX-License-Identifier: GPL-2.0 */
/*
 * section.h - report sections (section*.c): netreport's traced sections as
 * data, the run's environment they share, their renderers, and
 * skb:kfree_skb counted per location and reason.
 */
#ifndef FTNET_TOOLS_SECTION_H
#define FTNET_TOOLS_SECTION_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

struct tool_col;
struct tool_counter;
struct tool_opts;
struct tool_prom;

/*
 * A section is one kind of traced event (retransmits, drops, resets): the
 * events it enables, how it counts them into rows of a tool_counter, its
 * columns, and the few lines of its own; one renderer walks sections x
 * columns for text, JSON and Prometheus. The run's environment (instance,
 * reader, events enabled, counts not made) is shared by the sections. */
struct tool_json;
struct tool_section_env {
	struct ftn_instance *inst;
	int reader;                     /* tool_reader's */
	pid_t pid;                      /* -N PID: owners of its namespace */
	const char *evs[16];            /* the run's events, "sys/event" */
	char evname[16][64];
	int nevs;
	int perm;                       /* a section is missing for lack of privileges */
	uint64_t uncounted;             /* events no row could take (out of memory) */
	uint64_t lost;                  /* events lost (ring buffer, unread, unparsed) */
	/* the run's sections: an event goes to each in turn until one takes
	 * it (the last may take every event the others did not) */
	struct tool_section *sec[5];
	size_t nsec;
	/* the run's delta of a counter's key, *found set (sections that
	 * compare their counts with the kernel's) */
	int64_t (*delta)(const void *ctx, const char *key, int *found);
	const void *ctx;
};
struct tool_section;
struct tool_section_ops {
	const char *name;               /* "retransmits": JSON object, traced.NAME */
	const char *head;               /* the text heading */
	/* the rows' columns: the values (TOOL_SRC_N, _N2), then the labels
	 * (TOOL_SRC_LABEL(i); TOOL_COL_INT: a number in JSON) */
	const struct tool_col *cols;
	size_t ncols;
	int nlabels;
	size_t priv_size;               /* the section's own state, zeroed */
	int stacks;                     /* its events want stacks */
	/* --prom: the rows as NAME{labels...}, the labels named by their
	 * columns' keys (prom_labels: of prom_rows' own rows); top: the
	 * --top cut applies */
	const char *prom_name, *prom_help;
	const char *const *prom_labels;
	int prom_top;
	int (*init)(struct tool_section *s);            /* 0 or -ENOMEM */
	void (*fini)(struct tool_section *s);
	int (*setup)(struct tool_section *s);           /* have/why set; <0: fatal */
	int (*event)(struct tool_section *s, const struct ftn_event *ev);     /* 1: taken */
	void (*batch)(struct tool_section *s);
	void (*end)(struct tool_section *s, int err);   /* the events read */
	uint64_t (*traced)(const struct tool_section *s);
	void (*text_tail)(const struct tool_section *s, FILE *f);
	void (*json_head)(const struct tool_section *s, struct tool_json *j);
	/* the counter --prom exports (default: the rows); NULL + said: fail */
	struct tool_counter *(*prom_rows)(struct tool_section *s);
	/* its events joined across CPUs: read in time order (the consumer's
	 * ordered); lost: events of cpu (-1 any) lost, the joins they break */
	int ordered;
	void (*lost)(struct tool_section *s, int cpu);
	/* a section that is not rows renders itself: the text under its
	 * heading, the JSON members after traced and why, its --prom
	 * families (0, or the error said); the rows' walk is not done */
	void (*text)(const struct tool_section *s, FILE *f);
	void (*json)(const struct tool_section *s, struct tool_json *j);
	int (*prom)(struct tool_section *s, struct tool_prom *p);
};
struct tool_section {
	const struct tool_section_ops *ops;
	struct tool_section_env *env;
	int have;                       /* traced */
	char why[200];                  /* not traced: why */
	struct tool_counter *rows;
	void *priv;                     /* ops->priv_size bytes */
};
extern const struct tool_section_ops tool_section_retrans, tool_section_drops, tool_section_resets,
	tool_section_latency;
/* The run's sections set up in one instance of tool's (none with no_trace;
 * not permitted: each missing, and the error when require) */
int tool_sections_setup(struct tool_section_env *e, const char *tool, const struct tool_opts *o,
			int no_trace, int require);
/* The run: its sections traced for duration seconds (slept through when
 * none is traced), then each told the end. 0 or the error, said. */
int tool_sections_run(struct tool_section_env *e, double duration);
/* A section of ops over env: NULL (errno ENOMEM). Free with tool_section_free. */
struct tool_section *tool_section_alloc(const struct tool_section_ops *ops, struct tool_section_env *env);
void tool_section_free(struct tool_section *s);
/* Not traced: why is msg, and err's text when err */
void tool_section_missing(struct tool_section *s, int err, const char *msg);
/* sys:ev with filter enabled in env's instance and kept for the reader;
 * on failure the section is missing */
int tool_section_add_event(struct tool_section *s, const char *sys, const char *ev, const char *filter);
/* The report's parts: a name escaped for it ('|' too: --check's long
 * output), the section as text (heading, rows or why it is missing) and
 * as a JSON object, its rows as a --prom counter (0, or the error said) */
void tool_section_name(FILE *f, const char *s, int width, int sep);
void tool_section_text(const struct tool_section *s, FILE *f, size_t top);
void tool_section_json(const struct tool_section *s, struct tool_json *j, size_t top);
int tool_section_prom(struct tool_section *s, struct tool_prom *p, size_t top);
/* netreport's cross-check: per row (retransmitted segments, UDP
 * no-socket drops, resets sent) whether traced and the count, and the
 * counters' delta (the sections' env delta), found or not */
struct tool_xcheck { int have; uint64_t traced; int64_t counted; int found; };
void tool_section_xcheck(const struct tool_section *retrans, const struct tool_section *drops,
			 const struct tool_section *resets, struct tool_xcheck x[3]);
/* the resets section's resets sent (Tcp.OutRsts counts these) */
uint64_t tool_section_resets_sent(const struct tool_section *s);
/* skb:kfree_skb counted per (location, reason), as tcpdrop -c and
 * netreport count it: keyed on the numbers (binary) or the names (text,
 * n drops; a hist table's), labelled location and reason (NULL when
 * !has_reason). The row, or NULL when out of memory. */
struct tool_counter_row *tool_drop_count(struct tool_counter *c, const struct ftn_event *ev, int has_reason);
struct tool_counter_row *tool_drop_count_names(struct tool_counter *c, const char *loc,
					       const char *reason, uint64_t n, int has_reason);

#endif /* FTNET_TOOLS_SECTION_H */
