/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * One reader for many segments: every guest of a host (read_many.c).  Each
 * guest is read by the driver (follow.h), one batch at a time, into the
 * output of the run's seg_conf.
 */
#ifndef IVRING_READ_MANY_H
#define IVRING_READ_MANY_H

#include <stdbool.h>
#include <stdint.h>

struct seg_conf;

struct many_opts {
	const char *watch;	/* --watch DIR */
	const char *match;	/* --match GLOB */
	char **paths;		/* the segments named, without --watch */
	unsigned int nr_paths;
	unsigned int threads;
	unsigned int stats_interval;	/* seconds; 0: at SIGUSR2 only */
	bool follow;		/* --watch: the segments to come are followed */
	/* How each guest is read: one_of_many, and the run's output. */
	const struct seg_conf *seg;
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
