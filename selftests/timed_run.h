/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * What the benchmarks that time other programs share: run one with its
 * output redirected, and take its wall and CPU time, so that a tool of
 * ours and a peer (cp, trace-cmd) are timed the same way.
 */
#ifndef IVRING_TIMED_RUN_H
#define IVRING_TIMED_RUN_H

#include <stdint.h>

struct bench_time {
	double wall;		/* seconds */
	double cpu;		/* user + system seconds of the child(ren) */
};

/*
 * Run @argv (a NULL-terminated list; argv[0] looked up in PATH) with its
 * stdout on @out (NULL: inherited) and its stderr on /dev/null, so that
 * the tools' summaries do not fill the benchmark's report.  Returns 0
 * with *t filled when it exited with status 0, else -1, having said why
 * on stderr (rerun the command to see the program's own message).
 */
int bench_run(char *const argv[], const char *out, struct bench_time *t);

/* The median of @n values; sorts @v. */
double bench_median(double *v, int n);

/* A directory of build/, found from this program's path (@argv0). */
const char *bench_tools_dir(const char *argv0);

/* Where the outputs go: tmpfs, so that no disk is measured. */
#define BENCH_TMPFS	"/dev/shm"

/*
 * A directory of our own in BENCH_TMPFS, made at the first call; NULL on
 * failure (said on stderr).  Not named ivring*: the guest tests remove
 * the /dev/shm/ivring* files that appear while they run.
 */
const char *bench_tmpdir(void);
/* Remove it and what is left in it. */
void bench_tmpdir_remove(void);

/*
 * The usual start of a benchmark that times our tools against a peer:
 * "@argv[0] [rounds [events per CPU]]" (defaults 7 and @def_events), at
 * most @max_rounds; the tools' directory into @tools (bench_tools_dir());
 * its bench_tmpdir() made, and removed at exit.  0, or the exit code
 * after a message (2: usage).
 */
int bench_start(int argc, char **argv, int max_rounds,
		unsigned long long def_events, int *rounds,
		unsigned long long *events, char *tools, size_t tools_len);

#endif /* IVRING_TIMED_RUN_H */
