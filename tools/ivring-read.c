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
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libivring.h"
#include "follow.h"
#include "host_trace.h"
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
	c->clock_bound = o->clock_bound;
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

/*
 * The directory of many guests' recordings, made 0755, or taken if it is
 * a directory (not a symlink to one) of this user's that nobody else may
 * write to: its owner, or anyone who may write to it, could plant files or
 * swap recordings under a recorder that runs as root.  --any-dir takes it
 * anyway.  0, or -1 having said why.
 */
static int own_dir(const char *dir, bool any)
{
	struct stat st;
	int fd, ret = -1;

	if (!mkdir(dir, 0755))
		return 0;
	if (errno != EEXIST) {
		tool_warn("%s: %s", dir, strerror(errno));
		return -1;
	}
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		tool_warn("%s: %s", dir, errno == ELOOP || errno == ENOTDIR ?
			  "not a directory (a symlink is not followed)" :
			  strerror(errno));
		return -1;
	}
	if (fstat(fd, &st))
		tool_warn("%s: %s", dir, strerror(errno));
	else if (!any && st.st_uid != geteuid())
		tool_warn("%s belongs to uid %u, not to this user (uid %u), who could change the recordings; use a directory of your own, or --any-dir",
			  dir, (unsigned int)st.st_uid, (unsigned int)geteuid());
	else if (!any && (st.st_mode & (S_IWGRP | S_IWOTH)))
		tool_warn("%s: others may write to it (mode %04o) and change the recordings; use a directory that only you may write to, or --any-dir",
			  dir, (unsigned int)(st.st_mode & 07777));
	else
		ret = 0;
	close(fd);
	return ret;
}

static int record(struct read_opts *o)
{
	struct rec_conf rc = {
		.output = o->output,
		.ctf = o->ctf,
		.relayd = o->relayd,
		.hostname = o->hostname,
		.relayd_timeout_ms = o->relayd_timeout_ms,
		.name = o->name,
		.version = o->version,
		.compression = o->compression,
		.follow = o->follow,
		.dir = !o->path,
		.any_dir = o->any_dir,
		.progress = o->path && !o->quiet && isatty(STDERR_FILENO),
	};
	struct host_trace_conf hc = {
		.output = o->host,
		.version = o->version,
		.compression = o->compression,
		.ctf = o->ctf != NULL,
		.relayd = o->relayd,
		.hostname = o->hostname,
		.relayd_timeout_ms = o->relayd_timeout_ms,
	};
	const char *dir = o->ctf ? o->ctf : o->output;
	struct seg_conf c;
	int err, host_err;

	seg_conf_init(&c, o);
	c.ops = &rec_ops;
	c.arg = &rc;
	c.wait_clock = o->relayd != NULL;
	/* Many: one recording per guest in the directory of -o or --ctf. */
	if (!o->path && !o->relayd && own_dir(dir, o->any_dir))
		return EXIT_RUNTIME;
	if (o->host) {
		err = host_trace_start(&hc, &rc.host);
		if (err)
			return err;
	}
	err = run(o, &c, &o->many);
	/* After the guests' last pages: the host's until then go in too. */
	host_err = host_trace_stop(rc.host);
	return err ? err : host_err;
}

/*
 * Every guest costs files (its segment, and a recording's per-CPU files),
 * and one guest's share must not run the others out: the soft limit is
 * raised to the hard one, as far as it goes.
 */
static void raise_nofile(void)
{
	struct rlimit rl;

	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

int main(int argc, char **argv)
{
	struct read_opts o;
	int err;

	raise_nofile();

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
