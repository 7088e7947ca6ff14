// SPDX-License-Identifier: GPL-2.0 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * Stress: two writer threads, one per sub-ring, each interrupted by its own
 * timer signal whose handler writes too (nested writes, as interrupts do
 * in the guest), and a consuming reader thread, for 10 M task events.
 *
 * Every event carries the next number of its stream: (cpu, task) or
 * (cpu, signal).  Numbers are taken whether or not the write succeeds, so
 * the reader can prove that each event arrived exactly once or was counted
 * lost: no duplicate, strictly increasing per stream, and per CPU the
 * numbers that never arrived equal the loss the reader reports.  The
 * writers are honest: no sub-buffer is damaged (bad pages 0), and in
 * discard mode, where no slot the reader has not consumed is reused, none
 * is torn either.
 *
 * IVRING_STRESS_EVENTS sets the total of task events: by default 10000000,
 * and 2000000 in the TSan build, which makes every access several times
 * slower (about 20 s there, against 4 s plain for 10M).
 * IVRING_STRESS_NESTED_NS sets the timer period (default 50000 ns): much
 * shorter and the signals starve the writers instead of nesting into them.
 */
#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>

#include "kselftest_harness.h"
#include "seg_util.h"

#define STRESS_CPUS		2
#ifdef __SANITIZE_THREAD__
#define STRESS_DEFAULT		2000000ULL
#else
#define STRESS_DEFAULT		10000000ULL
#endif
#define NESTED_PERIOD_NS	50000	/* 20 kHz of "interrupts" */

struct stress_writer {
	struct seg *s;
	unsigned int cpu;
	u64 nr_task;
	u64 task_seq;		/* next task-stream number */
	volatile u64 sig_seq;	/* next signal-stream number */
	int err;
} __attribute__((aligned(IVRING_CACHELINE)));

struct stream {
	u64 next;		/* next number we expect */
	u64 missing;		/* numbers skipped so far */
	u64 got;
};

struct stress_reader {
	struct seg *s;
	struct ivring *r;
	volatile int writers_done;
	struct stream st[STRESS_CPUS][2];
	u64 ev_lost[STRESS_CPUS];
	u64 got;
	char fail[256];		/* first violation, empty if none */
};

static __thread struct stress_writer *cur;

static void nested_write(int sig)
{
	struct stress_writer *w = cur;
	struct synth_seq *e;
	int saved = errno;

	(void)sig;
	if (!w)
		return;
	e = ivw_reserve(&w->s->w, w->cpu, sizeof(*e));
	if (e) {
		synth_fill_seq(e, 2000 + w->cpu, w->sig_seq, w->cpu,
			       SYNTH_ORIGIN_SIGNAL);
		ivw_commit(&w->s->w, w->cpu);
	}
	w->sig_seq = w->sig_seq + 1;
	errno = saved;
}

static void *writer_main(void *arg)
{
	struct stress_writer *w = arg;
	struct sigevent sev = {
		.sigev_notify = SIGEV_THREAD_ID,
		.sigev_signo = SIGRTMIN,
	};
	const char *env = getenv("IVRING_STRESS_NESTED_NS");
	long period = env && *env ? atol(env) : NESTED_PERIOD_NS;
	struct itimerspec its = {
		.it_interval = { 0, period },
		.it_value = { 0, period },
	};
	sigset_t set;
	timer_t timer;
	u64 i;

	cur = w;
	sev._sigev_un._tid = syscall(SYS_gettid);
	if (timer_create(CLOCK_MONOTONIC, &sev, &timer) ||
	    timer_settime(timer, 0, &its, NULL)) {
		w->err = errno;
		return NULL;
	}
	for (i = 0; i < w->nr_task; i++) {
		/* Every 8th a blob, reserved and filled in place: a signal
		 * may land between reserve and commit. */
		if (i % 8 == 7) {
			u32 len = (i * 131) % 1500;
			void *p = ivw_reserve(&w->s->w, w->cpu,
					      synth_blob_size(len));

			if (p) {
				synth_fill_blob(p, 1000 + w->cpu, w->task_seq, len);
				ivw_commit(&w->s->w, w->cpu);
			}
		} else {
			seg_write_seq(w->s, w->cpu, w->task_seq,
				      SYNTH_ORIGIN_TASK);
		}
		w->task_seq++;
	}
	/* No handler may run once we start to leave. */
	sigemptyset(&set);
	sigaddset(&set, SIGRTMIN);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	timer_delete(timer);
	cur = NULL;
	return NULL;
}

static void reader_fail(struct stress_reader *x, const char *fmt,
			unsigned long long a, unsigned long long b,
			unsigned long long c)
{
	if (!x->fail[0])
		snprintf(x->fail, sizeof(x->fail), fmt, a, b, c);
}

static void *reader_main(void *arg)
{
	struct stress_reader *x = arg;
	struct ivring_event ev;
	unsigned int idle = 0;
	int stopped = 0;

	for (;;) {
		uint64_t seq;
		uint32_t cpu, origin;
		struct stream *s;
		int ret = ivring__next(x->r, &ev);

		if (ret == 0) {
			if (!stopped && __atomic_load_n(&x->writers_done,
							__ATOMIC_ACQUIRE)) {
				stopped = 1;
				ivw_set_state(&x->s->w, IVRING_STATE_STOPPED);
				continue;
			}
			seg_backoff(&idle);
			continue;
		}
		if (ret == -EPIPE)
			break;
		if (ret < 0) {
			reader_fail(x, "ivring__next: %lld (%llu%llu)", ret, 0, 0);
			break;
		}
		idle = 0;
		if (ev.cpu >= STRESS_CPUS) {
			reader_fail(x, "event on cpu %llu", ev.cpu, 0, 0);
			break;
		}
		if (ev.type == SYNTH_ID_BLOB) {
			if (synth_check_blob(ev.data, ev.size, &seq)) {
				reader_fail(x, "cpu %llu: torn blob after %llu", ev.cpu,
					    x->st[ev.cpu][0].next, 0);
				break;
			}
			origin = SYNTH_ORIGIN_TASK;
		} else if (synth_check_seq(ev.data, ev.size, &seq, &cpu,
					   &origin) || cpu != ev.cpu ||
			   origin > SYNTH_ORIGIN_SIGNAL) {
			reader_fail(x, "cpu %llu: bad event of type %llu, size %llu",
				    ev.cpu, ev.type, ev.size);
			break;
		}
		s = &x->st[ev.cpu][origin];
		if (seq < s->next) {
			reader_fail(x, "cpu %llu: seq %llu again or out of order (expected >= %llu)",
				    ev.cpu * 10 + origin, seq, s->next);
			break;
		}
		s->missing += seq - s->next;
		s->next = seq + 1;
		s->got++;
		x->ev_lost[ev.cpu] += ev.lost;
		x->got++;
	}
	return NULL;
}

FIXTURE(stress) {
	struct seg s;
};

FIXTURE_VARIANT(stress) {
	u32 mode;
};

FIXTURE_VARIANT_ADD(stress, discard) { .mode = IVRING_MODE_DISCARD };
FIXTURE_VARIANT_ADD(stress, overwrite) { .mode = IVRING_MODE_OVERWRITE };

FIXTURE_SETUP(stress)
{
	ASSERT_EQ(0, seg_create(&self->s, 4 << 20, STRESS_CPUS, 4096, 0,
				variant->mode, NULL));
}

FIXTURE_TEARDOWN(stress)
{
	seg_destroy(&self->s);
}

TEST_F_TIMEOUT(stress, exactly_once_or_lost, 600)
{
	const char *env = getenv("IVRING_STRESS_EVENTS");
	u64 total = env && *env ? strtoull(env, NULL, 0) : STRESS_DEFAULT;
	struct stress_writer *w;
	struct stress_reader *x;
	pthread_t wt[STRESS_CPUS], rt;
	struct sigaction sa = { .sa_handler = nested_write };
	unsigned int cpu;

	w = aligned_alloc(IVRING_CACHELINE, STRESS_CPUS * sizeof(*w));
	x = calloc(1, sizeof(*x));
	ASSERT_NE(NULL, w);
	ASSERT_NE(NULL, x);
	memset(w, 0, STRESS_CPUS * sizeof(*w));
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	ASSERT_EQ(0, sigaction(SIGRTMIN, &sa, NULL));

	x->s = &self->s;
	ASSERT_EQ(0, seg_open(&self->s, 0, &x->r));
	ASSERT_EQ(0, pthread_create(&rt, NULL, reader_main, x));
	for (cpu = 0; cpu < STRESS_CPUS; cpu++) {
		w[cpu].s = &self->s;
		w[cpu].cpu = cpu;
		w[cpu].nr_task = total / STRESS_CPUS;
		ASSERT_EQ(0, pthread_create(&wt[cpu], NULL, writer_main, &w[cpu]));
	}
	for (cpu = 0; cpu < STRESS_CPUS; cpu++) {
		pthread_join(wt[cpu], NULL);
		ASSERT_EQ(0, w[cpu].err) TH_LOG("timer: %s", strerror(w[cpu].err));
	}
	__atomic_store_n(&x->writers_done, 1, __ATOMIC_RELEASE);
	pthread_join(rt, NULL);
	ASSERT_STREQ("", x->fail);

	for (cpu = 0; cpu < STRESS_CPUS; cpu++) {
		struct ivring_cpu_stats st = { .sz = sizeof(st) };
		struct stream *t = &x->st[cpu][SYNTH_ORIGIN_TASK];
		struct stream *g = &x->st[cpu][SYNTH_ORIGIN_SIGNAL];
		u64 written = w[cpu].task_seq + w[cpu].sig_seq;
		/* Gaps between arrivals, and numbers after the last arrival. */
		u64 missing = t->missing + g->missing +
			      (w[cpu].task_seq - t->next) +
			      (w[cpu].sig_seq - g->next);

		ASSERT_EQ(0, ivring__cpu_stats(x->r, cpu, &st));
		EXPECT_EQ(total / STRESS_CPUS, w[cpu].task_seq);
		EXPECT_LE(t->next, w[cpu].task_seq);
		EXPECT_LE(g->next, w[cpu].sig_seq);
		EXPECT_EQ(written, t->got + g->got + missing);
		EXPECT_EQ(t->got + g->got, st.read);
		/* What never arrived is exactly what the reader calls lost. */
		EXPECT_EQ(missing, st.lost)
			TH_LOG("cpu %u: missing %llu, reader lost %llu",
			       cpu, (unsigned long long)missing,
			       (unsigned long long)st.lost);
		EXPECT_LE(x->ev_lost[cpu], st.lost);
		EXPECT_EQ(0, st.bad_pages);
		if (variant->mode == IVRING_MODE_DISCARD)
			EXPECT_EQ(0, st.torn_pages);
		/* The writer's own books agree. */
		EXPECT_EQ(written, seg_cpu(&self->s, cpu)->entries +
			  seg_cpu(&self->s, cpu)->dropped);
		EXPECT_GT(w[cpu].sig_seq, 0);
		TH_LOG("cpu %u: task %llu + nested %llu written, %llu read, %llu lost (%llu dropped, %llu overrun), %llu torn pages",
		       cpu, (unsigned long long)w[cpu].task_seq,
		       (unsigned long long)w[cpu].sig_seq,
		       (unsigned long long)st.read, (unsigned long long)st.lost,
		       (unsigned long long)st.dropped,
		       (unsigned long long)st.overrun,
		       (unsigned long long)st.torn_pages);
	}
	ivring__close(x->r);
	free(x);
	free(w);
}

TEST_HARNESS_MAIN
