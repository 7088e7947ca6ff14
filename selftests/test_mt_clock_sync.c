// SPDX-License-Identifier: GPL-2.0 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * Guest time to host time through the segment, without a guest: a thread
 * plays the module's poller (kmod/clock_sync.c) with the shared writer's
 * ivw_sync_poll() and a guest clock that runs 5 s behind the host's
 * CLOCK_MONOTONIC and 100 ppm fast.  Every host time that the library
 * gives must be the true one within the bound it states.  Then guests that
 * do not answer, answer with a clock going backwards, or answer garbage.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

#include "kselftest_harness.h"
#include "seg_util.h"

#define GUEST_BEHIND	5000000000LL
#define GUEST_PPM	100

static u64 host_base;
/*
 * 0: honest, 1: backwards, 2: garbage, 3: near 2^62 and 2 ns a read (two
 * answers are one double), 4: from 2^62 at half the host's rate, 5:
 * honest but a millisecond late with each answer (a busy guest).
 */
static atomic_int guest_kind;

static u64 mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* The guest's clock at host time @h, and the way back. */
static u64 guest_at(u64 h)
{
	double d = (double)(h - host_base) * (1.0 + GUEST_PPM / 1e6);

	return host_base - GUEST_BEHIND + (u64)d;
}

/* The host time that guest time @g was, rounded. */
static u64 g0_host(u64 g);

static double host_at(u64 g)
{
	return (double)host_base +
	       ((double)g - (double)(host_base - GUEST_BEHIND)) /
	       (1.0 + GUEST_PPM / 1e6);
}

static u64 g0_host(u64 g)
{
	return (u64)host_at(g);
}

static u64 guest_clock(void)
{
	static u64 n;

	switch (atomic_load(&guest_kind)) {
	case 1:
		return guest_at(mono()) - ++n * 1000000000ULL;
	case 2:
		return (u64)random() << 20;
	case 3:
		return (1ULL << 62) + 2 * ++n;
	case 4:
		return (1ULL << 62) + (mono() - host_base) / 2;
	case 5:
		usleep(1000);
		return guest_at(mono());
	default:
		return guest_at(mono());
	}
}

struct poller {
	struct seg *s;
	atomic_bool stop;
	atomic_bool mute;
};

/*
 * The module's poller, with its policy (ivw_sync_poll()): a look every
 * millisecond, and after an answer the burst's spin.
 */
static void *poll_thread(void *arg)
{
	struct poller *p = arg;
	struct ivw_sync_poller poller = { 0 };

	while (!atomic_load(&p->stop)) {
		if (!atomic_load(&p->mute))
			ivw_sync_poll(&poller, &p->s->w);
		usleep(1000);
	}
	return NULL;
}

FIXTURE(clk)
{
	struct seg s;
	struct poller p;
	pthread_t t;
	struct ivring *r;
	char dir[32];		/* a test's files, removed at the end */
};

FIXTURE_SETUP(clk)
{
	host_base = mono();
	atomic_store(&guest_kind, 0);
	/* The writer's clock is the guest's, its pages' stamps too. */
	ASSERT_EQ(0, seg_create(&self->s, 1 << 20, 2, 4096, 0,
				IVRING_MODE_DISCARD, guest_clock));
	/* The module's flag. */
	self->s.w.hdr->flags = IVRING_F_CLOCK_SYNC;
	self->p.s = &self->s;
	atomic_store(&self->p.stop, false);
	atomic_store(&self->p.mute, false);
	ASSERT_EQ(0, pthread_create(&self->t, NULL, poll_thread, &self->p));
	ASSERT_EQ(0, seg_open(&self->s, 0, &self->r));
}

FIXTURE_TEARDOWN(clk)
{
	atomic_store(&self->p.stop, true);
	pthread_join(self->t, NULL);
	ivring__close(self->r);
	seg_destroy(&self->s);
	if (self->dir[0])
		seg_rm_dir(self->dir);
}

/* Host time of @g by the library, against the truth: within the bound. */
static int check_at(struct __test_metadata *_metadata, struct ivring *r,
		    u64 g, uint64_t *bound)
{
	double truth = host_at(g);
	int64_t err;
	uint64_t h;

	EXPECT_EQ(0, ivring__clock_host(r, g, IVRING_HOST_MONOTONIC, &h, bound));
	err = llabs((long long)(int64_t)(h - (uint64_t)truth));
	TH_LOG("guest %llu: off by %lld ns, bound %llu ns", (unsigned long long)g,
	       (long long)err, (unsigned long long)*bound);
	/* A few nanoseconds of rounding in the conversions. */
	EXPECT_LE(err, (int64_t)*bound + 4);
	return err <= (int64_t)*bound + 4 ? 0 : -1;
}

/*
 * Bursts until the kept samples span the 1 s that measures the drift, or
 * a minute passes: on a busy machine bursts time out or come back too slow
 * to keep, which the counts must say, but every host time given must still
 * be within its bound.
 */
TEST_F(clk, honest)
{
	struct ivring_clock_info ci = { .sz = sizeof(ci) };
	uint64_t g0, bound, h;
	u64 deadline = mono() + 60000000000ULL;
	int bursts = 0, n = 0;

	EXPECT_EQ(-ENODATA, ivring__clock_host(self->r, 1, IVRING_HOST_MONOTONIC,
					       &h, &bound));
	g0 = guest_at(mono());
	/*
	 * A burst every 250 ms, past the poller's gap between two bursts
	 * that it spins for (IVW_SYNC_GAP_NS), as a reader's burst a second
	 * is: each is answered in microseconds.
	 */
	do {
		n += ivring__clock_sync(self->r, 200);
		bursts++;
		usleep(IVW_SYNC_GAP_NS / 1000 + 50000);
		ASSERT_EQ(0, ivring__clock_info(self->r, &ci));
	} while ((ci.samples < 2 || mono() - g0_host(g0) < 1500000000ULL ||
		  bursts < 15) && mono() < deadline);
	TH_LOG("%d bursts, %d kept, %llu samples left, %llu timeouts, %llu poor; offset %lld ns, drift %.1f ppm, best bound %llu ns, last %llu ns",
	       bursts, n, (unsigned long long)ci.samples,
	       (unsigned long long)ci.timeouts, (unsigned long long)ci.poor,
	       (long long)ci.offset_ns, ci.drift_ppm,
	       (unsigned long long)ci.best_bound_ns,
	       (unsigned long long)ci.last_bound_ns);
	/* Every burst is a sample, a timeout or one not kept, and told. */
	EXPECT_EQ(bursts, ci.bursts);
	EXPECT_EQ(bursts, n + ci.timeouts + ci.poor + ci.refused);
	EXPECT_EQ(0, ci.refused);
	ASSERT_LE(2, ci.samples);
	EXPECT_GE(n, ci.samples);
	/*
	 * The guest runs 100 ppm fast: the offset shrinks by that, as far
	 * as the end samples' bounds let the drift be measured.
	 */
	if (ci.last_bound_ns < 20000) {
		EXPECT_LT(-GUEST_PPM - 30, ci.drift_ppm);
		EXPECT_GT(-GUEST_PPM + 30, ci.drift_ppm);
	}
	/* Between samples, before the first and after the last. */
	check_at(_metadata, self->r, g0 + 700000000ULL, &bound);
	check_at(_metadata, self->r, g0 - 300000000ULL, &bound);
	check_at(_metadata, self->r, guest_at(mono()) + 500000000ULL, &bound);
	/* Realtime: monotonic plus what the host's clocks differed by. */
	EXPECT_EQ(0, ivring__clock_host(self->r, g0 + 700000000ULL,
					IVRING_HOST_REALTIME, &h, &bound));
	EXPECT_LT(1700000000ULL * 1000000000ULL, h);
}

/*
 * One sample, so no drift measured yet: a host time far from it must
 * still be within its bound, whatever drift a guest's clock may have (this
 * one's is 100 ppm).
 */
TEST_F(clk, one_sample)
{
	struct ivring_clock_info ci = { .sz = sizeof(ci) };
	u64 deadline = mono() + 60000000000ULL;
	uint64_t bound;
	u64 g;

	while (ivring__clock_sync(self->r, 200) != 1 && mono() < deadline)
		usleep(IVW_SYNC_GAP_NS / 1000 + 50000);
	ASSERT_EQ(0, ivring__clock_info(self->r, &ci));
	ASSERT_EQ(1, ci.samples);
	g = guest_at(mono());
	check_at(_metadata, self->r, g + 300000000ULL, &bound);
	check_at(_metadata, self->r, g - 300000000ULL, &bound);
	check_at(_metadata, self->r, g + 3000000000ULL, &bound);
}

TEST_F(clk, silent_guest)
{
	struct ivring_clock_info ci = { .sz = sizeof(ci) };
	u64 t0;

	atomic_store(&self->p.mute, true);
	t0 = mono();
	EXPECT_EQ(0, ivring__clock_sync(self->r, 50));
	EXPECT_LE(50000000ULL, mono() - t0);
	EXPECT_GT(1000000000ULL, mono() - t0);
	ASSERT_EQ(0, ivring__clock_info(self->r, &ci));
	EXPECT_EQ(1, ci.timeouts);
	EXPECT_EQ(0, ci.samples);
}

/*
 * With no timeout, a guest that has not answered is never waited for: the
 * call leaves a request posted and makes no burst; once the guest has
 * answered it, the next call makes one.  A burst that got no answer
 * leaves its request posted too.
 */
TEST_F(clk, ask_without_waiting)
{
	struct ivring_clock_info ci = { .sz = sizeof(ci) };
	u64 deadline;
	int i, ret;

	atomic_store(&self->p.mute, true);
	for (i = 0; i < 100; i++)
		EXPECT_EQ(0, ivring__clock_sync(self->r, 0));
	ASSERT_EQ(0, ivring__clock_info(self->r, &ci));
	EXPECT_EQ(0, ci.bursts);
	EXPECT_NE(0, __atomic_load_n(&self->s.w.host->sync_seq,
				     __ATOMIC_ACQUIRE));
	atomic_store(&self->p.mute, false);
	deadline = mono() + 20000000000ULL;
	while (!(ret = ivring__clock_sync(self->r, 0)) && mono() < deadline)
		usleep(1000);
	ASSERT_EQ(1, ret);
	ASSERT_EQ(0, ivring__clock_info(self->r, &ci));
	EXPECT_EQ(1, ci.bursts);
	EXPECT_EQ(1, ci.samples);
	/* The burst ended: nothing is asked. */
	EXPECT_EQ(0, __atomic_load_n(&self->s.w.host->sync_seq,
				     __ATOMIC_ACQUIRE));
	atomic_store(&self->p.mute, true);
	EXPECT_EQ(0, ivring__clock_sync(self->r, 20));
	EXPECT_NE(0, __atomic_load_n(&self->s.w.host->sync_seq,
				     __ATOMIC_ACQUIRE));
}

/* A clock that goes back, or garbage: refused, or kept honest-looking. */
TEST_F(clk, hostile_guest)
{
	struct ivring_clock_info ci = { .sz = sizeof(ci) };
	uint64_t h, bound;
	int i;

	ASSERT_EQ(1, ivring__clock_sync(self->r, 200));
	atomic_store(&guest_kind, 1);
	for (i = 0; i < 3; i++)
		EXPECT_EQ(0, ivring__clock_sync(self->r, 200));
	ASSERT_EQ(0, ivring__clock_info(self->r, &ci));
	EXPECT_EQ(3, ci.refused);
	EXPECT_EQ(1, ci.samples);
	atomic_store(&guest_kind, 2);
	for (i = 0; i < 20; i++)
		ivring__clock_sync(self->r, 200);
	/* Whatever it kept, every conversion answers. */
	for (i = 0; i < 1000; i++)
		EXPECT_EQ(0, ivring__clock_host(self->r, (u64)random() << 24,
						IVRING_HOST_MONOTONIC, &h, &bound));
}

/*
 * A second sample kept, within a minute: a burst slower than the first
 * (a busy machine, a sanitizer) is not kept while the first is recent.
 * A first sample that was slow goes once a better one is kept (the
 * library's drop_poor()): *@s0_host and *@s0_guest, if not NULL, get the
 * first sample that stays, as it was while it was the only one.
 */
static int second_sample(struct ivring *r, uint64_t *s0_host,
			 uint64_t *s0_guest)
{
	struct ivring_clock_info ci = { .sz = sizeof(ci) };
	u64 deadline = mono() + 60000000000ULL;

	if (ivring__clock_info(r, &ci))
		return -1;
	while (ci.samples < 2 && mono() < deadline) {
		if (ci.samples == 1 && s0_host) {
			*s0_host = ci.last_host_ns;
			*s0_guest = ci.last_host_ns - (uint64_t)ci.offset_ns;
		}
		ivring__clock_sync(r, 200);
		if (ivring__clock_info(r, &ci))
			return -1;
	}
	return ci.samples == 2 ? 0 : -1;
}

/*
 * Two samples whose guest times are one double: the interpolation between
 * them divided 0 by 0 and converted the NaN (undefined), and gave any
 * time.  Now the first sample's offset holds between them: the first
 * that stays, as a slow first one goes once a better one is kept.
 */
TEST_F(clk, adjacent_huge_times)
{
	uint64_t s0_guest = 0, s0_host = 0, h, bound;

	atomic_store(&guest_kind, 3);
	ASSERT_EQ(1, ivring__clock_sync(self->r, 200));
	ASSERT_EQ(0, second_sample(self->r, &s0_host, &s0_guest));
	EXPECT_EQ(0, ivring__clock_host(self->r, s0_guest + 1,
					IVRING_HOST_MONOTONIC, &h, &bound));
	EXPECT_EQ(s0_host + 1, h);
}

/*
 * A guest clock at half the host's rate, and a guest time far beyond its
 * samples: the extrapolated offset is beyond 64 bits.  It saturates (the
 * guest only misplaces its own events); before, a double out of range was
 * converted, which UBSan's float-cast-overflow reports in the asan build.
 */
TEST_F(clk, slow_guest_far_away)
{
	struct ivring_clock_info ci = { .sz = sizeof(ci) };
	uint64_t h, h2, bound, t;

	atomic_store(&guest_kind, 4);
	ASSERT_EQ(1, ivring__clock_sync(self->r, 200));
	/* Two samples 1 s apart in guest time, 2 s in the host's. */
	t = mono() + 2200000000ULL;
	while (mono() < t)
		usleep(10000);
	ASSERT_EQ(0, second_sample(self->r, NULL, NULL));
	ASSERT_EQ(0, ivring__clock_info(self->r, &ci));
	EXPECT_LT(900000.0, ci.drift_ppm);
	EXPECT_EQ(0, ivring__clock_host(self->r, UINT64_MAX,
					IVRING_HOST_MONOTONIC, &h, &bound));
	EXPECT_EQ(0, ivring__clock_host(self->r, 0, IVRING_HOST_MONOTONIC,
					&h2, &bound));
}

/*
 * Slow bursts (a millisecond a round trip), after a fast one.  A quarter
 * second later the fast sample, extrapolated with the drift's uncertainty
 * (500 us a second), bounds the offset better than a slow one (500 us):
 * not kept.  Four seconds later it does not: kept, and the times near it
 * are bounded by it, those between the two samples by a bound that moves
 * from one's to the other's.  Before, it was not kept, and the bound there
 * stayed the fast sample's, 2 ms; and between, the bound was the slow
 * sample's all the way.
 */
TEST_F(clk, slow_sample_narrows)
{
	struct ivring_clock_info ci = { .sz = sizeof(ci) };
	uint64_t bound, ext, h, g0, g1;
	cpu_set_t cpus, one;
	u64 t;

	/*
	 * The poller and this thread on CPUs of their own: on one, the
	 * poller's spin holds it until the scheduler switches, and every
	 * round trip of the first burst took a millisecond.
	 */
	ASSERT_EQ(0, sched_getaffinity(0, sizeof(cpus), &cpus));
	if (CPU_COUNT(&cpus) < 2)
		SKIP(return, "needs two CPUs");
	CPU_ZERO(&one);
	for (t = 0; !CPU_ISSET(t, &cpus); t++)
		;
	CPU_SET(t, &one);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(one), &one));
	CPU_CLR(t, &cpus);
	ASSERT_EQ(0, pthread_setaffinity_np(self->t, sizeof(cpus), &cpus));
	ASSERT_EQ(1, ivring__clock_sync(self->r, 200));
	ASSERT_EQ(0, ivring__clock_info(self->r, &ci));
	/* A machine too busy for a fast first sample tells nothing here. */
	if (ci.best_bound_ns > 100000)
		SKIP(return, "the first sample was slow: %llu ns",
		     (unsigned long long)ci.best_bound_ns);
	g0 = ci.last_host_ns - (uint64_t)ci.offset_ns;
	atomic_store(&guest_kind, 5);
	usleep(IVW_SYNC_GAP_NS / 1000 + 50000);
	EXPECT_EQ(0, ivring__clock_sync(self->r, 200));
	ASSERT_EQ(0, ivring__clock_info(self->r, &ci));
	EXPECT_EQ(1, ci.poor);
	EXPECT_EQ(1, ci.samples);
	t = mono() + 4000000000ULL;
	while (mono() < t)
		usleep(10000);
	ASSERT_EQ(0, ivring__clock_host(self->r, guest_at(mono()),
					IVRING_HOST_MONOTONIC, &h, &ext));
	EXPECT_EQ(1, ivring__clock_sync(self->r, 200));
	ASSERT_EQ(0, ivring__clock_info(self->r, &ci));
	EXPECT_EQ(2, ci.samples);
	EXPECT_LE(500000, ci.last_bound_ns);
	EXPECT_GT(ext, ci.last_bound_ns);
	g1 = ci.last_host_ns - (uint64_t)ci.offset_ns;
	check_at(_metadata, self->r, g1, &bound);
	EXPECT_EQ(ci.last_bound_ns, bound);
	/* Halfway: half of each sample's bound. */
	check_at(_metadata, self->r, g0 + (g1 - g0) / 2, &bound);
	EXPECT_GT(ci.last_bound_ns / 2 + ci.best_bound_ns, bound);
	/*
	 * A second slow one, 3 s later, most often narrows too (the drift
	 * that the two samples give is uncertain by some 100 ppm, unless
	 * its round trip was much slower): then the first slow one stays,
	 * where it went and left the fast sample and the newest.
	 */
	t = mono() + 3000000000ULL;
	while (mono() < t)
		usleep(10000);
	if (ivring__clock_sync(self->r, 200) == 1) {
		ASSERT_EQ(0, ivring__clock_info(self->r, &ci));
		EXPECT_EQ(3, ci.samples);
	} else {
		TH_LOG("the second slow burst was slower still: not kept");
	}
	check_at(_metadata, self->r, g1, &bound);
}

TEST_F(clk, refusals)
{
	struct ivring *peek;

	ASSERT_EQ(0, seg_open(&self->s, IVRING_OPEN_PEEK, &peek));
	EXPECT_EQ(-EPERM, ivring__clock_sync(peek, 10));
	ivring__close(peek);
	EXPECT_EQ(-EINVAL, ivring__clock_sync(self->r, -1));
	EXPECT_EQ(-EINVAL, ivring__clock_host(self->r, 1, 7, NULL, NULL));
	/* A writer that does not answer says so in its header. */
	self->s.w.hdr->flags = 0;
	ivring__close(self->r);
	ASSERT_EQ(0, seg_open(&self->s, 0, &self->r));
	EXPECT_EQ(-EOPNOTSUPP, ivring__clock_sync(self->r, 10));
	/* Stopped: no clock to ask. */
	self->s.w.hdr->flags = IVRING_F_CLOCK_SYNC;
	ivring__close(self->r);
	ASSERT_EQ(0, seg_open(&self->s, 0, &self->r));
	ivw_set_state(&self->s.w, IVRING_STATE_STOPPED);
	EXPECT_EQ(-EPIPE, ivring__clock_sync(self->r, 10));
}

/* A CTF event of synth:seq: u32 id, u64 time, then the format's fields. */
#define CTF_SEQ_EVENT	(4 + 8 + (u32)sizeof(struct synth_seq))
#define CTF_PKT_START	84	/* packet header and context, ctf_meta.c */

/*
 * The times of the synth:seq events in the CTF stream file @path, by seq
 * (at most @n): ctf_meta.c's layout, packet by packet.  The events read.
 */
static int ctf_seq_times(const char *path, u64 *t, u32 n)
{
	static u8 buf[1 << 20];
	size_t len, at = 0;
	int found = 0;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	len = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	while (at + CTF_PKT_START <= len) {
		u64 content, size, pos;

		memcpy(&content, buf + at + 48, 8);
		memcpy(&size, buf + at + 56, 8);
		if (!size || size % 8 || at + size / 8 > len || content > size)
			return -1;
		for (pos = at + CTF_PKT_START; pos + CTF_SEQ_EVENT <= at + content / 8;
		     pos += CTF_SEQ_EVENT) {
			struct synth_seq e;
			u32 id;

			memcpy(&id, buf + pos, 4);
			memcpy(&e, buf + pos + 12, sizeof(e));
			if (id != 1 || e.seq >= n)
				return -1;
			memcpy(&t[e.seq], buf + pos + 4, 8);
			found++;
		}
		at += size / 8;
	}
	return found;
}

/*
 * A CTF trace recorded while the guest's clock runs 100 ppm fast: each
 * event carries its own host time, the drift applied, not the offset of
 * the trace's first sample.  Every event's distance from the first is the
 * true one within the bounds of both, while the guest's own distance is
 * off by 100 ppm of it (150 us over the 1.5 s), which one offset for the
 * whole trace gave.
 */
#define CTF_EVENTS	100

/* The bound of the host time of guest time @g, by @r's samples now. */
static u64 bound_at(struct ivring *r, u64 g)
{
	uint64_t h, bound;

	if (ivring__clock_host(r, g, IVRING_HOST_MONOTONIC, &h, &bound))
		return UINT64_MAX / 4;
	return bound;
}

TEST_F(clk, ctf_host_times)
{
	struct ivring_rec_opts o = { .sz = sizeof(o), .format = IVRING_REC_CTF };
	struct ivring_page pg = { .sz = sizeof(pg) };
	static u64 before[CTF_EVENTS], after[CTF_EVENTS], ctf[CTF_EVENTS];
	static u64 bnd[CTF_EVENTS];
	char path[64], err[256];
	u64 deadline = mono() + 20000000000ULL, drift, tol, next;
	struct ivring_rec *w;
	int i, j = 0, n = 0;

	strcpy(self->dir, "/tmp/ivring-ctfclk-XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	snprintf(path, sizeof(path), "%s/ctf", self->dir);
	ASSERT_EQ(0, ivring__rec_open(self->r, path, &o, &w));
	/*
	 * Until a host time 300 ms past the newest sample is bounded to
	 * 20 us: the drift measured, by samples a second apart.  Within
	 * 20 s, inside the harness's 30: a machine too busy for such
	 * samples cannot tell the drift (below).
	 */
	do {
		if (mono() > deadline)
			SKIP(return, "no samples that bound a host time to 20 us within 20 s");
		usleep(IVW_SYNC_GAP_NS / 1000 + 50000);
		ivring__clock_sync(self->r, 200);
	} while (bound_at(self->r, guest_at(mono()) + 300000000ULL) > 20000);
	ASSERT_EQ(1, ivring__rec_clock(w, self->r));
	next = mono();
	for (i = 0; i < CTF_EVENTS; i++) {
		before[i] = mono();
		ASSERT_EQ(0, seg_write_seq(&self->s, 0, i, 0));
		after[i] = mono();
		usleep(15000);
		if (mono() < next && i < CTF_EVENTS - 1)
			continue;
		/*
		 * A burst and the pages so far, as ivring-read record does;
		 * each event's bound is its host time's by the samples that
		 * the recording maps it with.
		 */
		ivring__clock_sync(self->r, 200);
		ASSERT_EQ(1, ivring__rec_clock(w, self->r));
		for (; j <= i; j++)
			bnd[j] = bound_at(self->r, guest_at(after[j]));
		while (ivring__rec_read(w, self->r, 0, IVRING_PAGE_PARTIAL, &pg) > 0)
			n += pg.events;
		ASSERT_EQ(0, ivring__rec_flush(w));
		next = mono() + 250000000ULL;
	}
	ASSERT_EQ(0, ivring__rec_close(w, err, sizeof(err)));
	ASSERT_EQ(CTF_EVENTS, n);
	snprintf(path, sizeof(path), "%s/ctf/channel0_0", self->dir);
	ASSERT_EQ(CTF_EVENTS, ctf_seq_times(path, ctf, CTF_EVENTS));
	tol = bnd[0] + bnd[CTF_EVENTS - 1];
	drift = (after[CTF_EVENTS - 1] - before[0]) / 10000;
	TH_LOG("the first and last events' bounds %llu and %llu ns; one offset would be off by %llu ns at the end",
	       (unsigned long long)bnd[0],
	       (unsigned long long)bnd[CTF_EVENTS - 1],
	       (unsigned long long)drift);
	/* Samples too slow to tell the two apart (a loaded machine). */
	if (2 * tol >= drift)
		SKIP(return, "bounds of %llu ns cannot tell the drift",
		     (unsigned long long)tol);
	for (i = 1; i < CTF_EVENTS; i++) {
		/* Both ends' bounds, and a few ns of rounding. */
		s64 d = (s64)(ctf[i] - ctf[0]), t = (s64)(bnd[i] + bnd[0] + 4);

		EXPECT_LE(d, (s64)(after[i] - before[0]) + t);
		EXPECT_GE(d, (s64)(before[i] - after[0]) - t);
		if (d > (s64)(after[i] - before[0]) + t ||
		    d < (s64)(before[i] - after[0]) - t) {
			TH_LOG("event %d: %lld ns after the first, truly %llu to %llu, bounds %llu and %llu",
			       i, (long long)d,
			       (unsigned long long)(before[i] - after[0]),
			       (unsigned long long)(after[i] - before[0]),
			       (unsigned long long)bnd[i],
			       (unsigned long long)bnd[0]);
			break;
		}
	}
}

TEST_HARNESS_MAIN
