// SPDX-License-Identifier: GPL-2.0 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * The driver of ivring-read: one segment, whatever its output (seg.h).
 *
 * A segment is read one bounded batch at a time (the output's batch():
 * at most a few thousand events, or 64 pages per CPU), and each batch is
 * written out before it is consumed.  Between batches the driver follows
 * what the library says of the segment: a new generation (-ESTALE: the
 * guest re-formatted it; the output ends the old one's and starts the
 * new one's), a writer that stopped (-EPIPE), a segment that broke.
 *
 * One segment (seg_follow()) runs in the calling thread and waits in it:
 * for the guest, with ivring__poll() between batches, with host-time
 * bursts inline.  Many segments (read_many.c) take the same steps from
 * reader threads that never wait: seg_open(), seg_serve(), and the bursts
 * in clock threads (seg_clock()).
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "libivring.h"
#include "follow.h"
#include "handover.h"
#include "read_clock.h"
#include "read_common.h"
#include "seg_open.h"
#include "tool_msg.h"
#include "tool_time.h"

/* How often one of many asks its guest for its clock. */
#define CLOCK_EVERY_NS	1000000000ULL
/*
 * A guest that has not answered is looked at after CLOCK_LOOK_NS, then
 * twice as long after each look that finds no answer, up to
 * CLOCK_LOOK_MAX_NS: a look costs a load (ivring__clock_sync() with no
 * timeout), so that paused or hostile guests hold no clock thread, and a
 * guest that comes back is found within seconds.  The guest's module
 * looks every 50 ms for 10 s after it answered: a look within 8 s finds
 * it still looking often, and the burst then made waits little.
 */
#define CLOCK_LOOK_NS		100000000ULL
#define CLOCK_LOOK_MAX_NS	8000000000ULL

void seg_init(struct seg *s, const struct seg_conf *c, const char *path,
	      const char *name)
{
	const char *slash = strrchr(path, '/');

	memset(s, 0, sizeof(*s));
	s->c = c;
	s->path = path;
	s->name = name ? name : slash ? slash + 1 : path;
	s->clk.clock = c->clock;
	/* One segment asks in its own thread (read_clock_tick()). */
	s->clk.sync = !c->one_of_many && (c->clock || c->stats_clock);
}

static int fail(struct seg *s, int code)
{
	s->err = code;
	s->failed = true;
	return SEG_FAIL;
}

/* A generation to read: its first clock samples, its formats, its output. */
static int start(struct seg *s)
{
	struct ivring_info info = { .sz = sizeof(info) };
	int err;

	ivring__info(s->r, &info);
	s->gen = info.generation;
	s->wake_ns = 0;
	if (s->c->one_of_many) {
		/* A clock thread asks the guest (seg_clock()): none waits. */
		s->clock_ok = false;
		s->clock_ns = 0;
	} else {
		err = read_clock_start(s->r, &s->clk, s->c->peek);
		if (err)
			return err;
	}
	warn_skipped_formats(s->r, s->path);
	err = s->c->ops->start(s);
	/* Only one of many waits for an output that could not begin. */
	if (err < 0 && !s->c->one_of_many) {
		seg_say_why(s, ivring__errmsg(s->r));
		err = exit_code(err);
	}
	s->start_err = err < 0 ? err : 0;
	s->started = !err;
	return err;
}

/* The generation's output complete; 0 or its exit code. */
static int end(struct seg *s)
{
	if (!s->started)
		return 0;
	s->started = false;
	return s->c->ops->end(s);
}

/*
 * The handle has moved to the guest's new generation: the old one's
 * output is completed, the new one's begins, and that is said: for one
 * of many naming it; for one, where its output goes now.
 */
static int renew(struct seg *s)
{
	const struct seg_ops *ops = s->c->ops;
	struct ivring_info info = { .sz = sizeof(info) };
	int err;

	err = end(s);
	if (err)
		return err;
	s->part++;
	s->told_stopped = false;
	ivring__info(s->r, &info);
	if (s->c->one_of_many)
		tool_warn("%s: the guest re-formatted the segment; following the new generation",
			  s->name);
	else if (!ops->where)
		tool_warn("segment re-formatted (generation %" PRIu64 " -> %" PRIu64 "), following the new generation",
			  s->gen, info.generation);
	err = start(s);
	if (!err && !s->c->one_of_many && ops->where)
		tool_warn("the guest re-formatted the segment; recording into %s",
			  ops->where(s));
	return err;
}

/*
 * One of many whose output could not begin for now (out of files or
 * memory, -errno @ret): the handle goes, and the segment is opened and
 * its generation started again later, once others may have let go.
 */
static int start_later(struct seg *s, int ret, bool may_wait)
{
	char why[PATH_MAX + 512];

	snprintf(why, sizeof(why), "%s", ivring__errmsg(s->r));
	s->err = 0;
	seg_release(s);
	return seg_open_failed(s, ret, may_wait, why);
}

int seg_open(struct seg *s, bool may_wait)
{
	int st = seg_try_open(s, may_wait);

	if (st != SEG_WORK)
		return st;
	s->err = start(s);
	if (s->err < 0)
		return start_later(s, s->err, may_wait);
	if (s->err)
		return fail(s, s->err);
	/* A later wait, for a new generation, starts with a short one. */
	s->retry_gap_ns = 0;
	return SEG_WORK;
}

int seg_serve(struct seg *s, bool drain)
{
	int ret, err = 0;

	/*
	 * Text of one of many waits for host times; its events wait in the
	 * segment.  One that goes away is read all the same, in the guest's
	 * times, which read_clock_event() then says.
	 */
	if (s->c->one_of_many && s->c->clock &&
	    (s->c->ops->wait_clock || s->c->wait_clock) &&
	    !s->clock_ok && !drain) {
		s->idle = 0;
		return SEG_IDLE;
	}
	ret = s->c->ops->batch(s, drain, &err);
	if (ret > 0) {
		s->told_stopped = false;
		return SEG_WORK;
	}
	if (ret == -ECANCELED) {
		if (err < 0)
			return SEG_QUIT;
		/* The output said why. */
		if (s->c->one_of_many)
			tool_warn("%s: skipping this guest", s->path);
		return fail(s, err);
	}
	if (ret == -ESTALE) {
		err = renew(s);
		if (err < 0)
			return start_later(s, err, s->c->follow && !drain);
		return err ? fail(s, err) : SEG_RENEWED;
	}
	if (ret == 0 || ret == -EPIPE) {
		s->idle = ret;
		return SEG_IDLE;
	}
	seg_say_why(s, ivring__errmsg(s->r));
	return fail(s, exit_code(ret));
}

int seg_clock(struct seg *s)
{
	const struct seg_ops *ops = s->c->ops;
	uint64_t now = now_ns();
	int ret;

	if (now < s->clock_ns)
		return SEG_IDLE;
	/*
	 * A guest that answered the last burst (a sample of this generation
	 * exists, and no gap since) looks often: a burst waits for it
	 * (150 ms at most).  Any other is only asked, or looked at, and
	 * waited for only once it has answered.
	 */
	ret = s->clock_ok && !s->clock_gap ? read_clock_burst(s->r, false) :
					     ivring__clock_sync(s->r, 0);
	if (ret > 0) {
		if (s->clock_told)
			tool_warn("%s: the guest answers clock requests again",
				  s->path);
		s->clock_ok = true;
		s->clock_told = false;
		s->clock_gap = 0;
		s->clock_ns = now + CLOCK_EVERY_NS;
		return SEG_IDLE;
	}
	s->clock_gap = !s->clock_gap ? CLOCK_LOOK_NS :
		       s->clock_gap < CLOCK_LOOK_MAX_NS / 2 ?
		       2 * s->clock_gap : CLOCK_LOOK_MAX_NS;
	s->clock_ns = now + s->clock_gap;
	/* The writer stopped: until a new generation, nothing to ask. */
	if (ret == -EPIPE)
		return SEG_IDLE;
	/* Not answered yet: said once its looks are 1.6 s apart (1.5 s on). */
	if (!ret && s->clock_gap < 16 * CLOCK_LOOK_NS)
		return SEG_IDLE;
	/* No host times ever (an older module, a dead handle): as one reader. */
	if (ret < 0 && (ops->wait_clock || s->c->wait_clock)) {
		seg_say_why(s, ivring__errmsg(s->r));
		return fail(s, exit_code(ret));
	}
	if (s->clock_told)
		return SEG_IDLE;
	s->clock_told = true;
	if (ret < 0)
		tool_warn("%s; recording the guest's times", ivring__errmsg(s->r));
	else if (!s->clock_ok)
		tool_warn("%s: the guest does not answer clock requests (paused? /sys/module/ivring/parameters/sync_poll_ms 0?)%s",
			  s->path, ops->wait_clock || s->c->wait_clock ?
			  "; its events wait for it" : "");
	return SEG_IDLE;
}

/* The output's state and the handle let go. */
void seg_release(struct seg *s)
{
	if (s->out && s->c->ops->put)
		s->c->ops->put(s);
	s->out = NULL;
	ivring__close(s->r);
	s->r = NULL;
}

int seg_finish(struct seg *s, const char *how)
{
	int err = end(s);

	fprintf(stderr, "ivring-read: %s: %s, %" PRIu64 " events read, %"
		PRIu64 " lost, %" PRIu64 " bytes\n", s->name, how, s->n.events,
		s->n.lost, s->n.bytes);
	seg_release(s);
	return err;
}

int seg_drop(struct seg *s, int code)
{
	s->failed = true;
	if (end(s) && !code)
		code = EXIT_RUNTIME;
	seg_release(s);
	return code;
}

/*
 * One segment, between two batches that found nothing: say that the
 * writer stopped, once, and wait for events, a new generation or Ctrl-C.
 * Returns a status as seg_serve()'s.
 */
static int wait_events(struct seg *s)
{
	uint64_t now;
	int ret;

	if (s->idle == -EPIPE && !s->told_stopped) {
		if (s->c->ops->hush)
			s->c->ops->hush(s);
		tool_warn("the guest's writer stopped; waiting for a new generation (Ctrl-C to quit)");
	}
	s->told_stopped = s->idle == -EPIPE;
	ret = ivring__poll(s->r, POLL_MS);
	if (ret == -EPIPE)
		sleep_ns(BACKOFF_MAX_NS);
	if (ret == -ESTALE) {
		ret = renew(s);
		return ret ? fail(s, ret) : SEG_RENEWED;
	}
	if (ret < 0 && ret != -EINTR && ret != -EPIPE) {
		tool_warn("%s", ivring__errmsg(s->r));
		return fail(s, exit_code(ret));
	}
	/* Events, but not what the output takes yet: until it wants them. */
	now = now_ns();
	if (ret == 1 && s->wake_ns > now)
		sleep_ns(s->wake_ns - now);
	return SEG_IDLE;
}

/* Read one segment until its end, Ctrl-C, or SIGUSR1 and its end. */
static int follow_loop(struct seg *s)
{
	unsigned int renewals = 0;
	bool drain;
	int st;

	while (!stop_is_requested()) {
		drain = !s->c->follow || drain_is_requested();
		st = seg_serve(s, drain);
		if (st == SEG_IDLE && !drain)
			st = wait_events(s);
		if (st == SEG_FAIL)
			return s->err;
		if (st == SEG_QUIT)
			return 0;
		read_clock_tick(s->r, &s->clk);
		if (st == SEG_WORK) {
			renewals = 0;
		} else if (st == SEG_RENEWED) {
			/*
			 * A guest that re-formats again and again, with no
			 * event in between, must not keep us busy: back off.
			 */
			if (renewals++)
				sleep_ns(BACKOFF_MAX_NS);
		} else if (drain) {
			return 0;
		}
	}
	return 0;
}

int seg_follow(struct seg *s)
{
	const struct seg_conf *c = s->c;
	int err, ret;

	err = seg_open_one(s);
	if (err || !s->r)
		return err;
	err = start(s);
	if (err) {
		seg_release(s);
		return err;
	}
	err = follow_loop(s);
	/* After a failure, what was taken out goes out, but is not consumed. */
	if (err)
		s->failed = true;
	ret = end(s);
	if (ret && !err)
		err = ret;
	err = handover_end(s->r, &c->handover, err);
	if (c->stats) {
		print_stats(s->r, c->stats_cpus);
		/* A recording's too, when its times are the host's. */
		if (c->stats_clock || c->clock)
			read_clock_stats(s->r);
	}
	if (c->ops->summary)
		c->ops->summary(s);
	seg_release(s);
	return err;
}
