// SPDX-License-Identifier: GPL-2.0
/*
 * map.c - the one hash map (ftnet/map.h): u64 keys, values of a fixed
 * size stored in the slots, open addressing with linear probing under a
 * per-map random seed, backward-shift deletion, growth by doubling up to
 * the caller's bound.
 *
 * A slot is its key (0: empty) followed by the value, padded to 8 bytes.
 * At most three quarters of the slots are used, so a probe run always
 * ends at an empty slot. Deleting an entry moves back the entries after
 * it in its run that could not be found across the hole (those whose home
 * slot is not cyclically between the hole and where they are), so no
 * tombstone is left and lookups stay correct.
 */
#include "ftnet_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MAP_MIN_SLOTS 8

struct ftn_map {
	unsigned char *slot;
	size_t stride;          /* bytes per slot: key + value, padded */
	size_t vsize;
	size_t mask;            /* slots - 1; slots is 0 before the first put */
	size_t n, max;
	uint64_t seed;
};

static inline uint64_t *slot_key(const struct ftn_map *m, size_t i)
{
	return (uint64_t *)(void *)(m->slot + i * m->stride);
}

static inline void *slot_val(const struct ftn_map *m, size_t i)
{
	return m->slot + i * m->stride + sizeof(uint64_t);
}

size_t ftn__map_home(const struct ftn_map *m, uint64_t key)
{
	return (size_t)ftn__mix64(key ^ m->seed) & m->mask;
}

/* slots for n entries at most 3/4 full */
static size_t slots_for(size_t n)
{
	size_t s = MAP_MIN_SLOTS;

	while (s / 4 * 3 < n && s < (size_t)1 << (sizeof(size_t) * 8 - 2))
		s *= 2;
	return s;
}

struct ftn_map *ftn_map_alloc(size_t val_size, size_t init, size_t max)
{
	static uint64_t nmaps;
	struct ftn_map *m;

	if (!max || val_size > (1u << 20)) {
		errno = EINVAL;
		return NULL;
	}
	m = calloc(1, sizeof(*m));
	if (!m) {
		errno = ENOMEM;
		return NULL;
	}
	m->vsize = val_size;
	m->stride = sizeof(uint64_t) + (val_size + 7) / 8 * 8;
	m->max = max;
	/* the process's key, made different for each map */
	m->seed = ftn__mix64(ftn__hash_key() +
			     __atomic_add_fetch(&nmaps, 1, __ATOMIC_RELAXED) * 0x9e3779b97f4a7c15ULL);
	if (init) {
		size_t s = slots_for(init < max ? init : max);

		m->slot = calloc(s, m->stride);
		if (!m->slot) {
			free(m);
			errno = ENOMEM;
			return NULL;
		}
		m->mask = s - 1;
	}
	return m;
}

void ftn_map_free(struct ftn_map *m)
{
	if (m)
		free(m->slot);
	free(m);
}

size_t ftn_map_count(const struct ftn_map *m)
{
	return m ? m->n : 0;
}

void ftn_map_clear(struct ftn_map *m)
{
	if (m && m->slot)
		memset(m->slot, 0, (m->mask + 1) * m->stride);
	if (m)
		m->n = 0;
}

/* the slot of key, or the empty slot ending its run */
static size_t find(const struct ftn_map *m, uint64_t key)
{
	size_t i = ftn__map_home(m, key);
	uint64_t k;

	while ((k = *slot_key(m, i)) && k != key)
		i = (i + 1) & m->mask;
	return i;
}

void *ftn_map_get(const struct ftn_map *m, uint64_t key)
{
	size_t i;

	if (!m || !m->slot || !key)
		return NULL;
	i = find(m, key);
	return *slot_key(m, i) ? slot_val(m, i) : NULL;
}

static int grow(struct ftn_map *m, size_t slots)
{
	struct ftn_map old = *m;

	m->slot = calloc(slots, m->stride);
	if (!m->slot) {
		m->slot = old.slot;
		return -ENOMEM;
	}
	m->mask = slots - 1;
	for (size_t i = 0; old.slot && i <= old.mask; i++) {
		uint64_t k = *slot_key(&old, i);

		if (k)
			memcpy(m->slot + find(m, k) * m->stride, old.slot + i * old.stride, m->stride);
	}
	free(old.slot);
	return 0;
}

void *ftn_map_put(struct ftn_map *m, uint64_t key, int *added)
{
	size_t i;

	if (added)
		*added = 0;
	if (!m || !key) {
		errno = EINVAL;
		return NULL;
	}
	if (m->slot) {
		i = find(m, key);
		if (*slot_key(m, i))
			return slot_val(m, i);
	}
	if (m->n >= m->max) {
		errno = ENOSPC;
		return NULL;
	}
	if ((!m->slot || (m->mask + 1) / 4 * 3 < m->n + 1) &&
	    grow(m, m->slot ? (m->mask + 1) * 2 : slots_for(m->n + 1))) {
		errno = ENOMEM;
		return NULL;
	}
	i = find(m, key);
	*slot_key(m, i) = key;
	memset(slot_val(m, i), 0, m->stride - sizeof(uint64_t));
	m->n++;
	if (added)
		*added = 1;
	return slot_val(m, i);
}

/* Empty slot i and move back the entries after it that could not be
 * found across the hole: the run stays whole. */
static void del_at(struct ftn_map *m, size_t i)
{
	size_t j = i, h;

	for (;;) {
		*slot_key(m, i) = 0;
		for (;;) {
			j = (j + 1) & m->mask;
			if (!*slot_key(m, j))
				goto done;
			h = ftn__map_home(m, *slot_key(m, j));
			/* home cyclically in (i, j]: the entry stays where it is */
			if (i <= j ? (i < h && h <= j) : (i < h || h <= j))
				continue;
			break;
		}
		memcpy(m->slot + i * m->stride, m->slot + j * m->stride, m->stride);
		i = j;
	}
done:
	m->n--;
}

int ftn_map_del(struct ftn_map *m, uint64_t key)
{
	size_t i;

	if (!m || !m->slot || !key)
		return -ENOENT;
	i = find(m, key);
	if (!*slot_key(m, i))
		return -ENOENT;
	del_at(m, i);
	return 0;
}

/* The walk starts after an empty slot and goes once round: a delete moves
 * entries back only within their run, which never crosses that slot, so
 * an entry moved into the current slot is seen once, and none seen moves
 * ahead. */
void ftn_map_iter_init(struct ftn_map_iter *it, const struct ftn_map *m)
{
	it->pos = 0;
	it->left = 0;
	if (!m || !m->slot || !m->n)
		return;
	while (*slot_key(m, it->pos))
		it->pos++;
	it->left = m->mask + 1;
}

void *ftn_map_iter_next(struct ftn_map_iter *it, const struct ftn_map *m, uint64_t *key)
{
	while (it->left) {
		it->pos = (it->pos + 1) & m->mask;
		it->left--;
		if (*slot_key(m, it->pos)) {
			if (key)
				*key = *slot_key(m, it->pos);
			return slot_val(m, it->pos);
		}
	}
	return NULL;
}

void ftn_map_iter_del(struct ftn_map_iter *it, struct ftn_map *m)
{
	if (!*slot_key(m, it->pos))
		return;
	del_at(m, it->pos);
	/* look at this slot again: an entry may have moved into it */
	it->pos = (it->pos - 1) & m->mask;
	it->left++;
}
