/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * One segment as the reader follows it (follow.c, the driver), and what an
 * output (out_text.c, out_record.c) does with each of its generations.
 *
 * The driver opens the segment, reads it one bounded batch at a time
 * through the output's ops, follows it across generations and ends it; an
 * output only turns events or pages into its own output, and never calls
 * the driver.  Both modes of ivring-read use the same driver: for one
 * segment in the main thread (seg_follow()), and for each guest of many
 * from the reader threads of read_many.c.
 */
#ifndef IVRING_SEG_H
#define IVRING_SEG_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "handover.h"
#include "read_clock.h"

struct ivring;
struct seg;

/* What a step of the driver (follow.h) left the segment as. */
enum seg_status {
	SEG_WORK,	/* it did something: call again soon */
	SEG_RENEWED,	/* re-formatted by the guest: the new generation began */
	SEG_IDLE,	/* nothing to read now (s->idle: 0, or -EPIPE) */
	SEG_WAIT,	/* not open yet: try again at s->retry_ns */
	SEG_GONE,	/* the file at its path is another one by now */
	SEG_QUIT,	/* the output was closed (| head): stop, no error */
	SEG_FAIL,	/* unusable, having said why: s->err is the exit code */
};

/*
 * What an output does, for each generation of a segment.  start() and
 * end() return 0 or an exit code, having said why.
 */
struct seg_ops {
	/*
	 * With host times and many segments, batch() is called only once
	 * the guest answered (text prints host times); a recording takes
	 * the samples whenever they come.
	 */
	bool wait_clock;
	/*
	 * A generation to read: its output begins; s->out is the output's.
	 * For one of many, a -errno instead of an exit code is a failure that
	 * may pass (out of files or memory), not said yet: ivring__errmsg()
	 * says why, and the segment is opened again later.
	 */
	int (*start)(struct seg *s);
	/*
	 * One bounded batch, counted in s->n: the events or pages handled
	 * (> 0), or what the library returned when there were none (0,
	 * -EPIPE, -ESTALE, ...), or -ECANCELED when the output failed, with
	 * the exit code in *err, having said why (-1: the output was closed,
	 * as by | head; reading ends, with no error).  @drain: the segment
	 * ends once it is read, so take what the writer is still filling too.
	 */
	int (*batch)(struct seg *s, bool drain, int *err);
	/*
	 * The generation's output complete: what was taken out goes out, and
	 * is consumed unless s->failed.
	 */
	int (*end)(struct seg *s);
	/* The segment is done with: s->out is freed. */
	void (*put)(struct seg *s);
	/* Optional: the file that this generation goes to, for messages. */
	const char *(*where)(const struct seg *s);
	/* Optional: before the driver writes to stderr (a progress line). */
	void (*hush)(struct seg *s);
	/* Optional, one segment only: the last lines, at its end. */
	void (*summary)(struct seg *s);
};

/* What a whole run of the reader reads each of its segments with. */
struct seg_conf {
	const struct seg_ops *ops;
	void *arg;		/* the output's, for the run: seg_arg() */
	bool follow;		/* across generations, until Ctrl-C */
	bool peek;		/* consume nothing, write nothing to it */
	/*
	 * One of many segments, served by reader threads: messages name the
	 * segment, nothing waits in a reader (a clock thread asks the guest
	 * for host times: seg_clock()), and a segment that another reader
	 * consumes is waited for, as one not formatted yet is.
	 */
	bool one_of_many;
	unsigned int clock;	/* host times: IVRING_HOST_*; 0: the guest's */
	bool clock_bound;	/* --clock-bound: each event's, before its line */
	/*
	 * One of many waits for host times, as text does (ops->wait_clock):
	 * a relay daemon cannot take a trace's clock once it has its
	 * metadata.
	 */
	bool wait_clock;
	/* One segment: */
	bool stats;		/* --stats: per-CPU statistics at the end */
	bool stats_clock;	/* ... asking the guest for its clock too */
	const unsigned long *stats_cpus;	/* which CPUs; NULL: all */
	struct handover handover;
};

struct seg_counts {
	uint64_t events;	/* read out of the segment */
	uint64_t lost;
	uint64_t bytes;
	uint64_t shown;		/* written out (-e leaves some events out) */
	uint64_t committed;	/* events consumed in the segment */
};

struct seg {
	const struct seg_conf *c;
	const char *path;	/* the segment file, as named */
	const char *name;	/* its file name, in many segments' lines */
	struct ivring *r;
	void *out;		/* the output's, for this segment */
	struct read_clock clk;
	unsigned int part;	/* generations before this one */
	uint64_t gen;		/* this generation */
	struct seg_counts n;	/* every generation's, so far */
	/*
	 * The output wants a batch by then, whether events are ready or not
	 * (a recording takes part-filled pages at intervals); 0: no wish.
	 */
	uint64_t wake_ns;
	int idle;		/* what the last batch with nothing returned */
	int err;		/* SEG_FAIL: the exit code */
	bool started;		/* this generation's output began: end() owed */
	/* One of many: the -errno of an output that could not begin yet. */
	int start_err;
	bool failed;		/* broken: consume nothing more */
	/* Opening. */
	dev_t dev;		/* with ino: the file that path must still be */
	ino_t ino;
	uint64_t retry_ns;	/* when to try to open it again */
	uint64_t retry_gap_ns;	/* one of many: the back-off so far */
	/* Found in a watched directory: a symlink there is not followed. */
	bool nofollow;
	uint64_t grace_ns;	/* until then, a format is waited for */
	bool told;		/* said that it waits for the guest */
	/* Following one segment. */
	bool told_stopped;	/* said that the writer stopped */
	/* Host times of one of many, asked for by a clock thread. */
	bool clock_ok;		/* a sample of this generation exists */
	bool clock_told;	/* said that the guest does not answer */
	uint64_t clock_ns;	/* the next burst, or look */
	uint64_t clock_gap;	/* between looks at one that does not answer:
				 * 0 while it answers */
};

/* The output's state for the whole run. */
static inline void *seg_arg(const struct seg *s)
{
	return s->c->arg;
}

#endif /* IVRING_SEG_H */
