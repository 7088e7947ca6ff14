/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * The format layer (lib/LAYERS): the segment's format texts, copied out of
 * the guest's area and checked against a strict grammar (area.c,
 * grammar.c), then parsed by libtraceevent, one parse at a time for the
 * whole process (parse.c, tep_lock.c).
 */
#ifndef IVRING_LIB_FORMAT_H
#define IVRING_LIB_FORMAT_H

#include "generation/generation.h"

struct tep_handle;
struct tep_event;

/* Every field of an event ends within this many payload bytes. */
#define IVR_FIELD_END_MAX	65536
/*
 * Nesting of brackets and operators, counted as libtraceevent recurses on
 * them (grammar.c), twice what the deepest native format needs
 * (16: kmalloc's gfp_flags table, sched_switch's prev_state): bounds the
 * recursion of libtraceevent's parser and printer, and of ours.
 */
#define IVR_NEST_MAX		32

/* A format text that passed framing, a unique id and the grammar. */
struct ivr_format {
	u16 id;
	u16 flags;		/* IVRING_FORMAT_*, once parsed */
	u32 len;		/* bytes of the text, without its NUL */
	u32 blk;		/* its string block: see ivr_fmt_str() */
	u32 sys;		/* offsets in that block, NUL-terminated */
	u32 text;
};

/*
 * A generation's format texts (area.c): copied at attach, and the records
 * the guest appends later, taken as they are seen (ivr_formats_refresh()).
 * Taken records are never read again: what was listed stays as it was,
 * whatever the guest writes over it.
 */
struct ivr_formats {
	struct ivr_format *list;
	u32 nr;			/* listed */
	u32 cap;
	/*
	 * The system names and texts of the records taken by the framing
	 * under way, or by the last one; each earlier framing's are a block
	 * of their own, never moved again, so that what ivring__format()
	 * returned stays valid for the generation.
	 */
	char *str;
	u32 str_len;
	u32 str_cap;
	char **blocks;
	u32 nr_blocks;
	u32 records;		/* nr_events, as the guest published it last */
	u32 taken;		/* records framed (listed or skipped) */
	u32 area_off;		/* where the record after them starts */
	bool closed;		/* the chain broke: take nothing more */
	u32 refreshes;		/* framings after the one at attach */
	u32 tokens;		/* of the listed texts (grammar.c) */
	u32 skipped;		/* not listed, or refused when parsed */
	u32 raw;		/* parsed, print fmt not provably safe */
	int first_id;		/* of the first record skipped, -1: unknown */
	char why[160];		/* why that one was, "" when none was */
	u8 seen[65536 / 8];	/* ids taken, listed or not */
	/* The listed texts parsed (parse.c). */
	struct tep_handle *tep;
	u64 teps;		/* handles made so far: a new one forgets comms */
	bool parsed;		/* tep holds the listed texts */
	u32 nr_parsed;		/* list[0 .. nr_parsed) are in tep */
	u8 hidden[65536 / 8];	/* ids in tep that ivring__event() hides */
};

static inline const char *ivr_fmt_str(const struct ivr_formats *fs,
				      const struct ivr_format *f, u32 off)
{
	return (f->blk < fs->nr_blocks ? fs->blocks[f->blk] : fs->str) + off;
}

/* The generation's formats, framed at attach; NULL before any attach. */
static inline struct ivr_formats *ivr_formats(struct ivring *r)
{
	return r->fmts;
}

/* area.c: the format area -> r->fmts.  Hostile input: copied first. */
int ivr_formats_frame(struct ivring *r);
/*
 * Records appended since: > 0 when some were listed (parse them), 0 when
 * none, -errno when the handle died reading them.
 */
int ivr_formats_refresh(struct ivring *r);
/* Free the lists and texts of @fs, for the next generation's. */
void ivr_formats_unlist(struct ivr_formats *fs);
void ivr_formats_skip(struct ivr_formats *fs, u32 n, int id,
		      const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* grammar.c: the strict grammar a text must match before any parse. */
int ivr_format_grammar(const char *text, u32 len, u16 id, char *why,
		       size_t why_len, u32 *tokens);
int ivr_format_prepare(char *text, u32 len, u16 id, char *why,
		       size_t why_len, u32 *tokens);
bool ivr_int_literal(const char *s, u64 *val);

/*
 * parse.c: r->fmts -> its tep, at the first call that decodes.  0, or
 * -ENOMEM (said on @r): then nothing more is parsed, and the next call
 * tries again.
 */
int ivr_formats_parse(struct ivring *r);
/* Drop the parsed handle: the texts are parsed again when next needed. */
void ivr_formats_unparse(struct ivr_formats *fs);
/* The parsed formats' handle, or NULL (said on @r) for want of memory. */
struct tep_handle *ivr_formats_tep(struct ivring *r);
/* Is @id an event that the tep holds but that failed its checks? */
bool ivr_formats_hidden(const struct ivring *r, int id);

/*
 * lifetime.c: forget the generation's formats (at detach), or free them
 * (at close).
 */
void ivr_formats_unframe(struct ivring *r);
void ivr_formats_free(struct ivring *r);

/* tep_lock.c: every libtraceevent parse, serialised and left clean. */
int ivr_tep_parse_begin(void);
int ivr_tep_parse(struct tep_handle *tep, struct tep_event **ev,
		  const char *text, u32 len, const char *sys);
void ivr_tep_parse_end(void);

#endif /* IVRING_LIB_FORMAT_H */
