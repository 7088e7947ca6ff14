// SPDX-License-Identifier: GPL-2.0 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * Benchmark of the userspace build of the write path: ivw_reserve(),
 * payload fill, ivw_commit() on one sub-ring, in both modes, against two
 * peers measured in the same run:
 *   memcpy	the payload copied to the next place in a flat buffer, the
 *		floor of any ring that keeps the bytes;
 *   clock read	CLOCK_MONOTONIC alone, which the writer reads once per
 *		event: the share of the cost that is the timestamp;
 *   xadd ring	a minimal ring whose reservation is one locked fetch-add on a
 *		shared head, plus a length word and a store-release per event:
 *		what a writer costs that must be atomic against other CPUs.
 * The writer reads CLOCK_MONOTONIC once per event; where that is slow (a
 * sandbox that traps the TSC), the "counter" rows give the ring's own cost,
 * with the writer's test clock hook set to a plain counter.  The "tsc"
 * rows stamp with the writer's TSC clock (struct ivw_tsc, as the module's
 * clock=tsc), scaled against CLOCK_MONOTONIC_RAW (clock_tsc_user.h);
 * "tsc read" is that clock alone.
 * Runs of each case are interleaved, so that a noisy machine spreads its
 * noise over all of them, and the median is quoted.  Nothing is asserted.
 *
 * Usage: bench_write [runs [events]]	(default 11 runs of 1000000 events)
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ring_writer.h"
#include "bench_util.h"
#include "clock_tsc_user.h"

#define SUBBUF		4096
#define NR_SUBBUFS	256
#define FLAT_SIZE	(NR_SUBBUFS * SUBBUF)

static const u32 sizes[] = { 16, 64, 256 };
#define NR_SIZES	(sizeof(sizes) / sizeof(sizes[0]))

enum { C_DISCARD, C_OVERWRITE, C_DISCARD_CNT, C_OVERWRITE_CNT,
       C_DISCARD_TSC, C_OVERWRITE_TSC, C_MEMCPY, C_XADD, C_CLOCK, C_TSC,
       NR_CASES };
static const char *const case_name[NR_CASES] = {
	"ivring discard", "ivring overwrite", "discard, counter", "overwrite, counter",
	"discard, tsc", "overwrite, tsc", "memcpy", "xadd ring", "clock read",
	"tsc read",
};

/* The writer's clock in a run: CLOCK_MONOTONIC, a counter, the TSC. */
enum { K_MONO, K_COUNTER, K_TSC };
static struct ivw_tsc tsc;
static struct ivw_tsc_latch tsc_latch;	/* tsc, as the writer reads it */

struct wseg {
	void *mem;
	struct ivw_params p;
	struct ivw_writer w;
	struct ivw_cpu *cpus;
	struct ivw_slot *slots;
	u64 gen;
};

static int wseg_init(struct wseg *s, u32 mode)
{
	struct ivring_header h;
	u64 need;

	memset(&s->p, 0, sizeof(s->p));
	s->p.nr_cpus = 1;
	s->p.subbuf_size = SUBBUF;
	s->p.nr_subbufs = NR_SUBBUFS;
	s->p.format_size = 4096;
	s->p.mode = mode;
	s->p.clock_id = IVRING_CLOCK_MONO;
	s->p.segment_size = ~0ULL >> 1;
	if (ivw_layout(&s->p, &h, &need))
		return -1;
	s->p.segment_size = need;
	s->mem = aligned_alloc(IVRING_PAGE_SIZE, need);
	s->cpus = aligned_alloc(IVRING_CACHELINE, sizeof(*s->cpus));
	s->slots = calloc(NR_SUBBUFS, sizeof(*s->slots));
	if (!s->mem || !s->cpus || !s->slots)
		return -1;
	memset(s->mem, 0, need);
	return 0;
}

/*
 * Format afresh, so every run starts from the same state.  In discard mode
 * the host area says that the host consumed everything (the writer clamps
 * that to what it published): a consumer that keeps up, with no thread.
 */
static void wseg_format(struct wseg *s)
{
	struct ivring_host *host;
	struct ivring_host_cpu *hc;

	ivw_format(&s->w, s->mem, &s->p, ++s->gen, s->cpus, s->slots);
	ivw_set_state(&s->w, IVRING_STATE_LIVE);
	host = s->w.host;
	hc = (struct ivring_host_cpu *)(host + 1);
	host->generation = s->gen;
	hc->consumer_pos = IVRING_POS(~0ULL >> IVRING_POS_OFF_BITS, 0);
}

/* The cheapest monotonic clock there is: enough to order events. */
static u64 counter;

static u64 counter_clock(void)
{
	return ++counter;
}

static double run_ivring(struct wseg *s, const u8 *payload, u32 len,
			 u64 events, u64 *drops, int clock)
{
	u64 i, t0, t1;

	/* The hook survives formatting, so set it either way. */
	s->w.clock = clock == K_COUNTER ? counter_clock : NULL;
	memset(&s->p.tsc, 0, sizeof(s->p.tsc));
	if (clock == K_TSC)
		s->p.tsc = tsc;
	wseg_format(s);
	t0 = now_ns();
	for (i = 0; i < events; i++) {
		void *p = ivw_reserve(&s->w, 0, len);

		if (!p)
			continue;
		memcpy(p, payload, len);
		ivw_commit(&s->w, 0);
	}
	t1 = now_ns();
	*drops += s->w.cpus[0].shared->dropped;
	return (double)(t1 - t0) / events;
}

static double run_memcpy(u8 *flat, const u8 *payload, u32 len, u64 events)
{
	u64 i, t0, t1;
	u32 off = 0;

	t0 = now_ns();
	for (i = 0; i < events; i++) {
		if (off + len > FLAT_SIZE)
			off = 0;
		memcpy(flat + off, payload, len);
		off += len;
		/* Keep the compiler from merging or dropping the copies. */
		__asm__ __volatile__("" : : "r"(flat) : "memory");
	}
	t1 = now_ns();
	return (double)(t1 - t0) / events;
}

static double run_clock(u64 events, bool use_tsc)
{
	u64 i, t0, t1, sum = 0;

	t0 = now_ns();
	for (i = 0; i < events; i++)
		sum += use_tsc ? ivw_tsc_read(&tsc_latch) : ivw_clock_mono();
	t1 = now_ns();
	__asm__ __volatile__("" : : "r"(sum));
	return (double)(t1 - t0) / events;
}

/* The simplest ring that is safe for several producers. */
struct xring {
	u64 head __attribute__((aligned(64)));
	u64 commit __attribute__((aligned(64)));
	u8 *buf;
};

static double run_xadd(struct xring *x, const u8 *payload, u32 len,
		       u64 events)
{
	u32 rlen = (len + 4 + 7) & ~7U;
	u64 i, t0, t1;

	x->head = x->commit = 0;
	t0 = now_ns();
	for (i = 0; i < events; i++) {
		u64 pos = __atomic_fetch_add(&x->head, rlen, __ATOMIC_ACQ_REL);
		u8 *p = x->buf + pos % FLAT_SIZE;

		/* Records may run past the end: the buffer has a tail for it. */
		memcpy(p, &len, 4);
		memcpy(p + 4, payload, len);
		__atomic_store_n(&x->commit, pos + rlen, __ATOMIC_RELEASE);
	}
	t1 = now_ns();
	return (double)(t1 - t0) / events;
}

int main(int argc, char **argv)
{
	int runs = argc > 1 ? atoi(argv[1]) : 11;
	u64 events = argc > 2 ? strtoull(argv[2], NULL, 0) : 1000000;
	static double res[NR_SIZES][NR_CASES][101];
	u64 drops[NR_SIZES][2] = { { 0 } };
	struct wseg seg[2];
	struct xring x = { 0 };
	u8 *flat, payload[256];
	u32 si, c;
	int run;

	if (runs < 1 || runs > 101 || !events) {
		fprintf(stderr, "usage: %s [runs (1-101) [events]]\n", argv[0]);
		return 2;
	}
	for (c = 0; c < sizeof(payload); c++)
		payload[c] = c * 7;
	flat = aligned_alloc(4096, FLAT_SIZE);
	x.buf = aligned_alloc(4096, FLAT_SIZE + 4096);
	if (!flat || !x.buf || wseg_init(&seg[0], IVRING_MODE_DISCARD) ||
	    wseg_init(&seg[1], IVRING_MODE_OVERWRITE)) {
		fprintf(stderr, "bench_write: out of memory\n");
		return 1;
	}
	if (ivw_tsc_calibrate(&tsc, 20000000)) {
		fprintf(stderr, "bench_write: no cycle counter for the tsc rows\n");
		return 1;
	}
	tsc_latch.on = 1;
	tsc_latch.v[0] = tsc_latch.v[1] = tsc;
	memset(flat, 0, FLAT_SIZE);
	memset(x.buf, 0, FLAT_SIZE + 4096);

	/* One warm-up round, then interleaved runs. */
	for (run = -1; run < runs; run++) {
		for (si = 0; si < NR_SIZES; si++) {
			u32 len = sizes[si];
			u64 d[2] = { 0, 0 };
			double t[NR_CASES];

			t[C_DISCARD] = run_ivring(&seg[0], payload, len, events,
						  &d[0], K_MONO);
			t[C_OVERWRITE] = run_ivring(&seg[1], payload, len,
						    events, &d[1], K_MONO);
			t[C_DISCARD_CNT] = run_ivring(&seg[0], payload, len,
						      events, &d[0], K_COUNTER);
			t[C_OVERWRITE_CNT] = run_ivring(&seg[1], payload, len,
							events, &d[1], K_COUNTER);
			t[C_DISCARD_TSC] = run_ivring(&seg[0], payload, len,
						      events, &d[0], K_TSC);
			t[C_OVERWRITE_TSC] = run_ivring(&seg[1], payload, len,
							events, &d[1], K_TSC);
			t[C_MEMCPY] = run_memcpy(flat, payload, len, events);
			t[C_XADD] = run_xadd(&x, payload, len, events);
			t[C_CLOCK] = run_clock(events, false);
			t[C_TSC] = run_clock(events, true);
			if (run < 0)
				continue;
			for (c = 0; c < NR_CASES; c++)
				res[si][c][run] = t[c];
			drops[si][0] += d[0];
			drops[si][1] += d[1];
		}
	}

	printf("bench_write: %d runs x %llu events, one sub-ring of %u x %u bytes\n",
	       runs, (unsigned long long)events, NR_SUBBUFS, SUBBUF);
	printf("command: %s %d %llu\n\n", argv[0], runs,
	       (unsigned long long)events);
	printf("%-8s %-17s %9s %9s %9s %10s %10s\n", "payload", "case",
	       "median ns", "min ns", "max ns", "vs memcpy", "vs xadd");
	for (si = 0; si < NR_SIZES; si++) {
		double med[NR_CASES];

		for (c = 0; c < NR_CASES; c++) {
			qsort(res[si][c], runs, sizeof(double), cmp_double);
			med[c] = res[si][c][runs / 2];
		}
		for (c = 0; c < NR_CASES; c++)
			printf("%-8u %-17s %9.2f %9.2f %9.2f %9.2fx %9.2fx\n",
			       sizes[si], case_name[c], med[c], res[si][c][0],
			       res[si][c][runs - 1], med[c] / med[C_MEMCPY],
			       med[c] / med[C_XADD]);
		printf("%-8s dropped events: discard %llu, overwrite %llu\n\n",
		       "", (unsigned long long)drops[si][0],
		       (unsigned long long)drops[si][1]);
	}
	return 0;
}
