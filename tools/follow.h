/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * The driver: one segment from its opening to its end, whatever the
 * output (seg.h).  seg_follow() is the whole of it for one segment, in
 * the calling thread; the reader of many segments (read_many.c) takes the
 * steps one at a time from its threads, one bounded batch per call.
 */
#ifndef IVRING_FOLLOW_H
#define IVRING_FOLLOW_H

#include <stdbool.h>

#include "seg.h"

void seg_init(struct seg *s, const struct seg_conf *c, const char *path,
	      const char *name);

/*
 * One segment, no threads: open it (waiting for it under --follow, with
 * the hand-over of --resume), read it until its end or Ctrl-C, and end
 * it (--checkpoint, --stats, the output's summary).  Returns the exit
 * code.
 */
int seg_follow(struct seg *s);

/* The steps, for one of many segments (seg_conf.one_of_many). */
/*
 * Try to open the segment and start its output: SEG_WORK once it is
 * read, SEG_WAIT (@may_wait: one that is not there or not formatted yet,
 * or that another reader consumes, or whose output cannot begin for lack
 * of files or memory), SEG_GONE or SEG_FAIL.
 */
int seg_open(struct seg *s, bool may_wait);
/*
 * One bounded batch, and what it found: a new generation, a writer that
 * stopped.  @drain: the segment ends once it is read.  SEG_WAIT: the new
 * generation's output could not begin for now; the handle is closed, and
 * seg_open() opens it again.
 */
int seg_serve(struct seg *s, bool drain);
/*
 * Host times: a burst of clock requests, once a second.  It sleeps until
 * the guest answers, so it is for a clock thread.  SEG_IDLE or SEG_FAIL.
 */
int seg_clock(struct seg *s);
/*
 * The segment is done: its output complete (consumed unless it failed),
 * one line of what was read (@how: done, gone), the handle closed.
 * Returns 0 or the output's exit code.
 */
int seg_finish(struct seg *s, const char *how);
/* SEG_FAIL (or a failure with @code): output completed, nothing consumed. */
int seg_drop(struct seg *s, int code);
/* Free what is left of @s, when the registry frees its guest. */
void seg_release(struct seg *s);

#endif /* IVRING_FOLLOW_H */
