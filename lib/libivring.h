/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * libivring: read the trace events that a guest's ivring.ko writes into an
 * ivshmem segment, from the host, through the POSIX shm file behind it.
 *
 * Every function that can fail returns 0 or a positive count on success and
 * a negative errno value on failure.  A handle keeps a message for its last
 * failure (ivring__errmsg()); ivring__open() writes its message into the
 * caller's buffer.  There is no global state.  A handle is not thread-safe:
 * use one per thread.
 */
#ifndef LIBIVRING_H
#define LIBIVRING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef IVRING_API
#define IVRING_API __attribute__((visibility("default")))
#endif

struct ivring;
struct tep_handle;
struct tep_event;

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
 * Errors: -ENOENT, -EACCES, -ENOTTY (not an ivring segment), -EPROTONOSUPPORT
 * (ABI major not supported), -EFBIG (truncated: the header says more bytes
 * than the file has), -EINVAL (inconsistent layout), -EAGAIN (the guest is
 * formatting it right now: try again), -ENOMEM.
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
};
IVRING_API int ivring__info(struct ivring *r, struct ivring_info *info);

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
 * everything it published has been read.
 * In consume mode the previous event returned is marked consumed in the
 * segment when this is called, so at most the event in hand is delivered
 * twice if the reader dies.
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
};
IVRING_API int ivring__cpu_stats(struct ivring *r, unsigned int cpu,
				 struct ivring_cpu_stats *st);

/* Decoding, through libtraceevent and the formats found in the segment. */
IVRING_API struct tep_handle *ivring__tep(struct ivring *r);
/* The event with this common_type, or NULL. */
IVRING_API struct tep_event *ivring__event(struct ivring *r, uint16_t type);
/* Event ids matching "sys:name", "sys:*", "name" or "*"; returns the count. */
IVRING_API int ivring__match_events(struct ivring *r, const char *pattern,
				    uint16_t *ids, size_t max);
/*
 * Render one event as trace-cmd report does:
 *   "comm-pid [cpu] seconds.usecs: name: fields"
 * Returns the length that the full line needs (as snprintf), or -errno.
 */
IVRING_API int ivring__snprint(struct ivring *r, const struct ivring_event *ev,
			       char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* LIBIVRING_H */
