/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/* libivring's private state, shared by its source files. */
#ifndef IVRING_LIB_INTERNAL_H
#define IVRING_LIB_INTERNAL_H

#include <limits.h>
#include <setjmp.h>
#include <stdint.h>
#include <linux/ivring.h>

#include "libivring.h"

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int64_t s64;

/*
 * Zeroed bytes after the payload copy that rendering hands to libtraceevent
 * (struct ivring.scratch).  A hostile record can make libtraceevent read a
 * field or a __data_loc string at up to 64 KiB + 64 KiB past the start of its
 * payload; the slack keeps such reads inside memory we own, and the zeros end
 * any string.  Page copies themselves carry no slack.
 */
#define IVR_PAGE_SLACK		(128 * 1024 + 64)

/* Every field of an event ends within this many payload bytes. */
#define IVR_FIELD_END_MAX	65536
/*
 * Nesting of brackets and operators, counted as libtraceevent recurses on
 * them (format_grammar.c), twice what the deepest native format needs
 * (16: kmalloc's gfp_flags table, sched_switch's prev_state): bounds the
 * recursion of libtraceevent's parser and printer, and of ours.
 */
#define IVR_NEST_MAX		32

/*
 * Orders earlier loads before later ones (the kernel's smp_rmb()).  x86 does
 * not reorder loads with loads, so only the compiler needs telling.
 */
#if defined(__x86_64__)
#define ivr_rmb()	__asm__ __volatile__("" ::: "memory")
#else
#define ivr_rmb()	__atomic_thread_fence(__ATOMIC_ACQUIRE)
#endif

/* One CPU's read cursor. */
struct ivr_cpu {
	bool selected;
	u64 seq;		/* sub-buffer being read */
	u32 off;		/* next record in it, from the end of its header */
	u64 ts;			/* running time at off */
	u64 ticket;		/* ticket of the next event we expect */
	bool ticket_known;	/* false until the first page is seen */
	u64 page_dropped;	/* ivring_desc.dropped of the page */
	u8 *page;		/* copy of the sub-buffer: header, then records */
	u32 page_len;		/* record bytes valid in the copy */
	bool page_loaded;	/* the copy is of sub-buffer seq */
	bool page_bad;		/* a corrupt record: skip the rest of the page */
	bool page_final;	/* seq < commit_seq when copied: will not grow */
	u64 cs_copied;		/* commit_seq at the last good copy (or attach) */
	bool have_ev;		/* ev holds the next event, not yet returned */
	int heap_idx;		/* place in ivring.heap, or -1 */
	struct ivring_event ev;
	u32 ev_end;		/* off after ev, to consume it */
	u64 pending_lost;	/* lost events to attach to the next event */
	u64 stored_pos;		/* the consumer position stored last, */
	u64 stored_ticket;	/* and its ticket: what a checkpoint saves */
	/* counters for ivring_cpu_stats */
	u64 read;
	u64 lost;
	u64 bad_pages;		/* damaged: no honest writer leaves one so */
	u64 torn_pages;		/* reused by the writer while we read them */
};

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
 * This generation's format texts (format_area.c): copied at attach, and
 * the records the guest appends later, taken as they are seen
 * (ivr_formats_refresh()).  Taken records are never read again: what
 * was listed stays as it was, whatever the guest writes over it.
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
	u32 tokens;		/* of the listed texts (format_grammar.c) */
	u32 skipped;		/* not listed, or refused when parsed */
	u32 raw;		/* parsed, print fmt not provably safe */
	bool parsed;		/* r->tep holds the listed texts (formats.c) */
	u32 nr_parsed;		/* list[0 .. nr_parsed) are in r->tep */
	int first_id;		/* of the first record skipped, -1: unknown */
	char why[160];		/* why that one was, "" when none was */
	u8 seen[65536 / 8];	/* ids taken, listed or not */
	u8 hidden[65536 / 8];	/* ids in r->tep that ivring__event() hides */
};

static inline const char *ivr_fmt_str(const struct ivr_formats *fs,
				      const struct ivr_format *f, u32 off)
{
	return (f->blk < fs->nr_blocks ? fs->blocks[f->blk] : fs->str) + off;
}

/* One clock sample (clock_sync.c): guest time guest was host time host. */
struct ivr_sync_sample {
	u64 host;		/* CLOCK_MONOTONIC, the middle of the round trip */
	u64 guest;
	u64 rtt;		/* the round trip: twice the bound */
	s64 real_off;		/* CLOCK_REALTIME - CLOCK_MONOTONIC then */
};

struct ivr_sync {
	u64 seq;			/* the last request's number */
	u64 generation;			/* the samples' */
	struct ivr_sync_sample *s;	/* the best of each burst, in order */
	u32 nr, cap;
	u64 best_rtt;
	u64 bursts, timeouts, refused, poor;
};

struct ivring {
	int fd;
	u8 *map;		/* the whole segment */
	size_t map_len;
	bool peek;
	bool explicit_commit;	/* IVRING_OPEN_EXPLICIT_COMMIT */
	bool attached;		/* cursors and formats are of hdr.generation */
	int gone;		/* -errno once the mapping faulted: dead */
	char *path;
	u64 file_id;		/* ivring_host.file_id of this file, here */
	u32 resumed;		/* IVRING_RESUMED_*: where this generation began */
	u64 may_repeat;		/* IVRING_RESUMED_COPIED: events we may repeat */
	struct ivring_header hdr;	/* validated copy of the live header */
	u32 rec_area;			/* subbuf_size - sizeof(ivring_subbuf_hdr) */
	struct ivr_cpu *cpus;		/* ncpus entries */
	u32 ncpus;
	int last_cpu;			/* cpu of the last event ivring__next returned */
	u32 idle_polls;
	/*
	 * ivring__next's merge: a min-heap, by the time of their next event,
	 * of the selected CPUs that have one.  The others are looked at again
	 * only when the heap runs dry or every IVR_RESCAN_EVERY events, so an
	 * idle CPU costs nothing per event.
	 */
	u32 *heap;
	u32 heap_len;
	bool heap_valid;		/* false: rebuild from every selected CPU */
	bool root_taken;		/* heap[0]'s event was returned */
	u32 since_scan;			/* events since the idle CPUs were looked at */
	u64 backoff_ns;			/* ivring__poll's current sleep */
	u8 *page_out;			/* ivring__read_page's result */
	struct ivr_formats fmts;	/* format texts of this generation */
	struct ivr_sync sync;		/* guest time to host time */
	struct tep_handle *tep;		/* fmts parsed, once something decodes */
	u32 nr_comms;			/* pids whose comm render.c learned */
	u8 *scratch;			/* payload copy + IVR_PAGE_SLACK zeros */
	size_t scratch_len;
	struct trace_seq *line;		/* render.c's, reused for every line */
	/* Messages name the path, which may be as long as PATH_MAX. */
	char err[PATH_MAX + 512];
	char gone_msg[PATH_MAX + 512];	/* why gone, repeated by every later call */
	/* A move to a new generation that failed, and why. */
	int attach_err;
	struct ivring_header failed_hdr;
	char attach_msg[PATH_MAX + 512];
};

/* Record a failure on @r and return @ret (a negative errno). */
int ivr_err(struct ivring *r, int ret, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * SIGBUS from a segment file that shrank under the mapping (guard.c): every
 * public call that touches the mapping runs through ivr_guarded().
 */
struct ivr_guard {
	sigjmp_buf env;
	struct ivring *r;
	struct ivr_guard *prev;
};

void ivr_guard_install(void);
void ivr_guard_push(struct ivr_guard *g, struct ivring *r);
void ivr_guard_pop(struct ivr_guard *g);
int ivr_guard_fault(struct ivr_guard *g);
int ivr_guarded(struct ivring *r, int (*fn)(struct ivring *r, void *arg),
		void *arg);

/*
 * A caller's struct of @sz bytes where we know @known: the bytes we do not
 * know must be zero, or the caller asks for something we cannot do.
 */
bool ivr_struct_tail_zero(const void *p, size_t sz, size_t known);

/* Header and attachment (open.c, cursor.c). */
int ivr_check_header(struct ivring *r, const struct ivring_header *h);
int ivr_load_header(struct ivring *r);
int ivr_attach(struct ivring *r);
void ivr_detach(struct ivring *r);

/* One CPU's cursor (cursor.c): 1 = r->cpus[cpu].ev ready, 0 = none yet. */
int ivr_cpu_peek(struct ivring *r, u32 cpu);
void ivr_cpu_take(struct ivring *r, u32 cpu);
/*
 * Each event of a page that is taken, as it is verified: a recorder that
 * looks into some events (for comms) then needs no walk of its own.  @ev
 * is valid during the call only.
 */
struct ivr_event_hook {
	void (*fn)(void *arg, const struct ivring_event *ev);
	void *arg;
};
/*
 * ivring__read_page() into @out, hdr.subbuf_size bytes of the caller's
 * (NULL: r->page_out), for a recorder that has its own place for the page;
 * @hook (or NULL) sees each of its events.
 */
int ivr_read_page(struct ivring *r, unsigned int cpu, struct ivring_page *pg,
		  unsigned int flags, u8 *out,
		  const struct ivr_event_hook *hook);
/* @out: hdr.subbuf_size bytes, where the page goes. */
int ivr_cpu_take_page(struct ivring *r, u32 cpu, bool partial, bool stopped,
		      struct ivring_page *pg, u8 *out,
		      const struct ivr_event_hook *hook);
void ivr_cpu_store_pos(struct ivring *r, u32 cpu);
bool ivr_cpu_place(struct ivring *r, u32 cpu, u64 pos, u64 ticket, u64 cs);
void ivr_cpu_consumed(struct ivring *r, u32 cpu);
void ivr_claim(struct ivring *r);
int ivr_begin_call(struct ivring *r);
int ivr_begin_cpu_call(struct ivring *r, u32 cpu);
u32 ivr_live_state(struct ivring *r);
void ivr_heartbeat(struct ivring *r);

/* Format area -> r->fmts (format_area.c).  Hostile input: copied first. */
int ivr_formats_frame(struct ivring *r);
/*
 * Records appended since: > 0 when some were listed (parse them), 0 when
 * none, -errno when the handle died reading them.
 */
int ivr_formats_refresh(struct ivring *r);
void ivr_formats_unframe(struct ivring *r);
void ivr_formats_skip(struct ivr_formats *fs, u32 n, int id,
		      const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* The strict grammar a text must match before any parse (format_grammar.c). */
int ivr_format_grammar(const char *text, u32 len, u16 id, char *why,
		       size_t why_len, u32 *tokens);
bool ivr_int_literal(const char *s, u64 *val);

/* r->fmts -> r->tep, at the first call that decodes (formats.c). */
int ivr_formats_parse(struct ivring *r);
/* Free what render.c keeps in @r. */
void ivr_render_free(struct ivring *r);
void ivr_formats_free(struct ivring *r);

/* Every libtraceevent parse, serialised and left clean (tep_parse.c). */
int ivr_tep_parse_begin(void);
int ivr_tep_parse(struct tep_handle *tep, struct tep_event **ev,
		  const char *text, u32 len, const char *sys);
void ivr_tep_parse_end(void);

/* Pointers into the mapping; callers have validated the layout. */
static inline struct ivring_cpu *ivr_shared_cpu(struct ivring *r, u32 cpu)
{
	return (struct ivring_cpu *)(r->map + r->hdr.cpu_offset) + cpu;
}

static inline struct ivring_desc *ivr_desc(struct ivring *r, u32 cpu, u32 slot)
{
	return (struct ivring_desc *)(r->map + r->hdr.desc_offset) +
	       (u64)cpu * r->hdr.nr_subbufs + slot;
}

static inline u8 *ivr_subbuf(struct ivring *r, u32 cpu, u32 slot)
{
	return r->map + r->hdr.data_offset +
	       ((u64)cpu * r->hdr.nr_subbufs + slot) * r->hdr.subbuf_size;
}

static inline struct ivring_host *ivr_host(struct ivring *r)
{
	return (struct ivring_host *)(r->map + r->hdr.host_offset);
}

static inline struct ivring_host_cpu *ivr_host_cpu(struct ivring *r, u32 cpu)
{
	return (struct ivring_host_cpu *)(ivr_host(r) + 1) + cpu;
}

#endif /* IVRING_LIB_INTERNAL_H */
