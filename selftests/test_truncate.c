// SPDX-License-Identifier: GPL-2.0 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * The segment file shrinks under a reader: with the SIGBUS guard that the
 * application chose (ivring__sigbus_guard()), the calls on that handle
 * fail with -EFBIG and a message that names the file, the process lives,
 * other handles read on, and a SIGBUS that is not libivring's still
 * reaches the handler the application installed before.  Without the
 * guard nothing is installed: the fault is the process's, as for any
 * reader of a mapped file.
 */
#include <signal.h>
#include <sys/mman.h>

#include "kselftest_harness.h"
#include "seg_util.h"

static volatile sig_atomic_t app_sigbus;

static void app_handler(int sig)
{
	app_sigbus++;
}

FIXTURE(truncate)
{
	struct seg s, t;
};

FIXTURE_SETUP(truncate)
{
	u64 i;

	ASSERT_EQ(0, seg_create(&self->s, 1 << 20, 2, 1024, 0,
				IVRING_MODE_DISCARD, NULL));
	ASSERT_EQ(0, seg_create(&self->t, 1 << 20, 2, 1024, 0,
				IVRING_MODE_DISCARD, NULL));
	for (i = 0; i < 3000; i++) {
		ASSERT_EQ(0, seg_write_seq(&self->s, i % 2, i, 0));
		ASSERT_EQ(0, seg_write_seq(&self->t, i % 2, i, 0));
	}
}

FIXTURE_TEARDOWN(truncate)
{
	seg_destroy(&self->s);
	seg_destroy(&self->t);
}

static void truncated_handle_fails(struct __test_metadata *_metadata,
				   struct ivring *r)
{
	struct ivring_page pg = { .sz = sizeof(pg) };
	struct ivring_event ev;
	int i, ret;

	/* Events already copied out of the segment may still come. */
	for (i = 0; i < 1000 && (ret = ivring__next(r, &ev)) == 1; i++)
		;
	ASSERT_EQ(-EFBIG, ret);
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(-EFBIG, ivring__next(r, &ev));
		ASSERT_NE(NULL, strstr(ivring__errmsg(r), "shrank to 8192 bytes"))
			TH_LOG("%s", ivring__errmsg(r));
	}
	ASSERT_EQ(-EFBIG, ivring__poll(r, 10));
	ASSERT_EQ(-EFBIG, ivring__read_page(r, 0, &pg, 0));
	ASSERT_EQ(-EFBIG, ivring__commit(r));
}

TEST_F(truncate, under_a_reader)
{
	struct sigaction sa = { .sa_handler = app_handler }, old;
	struct ivring_event ev;
	struct ivring *r, *r2;
	int i, ret;

	/* The application had a handler of its own before libivring's. */
	sigemptyset(&sa.sa_mask);
	ASSERT_EQ(0, sigaction(SIGBUS, &sa, &old));
	/* The guard is the application's choice (libivring.h). */
	ASSERT_EQ(0, ivring__sigbus_guard(true));

	ASSERT_EQ(0, seg_open(&self->s, IVRING_OPEN_EXPLICIT_COMMIT, &r));
	ASSERT_EQ(0, seg_open(&self->t, 0, &r2));
	for (i = 0; i < 100; i++)
		ASSERT_EQ(1, ivring__next(r, &ev));

	/* Everything past the header page and the CPU area goes. */
	ASSERT_EQ(0, ftruncate(self->s.fd, 8192));
	truncated_handle_fails(_metadata, r);
	ASSERT_EQ(0, app_sigbus);

	/* The other segment reads on, to its end. */
	for (i = 0; (ret = ivring__next(r2, &ev)) == 1; i++)
		;
	ASSERT_EQ(0, ret);
	ASSERT_EQ(3000, i);

	/* A SIGBUS of someone else's is passed on. */
	raise(SIGBUS);
	ASSERT_EQ(1, app_sigbus);

	ivring__close(r);
	ivring__close(r2);
	sigaction(SIGBUS, &old, NULL);
}

/* The same, for a file that shrinks while no call is running. */
TEST_F(truncate, between_calls_peek)
{
	struct ivring_event ev;
	struct ivring *r;

	ASSERT_EQ(0, ivring__sigbus_guard(true));
	ASSERT_EQ(0, seg_open(&self->s, IVRING_OPEN_PEEK, &r));
	ASSERT_EQ(1, ivring__next(r, &ev));
	ASSERT_EQ(0, ftruncate(self->s.fd, 8192));
	truncated_handle_fails(_metadata, r);
	ivring__close(r);
}

/*
 * The same under a snapshot, whose pages are copied straight into the
 * recording's buffer: the take that the truncation cuts short fails, the
 * recording and the handle close, and the cursor gave the recording's
 * buffer back (ASan sees any use of it after rec_close()).
 */
TEST_F(truncate, under_a_recording)
{
	struct ivring_rec_opts o = {
		.sz = sizeof(o), .format = IVRING_REC_TRACE_DAT,
		.flags = IVRING_REC_SNAPSHOT,
	};
	struct ivring_page pg = { .sz = sizeof(pg) };
	struct ivring_cpu_stats st = { .sz = sizeof(st) };
	char path[] = "/tmp/ivring-truncate-XXXXXX", file[64];
	const struct ivring_header *h;
	struct ivring_rec *w;
	struct ivring *r;
	u64 keep;
	int i;

	ASSERT_NE(NULL, mkdtemp(path));
	snprintf(file, sizeof(file), "%s/t.dat", path);
	ASSERT_EQ(0, ivring__sigbus_guard(true));
	ASSERT_EQ(0, seg_open(&self->s, IVRING_OPEN_PEEK, &r));
	ASSERT_EQ(0, ivring__rec_open(r, file, &o, &w));
	ASSERT_EQ(1, ivring__rec_read(w, r, 0, 0, &pg));
	/* CPU 1 keeps 4 of its sub-buffers: the 5th page faults as it is copied. */
	h = (const struct ivring_header *)self->s.base;
	keep = h->data_offset + (u64)(h->nr_subbufs + 4) * h->subbuf_size;
	ASSERT_EQ(0, ftruncate(self->s.fd, keep));
	for (i = 0; i < 4; i++)
		ASSERT_EQ(1, ivring__rec_read(w, r, 1, 0, &pg));
	ASSERT_EQ(-EFBIG, ivring__rec_read(w, r, 1, 0, &pg));
	ASSERT_EQ(-EFBIG, ivring__rec_read(w, r, 0, 0, &pg));
	ivring__rec_close(w, NULL, 0);
	ASSERT_EQ(-EFBIG, ivring__cpu_stats(r, 1, &st));
	ivring__close(r);
	unlink(file);
	ASSERT_EQ(0, rmdir(path)) TH_LOG("%s: %s", path, strerror(errno));
}

/* An open installs nothing: the process's SIGBUS stays as it was. */
TEST_F(truncate, open_installs_nothing)
{
	struct sigaction before, after;
	struct ivring *r;

	ASSERT_EQ(0, sigaction(SIGBUS, NULL, &before));
	ASSERT_EQ(0, seg_open(&self->s, IVRING_OPEN_PEEK, &r));
	ASSERT_EQ(0, sigaction(SIGBUS, NULL, &after));
	ASSERT_TRUE(before.sa_handler == after.sa_handler);
	ASSERT_EQ(before.sa_flags, after.sa_flags);
	ivring__close(r);
}

/* ... so, unguarded, a truncation is a fault of the process. */
TEST_F_SIGNAL(truncate, unguarded_faults, SIGBUS)
{
	struct ivring_event ev;
	struct ivring *r;

#ifdef __SANITIZE_ADDRESS__
	/* ASan takes SIGBUS itself: it reports the fault and exits. */
	SKIP(return, "ASan handles SIGBUS");
#endif
	ASSERT_EQ(0, seg_open(&self->s, IVRING_OPEN_PEEK, &r));
	ASSERT_EQ(1, ivring__next(r, &ev));
	ASSERT_EQ(0, ftruncate(self->s.fd, 8192));
	while (ivring__next(r, &ev) == 1)
		;
	ivring__close(r);
}

/*
 * Taken out again, the guard gives SIGBUS back to the handler it found;
 * one installed after it is left alone, with ours behind it.
 */
TEST_F(truncate, guard_removed)
{
	struct sigaction sa = { .sa_handler = app_handler }, cur;

	sigemptyset(&sa.sa_mask);
	ASSERT_EQ(0, sigaction(SIGBUS, &sa, NULL));
	ASSERT_EQ(0, ivring__sigbus_guard(true));
	ASSERT_EQ(0, ivring__sigbus_guard(true));	/* once is enough */
	ASSERT_EQ(0, sigaction(SIGBUS, NULL, &cur));
	ASSERT_TRUE(cur.sa_handler != app_handler);
	ASSERT_EQ(0, ivring__sigbus_guard(false));
	ASSERT_EQ(0, sigaction(SIGBUS, NULL, &cur));
	ASSERT_TRUE(cur.sa_handler == app_handler);

	/* The guard, then someone else's: removing ours changes nothing. */
	ASSERT_EQ(0, ivring__sigbus_guard(true));
	ASSERT_EQ(0, sigaction(SIGBUS, &sa, NULL));
	ASSERT_EQ(0, ivring__sigbus_guard(false));
	ASSERT_EQ(0, sigaction(SIGBUS, NULL, &cur));
	ASSERT_TRUE(cur.sa_handler == app_handler);
	app_sigbus = 0;
	raise(SIGBUS);
	ASSERT_EQ(1, app_sigbus);
}

static struct sigaction chained_prev;

/* An application's handler that passes what is not its own on. */
static void chaining_handler(int sig, siginfo_t *si, void *uc)
{
	app_sigbus++;
	if (chained_prev.sa_flags & SA_SIGINFO)
		chained_prev.sa_sigaction(sig, si, uc);
	else if (chained_prev.sa_handler != SIG_DFL &&
		 chained_prev.sa_handler != SIG_IGN)
		chained_prev.sa_handler(sig);
}

/*
 * A handler installed after the guard that chains to it, then the guard
 * asked for again (or an old binary's second open): ours must not go in
 * front of it again, or each would pass a fault to the other for ever.
 */
TEST_F(truncate, guard_chained)
{
	struct sigaction sa = { .sa_handler = app_handler };
	struct sigaction ch = { .sa_sigaction = chaining_handler,
				.sa_flags = SA_SIGINFO | SA_NODEFER };

	sigemptyset(&sa.sa_mask);
	sigemptyset(&ch.sa_mask);
	ASSERT_EQ(0, sigaction(SIGBUS, &sa, NULL));
	ASSERT_EQ(0, ivring__sigbus_guard(true));
	ASSERT_EQ(0, sigaction(SIGBUS, &ch, &chained_prev));
	ASSERT_EQ(0, ivring__sigbus_guard(true));
	app_sigbus = 0;
	/* The chain, then ours, then the first handler: each once. */
	raise(SIGBUS);
	ASSERT_EQ(2, app_sigbus);
}

TEST_HARNESS_MAIN
