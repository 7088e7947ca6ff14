// SPDX-License-Identifier: GPL-2.0 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * Benchmark of libivring's consume path: a writer thread fills one sub-ring
 * (discard mode) as fast as it can, while the main thread reads it with
 * ivring__next() in consume mode, so the writer can only go as far as the
 * reader lets it.  The writer and the reader are pinned to different CPUs
 * when there are two.  Throughput is quoted in events/s, payload GB/s and
 * record GB/s (headers and alignment included); the writer's drops show
 * how often the reader was the bottleneck.  Runs of each payload size are
 * interleaved and the median is quoted.  Nothing is asserted.
 *
 * Usage: bench_read [runs [events]]	(default 7 runs of 2000000 events)
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "ring_writer.h"
#include "bench_util.h"
#include "libivring.h"
#include "synth_events.h"

#define SUBBUF		4096
#define NR_SUBBUFS	256

static const u32 sizes[] = { 16, 64, 256 };
#define NR_SIZES	(sizeof(sizes) / sizeof(sizes[0]))

struct bench {
	int fd;
	char path[64];
	u8 *map;
	struct ivw_params p;
	struct ivw_writer w;
	struct ivw_cpu *cpus;
	struct ivw_slot *slots;
	u64 gen;
	/* the writer thread */
	u32 len;
	volatile bool stop;
	u64 written;
};

static void *writer(void *arg)
{
	struct bench *b = arg;
	u8 payload[256];
	u64 n = 0;

	memset(payload, 0x5a, sizeof(payload));
	synth_fill_seq((struct synth_seq *)payload, 1, 0, 0, 0);
	while (!b->stop) {
		void *p = ivw_reserve(&b->w, 0, b->len);

		if (!p) {
			/*
			 * Full: the reader is behind.  Back off a little, as
			 * a guest would by producing events at its own pace;
			 * a writer that retried at once would hammer the
			 * dropped counter, on the reader's cache line.
			 */
			for (int i = 0; i < 256; i++)
				__builtin_ia32_pause();
			continue;
		}
		memcpy(p, payload, b->len);
		ivw_commit(&b->w, 0);
		n++;
	}
	b->written = n;
	return NULL;
}

/*
 * One run: format a new generation, start the writer, consume @events.
 * Returns the seconds taken; adds to the payload and record byte counts.
 */
static double run(struct bench *b, u32 len, u64 events, u64 *payload_bytes,
		  u64 *record_bytes, u64 *drops)
{
	struct ivring_open_opts o = { .sz = sizeof(o) };
	struct ivring_event ev;
	struct ivring *r;
	pthread_t t;
	u64 got = 0, t0, t1;
	char err[256];
	u32 tl;
	int ret;

	o.errbuf = err;
	o.errbuf_len = sizeof(err);
	ivw_format(&b->w, b->map, &b->p, ++b->gen, b->cpus, b->slots);
	synth_add_formats(&b->w);
	ivw_set_state(&b->w, IVRING_STATE_LIVE);
	ret = ivring__open(b->path, &o, &r);
	if (ret) {
		fprintf(stderr, "bench_read: %s\n", err);
		exit(1);
	}
	b->len = len;
	b->stop = false;
	if (pthread_create(&t, NULL, writer, b)) {
		fprintf(stderr, "bench_read: pthread_create failed\n");
		exit(1);
	}
	pin(t, 1);
	t0 = now_ns();
	while (got < events) {
		ret = ivring__next(r, &ev);
		if (ret == 1) {
			got++;
			*payload_bytes += ev.size;
			*record_bytes += ivw_record_len(ev.size, &tl);
		} else if (ret < 0 && ret != -ESTALE) {
			fprintf(stderr, "bench_read: ivring__next: %d %s\n",
				ret, ivring__errmsg(r));
			exit(1);
		}
	}
	t1 = now_ns();
	b->stop = true;
	pthread_join(t, NULL);
	*drops += b->w.cpus[0].shared->dropped;
	ivring__close(r);
	return (t1 - t0) / 1e9;
}

int main(int argc, char **argv)
{
	int runs = argc > 1 ? atoi(argv[1]) : 7;
	u64 events = argc > 2 ? strtoull(argv[2], NULL, 0) : 2000000;
	static double secs[NR_SIZES][101];
	u64 pbytes[NR_SIZES] = { 0 }, rbytes[NR_SIZES] = { 0 };
	u64 drops[NR_SIZES] = { 0 };
	struct ivring_header h;
	struct bench b = { 0 };
	u64 need;
	u32 si;
	int i;

	if (runs < 1 || runs > 101 || !events) {
		fprintf(stderr, "usage: %s [runs (1-101) [events]]\n", argv[0]);
		return 2;
	}
	b.p.nr_cpus = 1;
	b.p.subbuf_size = SUBBUF;
	b.p.nr_subbufs = NR_SUBBUFS;
	b.p.format_size = 16384;
	b.p.mode = IVRING_MODE_DISCARD;
	b.p.clock_id = IVRING_CLOCK_MONO;
	b.p.segment_size = ~0ULL >> 1;
	ivw_layout(&b.p, &h, &need);
	b.p.segment_size = need;
	b.fd = memfd_create("ivring-bench", MFD_CLOEXEC);
	if (b.fd < 0 || ftruncate(b.fd, need)) {
		perror("bench_read: memfd");
		return 1;
	}
	snprintf(b.path, sizeof(b.path), "/proc/%d/fd/%d", getpid(), b.fd);
	b.map = mmap(NULL, need, PROT_READ | PROT_WRITE, MAP_SHARED, b.fd, 0);
	b.cpus = aligned_alloc(IVRING_CACHELINE, sizeof(*b.cpus));
	b.slots = calloc(NR_SUBBUFS, sizeof(*b.slots));
	if (b.map == MAP_FAILED || !b.cpus || !b.slots) {
		perror("bench_read");
		return 1;
	}
	pin(pthread_self(), 0);

	/* A short warm-up, then interleaved runs. */
	for (si = 0; si < NR_SIZES; si++) {
		u64 x = 0, y = 0, z = 0;

		run(&b, sizes[si], events / 10 + 1, &x, &y, &z);
	}
	for (i = 0; i < runs; i++)
		for (si = 0; si < NR_SIZES; si++)
			secs[si][i] = run(&b, sizes[si], events, &pbytes[si],
					  &rbytes[si], &drops[si]);

	printf("bench_read: %d runs x %llu events, consume mode, one sub-ring of %u x %u bytes,\n"
	       "            writer thread on CPU 1, reader on CPU 0\n",
	       runs, (unsigned long long)events, NR_SUBBUFS, SUBBUF);
	printf("command: %s %d %llu\n\n", argv[0], runs,
	       (unsigned long long)events);
	printf("%-8s %10s %10s %10s %12s %12s %14s\n", "payload", "M ev/s",
	       "min", "max", "payload GB/s", "record GB/s",
	       "writer drops");
	for (si = 0; si < NR_SIZES; si++) {
		double med, p_avg, r_avg;

		qsort(secs[si], runs, sizeof(double), cmp_double);
		med = secs[si][runs / 2];
		p_avg = (double)pbytes[si] / runs / events;
		r_avg = (double)rbytes[si] / runs / events;
		printf("%-8u %10.2f %10.2f %10.2f %12.3f %12.3f %14llu\n",
		       sizes[si], events / med / 1e6,
		       events / secs[si][runs - 1] / 1e6,
		       events / secs[si][0] / 1e6,
		       events * p_avg / med / 1e9, events * r_avg / med / 1e9,
		       (unsigned long long)drops[si]);
	}
	printf("\n(min/max: the slowest and the fastest run; drops: reservations that\n"
	       " failed because the reader had not consumed yet, then retried)\n");
	return 0;
}
