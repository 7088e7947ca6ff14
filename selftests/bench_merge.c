// SPDX-License-Identifier: GPL-2.0 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * Benchmark of ivring__next()'s merge across CPUs: the cost per event of
 * draining a stopped segment of 1, 16 or 256 sub-rings, with the events on
 * one CPU only (the others idle: what a guest with many vCPUs and one busy
 * task looks like) or spread over all of them.  Only the drain is timed,
 * with a snapshot reader, so every run reads the same events.  Runs of the
 * cases are interleaved and medians are quoted.  Nothing is asserted.
 *
 * Usage: bench_merge [runs [events]]	(default 7 runs of 50000 events)
 */
#include <stdio.h>

#include "bench_util.h"
#include "seg_util.h"

struct scase {
	u32 cpus;
	bool spread;
	struct seg s;
	double ns[64];
};

static int fill(struct scase *k, u64 events)
{
	u64 i;
	int ret;

	/* Sparse: only the pages written are ever touched. */
	ret = seg_create(&k->s, 1ULL << 30, k->cpus, 65536, 0,
			 IVRING_MODE_DISCARD, NULL);
	if (ret)
		return ret;
	for (i = 0; i < events; i++) {
		u32 cpu = k->spread ? i % k->cpus : 0;

		ret = seg_write_seq(&k->s, cpu, i, 0);
		if (ret)
			return ret;
	}
	ivw_set_state(&k->s.w, IVRING_STATE_STOPPED);
	return 0;
}

static double drain_ns(struct scase *k, u64 events)
{
	struct ivring_event ev;
	struct ivring *r;
	u64 t0, n = 0;

	if (seg_open(&k->s, IVRING_OPEN_PEEK, &r))
		return -1;
	t0 = now_ns();
	while (ivring__next(r, &ev) == 1)
		n++;
	t0 = now_ns() - t0;
	ivring__close(r);
	return n == events ? (double)t0 / n : -1;
}

int main(int argc, char **argv)
{
	static struct scase cases[] = {
		{ .cpus = 1 }, { .cpus = 16 }, { .cpus = 256 },
		{ .cpus = 16, .spread = true }, { .cpus = 256, .spread = true },
	};
	const unsigned int nc = sizeof(cases) / sizeof(cases[0]);
	int runs = argc > 1 ? atoi(argv[1]) : 7;
	u64 events = argc > 2 ? strtoull(argv[2], NULL, 0) : 50000;
	unsigned int i;
	int run;

	if (runs < 1 || runs > 64 || !events) {
		fprintf(stderr, "usage: bench_merge [runs (1-64) [events]]\n");
		return 2;
	}
	for (i = 0; i < nc; i++) {
		if (fill(&cases[i], events)) {
			fprintf(stderr, "bench_merge: cannot fill %u CPUs\n",
				cases[i].cpus);
			return 1;
		}
	}
	for (run = 0; run < runs; run++) {
		for (i = 0; i < nc; i++) {
			cases[i].ns[run] = drain_ns(&cases[i], events);
			if (cases[i].ns[run] < 0) {
				fprintf(stderr, "bench_merge: a drain lost events\n");
				return 1;
			}
		}
	}
	printf("ivring__next merge, %llu events, median of %d runs\n",
	       (unsigned long long)events, runs);
	for (i = 0; i < nc; i++) {
		qsort(cases[i].ns, runs, sizeof(double), cmp_double);
		printf("  %3u CPUs, events on %-4s %8.1f ns/event\n",
		       cases[i].cpus, cases[i].spread ? "all" : "one",
		       cases[i].ns[runs / 2]);
		seg_destroy(&cases[i].s);
	}
	return 0;
}
