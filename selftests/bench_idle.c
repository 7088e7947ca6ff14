// SPDX-License-Identifier: GPL-2.0 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * Benchmark of an idle reader (issue 25, goal 5): what `ivring-read --watch`
 * costs while its guests write nothing, and how long an event then takes to
 * become a line.
 *
 *   idle   GUESTS segments (ivring-gen, 2 CPUs, one event each, left
 *          running) in a directory of our own, served by one
 *          `ivring-read --watch DIR` with its default threads.  Once it
 *          has printed every guest's events, its CPU time over SECONDS
 *          (the sum of its threads' run time, /proc/PID/task/.../schedstat),
 *          as a share of one CPU.  The peers, measured over the same
 *          seconds: processes that only wake every 10 ms and every 20 ms,
 *          and look at nothing: what any poller with that delay costs here
 *          at the least.
 *   delay  Then one more guest joins and writes RATE events a second for
 *          SECONDS / 2; each of its lines is stamped when it reaches us (a
 *          pipe from the reader's stdout) against the event's time, which
 *          ivring-gen takes from the host's CLOCK_MONOTONIC.  Percentiles of
 *          those delays, and the reader's CPU meanwhile.
 *
 * Nothing is asserted.  Usage: bench_idle [SECONDS [GUESTS [RATE]]]
 * (default 60, 64, 20).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "timed_run.h"

#define MAX_DELAYS	100000

static char tools[4096], dir[4200];

static double mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Seconds that @pid's threads have run, from their schedstat. */
static double run_time(pid_t pid)
{
	char path[64], p[400];
	unsigned long long ns, sum = 0;
	struct dirent *de;
	DIR *d;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return -1;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "%s/%s/schedstat", path, de->d_name);
		f = fopen(p, "r");
		if (!f)
			continue;
		if (fscanf(f, "%llu", &ns) == 1)
			sum += ns;
		fclose(f);
	}
	closedir(d);
	return sum / 1e9;
}

static int gen(const char *name, const char *extra[])
{
	char prog[4300], path[4400];
	const char *argv[16] = { prog, "-q", "-s", "1M" };
	struct bench_time t;
	int n = 4;

	snprintf(prog, sizeof(prog), "%s/ivring-gen", tools);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	while (*extra)
		argv[n++] = *extra++;
	argv[n++] = path;
	argv[n] = NULL;
	return bench_run((char *const *)argv, NULL, &t);
}

/* The time of a text line: "...[CPU]  SECONDS.MICROS: event: ...". */
static int line_time(const char *line, double *ts)
{
	const char *p = strstr(line, "] ");
	char *end;

	if (!p)
		return -1;
	*ts = strtod(p + 2, &end);
	return end == p + 2 || *end != ':' ? -1 : 0;
}

/* A process that wakes every @ms and does nothing else. */
static pid_t start_sleeper(long ms)
{
	struct timespec ts = { 0, ms * 1000000L };
	pid_t pid = fork();

	if (pid)
		return pid;
	for (;;)
		nanosleep(&ts, NULL);
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	int secs = argc > 1 ? atoi(argv[1]) : 60;
	int guests = argc > 2 ? atoi(argv[2]) : 64;
	int rate = argc > 3 ? atoi(argv[3]) : 20;
	const char *idle_args[] = { "-c", "2", "-n", "1", NULL };
	char rd[4300], line[4096], dur[32], rt[32], name[32];
	const char *live_args[] = { "-c", "1", "-r", rt, "-d", dur, NULL };
	double *delays, t0, c0, idle_cpu, live_cpu, ts, p0[2], peer[2];
	pid_t sleeper[2];
	int pfd[2], i, n = 0, seen = 0;
	const char *tmp;
	pid_t pid, live;
	FILE *in;

	if (secs < 2 || guests < 1 || rate < 1) {
		fprintf(stderr, "usage: %s [SECONDS [GUESTS [RATE]]]\n", argv[0]);
		return 2;
	}
	snprintf(tools, sizeof(tools), "%s", bench_tools_dir(argv[0]));
	tmp = bench_tmpdir();
	delays = calloc(MAX_DELAYS, sizeof(*delays));
	if (!tmp || !delays)
		return 1;
	/* Its own directory, which bench_tmpdir_remove() empties (no subdirectory). */
	snprintf(dir, sizeof(dir), "%s", tmp);
	atexit(bench_tmpdir_remove);
	for (i = 0; i < guests; i++) {
		snprintf(name, sizeof(name), "ivring-g%d", i);
		if (gen(name, idle_args))
			return 1;
	}
	if (pipe(pfd))
		return 1;
	snprintf(rd, sizeof(rd), "%s/ivring-read", tools);
	pid = fork();
	if (!pid) {
		dup2(pfd[1], 1);
		/* Its summaries at the end are not the benchmark's report. */
		freopen("/dev/null", "w", stderr);
		close(pfd[0]);
		close(pfd[1]);
		execl(rd, rd, "--watch", dir, (char *)NULL);
		_exit(127);
	}
	close(pfd[1]);
	in = fdopen(pfd[0], "r");
	/* Each idle guest's 4 lines (2 events and 2 comm switches): all seen. */
	while (seen < 4 * guests && fgets(line, sizeof(line), in))
		seen++;
	if (seen < 4 * guests) {
		fprintf(stderr, "bench_idle: the reader printed %d of %d lines\n",
			seen, 4 * guests);
		return 1;
	}
	sleeper[0] = start_sleeper(10);
	sleeper[1] = start_sleeper(20);
	t0 = mono();
	c0 = run_time(pid);
	for (i = 0; i < 2; i++)
		p0[i] = run_time(sleeper[i]);
	sleep(secs);
	for (i = 0; i < 2; i++)
		peer[i] = (run_time(sleeper[i]) - p0[i]) / (mono() - t0);
	idle_cpu = (run_time(pid) - c0) / (mono() - t0);
	for (i = 0; i < 2; i++) {
		kill(sleeper[i], SIGKILL);
		waitpid(sleeper[i], NULL, 0);
	}

	/* One guest that writes, among the idle ones. */
	snprintf(rt, sizeof(rt), "%d", rate);
	snprintf(dur, sizeof(dur), "%d", secs / 2);
	live = fork();
	if (!live) {
		snprintf(name, sizeof(name), "ivring-live");
		_exit(gen(name, live_args) ? 1 : 0);
	}
	t0 = mono();
	c0 = run_time(pid);
	while (n < MAX_DELAYS && fgets(line, sizeof(line), in)) {
		double now = mono();

		if (!strstr(line, "seq=") || line_time(line, &ts))
			continue;
		delays[n++] = now - ts;
		if (n == rate * (secs / 2))
			break;
	}
	live_cpu = (run_time(pid) - c0) / (mono() - t0);
	waitpid(live, NULL, 0);
	kill(pid, SIGTERM);
	fclose(in);
	waitpid(pid, NULL, 0);
	if (!n) {
		fprintf(stderr, "bench_idle: no line of the writing guest\n");
		return 1;
	}
	qsort(delays, n, sizeof(*delays), cmp);
	printf("bench_idle: %d idle guests (2 CPUs each) under one ivring-read --watch\n"
	       "command: %s %d %d %d\n\n", guests, argv[0], secs, guests, rate);
	printf("  idle, %d s:  reader CPU %.3f%% of one CPU\n", secs,
	       100 * idle_cpu);
	printf("    peers, the same seconds: a sleeper that wakes every 10 ms %.3f%%,\n"
	       "    every 20 ms %.3f%%\n", 100 * peer[0], 100 * peer[1]);
	printf("  one more guest writing %d events/s for %d s, %d lines:\n",
	       rate, secs / 2, n);
	printf("    delay from event to line: p50 %.2f ms, p99 %.2f ms, max %.2f ms\n",
	       1e3 * delays[n / 2], 1e3 * delays[(n * 99) / 100],
	       1e3 * delays[n - 1]);
	printf("    reader CPU meanwhile %.3f%% of one CPU\n", 100 * live_cpu);
	free(delays);
	return 0;
}
