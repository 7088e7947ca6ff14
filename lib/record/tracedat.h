/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * The trace.dat writer's parts (tracedat.c): the state of a recording, the
 * metadata's bytes (tracedat_meta.c) and the cmdlines learned from the
 * pages (tracedat_comms.c).
 */
#ifndef IVRING_LIB_TRACEDAT_H
#define IVRING_LIB_TRACEDAT_H

#include <errno.h>

#include "decode/comms.h"
#include "record/record.h"

/*
 * A CPU's pages per write(): 64 KiB of 4 KiB pages, enough to make the
 * system call cheap against the copy, and little memory per recording
 * (there is one per guest, each touched in full).
 */
#define SPOOL_PAGES	16
#define TD_PAGE_MIN	4096
#define COMM_SLOTS	65536		/* open addressing, at most half full */
#define COMM_SRCS_MAX	16
/* Clock samples that a trace.dat carries at most, per CPU (TIME_SHIFT). */
#define TD_SHIFT_MAX	512
/*
 * Compressed, a spool's block goes behind a zstd skippable frame (its
 * magic, its length 8) that holds the block's two sizes: TD_ZHDR bytes
 * before the frame, of which the trace.dat takes the last 8.
 */
#define TD_ZHDR		16
#define TD_ZSKIP_MAGIC	0x184D2A5EU

/* trace-cmd's option and section ids (trace-cmd.dat.v7(5)) */
enum {
	OPT_DONE = 0,
	OPT_BUFFER = 3,
	OPT_TRACECLOCK = 4,
	OPT_UNAME = 5,
	OPT_CPUCOUNT = 8,
	OPT_VERSION = 9,
	OPT_TRACEID = 11,
	OPT_TIME_SHIFT = 12,
	OPT_GUEST = 13,
	OPT_HEADER_INFO = 16,
	OPT_FTRACE_EVENTS = 17,
	OPT_EVENT_FORMATS = 18,
	OPT_KALLSYMS = 19,
	OPT_PRINTK = 20,
	OPT_CMDLINES = 21,
};

/* A section's flags: its content is one compressed block. */
#define SEC_FL_COMPRESS	1

struct comm_slot {
	int32_t pid;
	bool used;		/* calloc()'s zeros: empty */
	char comm[IVR_COMM_LEN + 1];
};

struct spool {
	u8 *buf;		/* SPOOL_PAGES pages, while resident */
	u32 used;		/* pages in buf */
	/*
	 * Bytes of the CPU's data as the trace.dat holds it: compressed, the
	 * count of blocks and the blocks (0 while there is none).
	 */
	u64 size;
	u64 pages;		/* written */
	u32 blocks;		/* compressed */
	u32 counted;		/* in place: the blocks the file counts */
	u64 spooled;		/* compressed: bytes in PATH.cpuN */
};

/* Section offsets, in the order trace-cmd writes them. */
struct v7_sections {
	u64 header_info, ftrace_events, event_formats, kallsyms, printk,
	    cmdlines;
};

/* A growable buffer for the metadata, written in the file's byte order. */
struct obuf {
	u8 *p;
	size_t len;
	size_t cap;
	bool nomem;		/* built no further: out of memory, or... */
	bool zfail;		/* ...a zstd frame failed (w->err says why) */
};

/* A version 7 file written in place (see tracedat.c). */
struct in_place {
	int fd;			/* PATH.tmp */
	u64 *offs;		/* each CPU's region */
	u64 region;		/* bytes a region holds */
	u64 region_pages;	/* pages a region holds: the sub-buffers */
	u64 at_opts_ptr;	/* the header's pointer to the options */
	u64 flyrecord;		/* the flyrecord section's header */
	u64 slot[2];		/* where the cmdlines and options go */
	u64 slot_size;
	u64 front;		/* bytes up to the flyrecord data */
	u64 tail;		/* bytes last written to a slot */
	int cur;		/* the slot the header points at, -1: none */
	/* The cmdlines section, rebuilt only when comms_gen moved. */
	struct obuf cmdlines;
	u64 cmdlines_gen;
	/*
	 * The formats that the front's section holds; once the guest
	 * appended more, a whole event formats section goes into the slot
	 * too, rebuilt only when fmts_gen moved.
	 */
	u32 front_fmts;
	struct obuf formats;
	u64 formats_gen;
	bool created;		/* PATH.tmp is ours */
	struct v7_sections sec;
};

struct tracedat {
	struct spool *cpus;
	struct ivr_cpus res;		/* resident CPUs; spooled: PATH.cpuN */
	u8 *scratch;			/* a page of a CPU not resident yet */
	struct in_place *ip;	/* NULL: spooled */
	u32 subbuf_size;		/* the segment's */
	/*
	 * The file's pages.  trace-cmd 3.1.6 reads pages smaller than
	 * 4 KiB only up to the first 4 KiB boundary (the kernel's are never
	 * smaller), so a smaller sub-buffer goes in a page of TD_PAGE_MIN
	 * whose rest is empty.
	 */
	u32 page_size;
	struct ivr_comm_src srcs[COMM_SRCS_MAX];
	u32 nr_srcs;
	u8 src_types[65536 / 8];	/* bitmap: type has a comm_src */
	/*
	 * Zeroed, not filled: a recording touches only the pages of the
	 * slots it uses, which matters to a reader of many guests, one
	 * recording each.  comm_used lists those slots, for the metadata.
	 */
	struct comm_slot *comms;
	u32 *comm_used;
	u32 nr_comms;
	u64 comms_gen;			/* bumped when a pid or comm is learned */
	u64 head_gen;			/* comms_gen when PATH.head was written */
	u64 head_fmts_gen;		/* and the recording's fmts_gen */
	bool head;			/* PATH.head is ours */
	/* Host time (ivring__rec_clock()): guest time and host - guest. */
	u64 *shift_time;
	s64 *shift_off;
	u32 nr_shift;
	/* Compressed (tracedat_zstd.c): a context, a block's buffer. */
	void *zctx;
	u8 *zbuf;
	size_t zcap;
	/*
	 * The spools (in place, PATH.tmp) hold consumed events from the
	 * first page on: they are removed once the file is put together, or
	 * when there never was a page, and kept when completing it failed.
	 */
	bool done;
};

/* @off rounded up to a multiple of @page, a power of two. */
static inline u64 ivr_td_page_align(u64 off, u32 page)
{
	return (off + page - 1) & ~(u64)(page - 1);
}

/* @b could not be built: -EIO with zstd's reason, or -ENOMEM. */
static inline int ivr_td_obuf_err(struct ivring_rec *w, const struct obuf *b)
{
	return b->zfail ? -EIO :
	       ivr_err(w, -ENOMEM, "out of memory for a trace.dat");
}

/* Where the last CPU's data ends: the end of the file. */
static inline u64 ivr_td_data_end(const struct ivring_rec *w, const u64 *offs)
{
	const struct tracedat *t = w->priv;
	u32 last = w->info.nr_cpus - 1;

	return offs[last] + t->cpus[last].size;
}

/* tracedat_meta.c: each appends to @b; b->nomem says it ran out. */
void ivr_td_v6_head(struct obuf *b, struct ivring_rec *w);
/* A whole version 6 or 7 metadata, with each CPU's data placed in @offs. */
void ivr_td_v6(struct obuf *b, struct ivring_rec *w, u64 *offs);
void ivr_td_v7(struct obuf *b, struct ivring_rec *w, u64 *offs);
/* Version 7 in parts, for a file written in place. */
void ivr_td_v7_front(struct obuf *b, struct ivring_rec *w,
		     struct v7_sections *sec, size_t *at_opts_ptr);
void ivr_td_v7_options(struct obuf *b, struct ivring_rec *w,
		       const struct v7_sections *sec, u64 flyrecord,
		       const u64 *offs);
void ivr_td_flyrecord(struct obuf *b, struct ivring_rec *w);
/* An event formats section of w->fmts; returns its offset in @b. */
u64 ivr_td_event_formats(struct obuf *b, struct ivring_rec *w);
/* The cmdlines section; returns its offset in @b. */
u64 ivr_td_cmdlines(struct obuf *b, struct ivring_rec *w);
/* Append what @src holds. */
void ivr_td_put_obuf(struct obuf *b, const struct obuf *src);

/*
 * The size of @cpu's data that the BUFFER option gives: compressed,
 * trace-cmd 3.1.6 leaves out the count of blocks.
 */
static inline u64 ivr_td_opt_size(const struct ivring_rec *w, u32 cpu)
{
	const struct tracedat *t = w->priv;
	u64 size = t->cpus[cpu].size;

	return w->compression && size ? size - 4 : size;
}

/*
 * tracedat_zstd.c: libzstd's version; the most a block of @len bytes
 * takes compressed; the context and buffer of a compressed recording
 * (0, or -ENOMEM with w->err); one frame of @src in @dst: its size, or
 * -EIO with w->err.
 */
const char *ivr_td_z_version(void);
size_t ivr_td_z_bound(size_t len);
int ivr_td_z_init(struct ivring_rec *w, struct tracedat *t);
void ivr_td_z_free(struct tracedat *t);
ssize_t ivr_td_z_frame(struct ivring_rec *w, void *dst, size_t cap,
		       const void *src, size_t len);

/* tracedat_clock.c: ivring__rec_clock() of a trace.dat. */
int ivr_td_clock(struct ivring_rec *w, struct ivring *r);
void ivr_td_clock_free(struct tracedat *t);

/* tracedat_comms.c */
void ivr_td_find_comm_srcs(struct tracedat *t, struct ivring_rec *w,
			   struct ivring *r, u32 from);
/* Comms from @ev, if its type names a task. */
void ivr_td_learn(struct tracedat *t, const struct ivring_event *ev);

#endif /* IVRING_LIB_TRACEDAT_H */
