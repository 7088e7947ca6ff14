// SPDX-License-Identifier: GPL-2.0 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * Benchmark of compressed recording (issue 23): ivring-read record
 * --compression zstd against trace-cmd convert --compression zstd of the
 * same pages, in the same run.  ivring-gen fills a segment in /dev/shm and
 * stops; then in each round
 *   plain      ivring-read record --peek writes the segment uncompressed
 *              (always first: its file is convert's input);
 *   zstd       ivring-read record --peek --compression zstd;
 *   convert    trace-cmd convert --compression zstd of plain's file, the
 *              peer: the same pages, compressed by trace-cmd's library
 *              with the same libzstd;
 * the last two in alternating order.  A fresh segment each round, outside
 * the timing; every file in tmpfs, so no disk is measured.  Medians.
 * The ratio is the uncompressed file's size over the compressed one's;
 * MB/s are of the uncompressed file's bytes per second of wall time, and
 * "zstd - plain" is what compressing adds to recording.  ivring-gen's
 * events (synth:seq: a counter, a CPU, its comm) compress far better than
 * a real trace: selftests/kbench/record.sh --compression measures a
 * guest's.  Nothing is asserted.
 *
 * Usage: bench_compress [rounds [events per CPU]]	(default 7, 2000000:
 *	  a 128 MiB segment of 2 CPUs, about 125 MB of pages)
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "timed_run.h"

#define MAX_ROUNDS	51

enum job { J_PLAIN, J_ZSTD, J_CONVERT, NR_JOBS };

static const char *const job_name[NR_JOBS] = {
	"plain", "zstd", "convert",
};

static struct {
	char tools[4096], seg[128], out[NR_JOBS][160];
} g;

static double file_size(const char *path)
{
	struct stat st;

	if (stat(path, &st)) {
		perror(path);
		exit(1);
	}
	return st.st_size;
}

static void generate(unsigned long long events)
{
	char gen[4200], n[32];
	char *argv[] = { gen, "-q", "-s", "128M", "-c", "2", "-n", n, "-S",
			 g.seg, NULL };
	struct bench_time t;

	snprintf(gen, sizeof(gen), "%s/ivring-gen", g.tools);
	snprintf(n, sizeof(n), "%llu", events);
	unlink(g.seg);
	if (bench_run(argv, NULL, &t))
		exit(1);
}

/* One job; returns its wall time, its CPU time in *@cpu. */
static double run(enum job j, double *cpu)
{
	char rd[4200];
	char *plain[] = { rd, "record", "--peek", "-q", "-o", g.out[J_PLAIN],
			  g.seg, NULL };
	char *zstd[] = { rd, "record", "--peek", "-q", "--compression", "zstd",
			 "-o", g.out[J_ZSTD], g.seg, NULL };
	char *convert[] = { "trace-cmd", "convert", "--compression", "zstd",
			    "-i", g.out[J_PLAIN], "-o", g.out[J_CONVERT], NULL };
	char *const *argv[NR_JOBS] = { plain, zstd, convert };
	struct bench_time t;

	snprintf(rd, sizeof(rd), "%s/ivring-read", g.tools);
	unlink(g.out[j]);
	if (bench_run(argv[j], NULL, &t))
		exit(1);
	*cpu = t.cpu;
	return t.wall;
}

int main(int argc, char **argv)
{
	unsigned long long events;
	static double wall[NR_JOBS][MAX_ROUNDS], cpu[NR_JOBS][MAX_ROUNDS];
	static double size[NR_JOBS][MAX_ROUNDS], added[MAX_ROUNDS];
	double w[NR_JOBS], c[NR_JOBS], s[NR_JOBS], raw, add;
	int i, k, rounds, ret;

	ret = bench_start(argc, argv, MAX_ROUNDS, 2000000, &rounds, &events,
			  g.tools, sizeof(g.tools));
	if (ret)
		return ret;
	snprintf(g.seg, sizeof(g.seg), "%s/segment", bench_tmpdir());
	for (k = 0; k < NR_JOBS; k++)
		snprintf(g.out[k], sizeof(g.out[k]), "%s/%s.dat",
			 bench_tmpdir(), job_name[k]);

	for (i = 0; i < rounds; i++) {
		generate(events);
		for (k = 0; k < NR_JOBS; k++) {
			/* plain first; zstd and convert take turns. */
			enum job j = k == 0 ? J_PLAIN :
				     (k + i) % 2 ? J_ZSTD : J_CONVERT;

			wall[j][i] = run(j, &cpu[j][i]);
			size[j][i] = file_size(g.out[j]);
		}
		added[i] = wall[J_ZSTD][i] - wall[J_PLAIN][i];
		for (k = 0; k < NR_JOBS; k++)
			unlink(g.out[k]);
	}

	for (k = 0; k < NR_JOBS; k++) {
		w[k] = bench_median(wall[k], rounds);
		c[k] = bench_median(cpu[k], rounds);
		s[k] = bench_median(size[k], rounds);
	}
	add = bench_median(added, rounds);
	raw = s[J_PLAIN];
	printf("bench_compress: %d rounds; a 128 MiB segment of 2 CPUs x 4 KiB sub-buffers,\n"
	       "  %llu events per CPU by ivring-gen (synth:seq), stopped; files in %s\n"
	       "  (tmpfs: no disk); trace.dat v7, %.1f MB uncompressed\n",
	       rounds, events, bench_tmpdir(), raw / 1e6);
	printf("command: %s %d %llu\n\n", argv[0], rounds, events);
	printf("%-10s %9s %9s %9s %9s %9s\n", "", "wall s", "CPU s", "MB",
	       "ratio", "MB/s");
	for (k = 0; k < NR_JOBS; k++)
		printf("%-10s %9.3f %9.3f %9.2f %8.2fx %9.0f\n", job_name[k],
		       w[k], c[k], s[k] / 1e6, raw / s[k], raw / w[k] / 1e6);
	printf("\nzstd against convert: %.2fx the ratio, %.2fx the speed\n",
	       (raw / s[J_ZSTD]) / (raw / s[J_CONVERT]), w[J_CONVERT] / w[J_ZSTD]);
	printf("compressing adds %.3f s to recording: %.0f MB/s\n", add,
	       add > 0 ? raw / add / 1e6 : 0);
	printf("\n(medians of the rounds; MB/s: MB of the uncompressed file per second\n"
	       " of wall time; CPU: user + system of the program)\n");
	return 0;
}
