/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * Test helpers: a segment in a memfd, formatted by the shared writer with
 * the synth formats, and a libivring reader on the same file.  The reader
 * opens /proc/self/fd/N, so nothing is left in /dev/shm when a test dies.
 * Header-only (static functions): include it, link nothing extra.
 */
#ifndef IVRING_SELFTESTS_SEG_UTIL_H
#define IVRING_SELFTESTS_SEG_UTIL_H

#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "ring_writer.h"
#include "synth_events.h"
#include "libivring.h"

struct seg {
	int fd;
	char path[64];
	u8 *base;
	u64 size;
	struct ivw_params p;
	struct ivw_writer w;
	struct ivw_cpu *cpus;
	struct ivw_slot *slots;
};

/* An injected clock for the writer: tests set the time explicitly. */
static u64 seg_fake_now;

static __attribute__((unused)) u64 seg_fake_clock(void)
{
	return __atomic_load_n(&seg_fake_now, __ATOMIC_RELAXED);
}

static __attribute__((unused)) void seg_fake_set(u64 t)
{
	__atomic_store_n(&seg_fake_now, t, __ATOMIC_RELAXED);
}

/*
 * A fake time base well away from zero, so that tests see times of the same
 * size as real ones; seg_create() gives the clock to ivw_format(), which
 * stamps page 0 with it.
 */
static __attribute__((unused)) u64 seg_fake_base(void)
{
	return ivw_clock_mono() + 1000000000ULL;
}

static __attribute__((unused)) u64 seg_generation(void)
{
	static u64 n;
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ((u64)ts.tv_sec << 32) ^ ts.tv_nsec ^ ((u64)getpid() << 20) ^ ++n;
}

/*
 * Lay out and format a segment, with no format in it yet and still in
 * IVRING_STATE_FORMATTING.  @nr_subbufs 0 takes as many as fit; @clock NULL
 * is CLOCK_MONOTONIC; @format_size 0 is the writer's default.  Returns 0 or
 * -errno.
 */
static __attribute__((unused)) int
seg_format(struct seg *s, u64 size, u32 nr_cpus, u32 subbuf_size,
	   u32 nr_subbufs, u32 mode, u64 (*clock)(void), u32 format_size)
{
	struct ivring_header lay;
	u64 need;
	int ret;

	memset(s, 0, sizeof(*s));
	s->fd = -1;
	s->size = size;
	s->p.segment_size = size;
	s->p.nr_cpus = nr_cpus;
	s->p.subbuf_size = subbuf_size;
	s->p.nr_subbufs = nr_subbufs;
	s->p.format_size = format_size;
	s->p.mode = mode;
	s->p.clock_id = IVRING_CLOCK_MONO;
	s->p.clock_name = "mono";
	ret = ivw_layout(&s->p, &lay, &need);
	if (ret)
		return ret;

	s->fd = memfd_create("ivring-test", MFD_CLOEXEC);
	if (s->fd < 0)
		return -errno;
	if (ftruncate(s->fd, size))
		return -errno;
	s->base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, s->fd, 0);
	if (s->base == MAP_FAILED) {
		s->base = NULL;
		return -errno;
	}
	snprintf(s->path, sizeof(s->path), "/proc/self/fd/%d", s->fd);

	s->cpus = aligned_alloc(IVRING_CACHELINE, nr_cpus * sizeof(*s->cpus));
	s->slots = calloc((size_t)nr_cpus * lay.nr_subbufs, sizeof(*s->slots));
	if (!s->cpus || !s->slots)
		return -ENOMEM;
	s->w.clock = clock;
	return ivw_format(&s->w, s->base, &s->p, seg_generation(), s->cpus,
			  s->slots);
}

/* A formatted, LIVE segment with the synth formats; as seg_format(). */
static __attribute__((unused)) int
seg_create(struct seg *s, u64 size, u32 nr_cpus, u32 subbuf_size,
	   u32 nr_subbufs, u32 mode, u64 (*clock)(void))
{
	int ret;

	ret = seg_format(s, size, nr_cpus, subbuf_size, nr_subbufs, mode,
			 clock, 0);
	if (ret)
		return ret;
	ret = synth_add_formats(&s->w);
	if (ret)
		return ret;
	ivw_set_state(&s->w, IVRING_STATE_LIVE);
	return 0;
}

/*
 * The guest formats @s again, as a module reload does: a new generation in
 * the same file, with sub-buffers of @subbuf_size, LIVE.  0 or -errno.
 */
static __attribute__((unused)) int seg_reformat(struct seg *s, u32 subbuf_size)
{
	struct ivring_header lay;
	u64 need, (*clock)(void) = s->w.clock;
	int ret;

	s->p.subbuf_size = subbuf_size;
	s->p.nr_subbufs = 0;
	ret = ivw_layout(&s->p, &lay, &need);
	if (ret)
		return ret;
	free(s->cpus);
	free(s->slots);
	s->cpus = aligned_alloc(IVRING_CACHELINE, s->p.nr_cpus * sizeof(*s->cpus));
	s->slots = calloc((size_t)s->p.nr_cpus * lay.nr_subbufs, sizeof(*s->slots));
	if (!s->cpus || !s->slots)
		return -ENOMEM;
	memset(&s->w, 0, sizeof(s->w));
	s->w.clock = clock;
	ret = ivw_format(&s->w, s->base, &s->p, seg_generation(), s->cpus,
			 s->slots);
	if (!ret)
		ret = synth_add_formats(&s->w);
	if (!ret)
		ivw_set_state(&s->w, IVRING_STATE_LIVE);
	return ret;
}

static __attribute__((unused)) void seg_destroy(struct seg *s)
{
	if (s->base)
		munmap(s->base, s->size);
	if (s->fd >= 0)
		close(s->fd);
	free(s->cpus);
	free(s->slots);
	memset(s, 0, sizeof(*s));
	s->fd = -1;
}

/* Open a reader on @s; @flags are IVRING_OPEN_*.  0 or -errno. */
static __attribute__((unused)) int
seg_open(struct seg *s, unsigned int flags, struct ivring **r)
{
	static char err[256];
	struct ivring_open_opts o = {
		.sz = sizeof(o),
		.flags = flags,
		.errbuf = err,
		.errbuf_len = sizeof(err),
	};
	int ret = ivring__open(s->path, &o, r);

	if (ret)
		fprintf(stderr, "# ivring__open(%s): %d: %s\n", s->path, ret, err);
	return ret;
}

/* Shared per-CPU counters of the segment, as the writer published them. */
static __attribute__((unused)) struct ivring_cpu *
seg_cpu(struct seg *s, unsigned int cpu)
{
	return s->cpus[cpu].shared;
}

/* Write a synth:seq event; 0 or -ENOSPC. */
static __attribute__((unused)) int
seg_write_seq(struct seg *s, unsigned int cpu, u64 seq, u32 origin)
{
	struct synth_seq e;

	synth_fill_seq(&e, 1000 + cpu, seq, cpu, origin);
	return ivw_write(&s->w, cpu, &e, sizeof(e));
}

/* The seq of a synth:seq event, ~0 for any other event. */
static __attribute__((unused)) u64 seg_seq_of(const struct ivring_event *ev)
{
	uint64_t seq = ~0ULL;
	uint32_t cpu, origin;

	synth_check_seq(ev->data, ev->size, &seq, &cpu, &origin);
	return seq;
}

/* Write a synth:blob with @len data bytes; 0 or -ENOSPC. */
static __attribute__((unused)) int
seg_write_blob(struct seg *s, unsigned int cpu, u64 seq, u32 len)
{
	void *p = ivw_reserve(&s->w, cpu, synth_blob_size(len));

	if (!p)
		return -ENOSPC;
	synth_fill_blob(p, 1000 + cpu, seq, len);
	ivw_commit(&s->w, cpu);
	return 0;
}

/* Read with back-off: never spin hard on a position a writer may hold. */
static __attribute__((unused)) void seg_backoff(unsigned int *idle)
{
	struct timespec ts = { 0, 20000 };

	if (++*idle < 128)
		sched_yield();
	else
		nanosleep(&ts, NULL);
}

/* Remove a test's temporary directory and what it holds: 0 or -1. */
static __attribute__((unused)) int seg_rm_dir(const char *dir)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) ? -1 : 0;
}

#endif /* IVRING_SELFTESTS_SEG_UTIL_H */
