// SPDX-License-Identifier: LGPL-2.1 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * The segment's format area, copied and checked when a handle attaches to
 * a generation: each record's framing, its system name, its id (of several
 * records with one id the first wins, and the others are dropped before
 * anything reads their text), and its text against the grammar.  What
 * passes is listed (ivring__format()); libtraceevent parses it only when
 * something first decodes (formats.c), so a reader that never decodes
 * never parses.
 *
 * The guest wrote the area, so it is hostile (DESIGN.md, invariant 4):
 * every piece is copied out of the segment before it is looked at, every
 * length is checked before it is used, and what is kept grows with what
 * passed, never with what the guest claims.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define SYS_LEN_MAX	64
/*
 * What libtraceevent allocates grows with the tokens of the texts it
 * parses, up to some 250 bytes per print argument: a 4 MiB area of dense
 * print fmts would cost 100 MB.  A generation's listed texts may have 100
 * times the tokens of the 68 native formats (5068 in all), which keeps a
 * reader's formats under some 40 MB (selftests/test_format_memory.c).
 */
#define TOKENS_MAX	(512 * 1024)

/**
 * ivr_formats_skip() - count @n records as skipped
 * @fs:		the generation's formats
 * @n:		how many
 * @id:		the first one's id, -1 when it has none that can be believed
 * @fmt:	why, for the first record skipped: "has ...", "names ..."
 */
void ivr_formats_skip(struct ivr_formats *fs, u32 n, int id,
		      const char *fmt, ...)
{
	va_list ap;

	fs->skipped += n;
	if (fs->why[0])
		return;
	fs->first_id = id;
	va_start(ap, fmt);
	vsnprintf(fs->why, sizeof(fs->why), fmt, ap);
	va_end(ap);
}

/* Room for @need more bytes of names and texts: 0 or -ENOMEM. */
static int str_room(struct ivr_formats *fs, u32 need)
{
	u32 cap = fs->str_cap ? fs->str_cap : 4096;
	char *p;

	/* need <= 64 + 16384 + 2, str_len < 4 MiB + 2 * 65536: no wrap. */
	while (cap - fs->str_len < need)
		cap *= 2;
	if (cap == fs->str_cap)
		return 0;
	p = realloc(fs->str, cap);
	if (!p)
		return -ENOMEM;
	fs->str = p;
	fs->str_cap = cap;
	return 0;
}

static int list_add(struct ivr_formats *fs, const struct ivr_format *f)
{
	struct ivr_format *p;
	u32 cap;

	if (fs->nr == fs->cap) {
		cap = fs->cap ? 2 * fs->cap : 64;
		p = realloc(fs->list, cap * sizeof(*p));
		if (!p)
			return -ENOMEM;
		fs->list = p;
		fs->cap = cap;
	}
	fs->list[fs->nr++] = *f;
	return 0;
}

/*
 * Copy one record's system name and text into fs->str, check them, and
 * list the record.  Returns 0 (listed or skipped) or -ENOMEM.
 */
static int take(struct ivr_formats *fs, const u8 *rec,
		const struct ivring_format *h)
{
	struct ivr_format f = { .id = h->id, .len = h->text_len };
	char why[sizeof(fs->why)];
	char *sys, *text;
	u32 i, tokens;

	if (!h->sys_len || h->sys_len > SYS_LEN_MAX) {
		ivr_formats_skip(fs, 1, h->id, "has a system name of %u bytes, not 1 to %d",
				 h->sys_len, SYS_LEN_MAX);
		return 0;
	}
	if (!h->text_len || h->text_len > IVRING_FORMAT_TEXT_MAX) {
		ivr_formats_skip(fs, 1, h->id, "has a text of %u bytes, not 1 to %d",
				 h->text_len, IVRING_FORMAT_TEXT_MAX);
		return 0;
	}
	if (str_room(fs, h->sys_len + h->text_len + 2))
		return -ENOMEM;
	f.sys = fs->str_len;
	f.text = f.sys + h->sys_len + 1;
	sys = fs->str + f.sys;
	text = fs->str + f.text;
	memcpy(sys, rec + sizeof(*h), h->sys_len);
	sys[h->sys_len] = '\0';
	memcpy(text, rec + sizeof(*h) + h->sys_len, h->text_len);
	text[h->text_len] = '\0';

	for (i = 0; i < h->sys_len; i++) {
		char c = sys[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '_')) {
			ivr_formats_skip(fs, 1, h->id, "has a system name that is not an identifier");
			return 0;
		}
	}
	if (!strcmp(sys, "ftrace")) {
		/* libtraceevent special-cases ftrace's own events. */
		ivr_formats_skip(fs, 1, h->id, "claims the ftrace system");
		return 0;
	}
	switch (ivr_format_grammar(text, h->text_len, h->id, why, sizeof(why),
				   &tokens)) {
	case 0:
		break;
	case -EINVAL:
		ivr_formats_skip(fs, 1, h->id, "%s", why);
		return 0;
	default:
		return -ENOMEM;
	}
	if (tokens > TOKENS_MAX - fs->tokens) {
		ivr_formats_skip(fs, 1, h->id, "would take the texts past %d tokens, more than a reader parses",
				 TOKENS_MAX);
		return 0;
	}
	fs->tokens += tokens;
	fs->str_len = f.text + h->text_len + 1;
	return list_add(fs, &f);
}

/**
 * ivr_formats_frame() - list the format texts of the segment's format area
 * @r:	handle whose header (r->hdr) is validated: the area lies inside the
 *	mapping and is at most IVRING_FORMAT_AREA_MAX bytes
 *
 * Bad records are skipped and counted in r->fmts; ivring__format_stats()
 * says how many and why the first one was.  No format at all is not an
 * error: every event then renders as unknown.
 *
 * Return: 0, -EINVAL when the area's own header is impossible, -ENOMEM.
 */
int ivr_formats_frame(struct ivring *r)
{
	const struct ivring_format_area *live =
		(const void *)(r->map + r->hdr.format_offset);
	const u8 *area = (const u8 *)(live + 1);
	u64 cap = r->hdr.format_size - sizeof(*live);
	struct ivr_formats *fs = &r->fmts;
	u8 seen[65536 / 8] = { 0 };
	u32 nr, used, off = 0, i;

	ivr_formats_unframe(r);
	/* Paired with the writer's store-release of nr_events. */
	nr = __atomic_load_n(&live->nr_events, __ATOMIC_ACQUIRE);
	used = __atomic_load_n(&live->used, __ATOMIC_RELAXED);
	if (used > cap)
		return ivr_err(r, -EINVAL,
			       "%s: format area claims %u bytes of records, it has room for %llu",
			       r->path, used, (unsigned long long)cap);
	fs->records = nr;

	for (i = 0; i < nr; i++) {
		struct ivring_format h;

		if (i == IVRING_FORMATS_MAX) {
			ivr_formats_skip(fs, nr - i, -1, "is past the first %d records",
					 IVRING_FORMATS_MAX);
			break;
		}
		if (used - off < sizeof(h)) {
			ivr_formats_skip(fs, nr - i, -1,
					 "is missing: the records end after %u of the %u the area claims",
					 i, nr);
			break;
		}
		memcpy(&h, area + off, sizeof(h));
		if (h.rec_size % 8 ||
		    h.rec_size < sizeof(h) + (u64)h.sys_len + h.text_len ||
		    h.rec_size > used - off) {
			/* The chain is broken: nothing after this can be found. */
			ivr_formats_skip(fs, nr - i, -1,
					 "has a record size of %u at byte %u of the area, out of bounds",
					 h.rec_size, off);
			break;
		}
		off += h.rec_size;
		if (seen[h.id / 8] & (1U << (h.id % 8))) {
			ivr_formats_skip(fs, 1, h.id, "repeats the id of an earlier record");
			continue;
		}
		seen[h.id / 8] |= 1U << (h.id % 8);
		if (take(fs, area + off - h.rec_size, &h))
			return ivr_err(r, -ENOMEM, "%s: no memory for %u event formats",
				       r->path, nr);
	}
	return 0;
}

void ivr_formats_unframe(struct ivring *r)
{
	struct ivr_formats *fs = &r->fmts;

	ivr_formats_free(r);
	free(fs->list);
	free(fs->str);
	memset(fs, 0, sizeof(*fs));
	fs->first_id = -1;
}

/* Copy what the caller's struct has room for: libbpf's way to grow one. */
static void copy_out(void *dst, const void *src, size_t have)
{
	size_t sz = *(const size_t *)dst;

	if (sz > have)
		sz = have;
	memcpy(dst, src, sz);
	memcpy(dst, &sz, sizeof(sz));
}

int ivring__format(struct ivring *r, unsigned int idx,
		   struct ivring_format_info *fi)
{
	struct ivring_format_info i = { .sz = sizeof(i) };
	const struct ivr_format *f;

	if (!r || !fi || fi->sz < sizeof(fi->sz))
		return -EINVAL;
	if (idx >= r->fmts.nr)
		return -ENOENT;
	f = &r->fmts.list[idx];
	i.id = f->id;
	i.system = r->fmts.str + f->sys;
	i.text = r->fmts.str + f->text;
	i.text_len = f->len;
	i.flags = f->flags;
	copy_out(fi, &i, sizeof(i));
	return 0;
}

int ivring__format_stats(struct ivring *r, struct ivring_format_stats *st)
{
	struct ivring_format_stats s = { .sz = sizeof(s) };

	if (!r || !st || st->sz < sizeof(st->sz))
		return -EINVAL;
	s.records = r->fmts.records;
	s.listed = r->fmts.nr;
	s.skipped = r->fmts.skipped;
	s.raw = r->fmts.raw;
	s.parsed = r->fmts.parsed;
	s.first_id = r->fmts.why[0] ? r->fmts.first_id : -1;
	s.first_reason = r->fmts.why[0] ? r->fmts.why : NULL;
	copy_out(st, &s, sizeof(s));
	return 0;
}
