// SPDX-License-Identifier: GPL-2.0 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * Benchmark of recording (issue 9, section 5): how fast whole pages go from
 * a segment into a trace.dat, against cp of the same segment file, in the
 * same run.  ivring-gen fills a segment in /dev/shm and stops; then, in
 * rounds whose order rotates, the same bytes are
 *   cp         copied by cp(1) to another /dev/shm file (the peer);
 *   memcpy     copied from a mapping of the file into memory that is
 *              already faulted in: the memory speed of this machine, for
 *              scale;
 *   read       read with ivring__read_page() alone (peek), written nowhere:
 *              the library's share of the recorder's time;
 *   lib spooled  recorded through ivring__rec_open/rec_read/rec_flush/
 *              rec_close as ivring-read record --follow does, consuming
 *              nothing: per-CPU spools, put together at rec_close;
 *   lib snapshot  the same as a snapshot (IVRING_REC_SNAPSHOT), as
 *              ivring-read record without --follow does: written in place;
 *   tool snapshot  recorded by ivring-read record --peek;
 *   lib consume  a snapshot in consume mode, committing after each flush
 *              (always last in a round: it empties the segment).
 * A fresh segment is generated before each round, outside the timing.
 * Every output goes to /dev/shm, so no disk is measured; the trace.dat's
 * time includes completing it at rec_close.  Medians of the rounds;
 * "vs cp" is the time per byte against cp's in the same rounds.  CPU time
 * is the recorder's own (CLOCK_PROCESS_CPUTIME_ID, or wait4() for the
 * programs).  Nothing is asserted.
 *
 * Usage: bench_record [rounds [events per CPU]]	(default 7, 4000000:
 *	  a 256 MiB segment of 2 CPUs, about 250 MB of pages)
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"
#include "libivring.h"
#include "timed_run.h"

#define MAX_ROUNDS	51
#define COMMIT_PAGES	256	/* as ivring-read record */
#define CPU_BURST	64

enum job {
	J_CP, J_MEMCPY, J_READ, J_SPOOLED, J_LIB, J_TOOL, J_CONSUME, NR_JOBS
};

static const char *const job_name[NR_JOBS] = {
	"cp", "memcpy", "read only", "lib spooled", "lib snapshot",
	"tool snapshot", "lib consume",
};

struct result {
	double wall, cpu, close;	/* seconds; close: rec_close's share */
	u64 bytes, events, lost;
};

static struct {
	char seg[128], out[160], tools[4096];
	u64 seg_size;
} g;

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void die(const char *what, int err, struct ivring *r)
{
	fprintf(stderr, "bench_record: %s: %s\n", what,
		r ? ivring__errmsg(r) : strerror(-err));
	exit(1);
}

/*
 * Every page of the segment, through the library, as ivring-read record
 * reads them: a burst per CPU in turn, partial sub-buffers included (the
 * writer has stopped), a flush and a commit every COMMIT_PAGES.  A
 * snapshot stops taking a CPU's pages once it holds a sub-buffer's worth
 * each (-ENOBUFS): the segment has no more.
 */
static void lib_record(enum job j, struct result *res)
{
	struct ivring_open_opts o = { .sz = sizeof(o) };
	struct ivring_rec_opts ro = {
		.sz = sizeof(ro),
		.format = IVRING_REC_TRACE_DAT,
		.flags = j == J_SPOOLED ? 0 : IVRING_REC_SNAPSHOT,
	};
	struct ivring_page pg = { .sz = sizeof(pg) };
	struct ivring_info info = { .sz = sizeof(info) };
	struct ivring_rec *w = NULL;
	struct ivring *r;
	unsigned int cpu, pending = 0;
	char err[512];
	double c0 = cpu_now();
	u64 t0 = now_ns(), t1, pages = 0;
	bool more;
	int n, ret;

	o.flags = j == J_CONSUME ? IVRING_OPEN_EXPLICIT_COMMIT : IVRING_OPEN_PEEK;
	o.errbuf = err;
	o.errbuf_len = sizeof(err);
	ret = ivring__open(g.seg, &o, &r);
	if (ret) {
		fprintf(stderr, "bench_record: %s\n", err);
		exit(1);
	}
	ivring__info(r, &info);
	if (j != J_READ && (ret = ivring__rec_open(r, g.out, &ro, &w)))
		die("ivring__rec_open", ret, r);
	do {
		more = false;
		for (cpu = 0; cpu < info.nr_cpus; cpu++) {
			for (n = 0; n < CPU_BURST; n++) {
				ret = w ? ivring__rec_read(w, r, cpu,
							   IVRING_PAGE_PARTIAL, &pg) :
					  ivring__read_page(r, cpu, &pg,
							    IVRING_PAGE_PARTIAL);
				if (ret == -ENOBUFS || ret == -EPIPE || !ret)
					break;
				if (ret < 0 && w)
					die(ivring__rec_errmsg(w), ret, NULL);
				if (ret < 0)
					die("ivring__read_page", ret, r);
				more = true;
				pages++;
				res->events += pg.events;
				res->lost += pg.lost;
				if (!w || ++pending < COMMIT_PAGES)
					continue;
				if (ivring__rec_flush(w))
					die(ivring__rec_errmsg(w), -EIO, NULL);
				ivring__commit(r);
				pending = 0;
			}
		}
	} while (more);
	t1 = now_ns();
	if (w) {
		if (ivring__rec_flush(w))
			die(ivring__rec_errmsg(w), -EIO, NULL);
		ivring__commit(r);
		if (ivring__rec_close(w, err, sizeof(err))) {
			fprintf(stderr, "bench_record: %s\n", err);
			exit(1);
		}
	}
	ivring__close(r);
	res->wall = (now_ns() - t0) / 1e9;
	res->close = (now_ns() - t1) / 1e9;
	res->cpu = cpu_now() - c0;
	res->bytes = pages * info.subbuf_size;
}

static void prog_run(enum job j, struct result *res)
{
	char gen[4200];
	char *cp[] = { "cp", g.seg, g.out, NULL };
	char *rec[] = { gen, "record", "--peek", "-q", "-o", g.out, g.seg,
			NULL };
	struct bench_time t;

	snprintf(gen, sizeof(gen), "%s/ivring-read", g.tools);
	if (bench_run(j == J_CP ? cp : rec, NULL, &t))
		exit(1);
	res->wall = t.wall;
	res->cpu = t.cpu;
	res->bytes = g.seg_size;
}

/* Into a buffer faulted in once, so that only the copy is timed. */
static void mem_copy(struct result *res)
{
	static u8 *buf;
	int fd = open(g.seg, O_RDONLY);
	void *map;
	double c0;
	u64 t0;

	if (!buf) {
		buf = malloc(g.seg_size);
		if (!buf) {
			perror("bench_record: malloc");
			exit(1);
		}
		memset(buf, 1, g.seg_size);
	}
	map = fd < 0 ? MAP_FAILED : mmap(NULL, g.seg_size, PROT_READ,
					 MAP_SHARED | MAP_POPULATE, fd, 0);
	if (map == MAP_FAILED) {
		perror("bench_record: mmap");
		exit(1);
	}
	close(fd);
	c0 = cpu_now();
	t0 = now_ns();
	memcpy(buf, map, g.seg_size);
	res->wall = (now_ns() - t0) / 1e9;
	res->cpu = cpu_now() - c0;
	res->bytes = g.seg_size;
	munmap(map, g.seg_size);
}

static void generate(u64 events)
{
	char gen[4200], n[32];
	char *argv[] = { gen, "-q", "-s", "256M", "-c", "2", "-n", n, "-S",
			 g.seg, NULL };
	struct bench_time t;
	struct stat st;

	snprintf(gen, sizeof(gen), "%s/ivring-gen", g.tools);
	snprintf(n, sizeof(n), "%llu", (unsigned long long)events);
	unlink(g.seg);
	if (bench_run(argv, NULL, &t) || stat(g.seg, &st))
		exit(1);
	g.seg_size = st.st_size;
}

int main(int argc, char **argv)
{
	unsigned long long events;
	static struct result res[NR_JOBS][MAX_ROUNDS];
	static double v[NR_JOBS][MAX_ROUNDS];
	double wall[NR_JOBS], cpu[NR_JOBS], bytes, ev;
	int i, k, rounds, ret;
	enum job j;

	ret = bench_start(argc, argv, MAX_ROUNDS, 4000000, &rounds, &events,
			  g.tools, sizeof(g.tools));
	if (ret)
		return ret;
	snprintf(g.seg, sizeof(g.seg), "%s/segment", bench_tmpdir());
	snprintf(g.out, sizeof(g.out), "%s.dat", g.seg);

	for (i = 0; i < rounds; i++) {
		generate(events);
		for (k = 0; k < J_CONSUME; k++) {
			j = (i + k) % J_CONSUME;
			if (j == J_MEMCPY)
				mem_copy(&res[j][i]);
			else if (j == J_CP || j == J_TOOL)
				prog_run(j, &res[j][i]);
			else
				lib_record(j, &res[j][i]);
			unlink(g.out);
		}
		/* The tool records the same pages as the library. */
		res[J_TOOL][i].bytes = res[J_LIB][i].bytes;
		res[J_TOOL][i].lost = res[J_LIB][i].lost;
		res[J_TOOL][i].events = res[J_LIB][i].events;
		lib_record(J_CONSUME, &res[J_CONSUME][i]);
		unlink(g.out);
	}

	printf("bench_record: %d rounds; a %llu MiB segment of 2 CPUs x 4 KiB sub-buffers,\n"
	       "  %llu events per CPU by ivring-gen (synth:seq, 32-byte records), stopped;\n"
	       "  outputs in %s (tmpfs: no disk); trace.dat v7\n",
	       rounds, (unsigned long long)g.seg_size >> 20,
	       (unsigned long long)events, bench_tmpdir());
	printf("command: %s %d %llu\n\n", argv[0], rounds,
	       (unsigned long long)events);
	printf("%-14s %9s %7s %7s %7s  %9s %7s %7s  %9s %8s %6s\n", "",
	       "wall s", "GB/s", "M ev/s", "vs cp", "CPU s", "GB/s", "vs cp",
	       "CPU ns/ev", "close s", "lost");
	for (j = 0; j < NR_JOBS; j++) {
		double m[4];

		for (k = 0; k < 4; k++) {
			for (i = 0; i < rounds; i++) {
				const struct result *x = &res[j][i];

				v[j][i] = k == 0 ? x->wall : k == 1 ? x->cpu :
					  k == 2 ? x->close :
					  x->events ? x->cpu / x->events * 1e9 : 0;
			}
			m[k] = bench_median(v[j], rounds);
		}
		wall[j] = m[0];
		cpu[j] = m[1];
		bytes = res[j][0].bytes;
		ev = res[j][0].events;
		printf("%-14s %9.3f %7.2f %7.1f %6.2fx  %9.3f %7.2f %6.2fx",
		       job_name[j], wall[j], bytes / wall[j] / 1e9,
		       ev / wall[j] / 1e6,
		       wall[j] / bytes / (wall[J_CP] / res[J_CP][0].bytes),
		       cpu[j], bytes / cpu[j] / 1e9,
		       cpu[j] / bytes / (cpu[J_CP] / res[J_CP][0].bytes));
		if (!ev)
			printf("  %9s %8s %6s\n", "-", "-", "-");
		else
			printf("  %9.1f %8.3f %6llu\n", m[3],
			       j == J_SPOOLED || j == J_LIB || j == J_CONSUME ?
			       m[2] : 0,
			       (unsigned long long)res[j][0].lost);
	}
	printf("\n(medians of the rounds; vs cp: seconds per byte against cp's, in the\n"
	       " same rounds; GB/s: bytes of pages recorded (cp, memcpy: of the file)\n"
	       " per second of wall or CPU time; CPU: user + system of the copier,\n"
	       " steadier than wall time on a busy machine; close: ivring__rec_close(),\n"
	       " which puts a spooled trace.dat together, and completes a snapshot)\n");
	return 0;
}
