// SPDX-License-Identifier: GPL-2.0 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * A hostile format must not make a record's text or CTF much bigger than
 * the record.  Each case writes records whose format would amplify them,
 * renders them through the library, records them as CTF, and holds the
 * output to a few times the records' bytes (it was 200 to 250 times):
 *
 *  locs:    200 __data_loc strings that all name the same 1000 bytes
 *  refs:    a print fmt that names one string field 300 times
 *  overlap: fixed fields that share the record's bytes
 *  short:   8-byte records of a type whose fields span 4000 bytes
 *  symbol:  a symbol 3000 characters long, printed for a 16-byte record
 *
 * The honest synth events in the same segment must read as always.
 */
#include <dirent.h>
#include <sys/stat.h>

#include "kselftest_harness.h"
#include "fmt_util.h"

#define NR_LOCS		200
#define LOC_BYTES	1000
#define ID_LOCS		10
#define ID_REFS		11
#define ID_OVERLAP	12
#define ID_SHORT	13
#define ID_SYMBOL	14
#define NR_EACH		8

static char out[FU_OUT_MAX];

/* A text of up to @max bytes, appended to at @len; aborts when full. */
static void cat(char *buf, size_t max, size_t *len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf + *len, max - *len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= max - *len)
		abort();
	*len += n;
}

/* Format ID_LOCS: NR_LOCS strings s0.. at 8.., printed "%s %s ...". */
static char *locs_text(void)
{
	static char fields[NR_LOCS * 80], print[NR_LOCS * 24];
	size_t f = 0, p = 0;
	int i;

	cat(print, sizeof(print), &p, "\"");
	for (i = 0; i < NR_LOCS; i++) {
		cat(fields, sizeof(fields), &f,
		    "\tfield:__data_loc char[] s%d;\toffset:%d;\tsize:4;\tsigned:0;\n",
		    i, 8 + 4 * i);
		cat(print, sizeof(print), &p, "%s%%s", i ? " " : "");
	}
	cat(print, sizeof(print), &p, "\"");
	for (i = 0; i < NR_LOCS; i++)
		cat(print, sizeof(print), &p, ", __get_str(s%d)", i);
	return fu_text("locs", ID_LOCS, fields, print);
}

/* Format ID_REFS: one string, printed 300 times. */
static char *refs_text(void)
{
	static char print[300 * 20];
	size_t p = 0;
	int i;

	cat(print, sizeof(print), &p, "\"");
	for (i = 0; i < 300; i++)
		cat(print, sizeof(print), &p, "%%s");
	cat(print, sizeof(print), &p, "\"");
	for (i = 0; i < 300; i++)
		cat(print, sizeof(print), &p, ", __get_str(s)");
	return fu_text("refs", ID_REFS,
		       "\tfield:__data_loc char[] s;\toffset:8;\tsize:4;\tsigned:0;\n",
		       print);
}

/* Format ID_SYMBOL: a 3000-character symbol for a = 10. */
static char *symbol_text(void)
{
	static char print[3100];
	size_t p = 0;
	int i;

	cat(print, sizeof(print), &p,
	    "\"%%s\", __print_symbolic(REC->a, { 10, \"");
	for (i = 0; i < 3000; i++)
		cat(print, sizeof(print), &p, "x");
	cat(print, sizeof(print), &p, "\" })");
	return fu_text("symbol", ID_SYMBOL, FU_AB, print);
}

static int add_text(struct seg *s, u16 id, char *text)
{
	int ret = text ? fu_add(s, id, text) : -ENOMEM;

	free(text);
	return ret;
}

/*
 * A segment with the synth formats and the five hostile ones, LIVE, with
 * the honest synth events and NR_EACH records of each hostile type.  The
 * bytes of hostile records written go to @rec_bytes.
 */
static int make_seg(struct seg *s, u64 *rec_bytes)
{
	static u8 rec[8 + 4 * NR_LOCS + LOC_BYTES + 256];
	const u32 locs_size = 8 + 4 * NR_LOCS + LOC_BYTES;
	u16 none[1];
	u32 i, loc;
	int ret, k;

	ret = fu_seg(s, 256 << 10);
	ret = ret ?: add_text(s, ID_LOCS, locs_text());
	ret = ret ?: add_text(s, ID_REFS, refs_text());
	ret = ret ?: add_text(s, ID_OVERLAP, fu_text("overlap", ID_OVERLAP,
		"\tfield:char a[2000];\toffset:8;\tsize:2000;\tsigned:0;\n"
		"\tfield:char b[2000];\toffset:8;\tsize:2000;\tsigned:0;\n"
		"\tfield:char c[2000];\toffset:8;\tsize:2000;\tsigned:0;\n",
		"\"%s %s %s\", REC->a, REC->b, REC->c"));
	ret = ret ?: add_text(s, ID_SHORT, fu_text("short", ID_SHORT,
		"\tfield:char a[4000];\toffset:8;\tsize:4000;\tsigned:0;\n",
		"\"%s\", REC->a"));
	ret = ret ?: add_text(s, ID_SYMBOL, symbol_text());
	ret = ret ?: fu_events(s, none, 0);
	if (ret)
		return ret;
	*rec_bytes = 0;
	for (k = 0; k < NR_EACH; k++) {
		struct fu_ab ab = { .c.common_pid = 42, .a = 10 };
		struct synth_common c = { .common_pid = 42 };

		/* Every s<i> names the same bytes: LOC_BYTES - 1 'y's. */
		memset(rec, 0, sizeof(rec));
		c.common_type = ID_LOCS;
		memcpy(rec, &c, sizeof(c));
		loc = (8 + 4 * NR_LOCS) | LOC_BYTES << 16;
		for (i = 0; i < NR_LOCS; i++)
			memcpy(rec + 8 + 4 * i, &loc, 4);
		memset(rec + 8 + 4 * NR_LOCS, 'y', LOC_BYTES - 1);
		ret = ret ?: ivw_write(&s->w, 0, rec, locs_size);

		/* s names 1000 bytes after it. */
		memset(rec, 0, sizeof(rec));
		c.common_type = ID_REFS;
		memcpy(rec, &c, sizeof(c));
		loc = 12 | LOC_BYTES << 16;
		memcpy(rec + 8, &loc, 4);
		memset(rec + 12, 'z', LOC_BYTES - 1);
		ret = ret ?: ivw_write(&s->w, 0, rec, 12 + LOC_BYTES);

		memset(rec, 'w', 2008);
		c.common_type = ID_OVERLAP;
		memcpy(rec, &c, sizeof(c));
		rec[2007] = 0;
		ret = ret ?: ivw_write(&s->w, 0, rec, 2008);

		c.common_type = ID_SHORT;
		ret = ret ?: ivw_write(&s->w, 0, &c, sizeof(c));

		ab.c.common_type = ID_SYMBOL;
		ret = ret ?: ivw_write(&s->w, 0, &ab, sizeof(ab));
		*rec_bytes += locs_size + 12 + LOC_BYTES + 2008 + sizeof(c) +
			      sizeof(ab);
	}
	return ret;
}

/* The longest line of out, and the lines holding @text. */
static size_t longest(const char *text, int *with)
{
	const char *l = out, *nl;
	size_t max = 0, n;

	*with = 0;
	for (; *l; l = nl + 1) {
		nl = strchr(l, '\n');
		if (!nl)
			break;
		n = nl - l;
		max = n > max ? n : max;
		if (text && memmem(l, n, text, strlen(text)))
			(*with)++;
	}
	return max;
}

/*
 * Every event of @s rendered, the lines into out (each cut at 8 KiB), the
 * first refusal's reason into @why; the bytes the lines have, uncut.
 */
static u64 render(struct seg *s, char *why, size_t why_len)
{
	struct ivring_format_stats st = { .sz = sizeof(st) };
	static char line[1 << 20];
	struct ivring_event ev;
	size_t used = 0;
	struct ivring *r;
	u64 len = 0;
	int n;

	if (seg_open(s, IVRING_OPEN_PEEK, &r))
		return 0;
	while (ivring__next(r, &ev) > 0) {
		n = ivring__snprint(r, &ev, line, sizeof(line));
		if (n < 0)
			break;
		len += n + 1;
		used += snprintf(out + used, FU_OUT_MAX - used, "%.8192s\n",
				 line);
		if (used >= FU_OUT_MAX)
			used = FU_OUT_MAX - 1;
	}
	ivring__format_stats(r, &st);
	snprintf(why, why_len, "%s", st.first_reason ?: "");
	ivring__close(r);
	return len;
}

TEST(text_bounded_by_the_records)
{
	char why[256];
	u64 bytes, len;
	size_t max;
	struct seg s;
	int with;

	ASSERT_EQ(0, make_seg(&s, &bytes));
	len = render(&s, why, sizeof(why));
	seg_destroy(&s);
	TH_LOG("%llu bytes of text from %llu bytes of hostile records",
	       (unsigned long long)len, (unsigned long long)bytes);
	/* Was 200 times: 1.6 MB of text for 8 records of 1808 bytes. */
	ASSERT_GT(3 * bytes, len);
	/* Every line within its cap; the symbol's is cut, and says so. */
	max = longest(" [line cut]", &with);
	ASSERT_GT(1024 + 8 * (8 + 4 * NR_LOCS + LOC_BYTES), max);
	ASSERT_EQ(NR_EACH, with);
	/* The locs: the first string whole, the rest left empty. */
	longest("yyyyy", &with);
	ASSERT_EQ(NR_EACH, with);
	/* The refs: printed raw, once. */
	ASSERT_NE(NULL, strstr(out, "s=zzzz"));
	/* The overlap: refused, its events unknown. */
	ASSERT_NE(NULL, strstr(out, "[UNKNOWN TYPE 12]"));
	ASSERT_NE(NULL, strstr(why, "share bytes"));
	/* The honest events read as always. */
	ASSERT_NE(NULL, strstr(out, FU_SEQ_LINE));
	ASSERT_NE(NULL, strstr(out, FU_BLOB_LINE));
}

/* The bytes of the files in @dir. */
static u64 dir_bytes(const char *dir)
{
	char p[PATH_MAX + 256];
	struct dirent *de;
	struct stat st;
	u64 n = 0;
	DIR *d = opendir(dir);

	while (d && (de = readdir(d))) {
		snprintf(p, sizeof(p), "%s/%s", dir, de->d_name);
		if (!stat(p, &st) && S_ISREG(st.st_mode))
			n += st.st_size;
	}
	if (d)
		closedir(d);
	return n;
}

TEST(ctf_bounded_by_the_records)
{
	struct ivring_rec_opts o = { .sz = sizeof(o),
				     .format = IVRING_REC_CTF };
	struct ivring_page pg = { .sz = sizeof(pg) };
	char dir[] = "/tmp/ivring-amplify.XXXXXX", path[PATH_MAX];
	struct ivring_rec *w;
	struct ivring *r;
	u64 bytes, meta, got;
	struct stat st;
	struct seg s;
	int ret;

	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/ctf", dir);
	ASSERT_EQ(0, make_seg(&s, &bytes));
	ASSERT_EQ(0, seg_open(&s, IVRING_OPEN_PEEK, &r));
	ASSERT_EQ(0, ivring__rec_open(r, path, &o, &w));
	while ((ret = ivring__rec_read(w, r, 0, IVRING_PAGE_PARTIAL, &pg)) > 0)
		;
	ASSERT_EQ(0, ret);
	ASSERT_EQ(0, ivring__rec_close(w, NULL, 0));
	ivring__close(r);
	seg_destroy(&s);
	snprintf(path, sizeof(path), "%s/ctf/metadata", dir);
	ASSERT_EQ(0, stat(path, &st));
	meta = st.st_size;
	snprintf(path, sizeof(path), "%s/ctf", dir);
	got = dir_bytes(path) - meta;
	TH_LOG("%llu bytes of CTF streams from %llu bytes of hostile records",
	       (unsigned long long)got, (unsigned long long)bytes);
	/* Was 250 times. */
	ASSERT_GT(3 * bytes, got);
	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	ASSERT_EQ(0, system(path));
}

TEST_HARNESS_MAIN
