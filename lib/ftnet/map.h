/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ftnet/map.h - the one hash map of libftnet and its tools (lib/trace/map.c).
 * Included by <ftnet.h>, the one public include (it defines FTN_EXPORT):
 * never on its own.
 *
 * A u64 key to a value of a size fixed at allocation (a pointer, a
 * counter, a small struct: stored in the slot, so an insert allocates
 * nothing), open addressing with linear probing, each map hashing under
 * its own random seed (a key set chosen by a remote peer cannot pile up in
 * one probe run), deletion by backward shift (no tombstones: a probe run
 * stays as short as its live entries). The slots grow by doubling up to
 * the most entries the caller allows; a full map refuses the insert and
 * the caller's policy (start over, evict, count a drop) decides.
 *
 * Key 0 is no key (an empty slot): every table ftnet keeps is keyed by
 * something that is never 0 (a kernel pointer, a TID, an inode).
 * A value pointer the map returns is valid until the next insert or
 * delete. Not thread-safe: one map, one thread (or the caller's lock).
 */
#ifndef FTNET_MAP_H
#define FTNET_MAP_H

#ifndef FTNET_H
#error "include <ftnet.h>, not <ftnet/map.h>"
#endif

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct ftn_map;

/* A map of values of val_size bytes (0: a set of keys), holding at most
 * max entries (SIZE_MAX: as many as memory allows); its first slots for
 * init entries (0: a small default), doubled as it fills. Freed with
 * ftn_map_free(). NULL + errno (EINVAL: max is 0; ENOMEM). */
FTN_EXPORT struct ftn_map *ftn_map_alloc(size_t val_size, size_t init, size_t max);
FTN_EXPORT void ftn_map_free(struct ftn_map *m);
/* The value of key, NULL when it is not in (or key is 0, or m NULL). */
FTN_EXPORT void *ftn_map_get(const struct ftn_map *m, uint64_t key);
/* The value of key, inserted zeroed when it was not in (*added = 1, else
 * 0; added may be NULL). NULL + errno: EINVAL (key 0), ENOSPC (max
 * entries already in), ENOMEM (the slots could not grow). */
FTN_EXPORT void *ftn_map_put(struct ftn_map *m, uint64_t key, int *added);
/* Remove key: 0, or -ENOENT when it was not in. */
FTN_EXPORT int ftn_map_del(struct ftn_map *m, uint64_t key);
FTN_EXPORT size_t ftn_map_count(const struct ftn_map *m);

/* Iteration, in no particular order, every entry once:
 *   struct ftn_map_iter it;
 *   for (ftn_map_iter_init(&it, m); (v = ftn_map_iter_next(&it, m, &key));)
 *           if (old(v)) ftn_map_iter_del(&it, m);
 * No insert while iterating; the one delete allowed is ftn_map_iter_del
 * of the entry the last next returned. */
struct ftn_map_iter {
	size_t pos, left;
};
FTN_EXPORT void ftn_map_iter_init(struct ftn_map_iter *it, const struct ftn_map *m);
/* The next entry's value (its key in *key when key is not NULL), NULL at
 * the end. */
FTN_EXPORT void *ftn_map_iter_next(struct ftn_map_iter *it, const struct ftn_map *m,
				   uint64_t *key);
/* Remove the entry the last ftn_map_iter_next returned; the iteration
 * goes on with the entries not seen yet. */
FTN_EXPORT void ftn_map_iter_del(struct ftn_map_iter *it, struct ftn_map *m);

#ifdef __cplusplus
}
#endif
#endif /* FTNET_MAP_H */
