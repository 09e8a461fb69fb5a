/* tap.h - minimal TAP output for ftnet's C unit tests.
 * Each check prints "ok N - name" or "not ok N - name"; tests/run.sh counts
 * them across every tier. tap_done() returns the exit status. */
#ifndef FTNET_TAP_H
#define FTNET_TAP_H
#include <stdio.h>
#include <string.h>
#include <stdarg.h>
#include <stdlib.h>
#include <fcntl.h>
#include <unistd.h>

static int tap_n, tap_fail;

static inline int tap_ok(int cond, const char *fmt, ...)
{
	va_list ap;
	printf("%sok %d - ", cond ? "" : "not ", ++tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!cond)
		tap_fail++;
	fflush(stdout);
	return cond;
}

#define ok(cond, ...) tap_ok(!!(cond), __VA_ARGS__)
#define is_int(got, want, name) do { long long g_ = (got), w_ = (want); \
	if (!tap_ok(g_ == w_, "%s", name)) \
		printf("#   got %lld, want %lld\n", g_, w_); } while (0)
#define is_str(got, want, name) do { const char *g_ = (got), *w_ = (want); \
	if (!tap_ok(g_ && w_ && !strcmp(g_, w_), "%s", name)) \
		printf("#   got '%s', want '%s'\n", g_ ? g_ : "(null)", w_ ? w_ : "(null)"); } while (0)

static inline void tap_skip(const char *name, const char *why)
{
	printf("ok %d - %s # SKIP %s\n", ++tap_n, name, why);
}

/* Write text to path (a file of a fake tree); a failure shows up in the
 * checks that read it back. */
static inline void tap_put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* Read a whole file (fixtures, /proc files whose size reads as 0) into a
 * NUL-terminated buffer the caller frees; its length in *lenp when given.
 * NULL when it cannot be read. */
static inline char *tap_slurp(const char *path, size_t *lenp)
{
	size_t cap = 4096, len = 0;
	char *buf = malloc(cap);
	int fd = open(path, O_RDONLY);
	ssize_t r;

	if (fd < 0 || !buf) {
		if (fd >= 0)
			close(fd);
		free(buf);
		return NULL;
	}
	for (;;) {
		if (cap - len < 1024) {
			char *nb = realloc(buf, cap * 2);

			if (!nb) {
				free(buf);
				close(fd);
				return NULL;
			}
			buf = nb;
			cap *= 2;
		}
		r = read(fd, buf + len, cap - len - 1);
		if (r <= 0)
			break;
		len += (size_t)r;
	}
	close(fd);
	buf[len] = '\0';
	if (lenp)
		*lenp = len;
	return buf;
}

static inline int tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_fail ? 1 : 0;
}
#endif
