// SPDX-License-Identifier: GPL-2.0 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * A consuming reader that goes away, cleanly or killed, and the next one
 * that opens the segment: nothing is lost, and only the event the dead
 * reader held in hand may be delivered again (libivring.h, ivring__next).
 */
#include <signal.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "seg_util.h"

#define NR_EVENTS	3000

FIXTURE(resume)
{
	struct seg s;
};

FIXTURE_SETUP(resume)
{
	u64 i;

	/* 64 sub-buffers of 1 KiB: the events span many of them. */
	ASSERT_EQ(0, seg_create(&self->s, 1 << 20, 1, 1024, 128,
				IVRING_MODE_DISCARD, NULL));
	for (i = 0; i < NR_EVENTS; i++)
		ASSERT_EQ(0, seg_write_seq(&self->s, 0, i, 0));
}

FIXTURE_TEARDOWN(resume)
{
	seg_destroy(&self->s);
}

/* Nothing skipped: the writer is honest and idle while we read. */
static bool no_skipped_pages(struct ivring *r)
{
	struct ivring_cpu_stats st = { .sz = sizeof(st) };

	return !ivring__cpu_stats(r, 0, &st) && !st.bad_pages &&
	       !st.torn_pages;
}

/*
 * Read the rest: every event once, in order, no loss, no skipped page,
 * starting at @first or, if @or_next, at @first + 1.
 */
static int drain_from(struct seg *s, u64 first, bool or_next)
{
	struct ivring_event ev;
	struct ivring *r;
	u64 want = first;
	int ret;

	if (seg_open(s, 0, &r))
		return -1;
	while ((ret = ivring__next(r, &ev)) == 1) {
		if (want == first && or_next && seg_seq_of(&ev) == first + 1)
			want++;
		if (seg_seq_of(&ev) != want || ev.lost) {
			fprintf(stderr, "# got seq %llu lost %llu, want %llu\n",
				(unsigned long long)seg_seq_of(&ev),
				(unsigned long long)ev.lost,
				(unsigned long long)want);
			ivring__close(r);
			return -1;
		}
		want++;
	}
	if (!no_skipped_pages(r))
		ret = -1;
	ivring__close(r);
	return ret == 0 && want == NR_EVENTS ? 0 : -1;
}

TEST_F(resume, closed_reader)
{
	struct ivring_event ev;
	struct ivring *r;
	int i;

	ASSERT_EQ(0, seg_open(&self->s, 0, &r));
	for (i = 0; i < 1234; i++) {
		ASSERT_EQ(1, ivring__next(r, &ev));
		ASSERT_EQ(i, seg_seq_of(&ev));
	}
	ivring__close(r);
	/* Closed after handling 1234 events: the next reader starts after. */
	EXPECT_EQ(0, drain_from(&self->s, 1234, false));
}

TEST_F(resume, peek_consumes_nothing)
{
	struct ivring_event ev;
	struct ivring *r;
	int i;

	ASSERT_EQ(0, seg_open(&self->s, IVRING_OPEN_PEEK, &r));
	for (i = 0; i < 500; i++)
		ASSERT_EQ(1, ivring__next(r, &ev));
	ivring__close(r);
	EXPECT_EQ(0, drain_from(&self->s, 0, false));
}

/* The reader exits without closing, holding event 699. */
TEST_F(resume, vanished_reader)
{
	pid_t pid = fork();
	int status;

	ASSERT_LE(0, pid);
	if (!pid) {
		struct ivring_event ev;
		struct ivring *r;
		int i;

		if (seg_open(&self->s, 0, &r))
			_exit(2);
		for (i = 0; i < 700; i++)
			if (ivring__next(r, &ev) != 1 || seg_seq_of(&ev) != (u64)i)
				_exit(3);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_EQ(0, WEXITSTATUS(status));
	EXPECT_EQ(0, drain_from(&self->s, 699, false));
}

/*
 * SIGKILL at an unknown moment: the reader reports each event it handled
 * through a pipe, as a tool would print it.  The next reader starts at the
 * last one reported (it was in hand, so it comes again) or just after it.
 */
TEST_F(resume, killed_reader)
{
	int fds[2], status;
	u64 last = ~0ULL, got;
	pid_t pid;

	ASSERT_EQ(0, pipe(fds));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct timespec slow = { 0, 200000 };
		struct ivring_event ev;
		struct ivring *r;

		close(fds[0]);
		if (seg_open(&self->s, 0, &r))
			_exit(2);
		while (ivring__next(r, &ev) == 1) {
			got = seg_seq_of(&ev);
			if (write(fds[1], &got, sizeof(got)) != sizeof(got))
				_exit(3);
			nanosleep(&slow, NULL);
		}
		_exit(4);	/* the parent kills us long before the end */
	}
	close(fds[1]);
	while (read(fds[0], &got, sizeof(got)) == sizeof(got)) {
		ASSERT_EQ(last + 1, got);
		last = got;
		if (got == 900) {
			kill(pid, SIGKILL);
			break;
		}
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFSIGNALED(status));
	/* Drain what it wrote before it died: handled events too. */
	while (read(fds[0], &got, sizeof(got)) == sizeof(got)) {
		ASSERT_EQ(last + 1, got);
		last = got;
	}
	close(fds[0]);
	TH_LOG("killed after handling event %llu", (unsigned long long)last);
	/* It may have died after marking it consumed: then last + 1. */
	EXPECT_EQ(0, drain_from(&self->s, last, true));
}

/*
 * Overwrite mode: the page a closed consumer stopped in is overwritten
 * before the next one opens.  The stored ticket still lets it say exactly
 * how many events it never saw.
 */
TEST(resume_after_overwrite)
{
	struct ivring_event ev;
	struct seg s;
	struct ivring *r;
	u64 i, first;
	int n;

	ASSERT_EQ(0, seg_create(&s, 1 << 20, 1, 1024, 8, IVRING_MODE_OVERWRITE,
				NULL));
	for (i = 0; i < 100; i++)
		ASSERT_EQ(0, seg_write_seq(&s, 0, i, 0));
	ASSERT_EQ(0, seg_open(&s, 0, &r));
	for (n = 0; n < 50; n++) {
		ASSERT_EQ(1, ivring__next(r, &ev));
		ASSERT_EQ(n, seg_seq_of(&ev));
	}
	ivring__close(r);

	/* Eight 1 KiB pages hold about 250 events: lap the ring many times. */
	for (i = 100; i < 5000; i++)
		ASSERT_EQ(0, seg_write_seq(&s, 0, i, 0));
	ASSERT_EQ(0, seg_open(&s, 0, &r));
	ASSERT_EQ(1, ivring__next(r, &ev));
	first = seg_seq_of(&ev);
	TH_LOG("resumed at event %llu, %llu reported lost",
	       (unsigned long long)first, (unsigned long long)ev.lost);
	EXPECT_LT(50, first);
	EXPECT_EQ(first - 50, ev.lost);
	for (i = first + 1; (n = ivring__next(r, &ev)) == 1; i++) {
		ASSERT_EQ(i, seg_seq_of(&ev));
		ASSERT_EQ(0, ev.lost);
	}
	EXPECT_EQ(0, n);
	EXPECT_EQ(5000, i);
	/* Lapped before it opened, but nothing was torn while it read. */
	EXPECT_TRUE(no_skipped_pages(r));
	ivring__close(r);
	seg_destroy(&s);
}

TEST_HARNESS_MAIN
