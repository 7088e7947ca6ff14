// SPDX-License-Identifier: GPL-2.0 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * tools/pid_table.c: records found by pid, as ivring-vcpus keeps host and
 * guest tasks.  Every pid finds its own record, across growth and a sort;
 * the bound holds; hostile pids (negative, colliding) are only keys.
 */
#include <stdlib.h>

#include "kselftest_harness.h"
#include "pid_table.h"

struct rec {
	int pid;
	uint64_t n;
};

static int by_n(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;

	return x->n < y->n ? 1 : x->n > y->n ? -1 : 0;
}

TEST(each_pid_its_record)
{
	struct pid_table t;
	struct rec *r;
	int i;

	pid_table_init(&t, sizeof(struct rec), 1 << 20);
	/* Colliding on purpose: multiples of a power of two, and negatives. */
	for (i = 0; i < 50000; i++) {
		r = pid_table_get(&t, i * 4096 - 100000);
		ASSERT_NE(NULL, r);
		ASSERT_EQ(i * 4096 - 100000, r->pid);
		r->n += i;
	}
	ASSERT_EQ(50000, t.nr);
	for (i = 0; i < 50000; i++) {
		r = pid_table_get(&t, i * 4096 - 100000);
		ASSERT_EQ((uint64_t)i, r->n);
	}
	EXPECT_EQ(50000, t.nr);
	/* Sorted, each still found. */
	pid_table_sort(&t, by_n);
	r = pid_table_at(&t, 0);
	EXPECT_EQ(49999u, r->n);
	for (i = 0; i < 50000; i += 7) {
		r = pid_table_get(&t, i * 4096 - 100000);
		ASSERT_EQ((uint64_t)i, r->n);
	}
	EXPECT_EQ(50000, t.nr);
	pid_table_free(&t);
}

TEST(the_bound_holds)
{
	struct pid_table t;
	int i;

	pid_table_init(&t, sizeof(struct rec), 100);
	for (i = 0; i < 100; i++)
		ASSERT_NE(NULL, pid_table_get(&t, i));
	EXPECT_EQ(NULL, pid_table_get(&t, 1000));
	/* The ones kept are still found. */
	EXPECT_NE(NULL, pid_table_get(&t, 42));
	EXPECT_EQ(100, t.nr);
	pid_table_free(&t);
}

TEST_HARNESS_MAIN
