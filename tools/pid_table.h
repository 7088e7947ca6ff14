/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * Records kept per pid, found by pid in constant time (pid_table.c): the
 * host tasks that a vCPU waited for, the guest tasks of a guest.  Records
 * are one dense array, in the order they came, each beginning with its
 * int pid; the table keeps at most a bound of them, as the pids come from
 * files that anyone may have made.
 */
#ifndef IVRING_PID_TABLE_H
#define IVRING_PID_TABLE_H

#include <stddef.h>
#include <stdint.h>

struct pid_table {
	void *rec;		/* @nr records of @size bytes */
	uint32_t nr, cap, max;
	size_t size;
	uint32_t *slot;		/* open addressing: a record's index + 1 */
	uint32_t nr_slots;	/* a power of two, more than twice @nr */
};

void pid_table_init(struct pid_table *t, size_t size, uint32_t max);
/*
 * The record of @pid, made zeroed with its pid if it is new; NULL when the
 * table holds @max records already, or memory ran out.  Valid until the
 * next call.
 */
void *pid_table_get(struct pid_table *t, int pid);
/* Sort the records with @cmp (qsort's), keeping them found by pid. */
void pid_table_sort(struct pid_table *t,
		    int (*cmp)(const void *, const void *));
static inline void *pid_table_at(const struct pid_table *t, uint32_t i)
{
	return (char *)t->rec + (size_t)i * t->size;
}
void pid_table_free(struct pid_table *t);

#endif /* IVRING_PID_TABLE_H */
