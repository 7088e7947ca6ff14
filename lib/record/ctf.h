/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * The CTF 1.8 recorder's state, shared by ctf.c (the packets) and
 * ctf_meta.c (the metadata, and the per-event tables the packets are
 * transcoded with).  The layout every packet and event follows is
 * described once, in ctf_meta.c's head comment.
 */
#ifndef IVRING_LIB_CTF_H
#define IVRING_LIB_CTF_H

#include "record/record.h"

/* How one ftrace field becomes one CTF field. */
enum ctf_kind {
	CTF_INT,	/* an integer of elem bytes */
	/*
	 * A fixed char[N], written as a CTF string up to its first NUL: a
	 * CTF char array would do, but babeltrace2 2.0.4 shows an empty one
	 * (all NULs) as the previous event's value.
	 */
	CTF_CHARS,
	CTF_ARRAY,	/* a fixed array of size / elem integers */
	CTF_STRING,	/* __data_loc char[]: a NUL-terminated string */
	CTF_SEQ,	/* any other __data_loc array: u32 count, then the integers */
};

struct ctf_field {
	u8 kind;
	u8 elem;	/* bytes per integer: 1, 2, 4 or 8 */
	bool rel;	/* __rel_loc: the data's offset counts from the field's end */
	u32 offset;	/* in the ftrace payload */
	u32 size;	/* bytes there: the integer(s), or the 4-byte data_loc */
};

struct ctf_class {
	u32 first;	/* in ctf.fields */
	u32 nr;
	u32 span;	/* the fields' end: a record is at least this long */
};

/*
 * Records whose type has no format the reader could parse keep their
 * payload under this event id, as bytes: nothing the segment carried is
 * left out of the trace.  So do records transcoded before the guest
 * appended their format: a packet is written once, and its events are
 * not transcoded again when a class for them comes.
 */
#define CTF_ID_UNKNOWN	65536U

struct ctf_stream {
	u8 *buf;		/* packets not written yet; NULL if not resident */
	size_t len;
	size_t cap;
	u64 seq_num;		/* packets so far */
	u64 discarded;		/* events lost so far: CTF counts them per stream */
	u64 last_ts;		/* time never goes back within a stream */
	bool is_open;		/* a packet at open_at takes more pages */
	size_t open_at;
	u64 open_begin;
};

struct ctf;

/*
 * Where the packets and the metadata go: a directory of files
 * (ctf_files.c), or a session on LTTng's relay daemon (ctf_relay.c).
 * Each returns 0 or -errno with the reason in w->err.
 */
struct ctf_sink {
	/*
	 * Packets go out at a flush, never as a buffer fills; but with
	 * @pack, each as soon as it is full, so that the sink takes it while
	 * the next is made.  A failure to send it then is the flush's to
	 * report: the packets stay in the buffer.
	 */
	bool at_flush;
	/*
	 * 0: a packet per page.  Else a CPU's pages fill one packet until
	 * it holds this many bytes, a loss comes, or it is written out:
	 * fewer, bigger packets cost a relay daemon less.
	 */
	size_t pack;
	/* Make the directory, or connect; undone by @free. */
	int (*open)(struct ivring_rec *w, struct ctf *c);
	/* Optional: the trace could not begin; leave nothing behind. */
	void (*undo)(struct ivring_rec *w, struct ctf *c);
	/* The metadata's whole text; @replace: a text went before. */
	int (*meta)(struct ivring_rec *w, struct ctf *c, const char *text,
		    size_t len, bool replace);
	/* @cpu is about to take a packet (optional). */
	int (*use)(struct ivring_rec *w, struct ctf *c, u32 cpu);
	/*
	 * c->streams[@cpu]'s packets out; on failure, those not taken are
	 * left at the start of its buffer.
	 */
	int (*write)(struct ivring_rec *w, struct ctf *c, u32 cpu);
	/*
	 * After each CPU's write at a flush: 0 once every packet written is
	 * where it stays, so that the reader may consume its pages.
	 */
	int (*commit)(struct ivring_rec *w, struct ctf *c);
	/*
	 * Optional: tell live viewers that no stream has anything before
	 * @ts, but those that sent packets since the last call.
	 */
	int (*beacon)(struct ivring_rec *w, struct ctf *c, u64 ts);
	/* Optional: the trace is complete. */
	int (*end)(struct ivring_rec *w, struct ctf *c);
	void (*free)(struct ivring_rec *w, struct ctf *c);
};

extern const struct ctf_sink ctf_files_sink;
extern const struct ctf_sink ctf_relay_sink;

struct ctf {
	const struct ctf_sink *sink;
	void *sink_priv;
	struct ctf_field *fields;
	u32 nr_fields;
	struct ctf_class *classes;
	u32 nr_classes;
	u32 *class_of;		/* by event type: index + 1, 0 for none */
	struct ctf_stream *streams;	/* one per CPU */
	struct ivr_cpus res;		/* resident CPUs, and their files */
	int dirfd;		/* the trace's directory, w->path */
	bool made_dir;		/* made by this recording */
	u8 uuid[16];		/* the trace's, in every packet header */
	u8 clock_uuid[16];
	char *meta;		/* the metadata's text */
	size_t meta_len;
	size_t clock_at, clock_end;	/* the clock block in it */
	bool host_time;		/* the clock was made the host's */
	bool clock_fixed;	/* it cannot be any more (ctf_relay.c) */
	s64 host_offset;	/* the clock's offset, once it was */
	/*
	 * The reader's clock samples as the last ivring__rec_clock() found
	 * them, and host - guest (CLOCK_MONOTONIC) where the clock's offset
	 * was taken: an event's time is written as its guest time plus how
	 * far its own offset has moved from that one (ctf_time()).
	 */
	struct ivr_sync_sample *map;
	u32 map_nr, map_cap;
	s64 map_base;
};

/* The packet header and context of ctf_meta.c, in bytes. */
#define CTF_PKT_HDR	32
#define CTF_PKT_CTX	52
#define CTF_PKT_START	(CTF_PKT_HDR + CTF_PKT_CTX)
#define CTF_MAGIC	0xc1fc1fc1U

/*
 * Write out @cpu's packets through the sink, and count them: 0 or -errno.
 */
int ctf_stream_write(struct ivring_rec *w, u32 cpu);
/*
 * A packet with no event at @ts for @cpu, as the first of its stream, so
 * that live viewers have one to start from.
 */
int ctf_empty_packet(struct ivring_rec *w, u32 cpu, u64 ts);

/*
 * Fill c->fields, classes and class_of from @r's parsed formats, and write
 * @w->path/metadata.  0 or -errno, with ivr_err() said.
 */
int ctf_meta_begin(struct ivring_rec *w, struct ivring *r, struct ctf *c);
/*
 * Make the trace's clock the host's CLOCK_REALTIME: the guest's time plus
 * @offset_ns, absolute; the metadata file is replaced whole.
 */
int ctf_meta_clock(struct ivring_rec *w, struct ctf *c, s64 offset_ns);
/*
 * Classes for w->fmts[@from ..], which the guest appended after open; the
 * metadata file is replaced whole.
 */
int ctf_meta_formats(struct ivring_rec *w, struct ivring *r, struct ctf *c,
		     u32 from);

#endif /* IVRING_LIB_CTF_H */
