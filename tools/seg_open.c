// SPDX-License-Identifier: GPL-2.0 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * Opening a segment, for the driver (follow.c): the waits for a guest
 * whose segment is not there or not formatted yet, and for one segment
 * the hand-over of a live migration (--resume).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "libivring.h"
#include "handover.h"
#include "read_common.h"
#include "seg.h"
#include "seg_open.h"
#include "tool_msg.h"
#include "tool_time.h"

/*
 * How often one of many segments that cannot be opened yet is tried again:
 * at first soon, as a guest that is booting is, then less and less often,
 * since anyone who may create files in the directory can make thousands
 * that never become segments.
 */
#define RETRY_MANY_NS	200000000ULL
#define RETRY_MANY_MAX_NS 10000000000ULL
/* How long a segment that the guest is formatting is waited for, at most. */
#define FORMAT_GRACE_NS	2000000000ULL

/* Said once a guest at most, but guests may be many: a few a second. */
static struct tool_ratelimit many_said =
	TOOL_RATELIMIT("about guests waited for or skipped", 1000000000ULL, 10);

void seg_said_end(void)
{
	tool_ratelimit_end(&many_said);
}

/* Of many, @why and what comes of it (@then), naming the segment. */
static void say_of_many(const struct seg *s, const char *why,
			const char *then)
{
	if (!strncmp(why, s->path, strlen(s->path)))
		tool_warn_limited(&many_said, "%s; %s", why, then);
	else
		tool_warn_limited(&many_said, "%s: %s; %s", s->path, why, then);
}

void seg_say_why(const struct seg *s, const char *why)
{
	if (!s->c->one_of_many)
		tool_warn("%s", why);
	else
		say_of_many(s, why, "skipping this guest");
}

/*
 * Whether the file opened is the one that was found at the path: asked of
 * the open file, not of the path, which may name another by now.
 */
static bool same_file(const struct seg *s)
{
	struct ivring_info info = { .sz = sizeof(info) };

	return !ivring__info(s->r, &info) && info.file_dev == s->dev &&
	       info.file_ino == s->ino;
}

static bool worth_waiting(struct seg *s, int ret, bool may_wait,
			  const char *why)
{
	/* A guest that is formatting the segment is done within moments. */
	if (ret == -EAGAIN && now_ns() < s->grace_ns)
		return true;
	/*
	 * Out of files or memory: for one of many perhaps only until another
	 * guest lets go of its share, so not a verdict on this one.
	 */
	if (may_wait && s->c->one_of_many &&
	    (ret == -EMFILE || ret == -ENFILE || ret == -ENOMEM)) {
		say_of_many(s, why, "trying again later");
		return true;
	}
	/*
	 * QEMU makes the file before the guest loads the module: a segment
	 * that does not exist yet or that the guest has not formatted yet is
	 * one to wait for, not an error; so is, for one of many, one that
	 * another reader consumes (it may stop).
	 */
	if (!may_wait || (ret != -ENOENT && ret != -ENOTTY && ret != -EAGAIN &&
			  !(ret == -EBUSY && s->c->one_of_many)))
		return false;
	if (!s->told && s->c->one_of_many)
		say_of_many(s, why, "waiting for the guest");
	else if (!s->told)
		tool_warn("%s; waiting for the guest", why);
	s->told = true;
	return true;
}

int seg_try_open(struct seg *s, bool may_wait)
{
	char err[PATH_MAX + 512] = "";
	struct ivring_open_opts oo = {
		.sz = sizeof(oo),
		.flags = (s->c->peek ? IVRING_OPEN_PEEK :
				       IVRING_OPEN_EXPLICIT_COMMIT) |
			 (s->nofollow ? IVRING_OPEN_NOFOLLOW : 0),
		.errbuf = err,
		.errbuf_len = sizeof(err),
	};
	int ret;

	if (now_ns() < s->retry_ns)
		return SEG_WAIT;
	ret = ivring__open(s->path, &oo, &s->r);
	/*
	 * The file at the path may be another by now (QEMU restarted): that
	 * one is a guest of its own, which the next scan adds.
	 */
	if (!ret && s->ino && !same_file(s)) {
		ivring__close(s->r);
		s->r = NULL;
		return SEG_GONE;
	}
	if (!ret)
		return SEG_WORK;
	s->r = NULL;
	return seg_open_failed(s, ret, may_wait, err);
}

int seg_open_failed(struct seg *s, int ret, bool may_wait, const char *why)
{
	uint64_t now = now_ns();

	if (worth_waiting(s, ret, may_wait, why)) {
		if (!s->c->one_of_many) {
			s->retry_ns = now + BACKOFF_MAX_NS;
			return SEG_WAIT;
		}
		/* One that is formatting is looked at again soon. */
		if (ret == -EAGAIN && now < s->grace_ns)
			s->retry_gap_ns = RETRY_MANY_NS;
		else
			s->retry_gap_ns = s->retry_gap_ns ?
					  2 * s->retry_gap_ns : RETRY_MANY_NS;
		if (s->retry_gap_ns > RETRY_MANY_MAX_NS)
			s->retry_gap_ns = RETRY_MANY_MAX_NS;
		s->retry_ns = now + s->retry_gap_ns;
		return SEG_WAIT;
	}
	seg_say_why(s, why[0] ? why : strerror(-ret));
	s->err = exit_code(ret);
	return SEG_FAIL;
}

int seg_open_one(struct seg *s)
{
	const struct handover *h = &s->c->handover;
	bool stop;
	int err, st;

	if (s->c->peek && h->checkpoint) {
		tool_warn("--checkpoint: a --peek reader consumes nothing, so it has nothing to hand over");
		return EXIT_USAGE;
	}
	/*
	 * --resume with --follow: the source's reader writes the checkpoint
	 * once the migration completed; until then the destination's copy
	 * of the segment is still arriving.
	 */
	if (h->resume) {
		err = handover_wait(h->resume, s->c->follow, &stop);
		if (err || stop)
			return err;
	}
	s->grace_ns = now_ns() + FORMAT_GRACE_NS;
	for (;;) {
		st = seg_try_open(s, s->c->follow);
		if (st != SEG_WAIT)
			break;
		if (stop_is_requested()) {
			/* Ctrl-C while waiting: nothing to read, no error. */
			if (s->told)
				return 0;
			/* ... but a wait never said ends in its error. */
			s->grace_ns = 0;
			s->retry_ns = 0;
			st = seg_try_open(s, false);
			break;
		}
		sleep_ns(BACKOFF_MAX_NS);
	}
	if (st != SEG_WORK)
		return s->err;
	err = handover_start(s->r, h->resume);
	if (err) {
		ivring__close(s->r);
		s->r = NULL;
	}
	return err;
}
