/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * libivring: read the trace events that a guest's ivring.ko writes into an
 * ivshmem segment, from the host, through the POSIX shm file behind it.
 *
 * Every function that can fail returns 0 or a positive count on success and
 * a negative errno value on failure.  A handle keeps a message for its last
 * failure (ivring__errmsg()), and only for a failure; ivring__open() and
 * ivring__rec_open() write theirs into the caller's errbuf.  A handle is not
 * thread-safe: use one per thread.
 *
 * Structs and their sz.  Every struct that begins with a size_t sz grows
 * only at its end, and sz says how much of it the caller has: declare one
 * with IVRING_OPTS(), which sets sz and zeroes the rest, padding too, so
 * that a field added later in what is padding today never reads as
 * garbage.  A struct the caller fills (ivring_open_opts, ivring_rec_opts):
 * the library reads the fields that both sides know, and refuses with
 * -EINVAL one whose bytes beyond what it knows are not zero (an option it
 * cannot do).  A struct the library fills (ivring_info, ivring_page, the
 * stats...): it writes the fields that both sides know, not a byte past the
 * caller's sz, and leaves in sz how many bytes it wrote.
 *
 * Global state: one mutex, and, if the application asks for it, a SIGBUS
 * handler.  libtraceevent 1.7 keeps its parser's state in process globals,
 * so libivring parses the guest's format texts under that lock, for every
 * handle, and leaves the parser as a fresh process has it.  An application
 * that parses formats with libtraceevent itself must not do so in another
 * thread while libivring parses (ivring__tep(), ivring__event(),
 * ivring__match_events() and ivring__snprint() may).  libivring starts no
 * process or thread of its own.
 *
 * The segment is a file that another process may truncate under the
 * mapping, and a load past its new end raises SIGBUS.  An application that
 * calls ivring__sigbus_guard(true) makes that cost one handle and not the
 * process: a fault inside one of libivring's calls on a handle's mapping
 * makes that call, and every later one on the handle, return -EFBIG.
 * Without it, the fault kills the process, as it would any reader of a
 * mapped file.  (Programs built against libivring 1.0 to 1.4, whose first
 * ivring__open() installed it unasked, still get it.)
 */
#ifndef LIBIVRING_H
#define LIBIVRING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef IVRING_API
#define IVRING_API __attribute__((visibility("default")))
#endif

struct ivring;
struct tep_handle;
struct tep_event;

/*
 * A struct of @TYPE named @NAME, its sz set and every other byte zero, with
 * the fields given set: IVRING_OPTS(ivring_open_opts, o, .flags = ...).
 * As libbpf's LIBBPF_OPTS().
 */
#define IVRING_OPTS(TYPE, NAME, ...)					\
	struct TYPE NAME = ({						\
		memset(&NAME, 0, sizeof(struct TYPE));			\
		(struct TYPE){ .sz = sizeof(struct TYPE), __VA_ARGS__ };	\
	})

/*
 * Since 1.5: install (@enable) the process's SIGBUS handler that turns a
 * segment file truncated under a handle into -EFBIG on that handle (see
 * above), or give SIGBUS back to the handler there was before.  Install it
 * before the first open, from one thread; another handler installed later
 * takes SIGBUS over.  While it is installed, libivring stays loaded
 * (dlclose() leaves it).  Returns 0, or the -errno of sigaction().
 */
IVRING_API int ivring__sigbus_guard(bool enable);

/* ivring_open_opts.flags */
enum {
	/*
	 * Snapshot: read what is there, write nothing to the segment, so the
	 * guest keeps every event for a consuming reader.  Implied by
	 * IVRING_OPEN_RDONLY.
	 */
	IVRING_OPEN_PEEK = 1U << 0,
	/* Map the file read-only (and open it O_RDONLY). */
	IVRING_OPEN_RDONLY = 1U << 1,
	/*
	 * Consume only at ivring__commit(): a reader that writes what it
	 * reads somewhere commits after that write is done (flushed, synced),
	 * so that however it dies, nothing it consumed was left unwritten.
	 * Events returned after the last commit are delivered again to the
	 * next reader; ivring__close() does not commit them.
	 */
	IVRING_OPEN_EXPLICIT_COMMIT = 1U << 2,
	/*
	 * Since 1.6: do not follow a symlink at @path (-ELOOP): for a name
	 * found in a directory that others may write to, where a symlink
	 * could point a reader that runs as root at any file.
	 */
	IVRING_OPEN_NOFOLLOW = 1U << 3,
};

struct ivring_open_opts {
	size_t sz;		/* sizeof(struct ivring_open_opts) */
	unsigned int flags;	/* IVRING_OPEN_* */
	char *errbuf;		/* if set, receives the reason of a failure */
	size_t errbuf_len;
};

/*
 * Open a segment.  @path is a file (/dev/shm/vm0) or a bare shm name (vm0,
 * looked up in /dev/shm).  The whole segment is validated as hostile input.
 * A consuming handle (neither PEEK nor RDONLY) takes an exclusive lock on
 * the file: one consumer per segment.  It writes to the segment only once
 * the open has succeeded.
 * Errors: -ENOENT, -EACCES, -ENOTTY (not an ivring segment), -EPROTONOSUPPORT
 * (ABI major not supported), -EFBIG (truncated: the header says more bytes
 * than the file has), -EINVAL (inconsistent layout, an area larger than the
 * limits of <linux/ivring.h>, or options this library does not know),
 * -EAGAIN (the guest is formatting it right now: try again), -EBUSY
 * (another process consumes it), -ENOMEM.  The reason goes into
 * opts->errbuf whatever failed.  Format texts that fail their checks are no
 * error: see ivring__format_stats().
 */
IVRING_API int ivring__open(const char *path, const struct ivring_open_opts *opts,
			    struct ivring **out);
IVRING_API void ivring__close(struct ivring *r);
IVRING_API const char *ivring__errmsg(const struct ivring *r);

struct ivring_info {
	size_t sz;
	uint32_t abi_major;
	uint32_t abi_minor;
	uint64_t generation;
	uint64_t segment_size;
	uint32_t state;		/* IVRING_STATE_* of <linux/ivring.h> */
	uint32_t mode;		/* IVRING_MODE_* */
	uint32_t nr_cpus;
	uint32_t subbuf_size;
	uint32_t nr_subbufs;
	uint32_t clock_id;
	char clock_name[17];
	bool peek;		/* this handle consumes nothing */
	/* Since 1.3: where reading of this generation began. */
	uint32_t resumed;	/* IVRING_RESUMED_* */
	uint64_t may_repeat;	/* IVRING_RESUMED_COPIED: see there */
	/*
	 * Since 1.6: the file this handle opened, as fstat() gives it, so that
	 * a caller can tell whether a path still names it.
	 */
	uint64_t file_dev;
	uint64_t file_ino;
	/* Since 1.7: its owner, by the same fstat() (who may be its QEMU). */
	uint32_t file_uid;
};
IVRING_API int ivring__info(struct ivring *r, struct ivring_info *info);

/* ivring_info.resumed */
enum {
	/* At the oldest event kept: no consumer of this generation before. */
	IVRING_RESUMED_START = 0,
	/* Where the last consumer of this file stopped (its host area). */
	IVRING_RESUMED_POSITIONS = 1,
	/*
	 * From positions that a consumer stored through another file, which
	 * was copied to this one: a live migration copies the segment, the
	 * host area with it, but only as it was when its page was sent.
	 * Events that the other consumer delivered after that come again, at
	 * most may_repeat of them (those that were in the segment when this
	 * handle attached).  A checkpoint avoids it.
	 */
	IVRING_RESUMED_COPIED = 2,
	/* From a checkpoint: ivring__checkpoint_load(). */
	IVRING_RESUMED_CHECKPOINT = 3,
};

struct ivring_event {
	unsigned int cpu;
	uint64_t ts;		/* guest clock, ns */
	uint16_t type;		/* common_type: the event's format id */
	uint32_t size;		/* payload bytes as recorded */
	const void *data;	/* payload; valid until the next call on r */
	uint64_t lost;		/* events lost on this CPU just before this one */
};

/*
 * Next event, merged by timestamp over the selected CPUs.  Returns 1 with
 * *ev filled, 0 when no event is available now, or a negative errno:
 * -ESTALE once when the guest formatted a new generation (the handle has
 * already moved to it, call again), -EPIPE when the writer has stopped and
 * everything it published has been read, -EFBIG when the file shrank under
 * the mapping (the handle is dead), or the error of a failed move to a new
 * generation (returned again by every call until a move succeeds).
 * In consume mode the previous event returned is marked consumed in the
 * segment when this is called, so at most the event in hand is delivered
 * twice if the reader dies; with IVRING_OPEN_EXPLICIT_COMMIT, only
 * ivring__commit() consumes.
 * A CPU that had no event is looked at again when no selected CPU has
 * one, and at least every 64 events: live, its events may come that much
 * later than the time order of a stopped segment would put them.
 */
IVRING_API int ivring__next(struct ivring *r, struct ivring_event *ev);
/* As ivring__next() for one CPU only. */
IVRING_API int ivring__next_cpu(struct ivring *r, unsigned int cpu,
				struct ivring_event *ev);
/* Select the CPUs that ivring__next() merges; all are selected at open. */
IVRING_API int ivring__select_cpu(struct ivring *r, unsigned int cpu, bool on);
/* Store the consumer positions now (done by close and by next). */
IVRING_API int ivring__flush(struct ivring *r);
/*
 * Consume every event returned so far, by ivring__next(), ivring__next_cpu()
 * or ivring__read_page(): the guest may reuse their space, and a reader that
 * opens the segment next starts after them.  The only way to consume with
 * IVRING_OPEN_EXPLICIT_COMMIT; a no-op for a snapshot (peek) handle.
 */
IVRING_API int ivring__commit(struct ivring *r);
/*
 * Wait up to @timeout_ms (-1: no limit, 0: do not wait) until an event is
 * ready on a selected CPU, polling with a back-off from 50 us to 10 ms: a
 * vCPU may be descheduled in the middle of a write, so the guest's
 * positions are never spun on.  Returns 1 when an event is ready, 0 on
 * timeout, -EINTR when a signal interrupted the wait, or the errors of
 * ivring__next() (-ESTALE, -EPIPE, -EFBIG, ...).
 */
IVRING_API int ivring__poll(struct ivring *r, int timeout_ms);

/*
 * Whole pages for a recorder, which copies and decodes nothing: the records
 * of one sub-buffer, verified (a torn or overwritten copy is never
 * returned) and in ftrace's page format, ready to be written to a trace.dat
 * flyrecord section as they are.
 */
enum {
	/*
	 * Also return the sub-buffer that the writer is still filling, up to
	 * what it has published; its later records come in a later page.
	 * Without it, that sub-buffer is returned only once it is complete,
	 * or once the writer has stopped.
	 */
	IVRING_PAGE_PARTIAL = 1U << 0,
};

struct ivring_page {
	size_t sz;		/* sizeof(struct ivring_page) */
	uint64_t seq;		/* the sub-buffer's sequence number on its CPU */
	uint64_t first_ticket;	/* ticket of the page's first event */
	uint64_t lost;		/* events lost on this CPU just before it */
	uint64_t first_ts;	/* guest clock, ns: the first event */
	uint64_t last_ts;	/* the last event */
	uint32_t events;	/* events in the page */
	uint32_t len;		/* bytes of records after the page header */
	uint32_t size;		/* bytes at data: the segment's subbuf_size */
	bool whole;		/* the sub-buffer's records from its start to its end */
	/*
	 * A struct ivring_subbuf_hdr, then len bytes of records, then zeros.
	 * The header's time_stamp is the time the first record is relative
	 * to; commit is len, with IVRING_COMMIT_MISSED_EVENTS when events
	 * were lost just before, and then, if there was room, the count in
	 * the 8 bytes after the records and IVRING_COMMIT_MISSED_STORED, as
	 * the kernel's ring_buffer_read_page() marks them.  Valid until the
	 * next call on r.
	 */
	const void *data;
};

/*
 * The next page of @cpu.  Returns 1 with *pg filled, 0 when none is ready,
 * or the errors of ivring__next().  Its events count as returned: in
 * consume mode they are consumed as ivring__next()'s are.
 */
IVRING_API int ivring__read_page(struct ivring *r, unsigned int cpu,
				 struct ivring_page *pg, unsigned int flags);

/*
 * Set sz to sizeof(struct ivring_cpu_stats) before the call.  Fields are
 * only ever added at the end: the call fills as many bytes as both sides
 * know and leaves that count in sz.
 */
struct ivring_cpu_stats {
	size_t sz;
	/* as the guest published them: tracefs per_cpu/cpuN/stats */
	uint64_t entries;	/* events committed since the segment was formatted */
	uint64_t overrun;
	uint64_t dropped;	/* tracefs "dropped events" */
	uint64_t rejected;	/* too large for a sub-buffer */
	uint64_t bytes;
	uint64_t last_ts;	/* "now ts" */
	uint64_t oldest_ts;	/* time stamp of the oldest readable sub-buffer */
	uint64_t unread;	/* events published but not yet read by r */
	/* this reader's own counts */
	uint64_t read;		/* events returned */
	uint64_t lost;		/* events known lost, reported or pending */
	/*
	 * Sub-buffers skipped: bad ones damaged, as no honest writer leaves
	 * one; torn ones reused by the writer while r read them, because it
	 * had lapped r (overwrite mode, or a snapshot of a discard ring).
	 */
	uint64_t bad_pages;
	uint64_t torn_pages;
	/*
	 * Since 1.6: of lost, the drops after the newest page began, which
	 * no event carries yet.  Once the writer has stopped none will: a
	 * reader that ends then says them itself (ivring-read does).
	 */
	uint64_t lost_unreported;
	/*
	 * Since 1.8: events that the guest's filters or pid lists kept out
	 * (ABI 1.2 segments; 0 before): neither entries nor lost.
	 */
	uint64_t filtered;
};
IVRING_API int ivring__cpu_stats(struct ivring *r, unsigned int cpu,
				 struct ivring_cpu_stats *st);

/*
 * Decoding, through libtraceevent and the formats found in the segment.
 *
 * Opening a segment, or following it to a new generation, copies its format
 * texts and checks each one against a strict grammar of the ftrace "format"
 * file; the texts that pass are listed (ivring__format()), the others are
 * skipped and their events render as unknown.  libtraceevent parses the
 * listed texts at the first call below that needs them, never in
 * ivring__next(): a reader that never decodes never parses.
 *
 * The guest may append formats while it runs (an event enabled after the
 * reader attached).  ivring__event() and ivring__snprint() look for them
 * when they meet a type that has no format, ivring__match_events() at
 * every call; ivring__format_stats() counts the looks that found records.
 * What they find is checked as above and added: the tep_handle, every
 * tep_event and every string returned before stay valid and unchanged
 * until close or a generation change, and ivring__format()'s indexes
 * keep their texts (new ones come after them).  A caller that keeps a
 * table of ids, such as a filter built with ivring__match_events(), builds
 * it again when ivring_format_stats.listed grows.
 */
/* The parsed formats; NULL when there was no memory to parse them. */
IVRING_API struct tep_handle *ivring__tep(struct ivring *r);
/*
 * The event with this common_type, or NULL; looks for formats appended
 * since, when there is none.
 */
IVRING_API struct tep_event *ivring__event(struct ivring *r, uint16_t type);
/*
 * Since 1.5, the same with the failure told apart: 0 with *@tep (*@ev)
 * set, -ENOMEM when there was no memory to parse the formats, and for an
 * event -ENOENT when no format of this generation has that id (its
 * events render as unknown), or -EFBIG when the look for appended formats
 * found the handle's file truncated.  ivring__errmsg() says why.
 */
IVRING_API int ivring__get_tep(struct ivring *r, struct tep_handle **tep);
IVRING_API int ivring__find_event(struct ivring *r, uint16_t type,
				  struct tep_event **ev);
/*
 * Event ids matching "sys:name", "sys:*", "name" or "*", formats appended
 * since included; returns the count, or -ENOMEM when there was no memory
 * to parse the formats.
 */
IVRING_API int ivring__match_events(struct ivring *r, const char *pattern,
				    uint16_t *ids, size_t max);

/* ivring_format_info.flags, known once the listed texts are parsed */
enum {
	/* libtraceevent parsed it: events of this id decode */
	IVRING_FORMAT_PARSED = 1U << 0,
	/*
	 * ...printed raw (field=value): its print fmt is not provably safe.
	 * Its tep_event carries TEP_EVENT_FL_PRINTRAW and TEP_EVENT_FL_FAILED,
	 * which makes libtraceevent print its fields alone.
	 */
	IVRING_FORMAT_RAW = 1U << 1,
	/* libtraceevent, or the checks after it, refused it: unknown type */
	IVRING_FORMAT_REFUSED = 1U << 2,
};

struct ivring_format_info {
	size_t sz;		/* sizeof(struct ivring_format_info) */
	uint16_t id;		/* the events' common_type */
	const char *system;	/* NUL-terminated; valid until close or a generation change */
	const char *text;	/* the ftrace format text, NUL-terminated */
	uint32_t text_len;
	uint32_t flags;		/* IVRING_FORMAT_* */
};

/*
 * The @idx-th format text of this generation that passed the checks, for a
 * recorder that writes them out (trace.dat, CTF metadata).  Returns 0, or
 * -ENOENT past the last one.  Fills at most @fi->sz bytes of @fi.
 */
IVRING_API int ivring__format(struct ivring *r, unsigned int idx,
			      struct ivring_format_info *fi);

struct ivring_format_stats {
	size_t sz;		/* sizeof(struct ivring_format_stats) */
	uint32_t records;	/* format records the guest published, as last seen */
	uint32_t listed;	/* texts ivring__format() lists */
	uint32_t skipped;	/* records not listed, or refused when parsed */
	uint32_t raw;		/* parsed, printed raw */
	bool parsed;		/* the listed texts are parsed: skipped and raw are final */
	int32_t first_id;	/* id of the first record skipped, -1: none or unknown */
	/*
	 * Why it was skipped ("names a field it does not declare (REC->x)"),
	 * NULL when none was; valid until close or a generation change.
	 */
	const char *first_reason;
	/*
	 * Since 1.4: looks that found records appended after the reader
	 * attached (one per batch, not per record).
	 */
	uint32_t refreshes;
};
/* Counts of this generation's format records.  Fills at most @st->sz bytes. */
IVRING_API int ivring__format_stats(struct ivring *r,
				    struct ivring_format_stats *st);

/*
 * Render one event as trace-cmd report does:
 *   "comm-pid [cpu] seconds.usecs: name: fields"
 * Returns the length that the full line needs (as snprintf), or -errno.
 */
IVRING_API int ivring__snprint(struct ivring *r, const struct ivring_event *ev,
			       char *buf, size_t len);

/*
 * Hand-over between two consumers of one guest's events that do not share
 * the segment's file, as across a live migration: the source host's reader
 * saves where it stopped, the destination's starts from there.  Together
 * they deliver each event once (kmod/RING-DESIGN, section 9).
 *
 * ivring__checkpoint_save() writes, to @path (atomically: a temporary file
 * renamed), the consumer position and ticket of every CPU as they were
 * last consumed (ivring__commit(), or each event with implicit commits),
 * with the generation and layout they belong to.  Errors: -EINVAL (a
 * snapshot handle consumes nothing), -ESTALE (between generations), the
 * errors of writing the file.
 *
 * ivring__checkpoint_load() moves a consuming or snapshot handle that has
 * returned nothing yet to the checkpoint's positions, and a consuming one
 * stores them for the guest.  Errors: -ENOENT, -EINVAL (not a checkpoint,
 * or one of another layout), -ESTALE (of another generation: the guest
 * re-formatted the segment since, so the handle stays at the new one's
 * start, which nobody has read), -ERANGE (positions beyond what this
 * segment holds: not a copy of the one the checkpoint was saved from),
 * -EBUSY (events were returned already).  A position whose events the
 * writer has overwritten since counts them lost, as any resume does.
 */
IVRING_API int ivring__checkpoint_save(struct ivring *r, const char *path);
IVRING_API int ivring__checkpoint_load(struct ivring *r, const char *path);

/*
 * Host time for guest events, through the segment alone (since 1.3; the
 * guest's writer must answer, IVRING_F_CLOCK_SYNC: ivring.ko 1.3 and
 * later).
 *
 * ivring__clock_sync() asks the guest for its clock in a burst of
 * requests and keeps the sample with the shortest round trip: the guest's
 * time stamp then was the host's CLOCK_MONOTONIC within half that round
 * trip.  It waits up to @timeout_ms for the guest's first answer (its
 * module looks for requests every 50 ms while a reader asks, once a
 * second before), then spins for
 * microseconds per request.  Call it periodically (every second, say) so
 * that drift is followed.  Returns 1 with a sample, 0 when the guest did
 * not answer in time, gave an answer that its earlier ones refute, or
 * answered too slowly for the sample to be worth keeping (a busy guest,
 * a vCPU that did not run) while a recent sample bounds its time better
 * (since 1.6: far from the samples, before the drift is measured above
 * all, a slow sample may be the better bound), or
 * -EPERM (a snapshot handle writes nothing to the segment), -EOPNOTSUPP
 * (the writer does not answer), -EPIPE (the writer is not running), and
 * the errors of ivring__next().  Consuming handles only, then: one per
 * segment asks.
 *
 * A burst that got no answer leaves its last request posted, and the
 * guest answers it at its next look.  With @timeout_ms 0 (since 1.6) the
 * call never waits for a guest that has not answered: it posts a request
 * if none is left posted and returns 0, and once the guest has answered
 * one it makes a burst, which waits 200 ms at most for a guest that then
 * looks every 50 ms.  One thread can so ask many guests, some of them
 * paused or silent, without waiting on any.
 *
 * ivring__clock_host() gives the host time of guest time @guest_ns,
 * interpolated between samples (extrapolated with the measured drift
 * outside them), and in *bound_ns (if not NULL) how far off it may be.
 * -ENODATA before the first sample of this generation: a new generation
 * starts a new series, since it may be a new boot of the guest.  After a
 * live migration the destination's reader takes its own samples: a series
 * never mixes two hosts' clocks.
 */
enum {
	IVRING_HOST_MONOTONIC = 1,	/* the host's CLOCK_MONOTONIC, ns */
	IVRING_HOST_REALTIME = 2,	/* the host's CLOCK_REALTIME, ns */
};

struct ivring_clock_info {
	size_t sz;
	uint64_t samples;	/* kept, of this generation */
	uint64_t bursts;	/* ivring__clock_sync() calls */
	uint64_t timeouts;	/* bursts the guest did not answer */
	uint64_t refused;	/* bursts whose answer its earlier ones refute */
	uint64_t poor;		/* bursts not kept: their best round trip was
				   slow, and a better sample is recent */
	int64_t offset_ns;	/* host - guest, at the last sample */
	double drift_ppm;	/* of the offset, first to last sample */
	uint64_t best_bound_ns;	/* half the shortest round trip */
	uint64_t last_bound_ns;	/* the last sample's */
	uint64_t last_host_ns;	/* when the last sample was taken */
};

IVRING_API int ivring__clock_sync(struct ivring *r, int timeout_ms);
IVRING_API int ivring__clock_host(struct ivring *r, uint64_t guest_ns,
				  unsigned int clock, uint64_t *host_ns,
				  uint64_t *bound_ns);
IVRING_API int ivring__clock_info(struct ivring *r,
				  struct ivring_clock_info *ci);

/*
 * Recording: the pages of ivring__read_page(), written as they are into a
 * file that the usual tools open, with nothing decoded on the way
 * (record.c, and one file per format).
 *
 * A recording takes what it needs from @r inside ivring__rec_open(): the
 * format texts, the clock and the layout of this generation.  Its pages
 * must come from that generation; at a new one (-ESTALE), close it and
 * open another file.  Formats that the guest appends later join the
 * recording as ivring__rec_read() meets them, or at ivring__rec_formats().
 * A recording is not thread-safe.
 */
struct ivring_rec;

enum {
	/* trace-cmd's trace.dat: trace-cmd report, KernelShark, Trace Compass (v6) */
	IVRING_REC_TRACE_DAT = 1,
	/* a CTF 1.8 directory: babeltrace2, Trace Compass */
	IVRING_REC_CTF = 2,
	/*
	 * Since 1.9: a CTF 1.8 trace streamed live to LTTng's relay daemon
	 * (lttng-relayd 2.11 or later), whose URL is the path:
	 * net://HOST[:CONTROL_PORT[:DATA_PORT]], or net6://.  One session,
	 * named as the recording (ivring_rec_opts.name), under @hostname;
	 * ivring__rec_flush() returns 0 once the daemon has written every
	 * page passed before it, but those sent to a session that broke
	 * before it said so, which are not sent again (babeltrace2 reports
	 * those it did not write as discarded packets).  If the connection
	 * is lost, flush and
	 * ivring__rec_beacon() return -ENOTCONN and keep what was not sent:
	 * each later call connects again (a new session that goes on with
	 * the trace), no more often than a back-off of 0.1 s doubling to
	 * 5 s allows, and returns 0 once it did; a snapshot fails instead
	 * (IVRING_REC_SNAPSHOT).  The daemon has no
	 * authentication and no encryption: cross an untrusted network
	 * through a tunnel.
	 */
	IVRING_REC_CTF_RELAYD = 3,
};

/* ivring_rec_opts.flags */
enum {
	/*
	 * A snapshot: at most as many pages of a CPU as the segment has
	 * sub-buffers (about what it holds; with a live writer a sub-buffer
	 * read in parts is a page per part); a page beyond that is refused
	 * with -ENOBUFS and stays in the segment.  A trace.dat v7 is then
	 * written in place, each page once, with no per-CPU files, and is a
	 * whole trace.dat after every flush.
	 */
	IVRING_REC_SNAPSHOT = 1 << 0,
	/*
	 * Since 1.6: a CTF trace may go into an existing directory that
	 * another user owns or that others may write to.  Without it such a
	 * directory is refused (-EPERM), since its owner could change the
	 * trace, or plant files in it, while the recorder writes.
	 */
	IVRING_REC_ANY_DIR = 1 << 1,
};

/* ivring_rec_opts.compression, since 1.8 */
enum {
	IVRING_REC_NO_COMPRESSION = 0,
	/*
	 * A trace.dat v7 compressed with zstd as trace-cmd record
	 * --compression zstd writes it: its metadata sections and its CPU
	 * data in blocks of up to 16 pages, which trace-cmd 3.1.6 and
	 * KernelShark read.  A spool (@path.cpuN) is then a .zst file of
	 * the CPU's pages: zstd -d gives what trace-cmd restore takes.  A
	 * snapshot in place moves each CPU's data down to the one before it
	 * at the end, so that the file is about as small as its data.  Not
	 * for version 6 or CTF, which have no compression (-EINVAL).
	 */
	IVRING_REC_ZSTD = 1,
};

struct ivring_rec_opts {
	size_t sz;		/* sizeof(struct ivring_rec_opts) */
	unsigned int format;	/* IVRING_REC_* */
	unsigned int version;	/* trace.dat file version, 6 or 7; 0: 7 */
	uint64_t trace_id;	/* trace.dat TRACEID, CTF trace uuid seed; 0: random */
	const char *name;	/* the guest's name; NULL: the segment file's name */
	unsigned int flags;	/* IVRING_REC_SNAPSHOT, IVRING_REC_ANY_DIR */
	/* Since 1.5: if set, receives the reason of a failed ivring__rec_open() */
	char *errbuf;
	size_t errbuf_len;
	/*
	 * Since 1.7: the TRACEID of the host's recording, which the guest's
	 * TIME_SHIFT names, so that trace-cmd links the guest's file to the
	 * host's (ivring__rec_open_source()); 0: none.
	 */
	uint64_t peer_trace_id;
	/* Since 1.8: IVRING_REC_NO_COMPRESSION or IVRING_REC_ZSTD */
	unsigned int compression;
	/*
	 * Since 1.9, IVRING_REC_CTF_RELAYD: the host the relay daemon files
	 * the session under (NULL: this host's name), and how long a reply
	 * may take, in ms (0: 10 s).
	 */
	const char *hostname;
	unsigned int timeout_ms;
};

/*
 * Start a recording into @path: a file for trace.dat, a directory for CTF.
 * A trace.dat is written beside it in per-CPU files (@path.cpuN) and put
 * together at ivring__rec_close(), as trace-cmd record does; a snapshot in
 * version 7 goes to @path.tmp in place instead.  Either is renamed to @path
 * at the end.  A CTF directory's stream files grow in place.  The
 * directory that holds @path is opened once, and every file is made in it
 * without following a symlink: a new one with O_EXCL, and one that is
 * replaced (@path, @path.head, a CTF metadata file) is written under a
 * random name and renamed over it.  Errors: -EINVAL (bad options), -EEXIST
 * (a CTF directory that is not empty, or files that a recording that did
 * not finish left), -EPERM (a CTF directory of another user's, or one that
 * others may write to; see IVRING_REC_ANY_DIR), -ENOTDIR (a CTF path that
 * is a symlink), the errors of creating the files, -ENOMEM.  The reason
 * goes into opts->errbuf (since 1.5), and into @r's ivring__errmsg(), as it
 * did before.
 */
IVRING_API int ivring__rec_open(struct ivring *r, const char *path,
				const struct ivring_rec_opts *opts,
				struct ivring_rec **out);
/*
 * Append a page of @cpu.  The page is copied: @pg->data may be reused as
 * soon as this returns.  Pages are written out in batches; once
 * ivring__rec_flush() returns 0, every page passed before it is in the
 * recording's files (not necessarily synced), so that a reader with
 * IVRING_OPEN_EXPLICIT_COMMIT may commit them.  On a filesystem that may
 * report a write's failure only at fsync or close (NFS, SMB, FUSE, 9p,
 * Ceph: ivring__fd_defers_errors()), they are synced too (since 1.6).
 */
IVRING_API int ivring__rec_page(struct ivring_rec *w, unsigned int cpu,
				const struct ivring_page *pg);
/*
 * ivring__read_page() and ivring__rec_page() in one, with one copy of the
 * page less: the page is read from @r straight to where the recording
 * keeps it.  @r must be the reader the recording was opened on, still at
 * that generation (-ESTALE otherwise).  Returns 1 with *pg filled (its data
 * is the recording's: read it before the next call), 0 when no page is
 * ready, or the errors of either; ivring__rec_errmsg(w) says why in each
 * case.
 */
IVRING_API int ivring__rec_read(struct ivring_rec *w, struct ivring *r,
				unsigned int cpu, unsigned int flags,
				struct ivring_page *pg);
/*
 * Since 1.4: take the formats that the guest appended to @r's segment
 * since ivring__rec_open() or the last call, as ivring__rec_read() does
 * before and after each page.  A caller that reads pages itself and
 * passes them to ivring__rec_page() calls it after reading each batch,
 * before passing it: a trace.dat gets the new formats at its next flush
 * (or at close), a CTF trace at once (its metadata is replaced whole).  A
 * CTF event recorded before its format joined stays "ivring:unknown", its
 * type and payload bytes kept.  Returns 0, -ESTALE (@r is at another
 * generation), or the errors of writing the metadata, -ENOMEM.
 */
IVRING_API int ivring__rec_formats(struct ivring_rec *w, struct ivring *r);
/*
 * Since 1.6: @lost events of @cpu that the guest dropped after the last
 * page passed to @w, which no page will tell of: at a recording's end,
 * the lost_unreported of ivring__cpu_stats() once the writer stopped.  A
 * CTF trace carries them, in an empty packet at the end of @cpu's stream
 * that babeltrace2 reports as discarded events; a trace.dat cannot, since
 * trace-cmd tells of a loss only with the first event after it.  Returns
 * 1 when the file carries them (ivring__rec_stats() then counts them), 0
 * when its format cannot, or -errno.
 */
IVRING_API int ivring__rec_lost(struct ivring_rec *w, unsigned int cpu,
				uint64_t lost);
IVRING_API int ivring__rec_flush(struct ivring_rec *w);
/*
 * Since 1.9: tell a relay daemon's live viewers that the streams that
 * sent nothing since the last call are idle up to the newest time of any,
 * so that they show the others' events without waiting for them; call it
 * every 200 ms to a second, after a flush.  0 (and nothing for a recording to
 * files), or -errno.
 */
IVRING_API int ivring__rec_beacon(struct ivring_rec *w);
/*
 * Complete the file(s) and free @w.  Returns 0, or -errno with the reason
 * in @errbuf; the per-CPU files of a trace.dat that could not be put
 * together (a snapshot's @path.tmp, whole as of the last flush) are left in
 * place then.
 */
IVRING_API int ivring__rec_close(struct ivring_rec *w, char *errbuf,
				 size_t errbuf_len);
/* Why the last call on @w failed. */
IVRING_API const char *ivring__rec_errmsg(const struct ivring_rec *w);
/*
 * Since 1.6: 1 if @fd's filesystem may report a write's failure only at
 * fsync or close (NFS, SMB, FUSE, 9p, Ceph, AFS, Coda), 0 if it reports
 * it at write, or -errno.  A writer there syncs before it consumes what
 * it wrote, as the recorder does; ivring-read's text output does too.
 */
IVRING_API int ivring__fd_defers_errors(int fd);

struct ivring_rec_stats {
	size_t sz;		/* sizeof(struct ivring_rec_stats) */
	uint64_t pages;
	uint64_t events;
	uint64_t lost;		/* marked in the pages written, or given to
				 * ivring__rec_lost() that the file carries */
	uint64_t bytes;		/* written so far, over all files */
};
/* Totals over every CPU; fills at most @st->sz bytes. */
IVRING_API int ivring__rec_stats(const struct ivring_rec *w,
				 struct ivring_rec_stats *st);

/*
 * Since 1.7: a recording of pages that come from an ftrace ring buffer
 * other than a segment's, such as the host kernel's own (trace_pipe_raw of
 * a tracefs instance), through the same trace.dat and CTF writers: the host's side
 * of its guests' recordings.  The caller reads the pages, checks each with
 * ivring__page_parse() and passes it to ivring__rec_page(); the rest of
 * the recording's calls work as for a segment's, but for those that take a
 * reader (ivring__rec_read(), ivring__rec_formats(), ivring__rec_clock()),
 * which fail with -EINVAL.
 */
struct ivring_rec_format {
	const char *system;	/* "sched" */
	const char *text;	/* the event's format file, as tracefs gives it */
	size_t len;
};

struct ivring_rec_source {
	size_t sz;		/* sizeof(struct ivring_rec_source) */
	const char *name;	/* the file's UNAME, unless opts->name */
	const char *clock;	/* the ring buffer's trace clock: "mono" */
	unsigned int nr_cpus;
	unsigned int page_size;	/* bytes of a ring buffer page: 4096 */
	/* events/header_page and events/header_event, as tracefs gives them */
	const char *header_page;
	const char *header_event;
	/* @nr_formats of @format_sz bytes: sizeof(struct ivring_rec_format) */
	const struct ivring_rec_format *formats;
	unsigned int nr_formats;
	size_t format_sz;
};

/*
 * Start a recording of @src's pages into the trace.dat @path, spooled as
 * ivring__rec_open() spools one (IVRING_REC_SNAPSHOT is refused: -EINVAL),
 * or into the CTF directory @path (IVRING_REC_CTF), whose clock is the
 * host's CLOCK_MONOTONIC, absolute in CLOCK_REALTIME as a guest's CTF
 * trace with host times is, so that babeltrace2 merges the two: @src's
 * clock must be "mono" then.  Since 1.10, IVRING_REC_CTF_RELAYD too: the
 * same CTF trace streamed to the relay daemon at the URL @path, as a
 * session named opts->name (or @src->name), that returns -ENOTCONN as a
 * guest's does while the daemon is out of reach.  The guests of ivring__rec_guest() go into a
 * trace.dat only.  The texts are copied.  A format whose ID line is
 * missing is refused (-EINVAL); one that libtraceevent cannot parse goes
 * into the file all the same, and only its comms are not learned.  Errors
 * and their reasons as ivring__rec_open()'s, in opts->errbuf.
 */
IVRING_API int ivring__rec_open_source(const struct ivring_rec_source *src,
				       const char *path,
				       const struct ivring_rec_opts *opts,
				       struct ivring_rec **out);

/*
 * Check a page of an ftrace ring buffer, @size bytes at @data as
 * trace_pipe_raw gives them, and describe it in @pg (sz set by the caller)
 * for ivring__rec_page(): its length, events, first and last time, and
 * the events lost before it.  Returns 0, or 1 when the kernel marks events
 * lost before the page but had no room to store how many (pg->lost is then
 * 0), or -EINVAL (a page of another size than its header says) or
 * -EBADMSG (a record that does not fit the page).
 */
IVRING_API int ivring__page_parse(const void *data, size_t size,
				  struct ivring_page *pg);

/*
 * A guest that ran on this host while the recording @w of the host's own
 * ring buffer went: trace-cmd's GUEST option, with the name and TRACEID of
 * the guest's recording and the host thread id of each of its vCPUs
 * (@tids[vcpu], @nr_vcpus of them, 0 when unknown).  A guest whose trace id
 * was given before is replaced.  A CTF recording takes it and writes
 * nothing of it: CTF has no such link.  Only for a recording of
 * ivring__rec_open_source(): -EINVAL otherwise; -ENOMEM.
 */
IVRING_API int ivring__rec_guest(struct ivring_rec *w, const char *name,
				 uint64_t trace_id, unsigned int nr_vcpus,
				 const int *tids);

/*
 * Host time in a recording (since 1.3): @r's clock samples
 * (ivring__clock_sync()) go into a trace.dat as trace-cmd's TIME_SHIFT
 * option, so that trace-cmd report prints the host's CLOCK_MONOTONIC and
 * merges the file with a host trace recorded with "trace-cmd record -C
 * mono" (trace-cmd report -i host.dat -i guest.dat).  Call it before each
 * ivring__rec_flush(): the file's metadata then carries the samples as they
 * are (at most 512, spread over the recording).  Returns the samples
 * taken, 0 when @r has none of the recording's generation.
 *
 * A CTF trace's clock becomes the host's CLOCK_REALTIME instead, absolute,
 * at the first call that finds a sample (the metadata file is replaced
 * whole): babeltrace2 then merges it with other guests' traces and with
 * the host's.  CTF has one offset per clock, the newest sample's at that
 * call; since 1.7 the events recorded after it carry their own mapping on
 * top (their packets are written with each event's host time, its drift
 * applied, as ivring__clock_host() gives it from the samples of the last
 * call), and those recorded before it the guest's times, which the offset
 * maps as trace-cmd maps events before a first sample.  So call it once
 * the reader has samples, before the first page, and before each
 * ivring__rec_flush().  Returns 1 once it is set, 0 before.
 */
IVRING_API int ivring__rec_clock(struct ivring_rec *w, struct ivring *r);

#ifdef __cplusplus
}
#endif

#endif /* LIBIVRING_H */
