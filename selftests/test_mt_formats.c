// SPDX-License-Identifier: GPL-2.0 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * Threads that open segments at the same time, again and again, each
 * parsing its handle's formats: libtraceevent 1.7 keeps its parser's state
 * in process globals, which libivring must not let two parses share.  One
 * segment ends with the hostile text A, which leaves libtraceevent's flag
 * set, the next starts with C, which dereferences NULL when it finds the
 * flag set (see test_hostile_formats.c); both have the synth formats too.
 * A third has the 68 native formats.  Every open must succeed and decode
 * what it should; under TSan, nothing may race.
 */
#include <pthread.h>

#include "kselftest_harness.h"
#include "fmt_util.h"

#define THREADS		4
#define RUN_MS		2000
#define MIN_ROUNDS	5

struct opener {
	pthread_t t;
	struct seg *segs;
	int nr_segs;
	int id;
	int rounds;
	char error[256];
	char *out;
};

static u64 now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000ULL + ts.tv_nsec / 1000000;
}

/* One open of @s, parsed and read: "" or what went wrong. */
static const char *round_on(struct opener *o, struct seg *s, int k)
{
	struct ivring_open_opts opts = {
		.sz = sizeof(opts), .flags = IVRING_OPEN_PEEK,
		.errbuf = o->error, .errbuf_len = sizeof(o->error),
	};
	const char *why = "";
	struct ivring *r;
	int id;

	if (ivring__open(s->path, &opts, &r))
		return o->error;
	if (!ivring__tep(r))
		why = "no formats";
	for (id = 1; k == 2 && !why[0] && id <= 68; id++)
		if (!ivring__event(r, id))
			why = "a native format did not parse";
	if (k < 2 && (fu_render_all(r, o->out) != 3 ||
		      !strstr(o->out, FU_SEQ_LINE)))
		why = "the synth events did not decode";
	ivring__close(r);
	return why;
}

static void *opener_main(void *arg)
{
	struct opener *o = arg;
	u64 end = now_ms() + RUN_MS;

	while (o->rounds < MIN_ROUNDS || now_ms() < end) {
		int k = (o->id + o->rounds) % o->nr_segs;
		const char *why = round_on(o, &o->segs[k], k);

		if (why[0]) {
			if (why != o->error)
				snprintf(o->error, sizeof(o->error), "%s", why);
			break;
		}
		o->error[0] = '\0';
		o->rounds++;
	}
	return NULL;
}

TEST(open_at_once)
{
	struct opener o[THREADS];
	struct seg segs[3];
	struct fu_native *v = NULL;
	u16 a[] = { 10 }, c[] = { 12 };
	int n, i;

	ASSERT_EQ(0, fu_seg(&segs[0], 0));
	ASSERT_EQ(0, fu_add_ab(&segs[0], 10, "\"%s\", __print_flags(1, \"|\", { 1, \"x\" })"));
	ASSERT_EQ(0, fu_events(&segs[0], a, 1));

	ASSERT_EQ(0, seg_format(&segs[1], 1 << 20, 1, 4096, 0,
				IVRING_MODE_DISCARD, NULL, 0));
	ASSERT_EQ(0, fu_add_ab(&segs[1], 12, "\"%llu\", REC->nosuch"));
	ASSERT_EQ(0, synth_add_formats(&segs[1].w));
	ASSERT_EQ(0, fu_events(&segs[1], c, 1));

	n = fu_natives(&v);
	ASSERT_EQ(68, n);
	ASSERT_EQ(0, seg_format(&segs[2], 1 << 20, 1, 4096, 0,
				IVRING_MODE_DISCARD, NULL, 0));
	for (i = 0; i < n; i++)
		ASSERT_EQ(0, ivw_add_format(&segs[2].w, v[i].id, v[i].sys,
					    v[i].text, v[i].len));
	ivw_set_state(&segs[2].w, IVRING_STATE_LIVE);
	fu_natives_free(v, n);

	for (i = 0; i < THREADS; i++) {
		o[i] = (struct opener){ .segs = segs, .nr_segs = 3, .id = i };
		o[i].out = malloc(FU_OUT_MAX);
		ASSERT_NE(NULL, o[i].out);
		ASSERT_EQ(0, pthread_create(&o[i].t, NULL, opener_main, &o[i]));
	}
	for (i = 0; i < THREADS; i++) {
		ASSERT_EQ(0, pthread_join(o[i].t, NULL));
		EXPECT_STREQ("", o[i].error) TH_LOG("thread %d, round %d", i, o[i].rounds);
		TH_LOG("thread %d: %d opens", i, o[i].rounds);
		free(o[i].out);
	}
	for (i = 0; i < 3; i++)
		seg_destroy(&segs[i]);
}

TEST_HARNESS_MAIN
