// SPDX-License-Identifier: GPL-2.0 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * The writer against a hostile host (include/DESIGN, section 4; RING-DESIGN
 * 5): the segment is host memory, the host may rewrite any byte of it at any
 * moment, and the writer must never write outside the segment, hang, or
 * take a count from it.  This is the userspace build of the guest's writer.
 *
 * The segment is malloc()ed, not mmapped, so that ASan's redzones lie
 * around it; a guard pattern right before and after it catches a stray
 * write in the plain build too.  Then:
 *  - format_area: the host rewrites the format area's used and nr_events
 *    and the header's format_size between ivw_add_format() calls; the
 *    records must still land one after another inside the area, and the
 *    area must fill up exactly where the writer's own books say.
 *  - counters: the host rewrites dropped, overrun and rejected; the writer
 *    publishes its own counts over them, and the tickets of the pages (what
 *    a reader counts as lost) follow the real drops only.
 *  - storm: one thread scribbles random and adversarial values (0, ~0,
 *    sizes and offsets of the segment and one off, the generation, values
 *    copied from elsewhere in the segment) over every byte of it, header,
 *    CPU area, descriptors, format area, host area and pages, while the
 *    writer formats, adds formats, writes (with nested writes from a timer
 *    signal, and events too large to fit), and formats again, switching
 *    modes, for IVRING_SCRIBBLE_MS (default 3000).  The test's timeout is
 *    the hang check.  Then the scribbling stops, the writer formats once
 *    more and writes; a libivring reader of the result reads every event
 *    the writer counted, loses exactly those it dropped, and finds no bad
 *    page.
 * IVRING_SCRIBBLE_SEED makes the storm's values reproducible (the timing is
 * not).
 */
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "ring_writer.h"
#include "libivring.h"
#include "synth_events.h"
#include "scribble.h"

#define NR_CPUS		2
#define SUBBUF		1024
#define FORMAT_SIZE	16384
#define SEG_SIZE	(256 * 1024)
#define GUARD		4096
#define GUARD_BYTE	0xa5
#define FINAL_EVENTS	10000	/* per CPU: more than a ring holds */

struct hseg {
	u8 *mem;		/* guard, segment, guard */
	u8 *base;
	struct ivw_params p;
	struct ivring_header lay;
	struct ivw_writer w;
	struct ivw_cpu *cpus;
	struct ivw_slot *slots;
	u64 gen;
};

static void hseg_params(struct hseg *s, u32 mode)
{
	s->p = (struct ivw_params){
		.segment_size = SEG_SIZE,
		.nr_cpus = NR_CPUS,
		.subbuf_size = SUBBUF,
		.format_size = FORMAT_SIZE,
		.mode = mode,
		.clock_id = IVRING_CLOCK_MONO,
		.clock_name = "mono",
	};
}

static int hseg_init(struct hseg *s)
{
	u64 need;
	int ret;

	memset(s, 0, sizeof(*s));
	hseg_params(s, IVRING_MODE_DISCARD);
	ret = ivw_layout(&s->p, &s->lay, &need);
	if (ret)
		return ret;
	s->mem = malloc(GUARD + SEG_SIZE + GUARD);
	s->cpus = aligned_alloc(IVRING_CACHELINE, NR_CPUS * sizeof(*s->cpus));
	s->slots = calloc((size_t)NR_CPUS * s->lay.nr_subbufs,
			  sizeof(*s->slots));
	if (!s->mem || !s->cpus || !s->slots)
		return -ENOMEM;
	memset(s->mem, GUARD_BYTE, GUARD + SEG_SIZE + GUARD);
	s->base = s->mem + GUARD;
	s->gen = 0x5c41bb1e00000000ULL;
	return 0;
}

static void hseg_free(struct hseg *s)
{
	free(s->mem);
	free(s->cpus);
	free(s->slots);
}

/* Both guards as we left them: the writer wrote nothing outside. */
static bool hseg_guards_ok(const struct hseg *s)
{
	size_t i;

	for (i = 0; i < GUARD; i++)
		if (s->mem[i] != GUARD_BYTE ||
		    s->mem[GUARD + SEG_SIZE + i] != GUARD_BYTE)
			return false;
	return true;
}

/* Format in @mode; no formats added, still FORMATTING.  0 or -errno. */
static int hseg_format(struct hseg *s, u32 mode)
{
	hseg_params(s, mode);
	__atomic_store_n(&s->gen, s->gen + 1, __ATOMIC_RELAXED);
	return ivw_format(&s->w, s->base, &s->p, s->gen, s->cpus,
			  s->slots);
}

static struct ivring_cpu *hseg_cpu(struct hseg *s, u32 cpu)
{
	return (struct ivring_cpu *)(s->base + s->lay.cpu_offset) + cpu;
}

/*
 * Open a libivring reader on a copy of the segment in a memfd: libivring
 * maps files, and the segment must stay in malloc()ed memory for ASan.
 */
static int hseg_open_copy(struct hseg *s, int *fd, struct ivring **r)
{
	static char err[256];
	struct ivring_open_opts o = {
		.sz = sizeof(o),
		.errbuf = err,
		.errbuf_len = sizeof(err),
	};
	char path[64];
	int ret;

	*fd = memfd_create("ivring-scribble", MFD_CLOEXEC);
	if (*fd < 0)
		return -errno;
	if (write(*fd, s->base, SEG_SIZE) != SEG_SIZE)
		return -EIO;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", *fd);
	ret = ivring__open(path, &o, r);
	if (ret)
		fprintf(stderr, "# ivring__open: %d: %s\n", ret, err);
	return ret;
}

FIXTURE(scribble) {
	struct hseg s;
};

FIXTURE_SETUP(scribble)
{
	ASSERT_EQ(0, hseg_init(&self->s));
}

FIXTURE_TEARDOWN(scribble)
{
	EXPECT_TRUE(hseg_guards_ok(&self->s));
	hseg_free(&self->s);
}

/* ------------------------------------------------------------------ */

TEST_F(scribble, format_area)
{
	static const u64 lies[] = { 0, 8, FORMAT_SIZE - 16, FORMAT_SIZE,
				    FORMAT_SIZE + 8, SEG_SIZE, SEG_SIZE - 1,
				    0x7fffffff, 0xfffffff0, ~0ULL };
	struct hseg *s = &self->s;
	struct ivring_format_area *a;
	struct ivring_format *f;
	char text[200];
	u32 i, off, used = 0, n = 0;
	int ret;

	ASSERT_EQ(0, hseg_format(s, IVRING_MODE_DISCARD));
	a = (void *)(s->base + s->lay.format_offset);
	memset(text, 'x', sizeof(text));
	for (i = 0;; i++) {
		u64 v = lies[i % (sizeof(lies) / sizeof(lies[0]))];

		/* The host rewrites every book the old writer read back. */
		s->w.hdr->format_size = v;
		a->used = (u32)v;
		a->nr_events = (u32)(v >> 3);
		ret = ivw_add_format(&s->w, i, "scribble", text, 100 + i % 90);
		if (ret)
			break;
		n++;
		used += (sizeof(*f) + 8 + 100 + i % 90 + 7) & ~7U;
		ASSERT_LT(n, FORMAT_SIZE / 16);
		/* The stores carry the writer's books, not the host's. */
		ASSERT_EQ(n, a->nr_events);
		ASSERT_EQ(used, a->used);
	}
	ASSERT_EQ(-ENOSPC, ret);
	/* The records lie end to end from the area's start, as written. */
	for (i = 0, off = 0; i < n; i++) {
		f = (void *)((u8 *)(a + 1) + off);
		ASSERT_EQ(i, f->id);
		ASSERT_EQ(8, f->sys_len);
		ASSERT_EQ(100 + i % 90, f->text_len);
		off += f->rec_size;
	}
	ASSERT_EQ(used, off);
	ASSERT_LE(off, FORMAT_SIZE - sizeof(*a));
	/* Full by the writer's books: the next record would not have fit. */
	ASSERT_GT(off + ((sizeof(*f) + 8 + 100 + n % 90 + 7) & ~7U),
		  FORMAT_SIZE - sizeof(*a));
}

/* ------------------------------------------------------------------ */

TEST_F(scribble, counters)
{
	struct hseg *s = &self->s;
	u64 written[NR_CPUS] = { 0 }, rejected[NR_CPUS] = { 0 };
	struct synth_seq e;
	struct ivring *r;
	int fd, round;
	u32 cpu;

	ASSERT_EQ(0, hseg_format(s, IVRING_MODE_DISCARD));
	ASSERT_EQ(0, synth_add_formats(&s->w));
	ivw_set_state(&s->w, IVRING_STATE_LIVE);
	for (round = 0; round < 3; round++) {
		for (cpu = 0; cpu < NR_CPUS; cpu++) {
			struct ivring_cpu *c = hseg_cpu(s, cpu);
			u64 i;

			/* Values that the old read-modify-write added to. */
			c->dropped = ~0ULL - 5;
			c->overrun = 1ULL << 62;
			c->rejected = 0x7fffffff;
			for (i = 0; i < FINAL_EVENTS / 4; i++, written[cpu]++) {
				synth_fill_seq(&e, 100, written[cpu], cpu, 0);
				ivw_write(&s->w, cpu, &e, sizeof(e));
			}
			ASSERT_EQ(NULL, ivw_reserve(&s->w, cpu, SUBBUF));
			rejected[cpu]++;
		}
	}
	ivw_set_state(&s->w, IVRING_STATE_STOPPED);

	ASSERT_EQ(0, hseg_open_copy(s, &fd, &r));
	for (;;) {
		struct ivring_event ev;
		int ret = ivring__next(r, &ev);

		if (ret == -EPIPE || ret == 0)
			break;
		ASSERT_LT(0, ret);
	}
	for (cpu = 0; cpu < NR_CPUS; cpu++) {
		struct ivring_cpu_stats st = { .sz = sizeof(st) };
		struct ivring_cpu *c = hseg_cpu(s, cpu);

		ASSERT_EQ(0, ivring__cpu_stats(r, cpu, &st));
		EXPECT_GT(c->dropped, 0);
		EXPECT_EQ(written[cpu], c->entries + c->dropped);
		EXPECT_EQ(0, c->overrun);
		EXPECT_EQ(rejected[cpu], c->rejected);
		/* Tickets count the real drops: lost is exactly them. */
		EXPECT_EQ(c->entries, st.read);
		EXPECT_EQ(c->dropped, st.lost);
		EXPECT_EQ(0, st.bad_pages);
	}
	ivring__close(r);
	close(fd);
}

/* ------------------------------------------------------------------ */

struct storm {
	struct hseg *s;
	volatile int stop;
	u64 seed;
	u64 stores;
	/* the writer's side */
	volatile sig_atomic_t live;
	u64 sig_rnd;
	u64 nested, rounds;
};

static struct storm *storm_cur;

static void *storm_scribbler(void *arg)
{
	struct storm *x = arg;
	const struct ivring_header *l = &x->s->lay;
	struct scribble_target t = {
		.base = x->s->base,
		.size = SEG_SIZE,
		.meta_end = l->data_offset,
		.format_size = l->format_size,
		.subbuf = SUBBUF,
		.cpu_offset = l->cpu_offset,
		.format_offset = l->format_offset,
		.host_offset = l->host_offset,
		.nr_cpus = NR_CPUS,
	};
	u64 rnd = x->seed;

	while (!__atomic_load_n(&x->stop, __ATOMIC_RELAXED)) {
		t.generation = __atomic_load_n(&x->s->gen, __ATOMIC_RELAXED);
		scribble_one(&t, &rnd);
		x->stores++;
	}
	return NULL;
}

/* One event of a random kind and size, some too large to ever fit. */
static void storm_write(struct hseg *s, u64 *rnd, u32 origin)
{
	u32 cpu = scribble_below(rnd, NR_CPUS), k = scribble_below(rnd, 16);
	u32 len;
	void *p;

	if (k == 0)
		len = SUBBUF + scribble_below(rnd, 3);	/* rejected */
	else if (k < 4)
		len = synth_blob_size(scribble_below(rnd,
				synth_blob_max_len(s->w.max_payload) + 1));
	else
		len = sizeof(struct synth_seq);
	p = ivw_reserve(&s->w, cpu, len);
	if (!p)
		return;
	if (len == sizeof(struct synth_seq))
		synth_fill_seq(p, 100, scribble_rand(rnd) >> 16, cpu, origin);
	else
		synth_fill_blob(p, 100, 0, len - synth_blob_size(0));
	ivw_commit(&s->w, cpu);
}

static void storm_nested(int sig)
{
	struct storm *x = storm_cur;
	int saved = errno;

	(void)sig;
	if (x && x->live) {
		storm_write(x->s, &x->sig_rnd, SYNTH_ORIGIN_SIGNAL);
		x->nested++;
	}
	errno = saved;
}

static u64 now_ms(void)
{
	return ivw_clock_mono() / 1000000;
}

TEST_F_TIMEOUT(scribble, storm, 120)
{
	const char *env_ms = getenv("IVRING_SCRIBBLE_MS");
	const char *env_seed = getenv("IVRING_SCRIBBLE_SEED");
	u64 ms = env_ms && *env_ms ? strtoull(env_ms, NULL, 0) : 3000;
	struct hseg *s = &self->s;
	struct storm x = { .s = s };
	struct sigaction sa = { .sa_handler = storm_nested };
	struct sigevent sev = {
		.sigev_notify = SIGEV_THREAD_ID,
		.sigev_signo = SIGRTMIN,
	};
	struct itimerspec its = {
		.it_interval = { 0, 50000 },
		.it_value = { 0, 50000 },
	};
	u64 written[NR_CPUS] = { 0 }, rnd, end;
	struct ivring *r;
	pthread_t th;
	timer_t timer;
	sigset_t set;
	int fd, ret, bad_format = 0;
	u64 bad_formats = 0;
	u32 cpu;

	x.seed = env_seed && *env_seed ? strtoull(env_seed, NULL, 0) :
					 ivw_clock_mono() | 1;
	x.sig_rnd = x.seed * 3 | 1;
	rnd = x.seed * 7 | 1;
	TH_LOG("IVRING_SCRIBBLE_SEED=%#llx", (unsigned long long)x.seed);

	storm_cur = &x;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	ASSERT_EQ(0, sigaction(SIGRTMIN, &sa, NULL));
	sev._sigev_un._tid = syscall(SYS_gettid);
	ASSERT_EQ(0, timer_create(CLOCK_MONOTONIC, &sev, &timer));

	/* The host scribbles from before the first format on. */
	ASSERT_EQ(0, pthread_create(&th, NULL, storm_scribbler, &x));
	ASSERT_EQ(0, timer_settime(timer, 0, &its, NULL));
	end = now_ms() + ms;
	while (now_ms() < end) {
		u32 mode = x.rounds & 1 ? IVRING_MODE_OVERWRITE :
					  IVRING_MODE_DISCARD;
		char text[64];
		u32 i, n;

		/* No nested writer while the writer state is laid out anew. */
		x.live = 0;
		barrier();
		ret = hseg_format(s, mode);
		if (ret) {
			bad_format = ret;
			break;
		}
		/*
		 * Whatever the host wrote, the formats fit until the area is
		 * full by the writer's books.  Go on after a failure, so that
		 * ASan may catch what a writer that believed the host writes.
		 */
		ret = synth_add_formats(&s->w);
		if (ret)
			bad_formats++;
		memset(text, 'f', sizeof(text));
		for (i = 0; i < 4096 && !ret; i++)
			ret = ivw_add_format(&s->w, 1000 + i, "scribble",
					     text, 1 + scribble_below(&rnd, 64));
		if (ret != -ENOSPC)
			bad_formats++;
		ivw_set_state(&s->w, IVRING_STATE_LIVE);
		barrier();
		x.live = 1;
		n = 500 + scribble_below(&rnd, 3000);
		for (i = 0; i < n; i++)
			storm_write(s, &rnd, SYNTH_ORIGIN_TASK);
		x.rounds++;
	}
	x.live = 0;
	sigemptyset(&set);
	sigaddset(&set, SIGRTMIN);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	timer_delete(timer);
	__atomic_store_n(&x.stop, 1, __ATOMIC_RELAXED);
	pthread_join(th, NULL);
	storm_cur = NULL;
	TH_LOG("%llu rounds, %llu nested writes, %llu host stores, %llu format failures",
	       (unsigned long long)x.rounds, (unsigned long long)x.nested,
	       (unsigned long long)x.stores, (unsigned long long)bad_formats);
	ASSERT_EQ(0, bad_format);
	EXPECT_EQ(0, bad_formats);
	ASSERT_GT(x.rounds, 1);
	ASSERT_TRUE(hseg_guards_ok(s));

	/* The host stopped: a fresh format must work as if nothing happened. */
	ASSERT_EQ(0, hseg_format(s, IVRING_MODE_DISCARD));
	ASSERT_EQ(0, synth_add_formats(&s->w));
	ivw_set_state(&s->w, IVRING_STATE_LIVE);
	for (cpu = 0; cpu < NR_CPUS; cpu++) {
		struct synth_seq e;

		for (; written[cpu] < FINAL_EVENTS; written[cpu]++) {
			synth_fill_seq(&e, 100, written[cpu], cpu, 0);
			ivw_write(&s->w, cpu, &e, sizeof(e));
		}
	}
	ivw_set_state(&s->w, IVRING_STATE_STOPPED);

	ASSERT_EQ(0, hseg_open_copy(s, &fd, &r));
	{
		u64 next[NR_CPUS] = { 0 }, lost[NR_CPUS] = { 0 };
		struct ivring_event ev;
		uint64_t seq;
		uint32_t ecpu, origin;

		while ((ret = ivring__next(r, &ev)) > 0) {
			ASSERT_LT(ev.cpu, NR_CPUS);
			ASSERT_EQ(0, synth_check_seq(ev.data, ev.size, &seq,
						     &ecpu, &origin));
			ASSERT_EQ(ev.cpu, ecpu);
			ASSERT_LE(next[ev.cpu], seq);
			lost[ev.cpu] += seq - next[ev.cpu];
			next[ev.cpu] = seq + 1;
		}
		ASSERT_TRUE(ret == -EPIPE || ret == 0) TH_LOG("next: %d", ret);
		for (cpu = 0; cpu < NR_CPUS; cpu++) {
			struct ivring_cpu_stats st = { .sz = sizeof(st) };
			struct ivring_cpu *c = hseg_cpu(s, cpu);

			ASSERT_EQ(0, ivring__cpu_stats(r, cpu, &st));
			EXPECT_EQ(written[cpu], c->entries + c->dropped);
			EXPECT_GT(c->dropped, 0);
			EXPECT_EQ(0, c->rejected);
			EXPECT_EQ(c->entries, st.read);
			EXPECT_EQ(c->dropped, st.lost);
			EXPECT_EQ(st.read + st.lost, written[cpu]);
			EXPECT_EQ(lost[cpu] + (written[cpu] - next[cpu]),
				  st.lost);
			EXPECT_EQ(0, st.bad_pages);
			EXPECT_EQ(0, st.torn_pages);
		}
	}
	ivring__close(r);
	close(fd);
}

TEST_HARNESS_MAIN
