// SPDX-License-Identifier: GPL-2.0
/* test_map - lib/trace/map.c, the one hash map: inserts, lookups, deletes,
 * a full map, keys that collide under the map's seed (picked with the
 * map's own home slot), iteration with deletes, and deletes inside a
 * probe run that must leave every other key of the run findable. */
#include "ftnet_int.h"
#include "tap.h"

#include <errno.h>

struct val {
	uint64_t a;
	uint32_t b;
};

static void test_basic(void)
{
	struct ftn_map *m = ftn_map_alloc(sizeof(struct val), 0, SIZE_MAX);
	struct val *v;
	int added = -1, bad = 0;

	ok(m != NULL, "alloc");
	ok(!ftn_map_get(m, 5), "an empty map has nothing");
	is_int(ftn_map_del(m, 5), -ENOENT, "an empty map deletes nothing");
	v = ftn_map_put(m, 5, &added);
	ok(v && added == 1 && v->a == 0 && v->b == 0, "put: a new key, its value zeroed");
	v->a = 55;
	v = ftn_map_put(m, 5, &added);
	ok(v && added == 0 && v->a == 55, "put again: the same value, not added");
	errno = 0;
	ok(!ftn_map_put(m, 0, NULL) && errno == EINVAL, "key 0 is refused");
	ok(!ftn_map_get(m, 0), "key 0 is never in");
	/* enough keys to grow the slots several times */
	for (uint64_t k = 1; k <= 5000; k++) {
		v = ftn_map_put(m, k * 64, NULL);
		if (v)
			v->a = k;
	}
	is_int(ftn_map_count(m), 5001, "5000 more keys");
	for (uint64_t k = 1; k <= 5000; k++)
		if (!(v = ftn_map_get(m, k * 64)) || v->a != k)
			bad++;
	is_int(bad, 0, "every key found with its value after growing");
	ok(ftn_map_get(m, 5) && ((struct val *)ftn_map_get(m, 5))->a == 55, "the first key too");
	ok(!ftn_map_get(m, 63), "a key never put is not in");
	for (uint64_t k = 2; k <= 5000; k += 2)
		bad += ftn_map_del(m, k * 64) != 0;
	is_int(bad, 0, "delete half of them");
	is_int(ftn_map_count(m), 2501, "count after the deletes");
	for (uint64_t k = 1; k <= 5000; k++)
		if (!!ftn_map_get(m, k * 64) != (k & 1))
			bad++;
	is_int(bad, 0, "the odd ones are in, the even ones gone");
	is_int(ftn_map_del(m, 128), -ENOENT, "a deleted key deletes no more");
	ftn_map_clear(m);
	is_int(ftn_map_count(m), 0, "clear");
	ok(!ftn_map_get(m, 64), "clear: nothing is in");
	ok(ftn_map_put(m, 64, NULL) != NULL, "put after clear");
	ftn_map_free(m);
	ftn_map_free(NULL);
	errno = 0;
	ok(!ftn_map_alloc(8, 0, 0) && errno == EINVAL, "a map of 0 entries is refused");
}

static void test_full(void)
{
	struct ftn_map *m = ftn_map_alloc(sizeof(void *), 4, 100);
	int bad = 0;

	for (uint64_t k = 1; k <= 100; k++) {
		void **v = ftn_map_put(m, k, NULL);

		if (!v)
			bad++;
		else
			*v = &bad;
	}
	is_int(bad, 0, "100 keys in a map of at most 100");
	errno = 0;
	ok(!ftn_map_put(m, 101, NULL) && errno == ENOSPC, "the 101st is refused (ENOSPC)");
	ok(ftn_map_put(m, 100, NULL) != NULL, "a key already in is still found by put");
	is_int(ftn_map_count(m), 100, "still 100");
	is_int(ftn_map_del(m, 7), 0, "delete one");
	ok(ftn_map_put(m, 101, NULL) != NULL, "then there is room for one more");
	ok(*(void **)ftn_map_get(m, 100) == &bad, "a pointer value kept");
	ftn_map_free(m);
	/* a set: no value at all */
	m = ftn_map_alloc(0, 0, 2);
	ok(m && ftn_map_put(m, 1, NULL) && ftn_map_put(m, 2, NULL) && !ftn_map_put(m, 3, NULL),
	   "a set of at most 2 keys");
	ok(ftn_map_get(m, 2) != NULL, "a set's key is found");
	ftn_map_free(m);
}

/* n keys (from 1 up) whose home slot in m (its slots as they are) is h */
static void colliding(const struct ftn_map *m, size_t h, uint64_t *keys, int n, uint64_t from)
{
	for (uint64_t k = from; n; k++)
		if (ftn__map_home(m, k) == h)
			keys[--n] = k;
}

static void test_collisions(void)
{
	/* room for 40 keys: 64 slots from the start, never grown here */
	struct ftn_map *m = ftn_map_alloc(sizeof(uint64_t), 40, 40);
	uint64_t same[6], next[3], other;
	int bad = 0;

	colliding(m, 10, same, 6, 1);
	colliding(m, 11, next, 3, 1);
	ok(ftn__map_home(m, same[0]) == ftn__map_home(m, same[5]), "six keys of one home slot");
	for (int i = 0; i < 6; i++)
		*(uint64_t *)ftn_map_put(m, same[i], NULL) = same[i];
	for (int i = 0; i < 3; i++)
		*(uint64_t *)ftn_map_put(m, next[i], NULL) = next[i];
	for (int i = 0; i < 6; i++)
		bad += !ftn_map_get(m, same[i]) || *(uint64_t *)ftn_map_get(m, same[i]) != same[i];
	for (int i = 0; i < 3; i++)
		bad += !ftn_map_get(m, next[i]) || *(uint64_t *)ftn_map_get(m, next[i]) != next[i];
	is_int(bad, 0, "nine keys in one probe run (slots 10-18), each found");
	colliding(m, 10, &other, 1, same[0] + 1);
	ok(!ftn_map_get(m, other), "a seventh key of the same home is not in (the run ends)");

	/* deletes at the run's head, middle and end: the others stay found
	 * (a delete that only empties its slot cuts the run there) */
	is_int(ftn_map_del(m, same[0]), 0, "delete the run's first key");
	for (int i = 1; i < 6; i++)
		bad += !ftn_map_get(m, same[i]);
	for (int i = 0; i < 3; i++)
		bad += !ftn_map_get(m, next[i]);
	is_int(bad, 0, "after deleting the first: every key after it still found");
	is_int(ftn_map_del(m, same[3]), 0, "delete one in the middle");
	is_int(ftn_map_del(m, next[2]), 0, "delete one of the next home");
	for (int i = 1; i < 6; i++)
		bad += !ftn_map_get(m, same[i]) != (i == 3);
	for (int i = 0; i < 3; i++)
		bad += !ftn_map_get(m, next[i]) != (i == 2);
	is_int(bad, 0, "after three deletes: the six left found, the three gone");
	is_int(ftn_map_count(m), 6, "count");

	/* a run across the end of the slots: homes 62 and 63 */
	ftn_map_clear(m);
	colliding(m, 63, same, 4, 1);
	colliding(m, 0, next, 2, 1);
	for (int i = 0; i < 4; i++)
		ftn_map_put(m, same[i], NULL);
	for (int i = 0; i < 2; i++)
		ftn_map_put(m, next[i], NULL);
	ftn_map_del(m, same[1]);
	for (int i = 0; i < 4; i++)
		bad += !ftn_map_get(m, same[i]) != (i == 1);
	for (int i = 0; i < 2; i++)
		bad += !ftn_map_get(m, next[i]);
	is_int(bad, 0, "a run that wraps round: a delete keeps the rest found");
	/* the last slot's key deleted: keys of home 0 after it stay put */
	ftn_map_clear(m);
	colliding(m, 63, same, 1, 1);
	colliding(m, 0, next, 2, 1);
	ftn_map_put(m, same[0], NULL);
	for (int i = 0; i < 2; i++)
		ftn_map_put(m, next[i], NULL);
	ftn_map_del(m, same[0]);
	for (int i = 0; i < 2; i++)
		bad += !ftn_map_get(m, next[i]);
	is_int(bad, 0, "a hole in the last slot: the keys of slot 0 after it still found");
	ftn_map_free(m);
}

static void test_iter(void)
{
	struct ftn_map *m = ftn_map_alloc(sizeof(uint64_t), 40, 40);
	struct ftn_map_iter it;
	uint64_t same[8], key, *v, sum = 0, want = 0;
	int seen = 0, dup = 0, wrong = 0;

	ftn_map_iter_init(&it, m);
	ok(!ftn_map_iter_next(&it, m, &key), "an empty map iterates nothing");
	/* runs across the end of the slots, where a delete moves entries */
	colliding(m, 62, same, 8, 1);
	for (int i = 0; i < 8; i++)
		*(uint64_t *)ftn_map_put(m, same[i], NULL) = same[i];
	for (uint64_t k = 1000; k < 1020; k++)
		if (ftn_map_put(m, k, NULL))
			*(uint64_t *)ftn_map_get(m, k) = k;
	for (ftn_map_iter_init(&it, m); (v = ftn_map_iter_next(&it, m, &key));) {
		seen++;
		sum += key;
		wrong += *v != key;
	}
	for (int i = 0; i < 8; i++)
		want += same[i];
	for (uint64_t k = 1000; k < 1020; k++)
		want += k;
	is_int(seen, 28, "every entry once");
	ok(sum == want && !wrong, "each with its key and value");

	/* delete every other entry seen: every entry still seen once */
	seen = 0;
	for (ftn_map_iter_init(&it, m); (v = ftn_map_iter_next(&it, m, &key));) {
		if (*v == ~0ull)
			dup++;
		*v = ~0ull;
		if (seen++ & 1)
			ftn_map_iter_del(&it, m);
	}
	is_int(seen, 28, "deleting while iterating: every entry seen");
	is_int(dup, 0, "none seen twice");
	is_int(ftn_map_count(m), 14, "half of them deleted");
	seen = 0;
	for (ftn_map_iter_init(&it, m); (v = ftn_map_iter_next(&it, m, &key));)
		seen += ftn_map_get(m, key) == v;
	is_int(seen, 14, "the rest found where the iteration finds them");
	for (ftn_map_iter_init(&it, m); ftn_map_iter_next(&it, m, NULL);)
		ftn_map_iter_del(&it, m);
	is_int(ftn_map_count(m), 0, "delete all while iterating");
	ftn_map_free(m);
}

int main(void)
{
	test_basic();
	test_full();
	test_collisions();
	test_iter();
	return tap_done();
}
