/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * The segment layer (lib/LAYERS): a reader's handle on one mapped segment
 * file, its validated header, and one read cursor per CPU.
 *
 * struct ivring is defined here because every layer reads these fields: the
 * mapping, the header copy that was checked, the cursors.  The layers above
 * keep their own state behind a pointer each, of a type that the layer
 * alone defines, makes and frees; the generation's few fields are here for
 * the same reason as the cursors, which they are the epoch of.
 */
#ifndef IVRING_LIB_SEGMENT_H
#define IVRING_LIB_SEGMENT_H

#include <linux/ivring.h>

#include "libivring.h"
#include "base/base.h"

/* One CPU's read cursor (cursor.c). */
struct ivr_cpu {
	u64 seq;		/* sub-buffer being read */
	u32 off;		/* next record in it, from the end of its header */
	u64 ts;			/* running time at off */
	u64 ticket;		/* ticket of the next event we expect */
	bool ticket_known;	/* false until the first page is seen */
	u64 page_dropped;	/* ivring_desc.dropped of the page */
	u8 *page;		/* copy of the sub-buffer: header, then records */
	/*
	 * page's memory.  Within ivr_cpu_take_page() alone, page may be the
	 * caller's page instead: ivr_cpu_take_ended() after every call.
	 */
	u8 *own;
	u32 page_len;		/* record bytes valid in the copy */
	bool page_loaded;	/* the copy is of sub-buffer seq */
	bool page_bad;		/* a corrupt record: skip the rest of the page */
	bool page_final;	/* seq < commit_seq when copied: will not grow */
	u64 cs_copied;		/* commit_seq at the last good copy (or attach) */
	/*
	 * ivring_cpu.bytes, loaded before the last look that found nothing
	 * new (idle_known): while it stays, nothing was published since.
	 */
	u64 idle_bytes;
	bool idle_known;
	u32 idle_looks;		/* looks that passed the page since */
	bool have_ev;		/* ev holds the next event, not yet returned */
	struct ivring_event ev;
	u32 ev_end;		/* off after ev, to consume it */
	u64 pending_lost;	/* lost events to attach to the next event */
	u64 stored_pos;		/* the consumer position stored last, */
	u64 stored_ticket;	/* and its ticket: what a checkpoint saves */
	bool pos_stored;	/* they are in the host area (not peek) */
	/* counters for ivring_cpu_stats */
	u64 read;
	u64 lost;
	u64 bad_pages;		/* damaged: no honest writer leaves one so */
	u64 torn_pages;		/* reused by the writer while we read them */
};

struct ivr_iter;	/* iter/iter.h */
struct ivr_formats;	/* format/format.h */
struct ivr_decode;	/* decode/decode.h */
struct ivr_sync;	/* generation/clock_sync.c */
struct ivr_gen_ops;	/* generation/generation.h */

struct ivring {
	/* The file and the header that was checked (map.c, header.c). */
	int fd;
	u8 *map;		/* the whole segment */
	size_t map_len;
	char *path;
	u64 file_id;		/* ivring_host.file_id of this file, here */
	u64 file_dev, file_ino;	/* the file opened, by its fd */
	u32 file_uid;
	bool peek;
	bool explicit_commit;	/* IVRING_OPEN_EXPLICIT_COMMIT */
	int gone;		/* -errno once the mapping faulted: dead */
	struct ivring_header hdr;	/* validated copy of the live header */
	u32 rec_area;			/* subbuf_size - sizeof(ivring_subbuf_hdr) */
	struct ivr_msg err;
	char gone_msg[IVR_MSG_MAX];	/* why gone, repeated by every later call */

	/* One cursor per CPU of the generation (cursor.c). */
	struct ivr_cpu *cpus;
	u32 ncpus;

	/* The generation that the cursors are of (generation/). */
	bool attached;
	u32 resumed;		/* IVRING_RESUMED_*: where this generation began */
	u64 may_repeat;		/* IVRING_RESUMED_COPIED: events we may repeat */
	const struct ivr_gen_ops *gen_ops;
	/* A move to a new generation that failed, and why. */
	int attach_err;
	struct ivring_header failed_hdr;
	char attach_msg[IVR_MSG_MAX];

	/* Each upper layer's own state, NULL until that layer first needs it. */
	struct ivr_iter *iter;
	struct ivr_formats *fmts;
	struct ivr_decode *dec;
	struct ivr_sync *sync;
};

/* header.c: is @h a layout to read?  On success r->hdr holds it. */
int ivr_check_header(struct ivring *r, const struct ivring_header *h);
/* Copy the live header and check it: 0, -EAGAIN mid-format, -errno. */
int ivr_load_header(struct ivring *r);

/* map.c */
/* Map @path (a bare name is in /dev/shm), read-only with @rdonly. */
int ivr_map_file(struct ivring *r, const char *path, bool rdonly,
		 bool nofollow);
void ivr_unmap_file(struct ivring *r);
/* One consumer per segment: a lock on the file. */
int ivr_lock_consumer(struct ivring *r);
/*
 * Run @fn(@r, @arg) under the SIGBUS guard of @r's mapping: a fault there
 * makes @r dead (r->gone), and this and every later call return -EFBIG
 * with the reason.
 */
int ivr_guarded(struct ivring *r, int (*fn)(struct ivring *r, void *arg),
		void *arg);

/* cursor.c: one CPU's cursor. */
/* Cursors for r->hdr's layout, all at the oldest page; no segment write. */
int ivr_cursors_alloc(struct ivring *r);
void ivr_cursors_free(struct ivring *r);
/* 1 = r->cpus[cpu].ev ready, 0 = none yet. */
int ivr_cpu_peek(struct ivring *r, u32 cpu);
void ivr_cpu_take(struct ivring *r, u32 cpu);
/*
 * Each event of a page that is taken, as it is verified: a recorder that
 * looks into some events (for comms) then needs no walk of its own.  @ev
 * is valid during the call only.  @types, a bitmap by type id, names the
 * events @fn looks into; NULL: every event.  Testing a bit here costs less
 * than a call for each event of a page.
 */
struct ivr_event_hook {
	void (*fn)(void *arg, const struct ivring_event *ev);
	void *arg;
	const u8 *types;
};
/* @out: hdr.subbuf_size bytes, where the page goes. */
int ivr_cpu_take_page(struct ivring *r, u32 cpu, bool partial, bool stopped,
		      struct ivring_page *pg, u8 *out,
		      const struct ivr_event_hook *hook);
/*
 * After ivr_cpu_take_page(), also one that a SIGBUS cut short: the cursor's
 * copy is in its own memory, or is made again at the next call.
 */
void ivr_cpu_take_ended(struct ivring *r, u32 cpu);
/* Store @cpu's position in the host area; false if it was there already. */
bool ivr_cpu_store_pos(struct ivring *r, u32 cpu);
bool ivr_cpu_place(struct ivring *r, u32 cpu, u64 pos, u64 ticket, u64 cs);
void ivr_cpu_consumed(struct ivring *r, u32 cpu);
/* The ticket the writer gives its next event on @cpu, for messages only. */
u64 ivr_cpu_next_ticket(struct ivring *r, u32 cpu);

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

static inline const struct ivring_header *ivr_live_header(struct ivring *r)
{
	return (const struct ivring_header *)r->map;
}

#endif /* IVRING_LIB_SEGMENT_H */
