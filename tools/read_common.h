/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/* What ivring-read's printing and recording modes share. */
#ifndef IVRING_READ_COMMON_H
#define IVRING_READ_COMMON_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include <linux/ivring.h>

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

/*
 * Drops after @cpu's newest page, which no event will carry, since the
 * writer stopped (or, @peek, this reader will not look again): text gives
 * them a loss line of their own, a recording counts them, so that every
 * account of loss agrees with --stats.  0 while a writer runs, which may
 * yet report them with an event, to this reader or the next.
 */
uint64_t lost_after_last_page(struct ivring *r, unsigned int cpu, bool peek);

/* One line when some of the segment's event formats were skipped. */
void warn_skipped_formats(struct ivring *r, const char *path);

#endif /* IVRING_READ_COMMON_H */
