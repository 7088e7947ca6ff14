// SPDX-License-Identifier: GPL-2.0 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * A fuzzer for the path from a guest's format text to a printed event: the
 * real texts (the 68 native formats and the synth ones), mutated by byte
 * changes, insertions and deletions, splices from other texts and from a
 * dictionary of what libtraceevent trips on, and truncations, several at a
 * time in one segment with events of random payloads.  The library checks
 * each text against its grammar, parses the rest in this process, and
 * prints every event.  Nothing may crash, hang or make a sanitizer report.
 *
 * IVRING_FUZZ_SEED reproduces a run, IVRING_FUZZ_SECS sets its length
 * (4 s, 2 s under sanitizers), IVRING_FUZZ_ONE=N runs only iteration N of
 * the seed and prints its texts.
 */
#include "kselftest_harness.h"
#include "fmt_util.h"
#include "hostile.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define FUZZ_SECS	2
#else
#define FUZZ_SECS	4
#endif
#define TEXTS_MAX	6

static const char *const dict[] = {
	"REC->", "REC->nosuch", "(REC)->", "REC->a", "REC", "->", "(", ")",
	"[", "]", "{", "}", ",", "?", ":", ";", "/ 0", "% 0", "1/0", "1 / (2 - 2)",
	"* 0", "__print_flags(", "__print_symbolic(", "__print_hex(",
	"__print_array(", "__get_str(", "__get_dynamic_array(",
	"__get_dynamic_array_len(", "__builtin_expect(", "sizeof(", "\"", "'",
	"\\", "08", "0x", "1e5", "-1UL", "<<=", "--", "!", "~", "(int)",
	"(void *)", "\n", "\t", "\tfield:", "offset:", "size:", "signed:",
	"__data_loc char[] ", "{ 1, \"x\" }", "\"|\"", "__print_flags(1, \"|\", { 1, \"x\" })",
	"REC->nosuch ? 1 : 2", "%s", "%d", "%*d", "%999999d", "%p", "%pS",
	"ID: ", "name: ", "print fmt: ", "format:\n", "\n\n", "common_",
	"LOCAL_PR_FMT", "((((((((((", "))))))))))", "\x1b", "\x7f",
};

struct corpus {
	char *text;
	u32 len;
	char sys[32];
};

static struct corpus *corpus;
static int nr_corpus;
/* Texts made, and those that passed the grammar, that printed raw. */
static u64 made, listed, raw;

static void load_corpus(void)
{
	struct fu_native *v;
	int n = fu_natives(&v), i;

	corpus = calloc((n > 0 ? n : 0) + SYNTH_NR_EVENTS, sizeof(*corpus));
	for (i = 0; i < n; i++) {
		corpus[nr_corpus].text = v[i].text;
		corpus[nr_corpus].len = v[i].len;
		snprintf(corpus[nr_corpus++].sys, 32, "%s", v[i].sys);
	}
	free(v);
	for (i = 0; i < SYNTH_NR_EVENTS; i++) {
		corpus[nr_corpus].text = strdup(synth_events[i].format);
		corpus[nr_corpus].len = strlen(synth_events[i].format);
		snprintf(corpus[nr_corpus++].sys, 32, "%s", SYNTH_SYSTEM);
	}
}

/* Replace [at, at + del) of @t (length *len) with @ins, within the max. */
static void splice_in(char *t, u32 *len, u32 at, u32 del, const char *ins,
		   u32 ins_len)
{
	if (at > *len)
		at = *len;
	if (del > *len - at)
		del = *len - at;
	if (*len - del + ins_len > IVRING_FORMAT_TEXT_MAX)
		ins_len = IVRING_FORMAT_TEXT_MAX - (*len - del);
	memmove(t + at + ins_len, t + at + del, *len - at - del);
	memmove(t + at, ins, ins_len);
	*len = *len - del + ins_len;
}

static void mutate(char *t, u32 *len, u64 *rnd)
{
	const struct corpus *o = &corpus[hs_below(rnd, nr_corpus)];
	u32 at = *len ? hs_below(rnd, *len + 1) : 0, n, from;
	const char *pf = memmem(t, *len, "print fmt: ", 11);
	char c;

	/* Mostly in the print fmt: most changes elsewhere just fail. */
	if (pf && hs_below(rnd, 4)) {
		from = pf + 11 - t;
		at = from + hs_below(rnd, *len - from + 1);
	}

	switch (hs_below(rnd, 8)) {
	case 0:	/* one byte: mostly printable */
		if (!*len)
			break;
		c = hs_below(rnd, 8) ? ' ' + hs_below(rnd, 95) : hs_below(rnd, 256);
		t[hs_below(rnd, *len)] = c;
		break;
	case 1:
	case 2:	/* a dictionary word, in place of a few bytes or not */
		n = hs_below(rnd, sizeof(dict) / sizeof(dict[0]));
		splice_in(t, len, at, hs_below(rnd, 3) ? 0 : hs_below(rnd, 8),
		       dict[n], strlen(dict[n]));
		break;
	case 3:	/* a range goes */
		splice_in(t, len, at, 1 + hs_below(rnd, 24), "", 0);
		break;
	case 4:	/* a range of this text again */
		from = *len ? hs_below(rnd, *len) : 0;
		n = hs_below(rnd, 48);
		if (n > *len - from)
			n = *len - from;
		{
			char tmp[48];

			memcpy(tmp, t + from, n);
			splice_in(t, len, at, 0, tmp, n);
		}
		break;
	case 5:	/* a range of another text */
		from = hs_below(rnd, o->len);
		n = hs_below(rnd, 200);
		if (n > o->len - from)
			n = o->len - from;
		splice_in(t, len, at, hs_below(rnd, 64), o->text + from, n);
		break;
	case 6:	/* a number changes */
		for (n = 0; n < *len && (t[at % *len] < '0' || t[at % *len] > '9'); n++)
			at++;
		if (*len) {
			char num[16];

			snprintf(num, sizeof(num), "%u", (u32)hs_rand(rnd) >> hs_below(rnd, 32));
			splice_in(t, len, at % *len, 1, num, strlen(num));
		}
		break;
	default:	/* cut short */
		*len = at;
		break;
	}
}

/* The id its ID: line claims, when it has one that fits; else a random one. */
static u16 claimed_id(const char *t, u32 len, u64 *rnd)
{
	char buf[16];
	const char *p = memmem(t, len, "\nID: ", 5);
	u32 n;

	if (!p || hs_below(rnd, 10) == 0)
		return hs_rand(rnd);
	p += 5;
	n = len - (u32)(p - t);
	if (n > sizeof(buf) - 1)
		n = sizeof(buf) - 1;
	memcpy(buf, p, n);
	buf[n] = '\0';
	return strtoul(buf, NULL, 10);
}

struct iteration {
	char text[TEXTS_MAX][IVRING_FORMAT_TEXT_MAX];
	u32 len[TEXTS_MAX];
	u16 id[TEXTS_MAX];
	const char *sys[TEXTS_MAX];
	int n;
};

static void make(struct iteration *it, u64 *rnd)
{
	int i, m;

	it->n = 1 + hs_below(rnd, TEXTS_MAX);
	for (i = 0; i < it->n; i++) {
		const struct corpus *c = &corpus[hs_below(rnd, nr_corpus)];

		memcpy(it->text[i], c->text, c->len);
		it->len[i] = c->len;
		it->sys[i] = c->sys;
		for (m = hs_below(rnd, 3) ? 1 : 1 + hs_below(rnd, 4); m; m--)
			mutate(it->text[i], &it->len[i], rnd);
		it->id[i] = claimed_id(it->text[i], it->len[i], rnd);
	}
}

/* The segment of one iteration, read back: 0, or what went wrong. */
static const char *run(struct seg *s, const struct iteration *it, u64 *rnd,
		       char *out)
{
	struct ivring_format_stats st = { .sz = sizeof(st) };
	static char errbuf[256];
	struct ivring_open_opts o = {
		.sz = sizeof(o), .flags = IVRING_OPEN_PEEK,
		.errbuf = errbuf, .errbuf_len = sizeof(errbuf),
	};
	struct ivring *r;
	const char *why = NULL;
	int i;

	if (ivw_format(&s->w, s->base, &s->p, seg_generation(), s->cpus,
		       s->slots))
		return "cannot format the segment";
	for (i = 0; i < it->n; i++)
		fu_put_record(s->w.fmt, s->w.hdr->format_size, it->id[i],
			      it->sys[i], strlen(it->sys[i]), it->text[i],
			      it->len[i]);
	ivw_set_state(&s->w, IVRING_STATE_LIVE);
	for (i = 0; i < 3 * it->n; i++) {
		u8 rec[256];
		u32 len = 8 + hs_below(rnd, sizeof(rec) - 8), k;

		for (k = 0; k < len; k++)
			rec[k] = hs_rand(rnd);
		memcpy(rec, &it->id[hs_below(rnd, it->n)], 2);
		ivw_write(&s->w, 0, rec, len);
	}
	if (ivring__open(s->path, &o, &r))
		return errbuf;
	if (ivring__format_stats(r, &st) ||
	    st.listed + st.skipped != st.records)
		why = "the counts do not add up";
	else if (!ivring__tep(r))
		why = "no formats";
	else if (fu_render_all(r, out) < 0)
		why = "an event did not render";
	made += st.records;
	listed += st.listed;
	ivring__format_stats(r, &st);
	raw += st.raw;
	ivring__close(r);
	return why;
}

TEST(mutated_real_formats)
{
	u64 seed = hs_env_u64("IVRING_FUZZ_SEED", 0);
	u64 secs = hs_env_u64("IVRING_FUZZ_SECS", FUZZ_SECS);
	u64 one = hs_env_u64("IVRING_FUZZ_ONE", ~0ULL), n, end;
	struct iteration *it = malloc(sizeof(*it));
	char *out = malloc(FU_OUT_MAX);
	struct timespec ts;
	struct seg s;

	ASSERT_NE(NULL, it);
	ASSERT_NE(NULL, out);
	load_corpus();
	ASSERT_LT(SYNTH_NR_EVENTS, nr_corpus);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	if (!seed)
		seed = (u64)ts.tv_nsec << 20 ^ ts.tv_sec ^ getpid();
	end = ts.tv_sec + secs;
	TH_LOG("IVRING_FUZZ_SEED=%#llx, %llu s", (unsigned long long)seed,
	       (unsigned long long)secs);
	ASSERT_EQ(0, seg_format(&s, 1 << 20, 1, 4096, 0, IVRING_MODE_DISCARD,
				NULL, 0));
	hs_watchdog_start();
	for (n = one == ~0ULL ? 0 : one; ; n++) {
		/* Each iteration its own stream: any one can be run alone. */
		u64 rnd = seed ^ (n + 1) * 0x9e3779b97f4a7c15ULL;
		const char *why;
		int i;

		make(it, &rnd);
		hs_ctx_set("IVRING_FUZZ_SEED=%#llx IVRING_FUZZ_ONE=%llu",
			   (unsigned long long)seed, (unsigned long long)n);
		if (one != ~0ULL)
			for (i = 0; i < it->n; i++)
				TH_LOG("text %d, id %u, %u bytes:\n%.*s", i, it->id[i],
				       it->len[i], (int)it->len[i], it->text[i]);
		why = run(&s, it, &rnd, out);
		hs_progress++;
		ASSERT_EQ(NULL, why) TH_LOG("%s: %s", hs_ctx, why);
		clock_gettime(CLOCK_MONOTONIC, &ts);
		if (one != ~0ULL || ts.tv_sec >= (time_t)end)
			break;
	}
	hs_watchdog_stop();
	TH_LOG("%llu iterations, %llu texts: %llu passed the grammar, %llu of them print raw",
	       (unsigned long long)n + 1, (unsigned long long)made,
	       (unsigned long long)listed, (unsigned long long)raw);
	seg_destroy(&s);
	free(it);
	free(out);
}

TEST_HARNESS_MAIN
