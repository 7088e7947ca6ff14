// SPDX-License-Identifier: GPL-2.0 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * The strict format grammar (lib/format/grammar.c) on its own: it accepts
 * every text that ivring writes (the 68 native formats of
 * selftests/data/formats, the synth ones), and each of its rules refuses
 * what it is there for, with a reason that names the thing.
 */
#include "kselftest_harness.h"
#include "fmt_util.h"

/* lib/format/format.h's; its types clash with the writer's that fmt_util.h has. */
int ivr_format_grammar(const char *text, uint32_t len, uint16_t id, char *why,
		       size_t why_len, uint32_t *tokens);

/* The grammar's verdict on a test text with print fmt @print: "" is yes. */
static const char *verdict(const char *print)
{
	static char why[256];
	char *t = fu_ab_text(10, print);

	if (!ivr_format_grammar(t, strlen(t), 10, why, sizeof(why), NULL))
		why[0] = '\0';
	free(t);
	return why;
}

/* Every native format of data/@set passes the grammar. */
static void check_natives(struct __test_metadata *_metadata, const char *set)
{
	struct fu_native *v;
	int n, i;

	n = fu_natives_of(set, &v);
	ASSERT_EQ(68, n) TH_LOG("%s/%s: %s", IVRING_SELFTESTS_DATA, set,
				 n < 0 ? strerror(-n) : "not 68 formats");
	for (i = 0; i < n; i++) {
		char why[256];

		EXPECT_EQ(0, ivr_format_grammar(v[i].text, v[i].len, v[i].id,
						why, sizeof(why), NULL))
			TH_LOG("%s/%s id %u: %s", set, v[i].sys, v[i].id, why);
	}
	fu_natives_free(v, n);
}

TEST(native_formats)
{
	check_natives(_metadata, "formats");
}

/* 6.12 spells some print fmts otherwise (ioprio, GFP bits, signed:0 char). */
TEST(native_formats_6_12)
{
	check_natives(_metadata, "formats-6.12");
}

/* 6.1-rt's trace_entry has a fifth common field, common_preempt_lazy_count. */
TEST(native_formats_6_1_rt)
{
	check_natives(_metadata, "formats-6.1-rt");
}

TEST(synth_formats)
{
	int i;

	for (i = 0; i < SYNTH_NR_EVENTS; i++) {
		const struct synth_event_desc *d = &synth_events[i];
		char why[256];

		EXPECT_EQ(0, ivr_format_grammar(d->format, strlen(d->format),
						d->id, why, sizeof(why), NULL))
			TH_LOG("synth:%s: %s", d->name, why);
	}
}

/* What kernel print fmts write, and a few more that libtraceevent takes. */
TEST(accepted)
{
	static const char *const ok[] = {
		"\"a=%u\", REC->a",
		"\"plain text\"",
		"\"%d\", (REC)->a",
		"\"%d\", (int)REC->a",
		"\"%p\", (void *)REC->a",
		"\"%lu\", (unsigned long long)(REC->a)",
		"\"%d\", ( gfp_t)0x40u",
		"\"%d\", REC->a / 1000L",
		"\"%d\", REC->a % 0x10",
		"\"%d\", REC->a / REC->b",
		"\"%d\", REC->a / (REC->b)",
		"\"%d\", REC->a / (u32)REC->b * 3",
		"\"%d\", REC->a * 1000 / 3",
		"\"%d\", -1UL",
		"\"%d\", REC->a != -1UL ? REC->a : 0",
		"\"%d\", (REC->a & ((1U << 20) - 1)) >> 3",
		"\"%d\", !REC->a && ~REC->b || REC->a ^ REC->b",
		"\"%d\", REC->a <= 3 == REC->b >= 4",
		"\"%c\", 'x'",
		"\"%c\", '\\''",
		"\"%s\", \"with \\\"quotes\\\"\"",
		"\"%d\", sizeof(int) + sizeof(unsigned long long) + sizeof(REC->a)",
		"\"%p\", ((struct page *)vmemmap_base) + REC->a",
		"\"%s\", __print_flags(REC->a, \"|\", { 1, \"A\" }, { 2 | 4, \"B\" })",
		"\"%s\", __print_flags(REC->a & 3, \"\", { ~(( gfp_t)(0x400u|0x800u)), \"B\" })",
		"\"%s\", __print_symbolic(REC->a, { HRTIMER_MODE_ABS, \"ABS\" })",
		"\"%s\", __print_symbolic(REC->a ? REC->b : 0, { (1 << 3), \"X\" })",
		"\"%d\", __builtin_expect(!!(REC->a), 1)",
		"\"%d\", REC->a ? (REC->b ? 1 : 2) : 3",
	};
	unsigned int i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		const char *print = ok[i];

		EXPECT_STREQ("", verdict(print)) TH_LOG("print fmt: %s", print);
	}
}

struct refusal {
	const char *print;
	const char *why;
};

static void refused(struct __test_metadata *_metadata,
		    const struct refusal *r, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		const char *why = verdict(r[i].print);

		EXPECT_NE(NULL, strstr(why, r[i].why))
			TH_LOG("print fmt: %s\n  reason \"%s\", expected \"%s\"",
			       r[i].print, why, r[i].why);
	}
}

/* What libtraceevent 1.7 tokenizes or groups otherwise than C does. */
TEST(refused_expressions)
{
	static const struct refusal r[] = {
		{ "\"%d\", 08", "has a number libtraceevent would misread (08)" },
		{ "\"%d\", 1e5", "misread (1e5)" },
		{ "\"%d\", 0x", "misread (0x)" },
		{ "\"%d\", 99999999999999999999", "misread" },
		{ "\"%d\", 1ULLL", "misread" },
		{ "\"%d\", REC->a REC->b", "syntax error" },
		{ "\"%d\", unsigned long", "syntax error" },
		{ "\"%d\", (5)REC->a", "syntax error" },
		{ "\"%d\", REC->a >>= 1", "syntax error in its print fmt at byte" },
		{ "\"%d\", REC->a--", "syntax error" },
		{ "\"%d\", REC.a", "syntax error" },
		{ "\"%d\", REC", "ends too early" },
		{ "\"%d\", *REC->a", "syntax error" },
		{ "\"%d\", &REC->a", "syntax error" },
		{ "\"%d\", REC->a = 1", "syntax error" },
		{ "\"%s\" \"%s\", REC->a", "syntax error" },
		{ "\"%d\", 'ab'", "syntax error" },
		{ "\"%d\", LOCAL_PR_FMT", "syntax error" },
		{ "\"%d\", REC->a ? 1", "ends too early" },
		{ "\"%d\", (REC->a", "ends too early" },
		{ "\"%d\", foo(REC->a)", "calls a function libtraceevent does not know (foo)" },
		{ "\"%d\", REC->a[0]", "indexes a field that is not an array (REC->a)" },
		{ "\"%d\", __get_dynamic_array(a)", "is not __data_loc" },
		{ "\"%d\", __print_flags(REC->a, { 1, \"x\" })", "syntax error" },
		{ "\"%d\", __print_flags(REC->a, \"|\")", "syntax error" },
		{ "\"%d\", __print_symbolic(REC->a, { 1, 2 })", "syntax error" },
		{ "\"%d\", __builtin_expect(REC->a + 1, 1)", "syntax error" },
		{ "\"%d\", sizeof(char)", "sizeof() of something libtraceevent does not size" },
		{ "REC->a", "does not start with a string" },
	};

	refused(_metadata, r, sizeof(r) / sizeof(r[0]));
}

/* Subscripts: one operand inside, nothing libtraceevent cannot rank after. */
TEST(subscripts)
{
	static const char *fields =
		"\tfield:unsigned long args[6];\toffset:8;\tsize:48;\tsigned:0;\n"
		"\tfield:u32 i;\toffset:56;\tsize:4;\tsigned:0;\n"
		"\tfield:__data_loc char[] name;\toffset:60;\tsize:4;\tsigned:0;\n";
	static const struct refusal r[] = {
		{ "\"%lx\", REC->args[0]", "" },
		{ "\"%lx\", REC->args[REC->i]", "" },
		{ "\"%lx\", REC->args[(REC->i + 1)]", "" },
		{ "\"%s %d\", __get_str(name), __get_dynamic_array_len(name) / 2", "" },
		{ "\"%lx\", REC->args[REC->args[0]]", "syntax error" },
		{ "\"%lx\", REC->args[REC->i + 1]", "syntax error" },
		{ "\"%lx\", REC->args[0][1]", "syntax error" },
		{ "\"%lx\", __get_dynamic_array(name)[0]", "syntax error" },
		{ "\"%s\", __get_str(i)", "passes a field that is not __data_loc to __get_str() (i)" },
		{ "\"%s\", __get_rel_str(name)", "passes a field that is not __rel_loc" },
		{ "\"%d\", sizeof(REC->args)", "sizeof() of a field that is not a scalar (args)" },
	};
	unsigned int i;

	for (i = 0; i < sizeof(r) / sizeof(r[0]); i++) {
		char why[256], *t = fu_text("sub", 10, fields, r[i].print);

		if (!ivr_format_grammar(t, strlen(t), 10, why, sizeof(why), NULL))
			why[0] = '\0';
		if (r[i].why[0]) {
			EXPECT_NE(NULL, strstr(why, r[i].why))
				TH_LOG("%s: \"%s\"", r[i].print, why);
		} else {
			EXPECT_STREQ("", why) TH_LOG("%s", r[i].print);
		}
		free(t);
	}
}

/* The lines around the fields and the print fmt, each in tracefs's shape. */
TEST(refused_layout)
{
	static const struct {
		const char *text;
		const char *why;
	} r[] = {
		{ "ID: 10\nname: x\n", "does not start with \"name: \"" },
		{ "name: x y\nID: 10\n", "has no \"ID: N\" line" },
		{ "name: \nID: 10\n", "has a name that is not an identifier" },
		{ "name: x\nID: 010\nformat:\n", "has no \"ID: N\" line" },
		{ "name: x\nID: 11\nformat:\n", "has ID 11, but its record says 10" },
		{ "name: x\nID: 10\nformat\n", "has no \"format:\" line" },
		{ "name: x\nID: 10\nformat:\n" SYNTH_COMMON_FIELDS "\n" FU_AB "\nprint fmt: \"x\"",
		  "does not end with a newline" },
		{ "name: x\nID: 10\nformat:\n" SYNTH_COMMON_FIELDS "\n" FU_AB "\nprint fmt: \"x\"\n\n",
		  "has text after its print fmt line" },
		{ "name: x\nID: 10\nformat:\n" SYNTH_COMMON_FIELDS "\n" FU_AB "\nprint: \"x\"\n",
		  "has no \"print fmt: \" line" },
		{ "name: x\nID: 10\nformat:\n" SYNTH_COMMON_FIELDS "\n" FU_AB "print fmt: \"x\"\n",
		  "has a malformed field line (print fmt: \"x\")" },
	};
	unsigned int i;

	for (i = 0; i < sizeof(r) / sizeof(r[0]); i++) {
		char why[256];

		EXPECT_EQ(-EINVAL, ivr_format_grammar(r[i].text, strlen(r[i].text),
						      10, why, sizeof(why), NULL));
		EXPECT_NE(NULL, strstr(why, r[i].why))
			TH_LOG("%s: \"%s\", expected \"%s\"", r[i].text, why, r[i].why);
	}
}

/*
 * The text is @len bytes, not a string: one that ends where a field line
 * should begin was read one byte past its end (libFuzzer's fuzz_format
 * found it; the library's own copies end in a NUL, which hid it).  Every
 * prefix of a real format, each in a buffer of its size, for ASan.
 */
TEST(prefixes_not_strings)
{
	static const char full[] =
		"name: p\nID: 100\nformat:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
		"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
		"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
		"\tfield:u32 a;\toffset:8;\tsize:4;\tsigned:0;\n\n"
		"print fmt: \"a=%u\", REC->a\n";
	char why[256];
	size_t len;

	for (len = 1; len < sizeof(full) - 1; len++) {
		char *t = malloc(len);

		ASSERT_NE(NULL, t);
		memcpy(t, full, len);
		EXPECT_EQ(-EINVAL, ivr_format_grammar(t, len, 100, why,
						      sizeof(why), NULL));
		free(t);
	}
	EXPECT_EQ(0, ivr_format_grammar(full, sizeof(full) - 1, 100, why,
					sizeof(why), NULL)) {
		TH_LOG("%s", why);
	}
}

TEST_HARNESS_MAIN
