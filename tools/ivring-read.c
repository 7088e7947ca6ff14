// SPDX-License-Identifier: GPL-2.0 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * ivring-read: print the trace events of an ivring segment as trace-cmd
 * report prints a trace.dat, or record them into a trace.dat or a CTF
 * trace (ivring-read record), from the host, while the guest runs or
 * after it died; of one segment, or of every guest of a host.
 *
 * What runs is always the driver (follow.c) with one output: text
 * (out_text.c) or a recording (out_record.c); for one segment in this
 * thread, for many from the reader threads of read_many.c.
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libivring.h"
#include "follow.h"
#include "out_record.h"
#include "out_text.h"
#include "read_common.h"
#include "read_many.h"
#include "read_opts.h"
#include "tool_msg.h"

/*
 * Events printed between two commits.  Every commit follows a flush, so
 * whatever stops the reader, nothing it consumed is left unwritten.
 */
#define COMMIT_EVERY	1024
/* ... per batch of one of many guests, which then lets the next one in. */
#define MANY_BATCH	2048

/* What both outputs read with; the output fills in what it needs. */
static void seg_conf_init(struct seg_conf *c, const struct read_opts *o)
{
	memset(c, 0, sizeof(*c));
	c->follow = o->follow;
	c->peek = o->peek;
	c->clock = o->clock;
	c->stats = o->stats;
	c->handover = o->handover;
	c->one_of_many = !o->path;
}

/* One segment in this thread, or many from reader threads. */
static int run(const struct read_opts *o, struct seg_conf *c,
	       struct many_opts *m)
{
	struct seg s;

	if (!o->path) {
		m->seg = c;
		return many_main(m);
	}
	seg_init(&s, c, o->path, NULL);
	return seg_follow(&s);
}

static int read_text(struct read_opts *o)
{
	struct text_conf tc = {
		.path = o->output,
		.lock = PTHREAD_MUTEX_INITIALIZER,
		/* Many guests' lines in one stream, each with its guest's. */
		.tag = !o->path,
		.batch = o->path ? COMMIT_EVERY : MANY_BATCH,
		.patterns = o->patterns,
		.nr_patterns = o->nr_patterns,
		.cpus = o->cpus,
		.max_cpu = o->max_cpu,
	};
	struct seg_conf c;
	int err;

	seg_conf_init(&c, o);
	c.ops = &text_ops;
	c.arg = &tc;
	c.stats_clock = o->stats;
	c.stats_cpus = o->cpus;
	/* One segment's stream is made once the segment is found usable. */
	if (!o->path) {
		err = text_open(&tc);
		if (err)
			return err;
	}
	return text_close(&tc, run(o, &c, &o->many));
}

static int record(struct read_opts *o)
{
	struct rec_conf rc = {
		.output = o->output,
		.ctf = o->ctf,
		.name = o->name,
		.version = o->version,
		.follow = o->follow,
		.dir = !o->path,
		.progress = o->path && !o->quiet && isatty(STDERR_FILENO),
	};
	const char *dir = o->ctf ? o->ctf : o->output;
	struct seg_conf c;

	seg_conf_init(&c, o);
	c.ops = &rec_ops;
	c.arg = &rc;
	/* Many: one recording per guest in the directory of -o or --ctf. */
	if (!o->path && mkdir(dir, 0777) && errno != EEXIST) {
		tool_warn("%s: %s", dir, strerror(errno));
		return EXIT_RUNTIME;
	}
	return run(o, &c, &o->many);
}

int main(int argc, char **argv)
{
	struct read_opts o;
	int err;

	/*
	 * A segment file truncated under us costs that segment, not the
	 * process (libivring.h): for one guest the summary is still said,
	 * for many the others read on.
	 */
	if (ivring__sigbus_guard(true))
		tool_warn("cannot install the SIGBUS guard: a segment truncated under the reader will end it");
	read_parse(argc, argv, &o);
	read_signals();
	err = o.record ? record(&o) : read_text(&o);
	read_opts_free(&o);
	return err;
}
