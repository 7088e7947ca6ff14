/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/* What ivring-read's printing and recording modes share. */
#ifndef IVRING_READ_COMMON_H
#define IVRING_READ_COMMON_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include <linux/ivring.h>
#include "handover.h"

struct ivring;

/* Exit codes, as --help documents them. */
#define EXIT_RUNTIME	1
#define EXIT_USAGE	2
#define EXIT_SEGMENT	3

/*
 * The longest back-off: between the tries of an open that waits for the
 * guest, after a writer stopped, between re-formats with nothing between.
 */
#define BACKOFF_MAX_NS	10000000ULL
/* How long one wait for events lasts before the stop flag is looked at. */
#define POLL_MS		200

/* Set by SIGINT and SIGTERM (read_signals()). */
extern volatile sig_atomic_t stop_requested;
/*
 * Set by SIGUSR1: read what the segment holds now, then end (the source's
 * reader of a live migration, told that the migration completed).
 */
extern volatile sig_atomic_t drain_requested;

/*
 * SA_RESTART: a write into a slow pipe or disk is not cut short, so nothing
 * is half-written and then counted.  SA_RESETHAND: when that write blocks
 * for good, a second Ctrl-C kills us; what was not committed stays in the
 * segment for the next reader.
 */
void read_signals(void);
/* The flags, read from any thread. */
#define stop_is_requested()	__atomic_load_n(&stop_requested, __ATOMIC_RELAXED)
#define drain_is_requested()	__atomic_load_n(&drain_requested, __ATOMIC_RELAXED)

/* The exit code for a libivring error. */
int exit_code(int err);
/* The one segment argument after the options, or exit with a usage error. */
const char *segment_arg(int argc, char **argv, const char *prog);
/* Whether @cpu is in --cpu's bitmap @cpus (NULL: every CPU). */
static inline bool cpu_in(const unsigned long *cpus, unsigned int cpu)
{
	const unsigned int bits = 8 * sizeof(*cpus);

	return !cpus || (cpu < IVRING_NR_CPUS_MAX &&
			 (cpus[cpu / bits] >> (cpu % bits)) & 1);
}
/*
 * Per-CPU statistics on stderr, in tracefs per_cpu/cpuN/stats wording plus
 * what only a reader knows; @cpus: a bitmap of the CPUs to show, NULL: all.
 */
void print_stats(struct ivring *r, const unsigned long *cpus);

enum { OPT_CHECKPOINT = 256, OPT_RESUME, OPT_CLOCK };

#define HANDOVER_LONGOPTS \
	{ "checkpoint", required_argument, NULL, OPT_CHECKPOINT }, \
	{ "resume", required_argument, NULL, OPT_RESUME }

#define HANDOVER_USAGE \
"      --checkpoint FILE when the reader ends, save where it stopped to\n" \
"                        FILE, for the --resume of a reader of a copy of\n" \
"                        the segment (a live migration's destination)\n" \
"      --resume FILE     start where the checkpoint FILE says, not where\n" \
"                        the segment's host area says; with --follow, wait\n" \
"                        for FILE to appear first\n"

#define HANDOVER_HELP \
"Live migration: SIGUSR1 makes a reader read what the segment holds and\n" \
"end, as Ctrl-C does after that.  Send it to the source host's reader once\n" \
"the migration completed; its --checkpoint then lets the destination's\n" \
"reader (--resume) deliver every event that the source's did not, and\n" \
"none twice.  See README, \"Live migration\".\n"

/* Takes option @c into @h: true if it was one of HANDOVER_LONGOPTS. */
bool handover_opt(int c, const char *arg, struct handover *h);
/* One line when some of the segment's event formats were skipped. */
void warn_skipped_formats(struct ivring *r, const char *path);

#endif /* IVRING_READ_COMMON_H */
