// SPDX-License-Identifier: GPL-2.0 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * ivring-read record --watch DIR -o OUTDIR: one recording per guest, in
 * OUTDIR, named after its segment (NAME.dat, or NAME/ for CTF; NAME-1...
 * after a guest reboot).  Each guest's recording is the one that
 * ivring-read record makes of a single segment (read_record.c); only the
 * loop around it is the many-guest reader's (read_many.c).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "libivring.h"
#include "guest_registry.h"
#include "read_many.h"
#include "read_many_record.h"
#include "read_record.h"
#include "tool_msg.h"
#include "tool_time.h"

struct guest_rec {
	struct rec_state st;
	struct rec_opts o;
	char path[PATH_MAX];
	uint64_t last_partial;
};

/*
 * Guests are named after their segment files, and two may have the same
 * name: one removed and made again, or the same name in two directories.
 * Each recording gets a name that no other has, finished or not: the next
 * free NAME-N, chosen and taken (rec_start_file() creates the files) under
 * one lock, as reader threads start recordings at the same time.
 */
static pthread_mutex_t naming = PTHREAD_MUTEX_INITIALIZER;

static bool exists(const char *path, const char *suffix)
{
	char p[PATH_MAX + 16];
	struct stat st;

	snprintf(p, sizeof(p), "%s%s", path, suffix);
	return !lstat(p, &st);
}

static bool taken(const struct rec_state *st)
{
	return exists(st->out, "") || exists(st->out, ".tmp") ||
	       exists(st->out, ".cpu0");
}

static int start_unique(struct rec_state *st)
{
	int err;

	pthread_mutex_lock(&naming);
	for (;;) {
		err = rec_name_part(st);
		if (err || !taken(st))
			break;
		st->part++;
	}
	if (!err)
		err = rec_start_file(st);
	pthread_mutex_unlock(&naming);
	return err;
}

static int mrec_start(struct seg *s, void *arg)
{
	const struct rec_opts *base = arg;
	const char *dir = base->ctf ? base->ctf : base->output;
	struct guest_rec *gr = calloc(1, sizeof(*gr));
	int n, err;

	if (!gr) {
		tool_warn("%s: out of memory", s->name);
		return EXIT_RUNTIME;
	}
	gr->o = *base;
	n = snprintf(gr->path, sizeof(gr->path), "%s/%s%s", dir, s->name,
		     base->ctf ? "" : ".dat");
	if (n < 0 || (size_t)n >= sizeof(gr->path)) {
		tool_warn("%s/%s: name too long", dir, s->name);
		free(gr);
		return EXIT_USAGE;
	}
	if (base->ctf)
		gr->o.ctf = gr->path;
	else
		gr->o.output = gr->path;
	gr->o.path = s->g->path;
	gr->o.name = NULL;
	gr->st.o = &gr->o;
	gr->st.r = s->r;
	gr->st.part = s->part;
	gr->st.clk.clock = s->clk.clock;
	gr->st.tag = s->g->path;
	err = start_unique(&gr->st);
	if (err) {
		free(gr);
		return err;
	}
	s->out = gr;
	return 0;
}

static int mrec_serve(struct seg *s, void *arg, bool drain, int *err)
{
	struct guest_rec *gr = s->out;
	struct rec_state *st = &gr->st;
	uint64_t events = st->events, lost = st->lost, bytes = st->bytes;
	uint64_t now = now_ns();
	bool partial = drain || now - gr->last_partial >= PARTIAL_NS;
	int ret;

	if (partial)
		gr->last_partial = now;
	*err = 0;
	ret = rec_pass(st, partial, err);
	if (*err)
		return -ECANCELED;
	guest_count(s->g, st->events - events, st->lost - lost,
		    st->bytes - bytes);
	if (ret > 0)
		return ret;
	/* Idle, a new generation or an end: what was recorded goes out. */
	*err = rec_flush_and_commit(st);
	return *err ? -ECANCELED : ret;
}

static int mrec_end(struct seg *s, void *arg)
{
	struct guest_rec *gr = s->out;
	int err;

	gr->st.no_commit = s->failed;
	/*
	 * What the sub-buffers being filled hold now goes in too, as the
	 * single recorder takes it at its end: one pass, bounded.
	 */
	err = 0;
	if (!s->failed)
		rec_pass(&gr->st, true, &err);
	if (!err)
		err = rec_end_file(&gr->st);
	else
		rec_end_file(&gr->st);
	free(gr);
	s->out = NULL;
	return err;
}

static const struct many_ops mrec_ops = {
	.start = mrec_start,
	.serve = mrec_serve,
	.end = mrec_end,
};

int many_record_main(struct many_opts *m, struct rec_opts *base)
{
	const char *dir = base->ctf ? base->ctf : base->output;

	if (base->handover.checkpoint || base->handover.resume || base->name ||
	    base->stats) {
		tool_warn("--checkpoint, --resume, --name and --stats are for one segment (--stats-interval: a line per guest)");
		return EXIT_USAGE;
	}
	if (!dir) {
		tool_warn("many segments: -o DIR or --ctf DIR, where each guest's recording goes");
		return EXIT_USAGE;
	}
	if (mkdir(dir, 0777) && errno != EEXIST) {
		tool_warn("%s: %s", dir, strerror(errno));
		return EXIT_RUNTIME;
	}
	m->follow = m->follow || base->follow;
	base->follow = m->follow;
	m->peek = base->peek;
	m->clock = base->host_time ? IVRING_HOST_MONOTONIC : 0;
	m->ops = &mrec_ops;
	m->arg = base;
	return many_main(m);
}
