// SPDX-License-Identifier: GPL-2.0 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * What a handle tells about its generation's formats: ivring__format()
 * lists the texts that passed the checks, for a recorder to write out,
 * ivring__format_stats() counts and explains the others, ivring__errmsg()
 * keeps only failures, and nothing is parsed until something decodes.
 */
#include <stddef.h>

#include "kselftest_harness.h"
#include "fmt_util.h"

#define C_FIELD	"\"%llu\", REC->nosuch"

/* The synth formats, a raw one (20), one refused when parsed (21), C (22). */
static void build(struct __test_metadata *_metadata, struct seg *s)
{
	static const char raw[] = "\"q=%u\", REC->a / REC->b";
	/* Well formed, but libtraceevent finds no argument for the %d. */
	static const char nargs[] = "\"%d %d\", REC->a";
	u16 ids[] = { 20, 21, 22 };

	ASSERT_EQ(0, fu_seg(s, 0));
	ASSERT_EQ(0, fu_add_ab(s, 20, raw));
	ASSERT_EQ(0, fu_add_ab(s, 21, nargs));
	ASSERT_EQ(0, fu_add_ab(s, 22, C_FIELD));
	ASSERT_EQ(0, fu_events(s, ids, 3));
}

/* A successful open leaves no message, even with formats skipped. */
TEST(errmsg_only_for_failures)
{
	char line[512];
	struct ivring_event ev;
	struct ivring *r;
	struct seg s;

	build(_metadata, &s);
	ASSERT_EQ(0, seg_open(&s, 0, &r));
	EXPECT_STREQ("", ivring__errmsg(r));
	ASSERT_NE(NULL, ivring__tep(r));
	EXPECT_STREQ("", ivring__errmsg(r));
	while (ivring__next(r, &ev) > 0)
		ASSERT_LT(0, ivring__snprint(r, &ev, line, sizeof(line)));
	EXPECT_STREQ("", ivring__errmsg(r));
	EXPECT_EQ(-ERANGE, ivring__select_cpu(r, 5, true));
	EXPECT_NE(NULL, strstr(ivring__errmsg(r), "CPU 5 out of range"));
	ivring__close(r);
	seg_destroy(&s);
}

TEST(listed_and_counted)
{
	struct ivring_format_stats st = { .sz = sizeof(st) };
	struct ivring_format_info fi = { .sz = sizeof(fi) };
	char *want = fu_ab_text(20, "\"q=%u\", REC->a / REC->b");
	struct ivring *r;
	struct seg s;
	unsigned int i;

	build(_metadata, &s);
	ASSERT_EQ(0, seg_open(&s, IVRING_OPEN_PEEK, &r));
	ASSERT_EQ(0, ivring__format_stats(r, &st));
	EXPECT_EQ(sizeof(st), st.sz);
	EXPECT_EQ(SYNTH_NR_EVENTS + 3, st.records);
	EXPECT_EQ(SYNTH_NR_EVENTS + 2, st.listed);
	EXPECT_EQ(1, st.skipped);
	EXPECT_EQ(0, st.raw);
	EXPECT_FALSE(st.parsed);
	EXPECT_EQ(22, st.first_id);
	EXPECT_STREQ("names a field it does not declare (REC->nosuch)",
		     st.first_reason);

	for (i = 0; i < SYNTH_NR_EVENTS; i++) {
		ASSERT_EQ(0, ivring__format(r, i, &fi));
		EXPECT_EQ(synth_events[i].id, fi.id);
		EXPECT_STREQ(SYNTH_SYSTEM, fi.system);
		EXPECT_STREQ(synth_events[i].format, fi.text);
		EXPECT_EQ(strlen(fi.text), fi.text_len);
		EXPECT_EQ(0, fi.flags);
	}
	ASSERT_EQ(0, ivring__format(r, SYNTH_NR_EVENTS, &fi));
	EXPECT_EQ(20, fi.id);
	EXPECT_STREQ(FU_SYS, fi.system);
	EXPECT_STREQ(want, fi.text);
	EXPECT_EQ(-ENOENT, ivring__format(r, SYNTH_NR_EVENTS + 2, &fi));
	EXPECT_EQ(-ENOENT, ivring__format(r, ~0U, &fi));

	/* Parsed: the flags and the counts are final. */
	ASSERT_NE(NULL, ivring__tep(r));
	ASSERT_EQ(0, ivring__format_stats(r, &st));
	EXPECT_TRUE(st.parsed);
	EXPECT_EQ(2, st.skipped);
	EXPECT_EQ(1, st.raw);
	EXPECT_EQ(22, st.first_id);
	ASSERT_EQ(0, ivring__format(r, 0, &fi));
	EXPECT_EQ(IVRING_FORMAT_PARSED, fi.flags);
	ASSERT_EQ(0, ivring__format(r, SYNTH_NR_EVENTS, &fi));
	EXPECT_EQ(IVRING_FORMAT_PARSED | IVRING_FORMAT_RAW, fi.flags);
	ASSERT_EQ(0, ivring__format(r, SYNTH_NR_EVENTS + 1, &fi));
	EXPECT_EQ(21, fi.id);
	EXPECT_EQ(IVRING_FORMAT_REFUSED, fi.flags);
	EXPECT_EQ(NULL, ivring__event(r, 21));
	EXPECT_EQ(NULL, ivring__event(r, 22));
	EXPECT_NE(NULL, ivring__event(r, 20));
	ivring__close(r);
	seg_destroy(&s);
	free(want);
}

/* An older caller's smaller struct: filled up to its size, never past. */
TEST(smaller_structs)
{
	union {
		struct ivring_format_info fi;
		struct ivring_format_stats st;
		u8 bytes[256];
	} u;
	size_t fi_sz = offsetof(struct ivring_format_info, text);
	size_t st_sz = offsetof(struct ivring_format_stats, raw);
	struct ivring *r;
	struct seg s;
	size_t i;

	build(_metadata, &s);
	ASSERT_EQ(0, seg_open(&s, IVRING_OPEN_PEEK, &r));

	memset(&u, 0xa5, sizeof(u));
	u.fi.sz = fi_sz;
	ASSERT_EQ(0, ivring__format(r, 0, &u.fi));
	EXPECT_EQ(fi_sz, u.fi.sz);
	EXPECT_EQ(SYNTH_ID_SEQ, u.fi.id);
	EXPECT_STREQ(SYNTH_SYSTEM, u.fi.system);
	for (i = fi_sz; i < sizeof(u); i++)
		ASSERT_EQ(0xa5, u.bytes[i]) TH_LOG("byte %zu written", i);

	memset(&u, 0xa5, sizeof(u));
	u.st.sz = st_sz;
	ASSERT_EQ(0, ivring__format_stats(r, &u.st));
	EXPECT_EQ(st_sz, u.st.sz);
	EXPECT_EQ(SYNTH_NR_EVENTS + 2, u.st.listed);
	for (i = st_sz; i < sizeof(u); i++)
		ASSERT_EQ(0xa5, u.bytes[i]) TH_LOG("byte %zu written", i);

	u.st.sz = sizeof(size_t) - 1;
	EXPECT_EQ(-EINVAL, ivring__format_stats(r, &u.st));
	EXPECT_EQ(-EINVAL, ivring__format(r, 0, NULL));
	EXPECT_EQ(-EINVAL, ivring__format_stats(NULL, &u.st));
	ivring__close(r);
	seg_destroy(&s);
}

/* A recorder that only reads never has libtraceevent parse anything. */
TEST(next_never_parses)
{
	struct ivring_format_stats st = { .sz = sizeof(st) };
	struct ivring_format_info fi = { .sz = sizeof(fi) };
	struct ivring_event ev;
	struct ivring *r;
	struct seg s;
	int n = 0;

	build(_metadata, &s);
	ASSERT_EQ(0, seg_open(&s, 0, &r));
	while (ivring__next(r, &ev) > 0)
		n++;
	EXPECT_EQ(5, n);
	ASSERT_EQ(0, ivring__format(r, 0, &fi));
	ASSERT_EQ(0, ivring__format_stats(r, &st));
	EXPECT_FALSE(st.parsed);
	EXPECT_EQ(0, fi.flags);
	EXPECT_EQ(0, ivring__next_cpu(r, 0, &ev));
	ASSERT_EQ(0, ivring__format_stats(r, &st));
	EXPECT_FALSE(st.parsed);
	ASSERT_NE(NULL, ivring__event(r, SYNTH_ID_SEQ));
	ASSERT_EQ(0, ivring__format_stats(r, &st));
	EXPECT_TRUE(st.parsed);
	ivring__close(r);
	seg_destroy(&s);
}

/* All 68 native formats: listed, parsed, and printed through their print fmt. */
TEST(native_formats)
{
	struct ivring_format_stats st = { .sz = sizeof(st) };
	struct fu_native *v;
	struct ivring *r;
	struct seg s;
	int n, i;

	n = fu_natives(&v);
	ASSERT_EQ(68, n);
	ASSERT_EQ(0, seg_format(&s, 1 << 20, 1, 4096, 0, IVRING_MODE_DISCARD,
				NULL, 0));
	for (i = 0; i < n; i++)
		ASSERT_EQ(0, ivw_add_format(&s.w, v[i].id, v[i].sys,
					    v[i].text, v[i].len));
	ivw_set_state(&s.w, IVRING_STATE_LIVE);
	ASSERT_EQ(0, seg_open(&s, IVRING_OPEN_PEEK, &r));
	ASSERT_NE(NULL, ivring__tep(r));
	ASSERT_EQ(0, ivring__format_stats(r, &st));
	EXPECT_EQ(68, st.listed);
	EXPECT_EQ(0, st.skipped) TH_LOG("id %d: %s", st.first_id, st.first_reason);
	EXPECT_EQ(0, st.raw);
	for (i = 0; i < n; i++)
		EXPECT_NE(NULL, ivring__event(r, v[i].id)) TH_LOG("%s id %u", v[i].sys, v[i].id);
	ivring__close(r);
	seg_destroy(&s);
	fu_natives_free(v, n);
}

TEST_HARNESS_MAIN
