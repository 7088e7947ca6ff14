/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* SPDX-FileCopyrightText: 2026 The ivring authors */
#ifndef IVRING_READ_RECORD_H
#define IVRING_READ_RECORD_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "read_clock.h"
#include "read_common.h"

/* How long what an idle CPU has published may wait for its page to fill. */
#define PARTIAL_NS	200000000ULL

struct rec_opts {
	const char *path;
	const char *output;
	const char *ctf;
	const char *name;
	unsigned int version;
	struct handover handover;
	bool host_time;		/* --clock host */
	bool follow;
	bool peek;
	bool quiet;
	bool stats;
};

struct rec_state {
	struct ivring *r;
	struct ivring_rec *w;
	const struct rec_opts *o;
	char out[PATH_MAX];	/* the current file or directory */
	unsigned int part;	/* files after generation changes */
	unsigned int nr_cpus;
	unsigned int pending;	/* pages recorded since the last commit */
	struct read_clock clk;
	uint64_t events, pages, lost, files_bytes;
	uint64_t bytes;		/* of records in the pages recorded */
	const char *tag;	/* if set, messages begin with it */
	bool no_commit;		/* consume nothing (the segment is broken) */
	/* progress */
	bool tty;
	uint64_t start_ns, last_ns;
};

/* ivring-read record ...: argv[0] is "record". */
int record_main(int argc, char **argv);

/*
 * One recording of one segment, for record_main() and for the recording of
 * many guests (read_many_record.c).
 */
/* s->out: the name of s->part (FILE, FILE-1...) at s->o. */
int rec_name_part(struct rec_state *s);
/* Open the file or directory of s->part (FILE, FILE-1...) at s->o. */
int rec_start_file(struct rec_state *s);
/*
 * One pass over every CPU, at most CPU_BURST pages of each: whole
 * sub-buffers, and with @partial the ones the writer is still filling.
 * Returns the pages recorded, a negative errno of the library (-ESTALE,
 * -EPIPE, ...), or -1 with the exit code in *err, having said why.
 */
int rec_pass(struct rec_state *s, bool partial, int *err);
/* Write out what was recorded, then consume it: never the other way round. */
int rec_flush_and_commit(struct rec_state *s);
/* Complete the file, with a line on stderr of what it holds. */
int rec_end_file(struct rec_state *s);

#endif /* IVRING_READ_RECORD_H */
