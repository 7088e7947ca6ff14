// SPDX-License-Identifier: GPL-2.0 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * The event filter (include/filter/), built from the same source as the
 * module's, in userspace:
 *   - an event's fields from its format text, with ftrace's kinds;
 *   - each refusal with ftrace's message at ftrace's byte (Linux 6.1's
 *     trace_events_filter.c, read for each case), and our limits;
 *   - numbers and strings matched as ftrace matches them, its quirks
 *     included, and records that lie about their strings;
 *   - && || ! and parentheses against a plain evaluator of the same
 *     expression, over 20000 random expressions, every jump forward.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "filter.h"

/* sched_switch's format, with a __data_loc string and a u8 added. */
static const char format[] =
	"name: test\nID: 316\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
	"\tfield:__data_loc char[] name;\toffset:40;\tsize:4;\tsigned:0;\n"
	"\tfield:u8 flag;\toffset:44;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned long args[2];\toffset:48;\tsize:16;\tsigned:0;\n"
	"\tfield:const char * ptr;\toffset:64;\tsize:8;\tsigned:0;\n"
	"\tfield:char comm[16];\toffset:72;\tsize:16;\tsigned:0;\n"
	"\nprint fmt: \"%d\", REC->prev_pid\n";

#define REC_NAME	88	/* where the test records keep the string */

struct rec {
	u8 b[256];
	u32 len;
};

static struct ivf_fields fields;
static struct ivf_prog prog;
static struct ivf_work work;
static struct ivf_error err;

static void make_rec(struct rec *r, const char *prev_comm, int pid,
		     long state, const char *name, u8 flag, const char *comm)
{
	u32 loc, n = strlen(name) + 1;

	memset(r, 0, sizeof(*r));
	r->b[0] = 1;
	memcpy(r->b + 4, &pid, 4);
	strncpy((char *)r->b + 8, prev_comm, 16);
	memcpy(r->b + 24, &pid, 4);
	memcpy(r->b + 28, &(int){ 120 }, 4);
	memcpy(r->b + 32, &state, 8);
	memcpy(r->b + REC_NAME, name, n);
	loc = n << 16 | REC_NAME;
	memcpy(r->b + 40, &loc, 4);
	r->b[44] = flag;
	strncpy((char *)r->b + 72, comm, 16);
	r->len = REC_NAME + n;
}

static int compile(const char *text)
{
	if (!fields.nr)
		ivf_fields_parse(format, sizeof(format) - 1, &fields);
	return ivf_compile(text, strlen(text), &fields, &prog, &work, &err);
}

static bool run(const char *text, const struct rec *r, unsigned int cpu,
		const char *comm)
{
	struct ivf_ctx ctx = { .cpu = cpu, .comm = comm };

	if (compile(text)) {
		fprintf(stderr, "# %s: %s at %u\n", text, err.msg, err.pos);
		abort();
	}
	return ivf_match(&prog, r->b, r->len, &ctx);
}

TEST(fields_from_format)
{
	const struct ivf_field *f;
	unsigned int i;

	ASSERT_EQ(13, ivf_fields_parse(format, sizeof(format) - 1, &fields));
	f = fields.f;
	ASSERT_STREQ("common_pid", f[3].name);
	ASSERT_EQ(IVF_INT, f[3].kind);
	ASSERT_TRUE(f[3].is_signed);
	ASSERT_STREQ("prev_comm", f[4].name);
	ASSERT_EQ(IVF_STR_STATIC, f[4].kind);
	ASSERT_EQ(16, f[4].size);
	ASSERT_EQ(IVF_INT, f[7].kind);
	ASSERT_EQ(8, f[7].size);
	ASSERT_STREQ("name", f[8].name);
	ASSERT_EQ(IVF_STR_LOC, f[8].kind);
	ASSERT_EQ(IVF_INT, f[9].kind);
	ASSERT_FALSE(f[9].is_signed);
	ASSERT_EQ(IVF_UNSUPPORTED, f[10].kind);	/* unsigned long[2] */
	ASSERT_EQ(IVF_UNSUPPORTED, f[11].kind);	/* const char * */
	for (i = 0; i < fields.nr; i++)
		ASSERT_NE(NULL, memchr(fields.f[i].name, 0, IVF_NAME_MAX));
}

/* @text refused with @msg at @pos. */
#define REFUSED(text_, msg_, pos_) do { \
	ASSERT_EQ(-EINVAL, compile(text_)); \
	ASSERT_STREQ(msg_, err.msg); \
	ASSERT_EQ(pos_, err.pos); \
	ASSERT_EQ(0, prog.nr); \
} while (0)

/* Each position as ftrace 6.1 computes it (TEF: parse_pred() adds 1). */
TEST(refusals_as_ftrace)
{
	REFUSED("foo == 1", "Field not found", 4);
	REFUSED("prev_pid == 1)", "Too few '('", 13);
	REFUSED("(prev_pid == 1", "Too many '('", 0);
	REFUSED("prev_pid == 1 || (x == 1", "Too many '('", 17);
	REFUSED("prev_pid == 1 || comm == \"x", "Missing matching quote", 25);
	REFUSED("prev_pid 1", "Invalid operator", 10);
	REFUSED("prev_pid => 1", "Invalid operator", 10);
	REFUSED("comm == bash", "Invalid value (did you forget quotes)?", 9);
	REFUSED("prev_pid == +5", "Invalid value (did you forget quotes)?", 13);
	REFUSED("prev_pid ==", "Invalid value (did you forget quotes)?", 12);
	REFUSED("prev_pid == \"1\"", "Expecting numeric field", 13);
	REFUSED("comm == 1", "Expecting string field", 9);
	REFUSED("comm < \"x\"", "Illegal operation for field type", 8);
	REFUSED("prev_pid ~ 1", "Illegal operation for field type", 12);
	REFUSED("prev_pid == 1 & prev_pid == 2", "Too many terms in predicate expression", 14);
	REFUSED("prev_pid == 1 abc", "Too many terms in predicate expression", 14);
	REFUSED("prev_pid == 1.5", "Too many terms in predicate expression", 13);
	REFUSED("prev_pid == 08", "Illegal integer value", 13);
	REFUSED("prev_pid == 0x", "Illegal integer value", 13);
	REFUSED("flag == -1", "Illegal integer value", 9);
	/* kstrtoll(): a signed 64-bit field takes no bit pattern above 2^63. */
	REFUSED("prev_state == 0xfffffffffffffffe", "Illegal integer value", 15);
	REFUSED("prev_pid == 123456789012345678901234", "Operand too long", 37);
	REFUSED("prev_pid == 1 &&", "Meaningless filter expression", 16);
	REFUSED("prev_pid == 1 || !", "Meaningless filter expression", 18);
	REFUSED("!", "No filter found", 1);
	REFUSED("", "No filter found", 0);
	REFUSED("  ()", "No filter found", 0);
	/* ftrace says "Error: (0)" for these two; we name what is missing. */
	REFUSED("&& prev_pid == 1", "Expecting a field name", 0);
	REFUSED("!= 1", "Expecting a field name", 0);
}

/* Where ftrace accepts a predicate that can never hold, or truncates. */
TEST(refusals_of_our_own)
{
	char text[IVF_TEXT_MAX + 64];
	unsigned int i, n = 0;

	REFUSED("flag == 256", "Illegal integer value", 9);
	REFUSED("prev_pid == 4294967296", "Illegal integer value", 13);
	REFUSED("prev_pid == -2147483649", "Illegal integer value", 13);
	REFUSED("args == 1", "Illegal operation for field type", 9);
	REFUSED("ptr == 1", "Illegal operation for field type", 8);
	REFUSED("cpu & 1", "Illegal operation for field type", 7);
	/* The bit pattern of an s32 is allowed, as is its most negative value. */
	ASSERT_EQ(0, compile("prev_pid == 0xffffffff"));
	ASSERT_EQ(0, compile("prev_pid == -2147483648"));

	/* IVF_PREDS_MAX predicates, and one more. */
	for (i = 0; i < IVF_PREDS_MAX; i++)
		n += sprintf(text + n, "%sprev_pid == %u", i ? " || " : "", i);
	ASSERT_EQ(0, compile(text));
	ASSERT_EQ(IVF_PREDS_MAX, prog.nr);
	sprintf(text + n, " || flag == 1");
	REFUSED(text, "Too many terms in predicate expression", n + 4);

	/* IVF_DEPTH_MAX parentheses deep, and one more. */
	n = 0;
	for (i = 0; i < IVF_DEPTH_MAX; i++)
		text[n++] = '(';
	n += sprintf(text + n, "flag == 1");
	for (i = 0; i < IVF_DEPTH_MAX; i++)
		text[n++] = ')';
	text[n] = '\0';
	ASSERT_EQ(0, compile(text));
	memmove(text + 1, text, n + 1);
	text[0] = '(';
	strcat(text, ")");
	REFUSED(text, "Too many '('", IVF_DEPTH_MAX);

	/* A string of 255 bytes, of 256; and too many of them together. */
	n = sprintf(text, "comm == \"");
	memset(text + n, 'a', 256);
	strcpy(text + n + 255, "\"");
	ASSERT_EQ(0, compile(text));
	memset(text + n, 'a', 256);
	strcpy(text + n + 256, "\"");
	REFUSED(text, "Operand too long", n + 257);
	n = 0;
	for (i = 0; i < 9; i++) {
		n += sprintf(text + n, "%scomm == \"", i ? " || " : "");
		memset(text + n, 'b', 250);
		n += 250;
		n += sprintf(text + n, "\"");
	}
	ASSERT_EQ(-EINVAL, compile(text));
	ASSERT_STREQ("Too many string bytes", err.msg);

	/* Longer than a sysfs write. */
	memset(text, ' ', IVF_TEXT_MAX + 1);
	memcpy(text, "flag == 1", 9);
	ASSERT_EQ(-EINVAL, ivf_compile(text, IVF_TEXT_MAX + 1, &fields, &prog,
				       &work, &err));
}

TEST(clear)
{
	struct rec r;

	make_rec(&r, "bash", 10, 1, "x", 0, "sh");
	ASSERT_EQ(0, compile("0"));
	ASSERT_EQ(0, prog.nr);
	ASSERT_EQ(0, compile("   0"));
	ASSERT_EQ(0, prog.nr);
	ASSERT_TRUE(ivf_match(&prog, r.b, r.len, &(struct ivf_ctx){ 0, "x" }));
	REFUSED("00", "Field not found", 3);
	REFUSED("0 && flag == 1", "Field not found", 2);
}

/* Filters and whether each holds for a record. */
struct want {
	const char *text;
	bool hold;
};

static void check_all(struct __test_metadata *_metadata, const struct rec *r,
		      unsigned int cpu, const char *comm,
		      const struct want *w, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		EXPECT_EQ(w[i].hold, run(w[i].text, r, cpu, comm)) {
			TH_LOG("%s", w[i].text);
		}
}

#define CHECK_ALL(r, cpu, comm, w) \
	check_all(_metadata, r, cpu, comm, w, sizeof(w) / sizeof(w[0]))

TEST(numbers)
{
	static const struct want w[] = {
		{ "prev_pid == 1000", true },
		{ "prev_pid == 0x3e8", true },
		{ "prev_pid == 01750", true },
		{ "prev_pid != 1000", false },
		{ "prev_pid > 999 && prev_pid >= 1000", true },
		{ "prev_pid < 1000", false },
		{ "prev_pid <= 1000", true },
		{ "common_pid == 1000", true },
		{ "common_type == 1", true },
		/* Signed: -2 is less than 0, and has bit 2 set. */
		{ "prev_state < 0", true },
		{ "prev_state == -2", true },
		{ "prev_state & 4", true },
		{ "prev_state & 1", false },
		/* Unsigned u8: 0xa5 is greater than 127. */
		{ "flag > 127", true },
		{ "flag & 0x80", true },
		{ "flag & 0x5a", false },
		/* The CPU (3 here), as an int. */
		{ "cpu == 3", true },
		{ "CPU > 2 && common_cpu < 4", true },
		{ "cpu != 3", false },
		{ "cpu > -1", true },
	};
	/* A record too short for the field: false, whatever the operator. */
	static const struct want cut[] = {
		{ "prev_state != 5", false },
		{ "!(prev_state != 5)", true },
	};
	struct rec r;

	make_rec(&r, "bash", 1000, -2, "x", 0xa5, "sh");
	CHECK_ALL(&r, 3, "sh", w);
	r.len = 30;
	CHECK_ALL(&r, 3, "sh", cut);
}

TEST(strings)
{
	static const struct want w[] = {
		{ "prev_comm == \"bash\"", true },
		{ "prev_comm == 'bash'", true },
		{ "prev_comm == \"bas\"", false },
		{ "prev_comm != \"bas\"", true },
		{ "prev_comm ~ \"ba*\"", true },
		{ "prev_comm ~ \"*as*\"", true },
		{ "prev_comm ~ \"b?s[gh]\"", true },
		{ "prev_comm ~ \"b?s[!h]\"", false },
		{ "prev_comm ~ \"!zsh*\"", true },
		/* == is literal. */
		{ "prev_comm == \"ba*\"", false },
		/*
		 * ftrace's suffix match of a char[16] looks just before its
		 * last byte: "*sh" does not find "bash" (see below).
		 */
		{ "prev_comm ~ \"*sh\"", false },
		/* A __data_loc string's length holds its NUL: a true suffix. */
		{ "name ~ \"*-rx\"", true },
		{ "name == \"eth0-rx\"", true },
		{ "name ~ \"eth*\" && name ~ \"*0-*\"", true },
		{ "name ~ \"e*x\"", true },
		{ "name ~ \"e*y\"", false },
		/* COMM is the writer's; the event's own comm hides "comm". */
		{ "COMM ~ \"kworker/*\"", true },
		{ "comm == \"sh\"", true },
		{ "comm ~ \"kworker*\"", false },
	};
	/* ... but finds a name of 15 bytes. */
	static const struct want w15[] = {
		{ "prev_comm ~ \"*sh\"", true },
	};
	/* Globs: escapes, classes with ranges and ]. */
	static const struct want globs[] = {
		{ "prev_comm ~ \"a\\*b[]]c\"", true },
		{ "prev_comm ~ \"a\\*x*\"", false },
		{ "prev_comm ~ \"[a-c]?b*\"", true },
		{ "prev_comm ~ \"[b-z]*\"", false },
	};
	const char *c = "kworker/0:1";
	struct rec r;

	make_rec(&r, "bash", 1, 0, "eth0-rx", 0, "sh");
	CHECK_ALL(&r, 0, c, w);
	make_rec(&r, "abcdefghijklmsh", 1, 0, "eth0-rx", 0, "sh");
	CHECK_ALL(&r, 0, c, w15);
	make_rec(&r, "a*b]c", 1, 0, "x", 0, "sh");
	CHECK_ALL(&r, 0, c, globs);
}

/* A record whose string location lies: every predicate on it is false. */
TEST(lying_records)
{
	static const u32 locs[] = {
		200 << 16 | REC_NAME,	/* runs past the record */
		5 << 16 | 250,		/* starts past it */
		0xffff << 16 | 0xffff,
		0 << 16 | 250,		/* empty, outside */
	};
	struct rec r;
	unsigned int i;

	for (i = 0; i < sizeof(locs) / sizeof(locs[0]); i++) {
		make_rec(&r, "bash", 1, 0, "eth0", 0, "sh");
		memcpy(r.b + 40, &locs[i], 4);
		ASSERT_FALSE(run("name == \"eth0\"", &r, 0, "x"));
		ASSERT_FALSE(run("name != \"eth0\"", &r, 0, "x"));
		ASSERT_FALSE(run("name ~ \"*\"", &r, 0, "x"));
		ASSERT_FALSE(run("name ~ \"*t*\"", &r, 0, "x"));
	}
	/* Empty, inside: the C string that starts there, as ftrace reads it. */
	make_rec(&r, "bash", 1, 0, "eth0", 0, "sh");
	memcpy(r.b + 40, &(u32){ 0 << 16 | REC_NAME }, 4);
	ASSERT_TRUE(run("name == \"eth0\"", &r, 0, "x"));
	ASSERT_FALSE(run("name ~ \"*0\"", &r, 0, "x"));
	/* No NUL before the record ends: false. */
	r.len = REC_NAME + 4;
	ASSERT_FALSE(run("name == \"eth0\"", &r, 0, "x"));
}

/*
 * Random expressions over predicates whose truth is known (flag's bits),
 * against a plain recursive evaluator; and every jump forward.
 */
struct gen {
	char text[IVF_TEXT_MAX];
	unsigned int n, preds;
	unsigned int seed;
};

static unsigned int rnd(struct gen *g)
{
	g->seed = g->seed * 1103515245 + 12345;
	return g->seed >> 8;
}

/* Appends an expression to g->text; returns its value for @flag. */
static bool gen_expr(struct gen *g, unsigned int depth, u8 flag);

static bool gen_term(struct gen *g, unsigned int depth, u8 flag)
{
	unsigned int k = rnd(g) % 8;
	bool v;

	if (rnd(g) % 4 == 0) {
		g->n += sprintf(g->text + g->n, rnd(g) % 2 ? "!" : "! ");
		return !gen_term(g, depth, flag);
	}
	if (depth < 6 && rnd(g) % 3 == 0) {
		g->n += sprintf(g->text + g->n, "(");
		v = gen_expr(g, depth + 1, flag);
		g->n += sprintf(g->text + g->n, ")");
		return v;
	}
	g->preds++;
	g->n += sprintf(g->text + g->n, "flag & %u", 1u << k);
	return flag & (1u << k);
}

static bool gen_expr(struct gen *g, unsigned int depth, u8 flag)
{
	unsigned int terms = 1 + rnd(g) % 3, i;
	bool or = false, and = gen_term(g, depth, flag);

	for (i = 1; i < terms && g->preds < 40; i++) {
		if (rnd(g) % 2) {
			g->n += sprintf(g->text + g->n, " && ");
			and = gen_term(g, depth, flag) && and;
		} else {
			g->n += sprintf(g->text + g->n, " || ");
			or = or || and;
			and = gen_term(g, depth, flag);
		}
	}
	return or || and;
}

TEST(logic_against_an_evaluator)
{
	struct gen g = { .seed = 42 };
	unsigned int round, flag, i;
	struct rec r;

	for (round = 0; round < 20000; round++) {
		bool want[256];
		struct gen copy;

		g.n = 0;
		g.preds = 0;
		copy = g;
		for (flag = 0; flag < 256; flag += 37) {
			g = copy;
			g.n = 0;
			g.preds = 0;
			want[flag] = gen_expr(&g, 0, flag);
		}
		ASSERT_EQ(0, compile(g.text)) {
			TH_LOG("%s: %s at %u", g.text, err.msg, err.pos);
		}
		ASSERT_EQ(g.preds, prog.nr);
		for (i = 0; i < prog.nr; i++) {
			ASSERT_GT(prog.p[i].on_true, i);
			ASSERT_GT(prog.p[i].on_false, i);
		}
		for (flag = 0; flag < 256; flag += 37) {
			make_rec(&r, "x", 1, 0, "x", flag, "x");
			ASSERT_EQ(want[flag], ivf_match(&prog, r.b, r.len,
						&(struct ivf_ctx){ 0, "x" })) {
				TH_LOG("%s, flag %#x", g.text, flag);
			}
		}
	}
}

TEST_HARNESS_MAIN
