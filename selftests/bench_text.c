// SPDX-License-Identifier: GPL-2.0 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * Benchmark of text output (issue 9, section 6): ivring-read printing a
 * segment against trace-cmd report printing the same events from a
 * trace.dat that ivring-read record made of that segment.  ivring-gen
 * writes the events (synth:seq from the writer threads and from a timer
 * signal, as an interrupt would nest) and stops; both programs then print
 * them to /dev/null, in rounds whose order alternates.  Medians of wall
 * and CPU time (wait4(): user + system of the program); events/s over
 * the events in the segment.  Nothing is asserted.
 *
 * Usage: bench_text [rounds [events per CPU]]	(default 7, 250000, 2 CPUs)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_util.h"
#include "libivring.h"
#include "timed_run.h"

#define MAX_ROUNDS	51

enum prog { P_IVRING, P_TRACE_CMD, NR_PROGS };

static const char *const prog_name[NR_PROGS] = {
	"ivring-read --peek", "trace-cmd report",
};

static void run(char **argv, const char *out, struct bench_time *t)
{
	if (bench_run(argv, out, t))
		exit(1);
}

/* Events in the segment, counted through the library as ivring-read does. */
static unsigned long long count_events(const char *seg)
{
	struct ivring_open_opts o = { .sz = sizeof(o), .flags = IVRING_OPEN_PEEK };
	struct ivring_event ev;
	struct ivring *r;
	unsigned long long n = 0;

	if (ivring__open(seg, &o, &r)) {
		fprintf(stderr, "bench_text: cannot open %s\n", seg);
		exit(1);
	}
	while (ivring__next(r, &ev) == 1)
		n++;
	ivring__close(r);
	return n;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 7;
	unsigned long long per_cpu = argc > 2 ? strtoull(argv[2], NULL, 0) : 250000;
	static double wall[NR_PROGS][MAX_ROUNDS], cpu[NR_PROGS][MAX_ROUNDS];
	char gen[4200], rd[4200], seg[128], dat[160], n[32];
	char *gen_argv[] = { gen, "-q", "-s", "64M", "-c", "2", "-n", n,
			     "--nested=2000", "-S", seg, NULL };
	char *rec_argv[] = { rd, "record", "--peek", "-q", "-o", dat, seg,
			     NULL };
	char *prog_argv[NR_PROGS][4] = {
		{ rd, "--peek", seg, NULL },
		{ "trace-cmd", "report", dat, NULL },
	};
	const char *tools;
	unsigned long long events;
	struct bench_time t;
	double w[NR_PROGS], c[NR_PROGS];
	int i, k;

	if (rounds < 1 || rounds > MAX_ROUNDS || !per_cpu) {
		fprintf(stderr, "usage: %s [rounds (1-%d) [events per CPU]]\n",
			argv[0], MAX_ROUNDS);
		return 2;
	}
	if (system("command -v trace-cmd >/dev/null")) {
		printf("bench_text: SKIP: no trace-cmd (Debian's trace-cmd)\n");
		return 0;
	}
	tools = bench_tools_dir(argv[0]);
	snprintf(gen, sizeof(gen), "%s/ivring-gen", tools);
	snprintf(rd, sizeof(rd), "%s/ivring-read", tools);
	if (!bench_tmpdir())
		return 1;
	atexit(bench_tmpdir_remove);
	snprintf(seg, sizeof(seg), "%s/segment", bench_tmpdir());
	snprintf(dat, sizeof(dat), "%s.dat", seg);
	snprintf(n, sizeof(n), "%llu", per_cpu);
	run(gen_argv, NULL, &t);
	run(rec_argv, NULL, &t);
	events = count_events(seg);

	for (i = 0; i < rounds; i++) {
		for (k = 0; k < NR_PROGS; k++) {
			int p = (i + k) % NR_PROGS;

			run(prog_argv[p], "/dev/null", &t);
			wall[p][i] = t.wall;
			cpu[p][i] = t.cpu;
		}
	}

	printf("bench_text: %d rounds; %llu events (synth:seq, %llu per CPU on 2 CPUs, some\n"
	       "  from a 2 kHz timer signal), by ivring-gen into " BENCH_TMPFS ", printed to /dev/null\n",
	       rounds, events, per_cpu);
	printf("command: %s %d %llu\n\n", argv[0], rounds, per_cpu);
	printf("%-20s %9s %10s %9s %10s %9s\n", "", "wall s", "k ev/s",
	       "CPU s", "CPU ns/ev", "vs trace-cmd (CPU)");
	for (k = 0; k < NR_PROGS; k++) {
		w[k] = bench_median(wall[k], rounds);
		c[k] = bench_median(cpu[k], rounds);
	}
	for (k = 0; k < NR_PROGS; k++)
		printf("%-20s %9.3f %10.1f %9.3f %10.1f %8.2fx\n", prog_name[k],
		       w[k], events / w[k] / 1e3, c[k], c[k] / events * 1e9,
		       c[k] / c[P_TRACE_CMD]);
	printf("\n(medians of the rounds; vs trace-cmd: CPU time against trace-cmd report's,\n"
	       " below 1 is faster; trace-cmd reads a trace.dat of the same pages)\n");
	return 0;
}
