/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * One reader for many segments: every guest of a host (read_many.c).  The
 * printing and the recording modes plug in their per-guest work.
 */
#ifndef IVRING_READ_MANY_H
#define IVRING_READ_MANY_H

#include <stdbool.h>
#include <stdint.h>

#include "read_clock.h"

struct ivring;
struct guest;

/* One guest's reading state, its claimant's alone. */
struct seg {
	struct guest *g;
	const char *name;	/* the segment file's name */
	struct ivring *r;
	void *out;		/* the mode's own state, from start() */
	struct read_clock clk;
	unsigned int part;	/* generations before this one */
	uint64_t retry_ns;	/* when to try to open it again */
	uint64_t stats_ns;	/* when to look at its writer's counters */
	bool told;		/* said that it waits for the guest */
	bool started;		/* start() succeeded, end() is owed */
	/* Host times (many_opts.clock), asked for by a clock thread. */
	bool clock_ok;		/* a sample of this generation exists */
	bool clock_told;	/* said that the guest does not answer */
	uint64_t clock_ns;	/* the next burst */
	bool failed;		/* end(): the segment is broken, consume nothing */
};

/*
 * What a mode does per guest.  Each returns 0 or an exit code, having said
 * why, except serve().
 */
struct many_ops {
	/*
	 * With host times asked for, serve() is called only once the guest
	 * answered (text prints host times); a recording takes the samples
	 * whenever they come.
	 */
	bool wait_clock;
	/* A generation to read: make s->out. */
	int (*start)(struct seg *s, void *arg);
	/*
	 * One bounded batch: the events handled (> 0), or what the library
	 * returned when there were none (0, -EPIPE, -ESTALE, ...), or
	 * -ECANCELED when the mode failed, with the exit code in *err,
	 * having said why (-1: the output was closed; every guest stops,
	 * with no error).
	 */
	int (*serve)(struct seg *s, void *arg, bool drain, int *err);
	/*
	 * What was taken out goes out, and is consumed (unless s->failed);
	 * s->out is freed.
	 */
	int (*end)(struct seg *s, void *arg);
};

struct many_opts {
	const char *watch;	/* --watch DIR */
	const char *match;	/* --match GLOB */
	char **paths;		/* the segments named, without --watch */
	unsigned int nr_paths;
	unsigned int threads;
	unsigned int stats_interval;	/* seconds; 0: at SIGUSR2 only */
	bool follow;
	bool peek;
	unsigned int clock;	/* host times: IVRING_HOST_*, asking each guest */
	const struct many_ops *ops;
	void *arg;
};

/* Options of the many-guest mode, in both modes' getopt tables. */
enum { OPT_WATCH = 300, OPT_MATCH, OPT_THREADS, OPT_STATS_INTERVAL };

#define MANY_LONGOPTS \
	{ "watch", required_argument, NULL, OPT_WATCH }, \
	{ "match", required_argument, NULL, OPT_MATCH }, \
	{ "threads", required_argument, NULL, OPT_THREADS }, \
	{ "stats-interval", required_argument, NULL, OPT_STATS_INTERVAL }

#define MANY_USAGE \
"      --watch DIR       serve every segment in DIR, those that appear\n" \
"                        later too (implies --follow)\n" \
"      --match GLOB      with --watch, only files whose name matches GLOB\n" \
"                        (default ivring*)\n" \
"      --threads N       reader threads serving the guests (default: the\n" \
"                        CPUs online)\n" \
"      --stats-interval N  every N seconds, one line per guest on stderr\n" \
"                        (SIGUSR2 prints them at any time)\n"

/*
 * After the options: true when they name many segments (more than one, or
 * --watch), which are then in @m; false for one segment.
 */
bool many_args(int argc, char **argv, struct many_opts *m);
/* Takes option @c into @m: true if it was one of MANY_LONGOPTS. */
bool many_opt(int c, const char *arg, struct many_opts *m);
/*
 * Serve every guest of @m until Ctrl-C (or, without follow, until each
 * has been read to its end).  Returns the exit code: 0, or the worst of
 * the guests' (each said why).
 */
int many_main(struct many_opts *m);

#endif /* IVRING_READ_MANY_H */
