// SPDX-License-Identifier: GPL-2.0 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/* Records kept per pid (pid_table.h). */
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "pid_table.h"

void pid_table_init(struct pid_table *t, size_t size, uint32_t max)
{
	memset(t, 0, sizeof(*t));
	t->size = size;
	t->max = max;
}

/*
 * Multiplicative hashing: the product's high bits, which every bit of the
 * pid moves (its low bits would put pids a power of two apart in one
 * slot).  The multiplier is odd and drawn at random, once: with a known
 * one, a file could choose pids whose products all fall in one chain.
 */
static uint32_t multiplier(void)
{
	static uint32_t k;	/* ivring-vcpus has one thread */
	uint32_t r = 0;

	if (!k) {
		if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != sizeof(r))
			r = (uint32_t)time(NULL) * 2246822519U;
		k = r | 1;
	}
	return k;
}

static uint32_t hash(int pid, uint32_t nr_slots)
{
	uint32_t bits = __builtin_ctz(nr_slots);

	return ((uint32_t)pid * multiplier()) >> (32 - bits);
}

static int pid_of(const struct pid_table *t, uint32_t i)
{
	int pid;

	memcpy(&pid, pid_table_at(t, i), sizeof(pid));
	return pid;
}

/* Every record into @slot, @nr_slots of them, zeroed. */
static void fill(const struct pid_table *t, uint32_t *slot, uint32_t nr_slots)
{
	uint32_t i, h;

	for (i = 0; i < t->nr; i++) {
		for (h = hash(pid_of(t, i), nr_slots); slot[h];
		     h = (h + 1) & (nr_slots - 1))
			;
		slot[h] = i + 1;
	}
}

static int rehash(struct pid_table *t, uint32_t nr_slots)
{
	uint32_t *slot = calloc(nr_slots, sizeof(*slot));

	if (!slot)
		return -1;
	fill(t, slot, nr_slots);
	free(t->slot);
	t->slot = slot;
	t->nr_slots = nr_slots;
	return 0;
}

void *pid_table_get(struct pid_table *t, int pid)
{
	uint32_t h;
	void *rec;

	for (h = t->nr_slots ? hash(pid, t->nr_slots) : 0;
	     t->nr_slots && t->slot[h]; h = (h + 1) & (t->nr_slots - 1))
		if (pid_of(t, t->slot[h] - 1) == pid)
			return pid_table_at(t, t->slot[h] - 1);
	if (t->nr >= t->max)
		return NULL;
	if (t->nr == t->cap) {
		uint32_t cap = t->cap ? 2 * t->cap : 16;

		rec = realloc(t->rec, (size_t)cap * t->size);
		if (!rec)
			return NULL;
		t->rec = rec;
		t->cap = cap;
	}
	if (2 * (t->nr + 1) >= t->nr_slots) {
		if (rehash(t, t->nr_slots ? 2 * t->nr_slots : 32))
			return NULL;
	}
	for (h = hash(pid, t->nr_slots); t->slot[h];
	     h = (h + 1) & (t->nr_slots - 1))
		;
	rec = pid_table_at(t, t->nr);
	memset(rec, 0, t->size);
	memcpy(rec, &pid, sizeof(pid));
	t->slot[h] = ++t->nr;
	return rec;
}

void pid_table_sort(struct pid_table *t,
		    int (*cmp)(const void *, const void *))
{
	if (!t->nr)
		return;
	qsort(t->rec, t->nr, t->size, cmp);
	memset(t->slot, 0, t->nr_slots * sizeof(*t->slot));
	fill(t, t->slot, t->nr_slots);
}

void pid_table_free(struct pid_table *t)
{
	free(t->rec);
	free(t->slot);
	memset(t, 0, sizeof(*t));
}
