// SPDX-License-Identifier: GPL-2.0
/* sysio.c - the library's one whole-file reader, its one file writer, its
 * one clock helper and the /proc root. A leaf unit: it calls nothing else
 * in lib/, so every other file may use it without creating a cycle. */
#include "ftnet_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int64_t ftn__clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

const char *ftn__proc_root(void)
{
	const char *env = getenv("FTNET_PROC");

	return env && *env ? env : "/proc";
}

/* read() until EOF or until size bytes are in; EINTR is retried. Bytes
 * read or -errno. */
static ssize_t read_fd(int fd, char *buf, size_t size)
{
	size_t got = 0;

	while (got < size) {
		ssize_t n = read(fd, buf + got, size - got);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	return (ssize_t)got;
}

int ftn__file_slurp(const char *path, char **out, size_t *outlen)
{
	return ftn__file_slurp_max(path, 0, out, outlen);
}

int ftn__file_slurp_max(const char *path, size_t max, char **out, size_t *outlen)
{
	struct stat st;
	size_t cap = 16384, len = 0;
	char *buf;
	int fd, err;

	*out = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* procfs and tracefs report st_size 0 (or a page): it is only a
	 * first guess, the loop reads to EOF whatever it says. */
	if (fstat(fd, &st) == 0 && st.st_size > 0 && (uint64_t)st.st_size < SIZE_MAX / 2)
		cap = (size_t)st.st_size + 1;
	buf = malloc(cap);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	for (;;) {
		size_t want;
		ssize_t n;

		if (max && len > max) {
			err = -EFBIG;
			goto fail;
		}
		if (cap - len < 2) {
			char *nb = cap > SIZE_MAX / 2 ? NULL : realloc(buf, cap * 2);

			if (!nb) {
				err = -ENOMEM;
				goto fail;
			}
			buf = nb;
			cap *= 2;
		}
		want = cap - len - 1;
		n = read_fd(fd, buf + len, want);
		if (n < 0) {
			err = (int)n;
			goto fail;
		}
		len += (size_t)n;
		if ((size_t)n < want)
			break;          /* read_fd stops short only at EOF */
	}
	close(fd);
	if (max && len > max) {
		free(buf);
		return -EFBIG;
	}
	buf[len] = '\0';
	*out = buf;
	if (outlen)
		*outlen = len;
	return 0;
fail:
	close(fd);
	free(buf);
	return err;
}

ssize_t ftn__read_file(const char *path, char *buf, size_t size)
{
	ssize_t n;
	int fd;

	if (!size)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read_fd(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return n;
	buf[n] = '\0';
	return n;
}

int ftn__write_file(const char *path, const char *str, int flags)
{
	size_t len = strlen(str);
	int fd = open(path, O_WRONLY | O_CLOEXEC | flags);
	ssize_t n;

	if (fd < 0)
		return -errno;
	do {
		n = write(fd, str, len);
	} while (n < 0 && errno == EINTR);
	if (n < 0) {
		int err = -errno;

		close(fd);
		return err;
	}
	if (close(fd) < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EIO;
}
