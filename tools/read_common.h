/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/* What ivring-read's printing and recording modes share. */
#ifndef IVRING_READ_COMMON_H
#define IVRING_READ_COMMON_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

struct ivring;

/* Exit codes, as --help documents them. */
#define EXIT_RUNTIME	1
#define EXIT_USAGE	2
#define EXIT_SEGMENT	3

/* Retry interval of an open that waits for the guest. */
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

uint64_t now_ns(void);
void sleep_ns(uint64_t ns);
/* The exit code for a libivring error. */
int exit_code(int err);
/*
 * Open @path to consume (with IVRING_OPEN_EXPLICIT_COMMIT) or to @peek.
 * @follow waits for a segment that does not exist or is not formatted yet.
 * Returns 0 with *r set, or NULL when Ctrl-C ended the wait; or an exit
 * code, having said why.
 */
int open_segment(const char *path, bool peek, bool follow, struct ivring **r);
/* The one segment argument after the options, or exit with a usage error. */
const char *segment_arg(int argc, char **argv, const char *prog);
/*
 * Per-CPU statistics on stderr, in tracefs per_cpu/cpuN/stats wording plus
 * what only a reader knows; @cpus: a bitmap of the CPUs to show, NULL: all.
 */
void print_stats(struct ivring *r, const unsigned long *cpus);
/*
 * --resume: wait for the checkpoint file @ckpt when @follow (the source's
 * reader writes it once the migration completed), before the segment is
 * opened: until then the destination's copy is still arriving.  Returns 0,
 * or an exit code, having said why; *stop when Ctrl-C ended the wait.
 */
int wait_checkpoint(const char *ckpt, bool follow, bool *stop);
/*
 * Start @r, just opened, at the checkpoint @ckpt (NULL: none), and say
 * where reading starts when that is not where the last reader of this
 * file stopped.  Returns 0 or an exit code.
 */
int start_reading(struct ivring *r, const char *ckpt);
/* --checkpoint: save where @r stopped, and say so.  0 or an exit code. */
int save_checkpoint(struct ivring *r, const char *ckpt);
/* One line when some of the segment's event formats were skipped. */
void warn_skipped_formats(struct ivring *r, const char *path);

#endif /* IVRING_READ_COMMON_H */
