/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * The command line of ivring-read and of ivring-read record: one parser,
 * whose options are declared once, each for the modes that take it.
 */
#ifndef IVRING_READ_OPTS_H
#define IVRING_READ_OPTS_H

#include <stdbool.h>

#include "handover.h"
#include "read_many.h"

#define MAX_PATTERNS	64

struct read_opts {
	bool record;		/* ivring-read record */
	const char *prog;	/* for messages: "ivring-read [record]" */
	const char *path;	/* the one segment; NULL: many, in @many */
	struct many_opts many;
	const char *output;	/* -o */
	bool follow;		/* -f, or --watch */
	bool peek;
	bool stats;
	unsigned int clock;	/* --clock: IVRING_HOST_*; 0: the guest's */
	bool clock_set;		/* --clock was given */
	bool clock_bound;	/* --clock-bound */
	struct handover handover;
	/* Text. */
	const char *patterns[MAX_PATTERNS];	/* -e */
	unsigned int nr_patterns;
	unsigned long *cpus;	/* --cpu's bitmap; NULL: all */
	unsigned int max_cpu;	/* the highest CPU in it */
	/* Recording. */
	const char *ctf;
	const char *relayd;	/* --relayd URL: CTF to LTTng's relay daemon */
	const char *hostname;	/* --hostname: this host's, to the daemon */
	unsigned int relayd_timeout_ms;	/* its replies'; 0: the library's */
	const char *name;	/* -N */
	unsigned int version;	/* -V; 0: the default */
	unsigned int compression;	/* --compression: IVRING_REC_ZSTD, or 0 */
	bool quiet;
	bool any_dir;		/* --any-dir */
	const char *host;	/* --host FILE: the host's own trace too */
};

/*
 * Parse @argv into @o: its first argument "record" is the subcommand.
 * --help exits 0; a usage error exits 2, having said why.
 */
void read_parse(int argc, char **argv, struct read_opts *o);
void read_opts_free(struct read_opts *o);

#endif /* IVRING_READ_OPTS_H */
