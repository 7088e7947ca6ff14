// SPDX-License-Identifier: LGPL-2.1 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * The segment's format area, copied and checked when a handle attaches to
 * a generation: each record's framing, its system name, its id (of several
 * records with one id the first wins, and the others are dropped before
 * anything reads their text), and its text against the grammar.  What
 * passes is listed (ivring__format()); libtraceevent parses it only when
 * something first decodes (format/parse.c), so a reader that never decodes
 * never parses.
 *
 * The guest may append records at any time (the generic lane does when an
 * event is first enabled).  ivr_formats_refresh() takes the records after
 * those already taken, with the same checks, and never looks at a taken
 * one again.  Its callers come only on a miss, an event whose type has no
 * format, and it costs one load unless nr_events grew past what was taken.
 * There is no rate limit: one would leave an honest guest's new event
 * unknown for a while.  The work is bounded instead: every framing takes
 * at least one new record, records are taken at most IVRING_FORMATS_MAX
 * times and from at most format_size bytes, each at most once, and the
 * listed texts' tokens stay under TOKENS_MAX however they arrive; a chain
 * that breaks closes the area for the generation.  A guest that changes
 * nr_events back and forth, or sends ids that have no format, costs a
 * load per such event.
 *
 * The guest wrote the area, so it is hostile (include/DESIGN, section 4):
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

#include "format/format.h"

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

/*
 * Before a later framing: the strings listed so far go into a block of
 * their own, which never moves again, and the new ones into a new block.
 */
static int str_retire(struct ivr_formats *fs)
{
	char **p;

	if (!fs->str_len)
		return 0;
	p = realloc(fs->blocks, (fs->nr_blocks + 1) * sizeof(*p));
	if (!p)
		return -ENOMEM;
	fs->blocks = p;
	fs->blocks[fs->nr_blocks++] = fs->str;
	fs->str = NULL;
	fs->str_len = 0;
	fs->str_cap = 0;
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
	struct ivr_format f = { .id = h->id, .len = h->text_len,
				.blk = fs->nr_blocks };
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
	switch (ivr_format_prepare(text, h->text_len, h->id, why, sizeof(why),
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

/*
 * Take records fs->taken to @nr - 1 of the area at @area, whose first
 * @used bytes the guest says hold records.  A broken chain closes the
 * area: nothing after it can be found, now or later.  0 or -ENOMEM.
 */
static int frame_more(struct ivr_formats *fs, const u8 *area, u32 nr, u32 used)
{
	u32 off = fs->area_off, i;

	fs->records = nr;
	for (i = fs->taken; i < nr; i++) {
		struct ivring_format h;

		if (i == IVRING_FORMATS_MAX) {
			ivr_formats_skip(fs, nr - i, -1, "is past the first %d records",
					 IVRING_FORMATS_MAX);
			fs->closed = true;
			break;
		}
		if (off > used || used - off < sizeof(h)) {
			ivr_formats_skip(fs, nr - i, -1,
					 "is missing: the records end after %u of the %u the area claims",
					 i, nr);
			fs->closed = true;
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
			fs->closed = true;
			break;
		}
		off += h.rec_size;
		fs->taken = i + 1;
		fs->area_off = off;
		if (fs->seen[h.id / 8] & (1U << (h.id % 8))) {
			ivr_formats_skip(fs, 1, h.id, "repeats the id of an earlier record");
			continue;
		}
		fs->seen[h.id / 8] |= 1U << (h.id % 8);
		if (take(fs, area + off - h.rec_size, &h))
			return -ENOMEM;
	}
	return 0;
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
	u64 cap = r->hdr.format_size - sizeof(*live);
	u32 nr, used;

	/* At attach, after the last generation's were unframed. */
	if (!r->fmts) {
		r->fmts = calloc(1, sizeof(*r->fmts));
		if (!r->fmts)
			return ivr_err(r, -ENOMEM, "%s: no memory for event formats",
				       r->path);
		r->fmts->first_id = -1;
	}
	/* Paired with the writer's store-release of nr_events. */
	nr = ivr_load_acquire(&live->nr_events);
	used = ivr_load(&live->used);
	if (used > cap)
		return ivr_err(r, -EINVAL,
			       "%s: format area claims %u bytes of records, it has room for %llu",
			       r->path, used, (unsigned long long)cap);
	if (frame_more(r->fmts, (const u8 *)(live + 1), nr, used))
		return ivr_err(r, -ENOMEM, "%s: no memory for %u event formats",
			       r->path, nr);
	return 0;
}

static int refresh(struct ivring *r, void *arg)
{
	const struct ivring_format_area *live =
		(const void *)(r->map + r->hdr.format_offset);
	const struct ivring_header *hdr = ivr_live_header(r);
	u64 cap = r->hdr.format_size - sizeof(*live);
	struct ivr_formats *fs = r->fmts;
	u32 nr, used, listed = fs->nr;
	bool retired;
	int ret;

	/* Paired with the writer's store-release of nr_events. */
	nr = ivr_load_acquire(&live->nr_events);
	/* Fewer than were taken is a guest's lie, and nothing to take. */
	if (nr <= fs->taken)
		return 0;
	/* A re-format rewrites the area: its records are the next generation's. */
	if (ivr_load(&hdr->magic) != IVRING_MAGIC ||
	    ivr_load(&hdr->generation) != r->hdr.generation)
		return 0;
	used = ivr_load(&live->used);
	fs->refreshes++;
	if (used > cap) {
		fs->records = nr;
		ivr_formats_skip(fs, nr - fs->taken, -1,
				 "is past the area: it claims %u bytes of records, it has room for %llu",
				 used, (unsigned long long)cap);
		fs->closed = true;
		return 0;
	}
	ret = str_retire(fs);
	retired = !ret;
	if (!ret)
		ret = frame_more(fs, (const u8 *)(live + 1), nr, used);
	/*
	 * The new block holds only its strings, as nothing points into it
	 * yet: a guest that appends one small record at a time must not cost
	 * a 4 KiB block each.  Not if the retirement failed: then fs->str is
	 * still the block that ivring__format() handed strings out of.
	 */
	if (retired && fs->str && fs->str_len < fs->str_cap) {
		char *p = realloc(fs->str, fs->str_len ? fs->str_len : 1);

		if (p) {
			fs->str = p;
			fs->str_cap = fs->str_len ? fs->str_len : 1;
		}
	}
	/*
	 * Paired with the smp_wmb()s in ivw_format() before it rewrites
	 * anything, as in load_page(): if the generation held, every record
	 * taken was this generation's.  If not, forget them; the handle
	 * moves to the new generation at its next read anyway.
	 */
	ivr_rmb();
	if (ivr_load(&hdr->magic) != IVRING_MAGIC ||
	    ivr_load(&hdr->generation) != r->hdr.generation) {
		fs->nr = listed;
		fs->closed = true;
		return 0;
	}
	if (ret) {
		/* What was taken stays; the rest of the area is not read again. */
		fs->closed = true;
		return ivr_err(r, -ENOMEM, "%s: no memory for %u event formats",
			       r->path, nr);
	}
	return fs->nr > listed;
}

/**
 * ivr_formats_refresh() - take the format records appended since
 * @r:	handle
 *
 * Costs one load of the segment when nothing was appended.  Listed texts
 * are never moved or changed: only new ones are added, after the others.
 *
 * Return: 1 when a text was listed (ivr_formats_parse() parses it), 0 when
 * none was, -errno when the handle died (the segment file shrank) or had
 * no memory: what was listed before stays.
 */
int ivr_formats_refresh(struct ivring *r)
{
	if (!r->attached || !r->fmts || r->fmts->closed || r->gone)
		return 0;
	return ivr_guarded(r, refresh, NULL);
}

/* Free the lists and texts of @fs, for the next generation's. */
void ivr_formats_unlist(struct ivr_formats *fs)
{
	u32 i;

	free(fs->list);
	free(fs->str);
	for (i = 0; i < fs->nr_blocks; i++)
		free(fs->blocks[i]);
	free(fs->blocks);
	memset(fs, 0, offsetof(struct ivr_formats, tep));
	fs->first_id = -1;
}

int ivring__format(struct ivring *r, unsigned int idx,
		   struct ivring_format_info *fi)
{
	struct ivring_format_info i = { .sz = sizeof(i) };
	const struct ivr_format *f;

	if (!r || !fi || fi->sz < sizeof(fi->sz))
		return -EINVAL;
	if (!r->fmts || idx >= r->fmts->nr)
		return -ENOENT;
	f = &r->fmts->list[idx];
	i.id = f->id;
	i.system = ivr_fmt_str(r->fmts, f, f->sys);
	i.text = ivr_fmt_str(r->fmts, f, f->text);
	i.text_len = f->len;
	i.flags = f->flags;
	ivr_struct_out(fi, &i, sizeof(i));
	return 0;
}

int ivring__format_stats(struct ivring *r, struct ivring_format_stats *st)
{
	static const struct ivr_formats none = { .first_id = -1 };
	struct ivring_format_stats s = { .sz = sizeof(s) };
	const struct ivr_formats *fs;

	if (!r || !st || st->sz < sizeof(st->sz))
		return -EINVAL;
	fs = r->fmts ? r->fmts : &none;
	s.records = fs->records;
	s.listed = fs->nr;
	s.skipped = fs->skipped;
	s.raw = fs->raw;
	s.parsed = fs->parsed;
	s.first_id = fs->why[0] ? fs->first_id : -1;
	s.first_reason = fs->why[0] ? fs->why : NULL;
	s.refreshes = fs->refreshes;
	ivr_struct_out(st, &s, sizeof(s));
	return 0;
}
