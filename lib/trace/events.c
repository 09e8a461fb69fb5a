// SPDX-License-Identifier: GPL-2.0
/*
 * events.c - what tracefs offers: the events of the top-level events/
 * directory (for tpoint -l) and an event's format file as the kernel
 * prints it (for kprobe/tpoint -v). The printing and spec parsing the
 * generic tracers do is tool policy, in tools/common/.
 */
#include "ftnet_int.h"

#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int ftn_event_list(const char *glob, int (*fn)(void *ctx, const char *sys,
					       const char *event), void *ctx)
{
	char top[PATH_MAX], path[PATH_MAX * 2];
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de, *de2;
	DIR *d, *d2;
	int err = 0, count = 0;

	if ((err = ftn_tracefs_path(NULL, "events", top, sizeof(top))))
		return err;
	if (!(d = opendir(top)))
		return -errno;
	while (!err && (de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", top, de->d_name);
		/* header_page, enable and friends are files */
		if (!is_dir(path) || !(d2 = opendir(path)))
			continue;
		while (!err && (de2 = readdir(d2)) != NULL) {
			char sub[PATH_MAX * 3], *name;

			if (de2->d_name[0] == '.')
				continue;
			snprintf(sub, sizeof(sub), "%s/%s", path, de2->d_name);
			if (!is_dir(sub))
				continue;
			if (asprintf(&name, "%s:%s", de->d_name, de2->d_name) < 0) {
				err = -ENOMEM;
				break;
			}
			if (glob && *glob && fnmatch(glob, name, 0) != 0) {
				free(name);
				continue;
			}
			if (n == cap) {
				size_t nc = cap ? cap * 2 : 256;
				char **nn = realloc(names, nc * sizeof(*names));

				if (!nn) {
					free(name);
					err = -ENOMEM;
					break;
				}
				names = nn;
				cap = nc;
			}
			names[n++] = name;
		}
		closedir(d2);
	}
	closedir(d);
	if (!err && n)
		qsort(names, n, sizeof(*names), cmp_str);
	for (size_t i = 0; i < n; i++) {
		if (!err && fn) {
			char *colon = strchr(names[i], ':');

			*colon = '\0';
			if (fn(ctx, names[i], colon + 1))
				fn = NULL;      /* stop calling, keep freeing */
		}
		free(names[i]);
	}
	free(names);
	if (err)
		return err;
	count = (int)n;
	return count;
}

int ftn_event_format_print(FILE *f, const char *sys, const char *event)
{
	char rel[2 * FTN_NAME_MAX + 16];
	char *buf;
	int err;

	if (!sys || !event)
		return -EINVAL;
	snprintf(rel, sizeof(rel), "events/%s/%s/format", sys, event);
	err = ftn__tracefs_slurp(NULL, rel, &buf, NULL);
	if (err)
		return err;
	fputs(buf, f);
	fflush(f);
	free(buf);
	return 0;
}
