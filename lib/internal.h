/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/* libivring's private state, shared by its source files. */
#ifndef IVRING_LIB_INTERNAL_H
#define IVRING_LIB_INTERNAL_H

#include <stdint.h>
#include <linux/ivring.h>

#include "libivring.h"

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;

/*
 * Zeroed bytes after the payload copy that rendering hands to libtraceevent
 * (struct ivring.scratch).  A hostile record can make libtraceevent read a
 * field or a __data_loc string at up to 64 KiB + 64 KiB past the start of its
 * payload; the slack keeps such reads inside memory we own, and the zeros end
 * any string.  Page copies themselves carry no slack.
 */
#define IVR_PAGE_SLACK		(128 * 1024 + 64)

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
	struct ivring_event ev;
	u32 ev_end;		/* off after ev, to consume it */
	u64 pending_lost;	/* lost events to attach to the next event */
	/* counters for ivring_cpu_stats */
	u64 read;
	u64 lost;
	u64 bad_pages;		/* damaged: no honest writer leaves one so */
	u64 torn_pages;		/* reused by the writer while we read them */
};

struct ivring {
	int fd;
	u8 *map;		/* the whole segment */
	size_t map_len;
	bool peek;
	char path[256];
	struct ivring_header hdr;	/* validated copy of the live header */
	u32 rec_area;			/* subbuf_size - sizeof(ivring_subbuf_hdr) */
	struct ivr_cpu *cpus;		/* ncpus entries */
	u32 ncpus;
	int last_cpu;			/* cpu of the last event ivring__next returned */
	u32 idle_polls;
	struct tep_handle *tep;		/* formats of this generation */
	u32 nr_formats;			/* events in tep (formats.c) */
	u32 bad_formats;		/* format records skipped as invalid */
	u32 raw_formats;		/* print fmt not provably safe: fields only */
	u32 nr_comms;			/* pids whose comm render.c learned */
	u8 *scratch;			/* payload copy + IVR_PAGE_SLACK zeros */
	size_t scratch_len;
	char err[512];
};

/* Record a failure on @r and return @ret (a negative errno). */
int ivr_err(struct ivring *r, int ret, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Header and attachment (open.c, cursor.c). */
int ivr_check_header(struct ivring *r, const struct ivring_header *h);
int ivr_load_header(struct ivring *r);
int ivr_attach(struct ivring *r);
void ivr_detach(struct ivring *r);

/* One CPU's cursor (cursor.c): 1 = r->cpus[cpu].ev ready, 0 = none yet. */
int ivr_cpu_peek(struct ivring *r, u32 cpu);
void ivr_cpu_take(struct ivring *r, u32 cpu);
void ivr_cpu_store_pos(struct ivring *r, u32 cpu);
void ivr_heartbeat(struct ivring *r);

/* Parse hostile format texts in a child first (format_vet.c). */
struct ivr_vet_item {
	const char *sys;
	const char *text;	/* NUL-terminated */
	u32 len;
};
int ivr_vet_formats(const u8 *area, u32 area_len,
		    const struct ivr_vet_item *items, u32 n, u8 *ok);

/* Format area -> r->tep (formats.c).  Hostile input: bounded, copied first. */
int ivr_formats_load(struct ivring *r);
void ivr_formats_free(struct ivring *r);

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
