// SPDX-License-Identifier: GPL-2.0
/*
 * prom.c - Prometheus text exposition for node_exporter's textfile
 * collector (--prom FILE). The file is rewritten whole: a new file of a
 * random dotted name in FILE's directory is written, flushed and renamed
 * over FILE, so a reader sees the old or the new file, never a part.
 */
#include "common.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define PROM_MAX_COUNTERS 8
#define PROM_MAX_GAUGES 4

struct prom_counter {
	char *name, *help;              /* copies */
	struct tool_counter *c;
	int which;
	char *labels[TOOL_COUNTER_MAX_LABELS + 1];      /* copies, NULL-ended */
	size_t top;
};

struct tool_prom {
	char *path, *tmp;               /* tmp: ".BASE.XXXXXX", in dirfd */
	const char *base;               /* FILE's last component, in path */
	int dirfd;                      /* FILE's directory, resolved once */
	const char *tool;
	struct prom_counter counters[PROM_MAX_COUNTERS];
	int ncounters;
	struct { char *name, *help; int64_t v; } gauges[PROM_MAX_GAUGES];  /* copies */
	int ngauges;
	/* the tool's own families (tool_prom_extra), after the counters */
	void (*extra)(void *ctx, FILE *f);
	void *extra_ctx;
	uint64_t lost_ring, lost_uncounted;
};

/*
 * A new file in FILE's directory under a random dotted name: the textfile
 * collector reads *.prom only, so it never sees a file being written.
 * The directory's owner (the exporter's account) may plant anything at
 * any name there: O_CREAT|O_EXCL never opens what a name already holds,
 * a symlink included (O_NOFOLLOW only says it again), it only makes the
 * name be drawn again. Mode 0644 whatever the umask. The descriptor
 * (p->tmp holds its name), or -errno.
 */
static int tmp_create(struct tool_prom *p)
{
	static const char set[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
	static uint64_t seq;
	char *x = p->tmp + strlen(p->tmp) - 6;

	for (int tries = 0; tries < 100; tries++) {
		unsigned char rnd[6];
		int fd, err;

		if (getrandom(rnd, sizeof(rnd), GRND_NONBLOCK) != (ssize_t)sizeof(rnd)) {
			/* no entropy yet: the names are guessable, which costs
			 * draws, never safety (O_EXCL is the guard) */
			struct timespec ts;
			uint64_t v;

			clock_gettime(CLOCK_MONOTONIC, &ts);
			v = ((uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 32) ^ ++seq) * 0x9e3779b97f4a7c15ULL;
			for (size_t i = 0; i < sizeof(rnd); i++)
				rnd[i] = (unsigned char)(v >> (8 * i + 8));
		}
		for (int i = 0; i < 6; i++)
			x[i] = set[rnd[i] % (sizeof(set) - 1)];
		fd = openat(p->dirfd, p->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0) {
			if (errno == EEXIST)
				continue;
			return -errno;
		}
		if (fchmod(fd, 0644) == 0)
			return fd;
		err = -errno;
		close(fd);
		unlinkat(p->dirfd, p->tmp, 0);
		return err;
	}
	return -EEXIST;
}

struct tool_prom *tool_prom_alloc(const char *path, const char *tool)
{
	struct tool_prom *p;
	const char *slash;
	char *dir;
	int fd, err;

	if (!path || !*path || !tool) {
		errno = EINVAL;
		return NULL;
	}
	if (!(p = calloc(1, sizeof(*p))))
		return NULL;
	p->tool = tool;
	p->dirfd = -1;
	if (!(p->path = strdup(path))) {
		err = ENOMEM;
		goto fail;
	}
	slash = strrchr(p->path, '/');
	p->base = slash ? slash + 1 : p->path;
	if (!*p->base || !strcmp(p->base, ".") || !strcmp(p->base, "..")) {
		err = EISDIR;
		goto fail;
	}
	/* the directory is resolved here, once: the files are made and
	 * renamed in the directory the path named at the start, even if a
	 * component of it is replaced later */
	if (!(dir = slash ? strndup(p->path, slash == p->path ? 1 : (size_t)(slash - p->path)) : strdup(".")) ||
	    asprintf(&p->tmp, ".%.200s.XXXXXX", p->base) < 0) {
		p->tmp = NULL;
		free(dir);
		err = ENOMEM;
		goto fail;
	}
	p->dirfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	err = errno;
	free(dir);
	if (p->dirfd < 0)
		goto fail;
	/* whether FILE can be written, by the same safe creation: never by
	 * opening FILE or a fixed name next to it */
	if ((fd = tmp_create(p)) < 0) {
		err = -fd;
		goto fail;
	}
	close(fd);
	unlinkat(p->dirfd, p->tmp, 0);
	return p;
fail:
	tool_prom_free(p);
	errno = err;
	return NULL;
}

static void counter_release(struct prom_counter *pc)
{
	free(pc->name);
	free(pc->help);
	for (int i = 0; pc->labels[i]; i++)
		free(pc->labels[i]);
	memset(pc, 0, sizeof(*pc));
}

void tool_prom_free(struct tool_prom *p)
{
	if (!p)
		return;
	for (int i = 0; i < p->ncounters; i++)
		counter_release(&p->counters[i]);
	for (int i = 0; i < p->ngauges; i++) {
		free(p->gauges[i].name);
		free(p->gauges[i].help);
	}
	if (p->dirfd >= 0)
		close(p->dirfd);
	free(p->path);
	free(p->tmp);
	free(p);
}

static int valid_name(const char *s)
{
	if (!s || !*s || !(((*s | 0x20) >= 'a' && (*s | 0x20) <= 'z') || *s == '_' || *s == ':'))
		return 0;
	for (s++; *s; s++)
		if (!(((*s | 0x20) >= 'a' && (*s | 0x20) <= 'z') || (*s >= '0' && *s <= '9') ||
		      *s == '_' || *s == ':'))
			return 0;
	return 1;
}

int tool_prom_counter(struct tool_prom *p, const char *name, const char *help,
		      struct tool_counter *c, int which,
		      const char *const *label_names, size_t top)
{
	size_t n = name ? strlen(name) : 0, nl = 0;
	struct prom_counter *pc;

	if (!valid_name(name) || n < 7 || strcmp(name + n - 6, "_total") || !c)
		return -EINVAL;
	for (; label_names && label_names[nl]; nl++)
		if (nl == TOOL_COUNTER_MAX_LABELS || !valid_name(label_names[nl]) ||
		    strchr(label_names[nl], ':'))
			return -EINVAL;
	if (p->ncounters == PROM_MAX_COUNTERS)
		return -ENOMEM;
	/* copies: the caller's strings need not outlive the call */
	pc = &p->counters[p->ncounters];
	memset(pc, 0, sizeof(*pc));
	pc->name = strdup(name);
	pc->help = strdup(help ? help : name);
	for (size_t i = 0; i < nl; i++)
		if (!(pc->labels[i] = strdup(label_names[i])))
			break;
	if (!pc->name || !pc->help || (nl && !pc->labels[nl - 1])) {
		counter_release(pc);
		return -ENOMEM;
	}
	pc->c = c;
	pc->which = which;
	pc->top = top;
	p->ncounters++;
	return 0;
}

int tool_prom_gauge(struct tool_prom *p, const char *name, const char *help, int64_t v)
{
	char *n, *h;

	if (!valid_name(name) || (strlen(name) >= 6 && !strcmp(name + strlen(name) - 6, "_total")))
		return -EINVAL;
	for (int i = 0; i < p->ngauges; i++)
		if (!strcmp(p->gauges[i].name, name)) {
			p->gauges[i].v = v;
			return 0;
		}
	if (p->ngauges == PROM_MAX_GAUGES)
		return -ENOMEM;
	n = strdup(name);
	h = strdup(help ? help : name);
	if (!n || !h) {
		free(n);
		free(h);
		return -ENOMEM;
	}
	p->gauges[p->ngauges].name = n;
	p->gauges[p->ngauges].help = h;
	p->gauges[p->ngauges++].v = v;
	return 0;
}

void tool_prom_extra(struct tool_prom *p, void (*fn)(void *ctx, FILE *f), void *ctx)
{
	p->extra = fn;
	p->extra_ctx = ctx;
}

void tool_prom_set_lost(struct tool_prom *p, uint64_t ring, uint64_t not_counted)
{
	p->lost_ring = ring;
	p->lost_uncounted = not_counted;
}

/* label i of a row: "other" for the summed rest, "" when it has none
 * (an empty label value is the same as no label to Prometheus) */
static void sample(FILE *f, const struct prom_counter *pc,
		   const struct tool_counter_row *row, uint64_t v)
{
	fputs(pc->name, f);
	if (pc->labels[0]) {
		putc('{', f);
		for (size_t i = 0; pc->labels[i]; i++) {
			fprintf(f, "%s%s=\"", i ? "," : "", pc->labels[i]);
			tool_prom_escape(f, row ? row->label[i] : "other");
			putc('"', f);
		}
		putc('}', f);
	}
	fprintf(f, " %llu\n", (unsigned long long)v);
}

int tool_prom_print(struct tool_prom *p, FILE *f)
{
	for (int i = 0; i < p->ncounters; i++) {
		const struct prom_counter *pc = &p->counters[i];
		struct tool_counter_row **rows;
		uint64_t rest[2];
		long n;

		/* cumulative totals of the run, the top rows by total: a key
		 * that falls out moves into "other", which never goes down */
		n = tool_counter_sorted(pc->c, 1, pc->top, &rows, rest);
		if (n < 0)
			return (int)n;
		tool_prom_head(f, pc->name, pc->help, "counter");
		for (long k = 0; k < n; k++)
			if (!pc->which || !rows[k]->n2_unknown)
				sample(f, pc, rows[k], pc->which ? rows[k]->total2 : rows[k]->total);
		/* "other": what the cut left out and what eviction summed */
		if ((pc->top && tool_counter_count(pc->c) > pc->top) || tool_counter_evicted(pc->c) ||
		    rest[0] || rest[1])
			sample(f, pc, NULL, rest[pc->which ? 1 : 0]);
		else if (!n && !pc->labels[0])
			sample(f, pc, NULL, 0);
	}
	for (int i = 0; i < p->ngauges; i++) {
		tool_prom_head(f, p->gauges[i].name, p->gauges[i].help, "gauge");
		fprintf(f, "%s %lld\n", p->gauges[i].name, (long long)p->gauges[i].v);
	}
	if (p->extra)
		p->extra(p->extra_ctx, f);
	tool_prom_head(f, "ftnet_lost_events_total",
	     "Events the tool could not see or count: lost in a ring buffer, or not counted (a full hist table, no memory).",
	     "counter");
	fputs("ftnet_lost_events_total{tool=\"", f);
	tool_prom_escape(f, p->tool);
	fprintf(f, "\",cause=\"ring_buffer\"} %llu\n", (unsigned long long)p->lost_ring);
	fputs("ftnet_lost_events_total{tool=\"", f);
	tool_prom_escape(f, p->tool);
	fprintf(f, "\",cause=\"not_counted\"} %llu\n", (unsigned long long)p->lost_uncounted);
	/* not lost: their counts are in "other"; only the series is gone */
	if (p->ncounters)
		tool_prom_head(f, "ftnet_series_evicted_total",
		     "Series a counter stopped keeping, past --max-series keys: their values are summed into its \"other\" series.",
		     "counter");
	for (int i = 0; i < p->ncounters; i++) {
		fputs("ftnet_series_evicted_total{tool=\"", f);
		tool_prom_escape(f, p->tool);
		fprintf(f, "\",metric=\"%s\"} %llu\n", p->counters[i].name,
			(unsigned long long)tool_counter_evicted(p->counters[i].c));
	}
	tool_prom_head(f, "ftnet_run_info", "An ftnet tool is running (always 1), with its version.", "gauge");
	fputs("ftnet_run_info{tool=\"", f);
	tool_prom_escape(f, p->tool);
	fputs("\",version=\"", f);
	tool_prom_escape(f, FTNET_VERSION);
	fputs("\"} 1\n", f);
	return ferror(f) ? -EIO : 0;
}

int tool_prom_write(struct tool_prom *p)
{
	int fd = tmp_create(p), err;
	FILE *f;

	if (fd < 0)
		return fd;
	if (!(f = fdopen(fd, "w"))) {
		err = -errno;
		close(fd);
		unlinkat(p->dirfd, p->tmp, 0);
		return err;
	}
	err = tool_prom_print(p, f);
	/* rename() replaces the file atomically for readers; a FILE that is
	 * a symlink is replaced, never followed. No fsync: a crash loses at
	 * most one interval, and the collector reads again */
	if (fflush(f) != 0 && !err)
		err = -errno;
	if (fclose(f) != 0 && !err)
		err = -errno;
	if (!err && renameat(p->dirfd, p->tmp, p->dirfd, p->base) != 0)
		err = -errno;
	/* the name this call made, no other. Should the directory's owner
	 * have put something else there since, unlinking it removes a name
	 * of theirs from their directory: no file is written or followed */
	if (err)
		unlinkat(p->dirfd, p->tmp, 0);
	return err;
}
