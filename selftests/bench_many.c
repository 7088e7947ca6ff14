// SPDX-License-Identifier: GPL-2.0 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * Benchmark of one ivring-read recording many segments: aggregate
 * throughput and host CPU per event with 1, 8 and 64 guests, in raw
 * recording mode (trace.dat, pages copied, nothing decoded).  The goal it
 * is measured against: throughput flat from 1 to 64 segments, within 20%,
 * and limited by memory bandwidth, not by the reader.
 *
 * The same bytes in every case: 1 segment of the whole size, 8 of an
 * eighth, 64 of a sixty-fourth, 4 CPUs each, filled by ivring-gen to just
 * short of full (discard mode, no event dropped: checked) and stopped.
 * They are generated once; then, in rounds whose order rotates,
 *   record      ivring-read record --peek -o OUT SEG...: the many-guest
 *               engine (for 1 segment, the segment is named twice: the
 *               engine takes a file once, and one name alone would take
 *               the one-segment path);
 *   record -t1  the same for 64 segments with --threads 1 (the default
 *               is a reader thread per CPU online);
 *   record one  ivring-read record --peek -o OUT/NAME.dat SEG, the
 *               one-segment path, for scale;
 *   cp          cp(1) of the same files into OUT: the peer, bound by
 *               memory bandwidth as the recorder should be;
 *   memcpy      the files, mapped and faulted in, copied into memory
 *               faulted in too (the second of two copies): this
 *               machine's memory speed;
 *   lib         what the engine does per guest, through the library, in
 *               a child of ours that starts as fresh as ivring-read does,
 *               one segment after the other, each phase timed: open,
 *               ivring__rec_open, the pages, ivring__rec_close, close;
 *   lib all     the same phases with every segment open at once, as the
 *               engine has them (it opens each guest it finds), so that
 *               the memory of one recording cannot serve the next.
 * The lib jobs tell the per-segment costs from the per-page ones.  Peek
 * consumes nothing, so every job reads the same pages; OUT is made before
 * and removed after each job, outside the timing.  Segments and outputs
 * are all in a directory of ours in /dev/shm, so no disk is measured.  A
 * first recording of each case, untimed, warms up and counts the
 * recorder's page faults.
 *
 * Medians of the rounds.  MB/s: bytes of pages (what a trace.dat holds)
 * per second; for cp and memcpy, bytes of the files.  "vs 1": that
 * throughput against the same job's with 1 segment (record -t1 and record
 * one: against record's).  "of cp": the fraction of cp's throughput on
 * the same files (cp's wall time / the job's).  CPU: user + system time
 * of the program (wait4()), or of the copier or child for memcpy and lib;
 * CPU ns/ev: per event in the segments.  A recorder's wall time runs to
 * its exit, which includes the engine's noticing that every guest is
 * done; its "done" time runs to the summary line of its last file.  Every
 * recording is checked against the pages and events that the library
 * finds in the segments.  Nothing is asserted.
 *
 * Usage: bench_many [rounds [MiB in all]]	(default 5, 128: 1 x 128 MiB,
 *	  8 x 16 MiB, 64 x 2 MiB; MiB a power of two, 64 to 4096)
 */
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"
#include "libivring.h"
#include "timed_run.h"

#define MAX_ROUNDS	51
#define NR_K		3
#define MAX_SEGS	64
#define SEG_CPUS	4
#define COMMIT_PAGES	256	/* as ivring-read record */
#define CPU_BURST	64
/* ivring-gen's synth:seq: a 32-byte record per event. */
#define EVENT_BYTES	32
/* Of what a segment can hold: full but for a margin, so that none drop. */
#define FILL_PERCENT	98

static const unsigned int nr_segs[NR_K] = { 1, 8, 64 };

enum kind { REC, REC_T1, REC_ONE, CP, MEMCPY, LIB, LIB_ALL, NR_KINDS };

static const char *const kind_name[NR_KINDS] = {
	"record", "record -t1", "record one", "cp", "memcpy", "lib",
	"lib all",
};

struct job {
	enum kind kind;
	int k;			/* index in nr_segs[] */
};

static const struct job jobs[] = {
	{ REC, 0 }, { REC, 1 }, { REC, 2 }, { REC_T1, 2 }, { REC_ONE, 0 },
	{ CP, 0 }, { CP, 1 }, { CP, 2 },
	{ MEMCPY, 0 }, { MEMCPY, 1 }, { MEMCPY, 2 },
	{ LIB, 0 }, { LIB, 1 }, { LIB, 2 },
	{ LIB_ALL, 0 }, { LIB_ALL, 1 }, { LIB_ALL, 2 },
};
#define NR_JOBS	(int)(sizeof(jobs) / sizeof(jobs[0]))

/* lib's phases, summed over the segments of a run. */
enum { PH_OPEN, PH_REC_OPEN, PH_PAGES, PH_REC_CLOSE, PH_CLOSE, NR_PH };

static const char *const ph_name[NR_PH] = {
	"open", "rec_open", "pages", "rec_close", "close",
};

struct result {
	double wall, cpu;	/* seconds */
	double done;		/* record: when its last file was complete */
	double ph[NR_PH];	/* lib only: seconds */
	double faults;		/* lib only: minor page faults */
};

/* One case: its segments and what the library finds in them. */
struct kcase {
	char *seg[MAX_SEGS];
	u64 seg_size;		/* bytes of one segment file */
	u64 events_per_cpu;	/* given to ivring-gen */
	u64 pages, events, lost, dropped;
	u32 subbuf_size;
	/* Minor page faults of the checking recordings, by enum kind. */
	double faults[NR_KINDS];
	bool mismatch;		/* a recording took other pages or events */
};

static struct {
	char tools[4096];
	char out[128];
	struct kcase kc[NR_K];
	u8 *buf;		/* memcpy's destination, faulted in once */
	u64 total;		/* bytes of each case's files */
	pid_t pid;		/* ours: a child that fails does not clean up */
} g;

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double secs_since(u64 t0)
{
	return (now_ns() - t0) / 1e9;
}

static void die(const char *what, const char *why)
{
	fprintf(stderr, "bench_many: %s: %s\n", what, why);
	if (getpid() != g.pid)
		_exit(1);
	exit(1);
}

/* OUT holds files only (trace.dat, or what a failed one left): no CTF. */
static void out_remove(void)
{
	char path[PATH_MAX];
	struct dirent *e;
	DIR *d = opendir(g.out);

	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", g.out, e->d_name);
		unlink(path);
	}
	if (d)
		closedir(d);
	rmdir(g.out);
}

static void out_make(void)
{
	out_remove();
	if (mkdir(g.out, 0755))
		die(g.out, strerror(errno));
}

static void cleanup(void)
{
	if (getpid() != g.pid)
		return;
	out_remove();
	bench_tmpdir_remove();
}

static void tool_path(char *buf, size_t len, const char *tool)
{
	snprintf(buf, len, "%s/%s", g.tools, tool);
}

/* Opens @path consuming nothing, or dies saying why. */
static struct ivring *seg_open(const char *path)
{
	struct ivring_open_opts o = { .sz = sizeof(o) };
	struct ivring *r;
	char err[512] = "";

	o.flags = IVRING_OPEN_PEEK;
	o.errbuf = err;
	o.errbuf_len = sizeof(err);
	if (ivring__open(path, &o, &r))
		die(path, err);
	return r;
}

/*
 * Task events per CPU that a segment of @size can hold with none dropped:
 * a probe is filled past the brim, and what it kept is what was written
 * less what was dropped.  It depends on the layout (sub-buffers per CPU
 * after the segment's own metadata), so it is measured, not computed.
 */
static u64 capacity(u64 size)
{
	char gen[4200], s[32], c[16], n[32], probe[PATH_MAX];
	u64 written = size / EVENT_BYTES / SEG_CPUS * 2, kept = ~0ULL;
	char *argv[] = { gen, "-q", "-s", s, "-c", c, "-n", n, "-S", probe,
			 NULL };
	struct ivring_info info = { .sz = sizeof(info) };
	struct bench_time t;
	struct ivring *r;
	unsigned int cpu;

	tool_path(gen, sizeof(gen), "ivring-gen");
	snprintf(s, sizeof(s), "%lluK", (unsigned long long)size >> 10);
	snprintf(c, sizeof(c), "%u", SEG_CPUS);
	snprintf(n, sizeof(n), "%llu", (unsigned long long)written);
	snprintf(probe, sizeof(probe), "%s/probe", bench_tmpdir());
	unlink(probe);
	if (bench_run(argv, NULL, &t))
		exit(1);
	r = seg_open(probe);
	ivring__info(r, &info);
	for (cpu = 0; cpu < info.nr_cpus; cpu++) {
		struct ivring_cpu_stats st = { .sz = sizeof(st) };

		if (ivring__cpu_stats(r, cpu, &st))
			die(probe, ivring__errmsg(r));
		if (written - st.dropped < kept)
			kept = written - st.dropped;
	}
	ivring__close(r);
	unlink(probe);
	return kept;
}

/* Every page of @path as the recorder takes them, counted; nothing written. */
static void count(const char *path, struct kcase *kc)
{
	struct ivring_info info = { .sz = sizeof(info) };
	struct ivring_page pg = { .sz = sizeof(pg) };
	struct ivring *r = seg_open(path);
	unsigned int cpu;
	int ret;

	ivring__info(r, &info);
	kc->subbuf_size = info.subbuf_size;
	for (cpu = 0; cpu < info.nr_cpus; cpu++) {
		struct ivring_cpu_stats st = { .sz = sizeof(st) };

		if (ivring__cpu_stats(r, cpu, &st))
			die(path, ivring__errmsg(r));
		kc->dropped += st.dropped + st.overrun;
		while ((ret = ivring__read_page(r, cpu, &pg,
						IVRING_PAGE_PARTIAL)) > 0) {
			kc->pages++;
			kc->events += pg.events;
			kc->lost += pg.lost;
		}
		if (ret < 0 && ret != -EPIPE)
			die(path, ivring__errmsg(r));
	}
	ivring__close(r);
}

/*
 * The segments of case @k, refilled with fewer events should any drop
 * (a time extend record now and then takes room that the probe's did not).
 */
static void generate(int k)
{
	struct kcase *kc = &g.kc[k];
	char gen[4200], s[32], c[16], n[32];
	char *argv[] = { gen, "-q", "-s", s, "-c", c, "-n", n, "-S", NULL,
			 NULL };
	struct bench_time t;
	unsigned int i, try;
	struct stat st;

	tool_path(gen, sizeof(gen), "ivring-gen");
	kc->seg_size = g.total / nr_segs[k];
	snprintf(s, sizeof(s), "%lluK", (unsigned long long)kc->seg_size >> 10);
	snprintf(c, sizeof(c), "%u", SEG_CPUS);
	kc->events_per_cpu = capacity(kc->seg_size) * FILL_PERCENT / 100;
	for (try = 0; try < 5; try++) {
		snprintf(n, sizeof(n), "%llu",
			 (unsigned long long)kc->events_per_cpu);
		kc->pages = kc->events = kc->lost = kc->dropped = 0;
		for (i = 0; i < nr_segs[k]; i++) {
			if (!kc->seg[i] &&
			    asprintf(&kc->seg[i], "%s/k%u-%02u", bench_tmpdir(),
				     nr_segs[k], i) < 0)
				die("asprintf", strerror(ENOMEM));
			argv[9] = kc->seg[i];
			unlink(kc->seg[i]);
			if (bench_run(argv, NULL, &t) || stat(kc->seg[i], &st))
				exit(1);
			count(kc->seg[i], kc);
		}
		if (!kc->dropped && !kc->lost)
			return;
		kc->events_per_cpu = kc->events_per_cpu * 99 / 100;
	}
	die("ivring-gen", "events still dropped at 5 tries");
}

/* The argv of a recording of case @k by job kind @kind. */
static char **rec_argv(enum kind kind, int k, char *prog, char *dotdat)
{
	static char *argv[MAX_SEGS + 16];
	const struct kcase *kc = &g.kc[k];
	unsigned int i, n = 0;

	tool_path(prog, 4200, "ivring-read");
	argv[n++] = prog;
	argv[n++] = "record";
	argv[n++] = "--peek";
	argv[n++] = "-q";
	if (kind == REC_T1) {
		argv[n++] = "--threads";
		argv[n++] = "1";
	}
	argv[n++] = "-o";
	if (kind == REC_ONE) {
		snprintf(dotdat, PATH_MAX, "%s/%s.dat", g.out,
			 strrchr(kc->seg[0], '/') + 1);
		argv[n++] = dotdat;
	} else {
		argv[n++] = g.out;
	}
	for (i = 0; i < nr_segs[k]; i++)
		argv[n++] = kc->seg[i];
	/* One name is the one-segment path; the same twice is one guest. */
	if (kind == REC && nr_segs[k] == 1)
		argv[n++] = kc->seg[0];
	argv[n] = NULL;
	return argv;
}

/*
 * A recording by ivring-read, timed as bench_run() times a program (from
 * before fork() to wait4(), its CPU time from wait4()), but with its
 * stderr read here: each file's summary line, "ivring-read: OUT/NAME.dat:
 * E events, P pages, L lost, B bytes", says when that file was complete,
 * and what it holds.  The last one's time is res->done: the work, without
 * what the engine takes to notice that it has none left.  The recording
 * must hold every page and event that count() found; *faults (if not
 * NULL) gets its minor page faults.
 */
static void rec_run(enum kind kind, int k, struct result *res, double *faults)
{
	struct kcase *kc = &g.kc[k];
	char prog[4200], dotdat[PATH_MAX], line[PATH_MAX + 256];
	char **argv = rec_argv(kind, k, prog, dotdat);
	char said[4096] = "";
	unsigned long long ev = 0, pages = 0, lost = 0, e, p, l;
	struct rusage ru = { 0 };
	int status, fds[2];
	bool failed;
	pid_t pid;
	FILE *f;
	u64 t0;

	out_make();
	if (pipe(fds))
		die("pipe", strerror(errno));
	t0 = now_ns();
	pid = fork();
	if (pid < 0)
		die("fork", strerror(errno));
	if (!pid) {
		if (dup2(fds[1], STDERR_FILENO) < 0)
			_exit(126);
		close(fds[0]);
		close(fds[1]);
		execv(argv[0], argv);
		_exit(127);
	}
	close(fds[1]);
	f = fdopen(fds[0], "r");
	if (!f)
		die("fdopen", strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		char *at = strstr(line, ".dat: ");

		if (at && sscanf(at + 6, "%llu events, %llu pages, %llu lost",
				 &e, &p, &l) == 3) {
			res->done = secs_since(t0);
			ev += e;
			pages += p;
			lost += l;
		} else if (!strstr(line, ": done, ") &&
			   !strstr(line, " guests (") &&
			   strlen(said) + strlen(line) < sizeof(said)) {
			/* Not a summary: what went wrong, told if it did. */
			strcat(said, line);
		}
	}
	fclose(f);
	failed = wait4(pid, &status, 0, &ru) < 0 || !WIFEXITED(status) ||
		 WEXITSTATUS(status);
	res->wall = secs_since(t0);
	res->cpu = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
		   ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
	if (faults)
		*faults = ru.ru_minflt;
	out_remove();
	if (failed || ev != kc->events || pages != kc->pages || lost)
		fputs(said, stderr);
	if (failed)
		die(prog, "record failed");
	if (ev == kc->events && pages == kc->pages && !lost)
		return;
	kc->mismatch = true;
	fprintf(stderr, "bench_many: %s of %u segments recorded %llu events, %llu pages, %llu lost; the segments hold %llu events, %llu pages\n",
		kind_name[kind], nr_segs[k], ev, pages, lost,
		(unsigned long long)kc->events, (unsigned long long)kc->pages);
}

/*
 * The first recording of each case, untimed: it pays for what is cold,
 * and its page faults are kept.
 */
static void check(enum kind kind, int k)
{
	struct result res = { 0 };

	rec_run(kind, k, &res, &g.kc[k].faults[kind]);
}

static void cp_run(int k, struct result *res)
{
	const struct kcase *kc = &g.kc[k];
	char *cp[MAX_SEGS + 4];
	struct bench_time t;
	unsigned int i;

	cp[0] = "cp";
	for (i = 0; i < nr_segs[k]; i++)
		cp[i + 1] = kc->seg[i];
	cp[i + 1] = g.out;
	cp[i + 2] = NULL;
	out_make();
	if (bench_run(cp, NULL, &t))
		exit(1);
	out_remove();
	res->wall = t.wall;
	res->cpu = t.cpu;
}

/*
 * Only the copies are timed: mapping and faulting in are not the copy.  A
 * first copy, untimed, goes through the new mappings once: in a VM with
 * shadow page tables, that first pass takes the hypervisor's faults, which
 * the guest does not count, and which vary from run to run.
 */
static void mem_copy(int k, struct result *res)
{
	const struct kcase *kc = &g.kc[k];
	void *map[MAX_SEGS];
	unsigned int i;
	double c0;
	u64 t0;

	for (i = 0; i < nr_segs[k]; i++) {
		int fd = open(kc->seg[i], O_RDONLY);

		map[i] = fd < 0 ? MAP_FAILED :
			 mmap(NULL, kc->seg_size, PROT_READ,
			      MAP_SHARED | MAP_POPULATE, fd, 0);
		if (map[i] == MAP_FAILED)
			die(kc->seg[i], strerror(errno));
		close(fd);
	}
	for (i = 0; i < nr_segs[k]; i++)
		memcpy(g.buf + i * kc->seg_size, map[i], kc->seg_size);
	c0 = cpu_now();
	t0 = now_ns();
	for (i = 0; i < nr_segs[k]; i++)
		memcpy(g.buf + i * kc->seg_size, map[i], kc->seg_size);
	res->wall = secs_since(t0);
	res->cpu = cpu_now() - c0;
	for (i = 0; i < nr_segs[k]; i++)
		munmap(map[i], kc->seg_size);
}

/* A segment being recorded in this process. */
struct lib_seg {
	struct ivring *r;
	struct ivring_rec *w;
	unsigned int nr_cpus;
	char dat[PATH_MAX];
};

static struct lib_seg lsegs[MAX_SEGS];

static void lib_open(struct lib_seg *s, const char *path, struct result *res)
{
	struct ivring_info info = { .sz = sizeof(info) };
	u64 t0 = now_ns();

	s->r = seg_open(path);
	ivring__info(s->r, &info);
	s->nr_cpus = info.nr_cpus;
	res->ph[PH_OPEN] += secs_since(t0);
	snprintf(s->dat, sizeof(s->dat), "%s/%s.dat", g.out,
		 strrchr(path, '/') + 1);
}

static void lib_rec_open(struct lib_seg *s, struct result *res)
{
	struct ivring_rec_opts ro = {
		.sz = sizeof(ro),
		.format = IVRING_REC_TRACE_DAT,
		.flags = IVRING_REC_SNAPSHOT,
	};
	u64 t0 = now_ns();

	if (ivring__rec_open(s->r, s->dat, &ro, &s->w))
		die(s->dat, ivring__errmsg(s->r));
	res->ph[PH_REC_OPEN] += secs_since(t0);
}

/*
 * Every page, as the engine records a segment (tools/out_record.c's
 * pass(): a burst per CPU in turn, partial sub-buffers included, a
 * flush every COMMIT_PAGES; peek, so no commit).
 */
static void lib_pages(struct lib_seg *s, struct result *res)
{
	struct ivring_page pg = { .sz = sizeof(pg) };
	unsigned int cpu, pending = 0;
	u64 t0 = now_ns();
	bool more;
	int n, ret;

	do {
		more = false;
		for (cpu = 0; cpu < s->nr_cpus; cpu++) {
			for (n = 0; n < CPU_BURST; n++) {
				ret = ivring__rec_read(s->w, s->r, cpu,
						       IVRING_PAGE_PARTIAL, &pg);
				if (ret == -ENOBUFS || ret == -EPIPE || !ret)
					break;
				if (ret < 0)
					die(s->dat, ivring__rec_errmsg(s->w));
				more = true;
				if (++pending < COMMIT_PAGES)
					continue;
				if (ivring__rec_flush(s->w))
					die(s->dat, ivring__rec_errmsg(s->w));
				pending = 0;
			}
		}
	} while (more);
	if (ivring__rec_flush(s->w))
		die(s->dat, ivring__rec_errmsg(s->w));
	res->ph[PH_PAGES] += secs_since(t0);
}

static void lib_close(struct lib_seg *s, struct result *res)
{
	char err[PATH_MAX + 512];
	u64 t0 = now_ns();

	if (ivring__rec_close(s->w, err, sizeof(err)))
		die(s->dat, err);
	res->ph[PH_REC_CLOSE] += secs_since(t0);
	t0 = now_ns();
	ivring__close(s->r);
	res->ph[PH_CLOSE] += secs_since(t0);
}

/*
 * lib: one segment after the other, so that a segment's memory may serve
 * the next; lib all: every segment opened first, then read, then closed,
 * as the engine, which opens every guest it finds at once, has them.
 */
static void lib_run(enum kind kind, int k, struct result *res)
{
	const struct kcase *kc = &g.kc[k];
	unsigned int i, n = nr_segs[k];

	if (kind == LIB) {
		for (i = 0; i < n; i++) {
			lib_open(&lsegs[i], kc->seg[i], res);
			lib_rec_open(&lsegs[i], res);
			lib_pages(&lsegs[i], res);
			lib_close(&lsegs[i], res);
		}
		return;
	}
	for (i = 0; i < n; i++)
		lib_open(&lsegs[i], kc->seg[i], res);
	for (i = 0; i < n; i++)
		lib_rec_open(&lsegs[i], res);
	for (i = 0; i < n; i++)
		lib_pages(&lsegs[i], res);
	for (i = 0; i < n; i++)
		lib_close(&lsegs[i], res);
}

/*
 * In a child, which starts with the memory of a new process as
 * ivring-read does: what malloc() got back from an earlier job is not
 * there to be reused without faulting it in.
 */
static void lib_job(enum kind kind, int k, struct result *res)
{
	struct rusage ru0, ru1;
	int fds[2], status;
	ssize_t n = 0, got;
	double c0;
	pid_t pid;
	u64 t0;

	out_make();
	if (pipe(fds))
		die("pipe", strerror(errno));
	pid = fork();
	if (pid < 0)
		die("fork", strerror(errno));
	if (!pid) {
		close(fds[0]);
		getrusage(RUSAGE_SELF, &ru0);
		c0 = cpu_now();
		t0 = now_ns();
		lib_run(kind, k, res);
		res->wall = secs_since(t0);
		res->cpu = cpu_now() - c0;
		getrusage(RUSAGE_SELF, &ru1);
		res->faults = ru1.ru_minflt - ru0.ru_minflt;
		_exit(write(fds[1], res, sizeof(*res)) != sizeof(*res));
	}
	close(fds[1]);
	while (n < (ssize_t)sizeof(*res) &&
	       (got = read(fds[0], (char *)res + n, sizeof(*res) - n)) > 0)
		n += got;
	close(fds[0]);
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status) || n != sizeof(*res))
		die(kind_name[kind], "the child failed");
	out_remove();
}

static void run_job(const struct job *j, struct result *res)
{
	memset(res, 0, sizeof(*res));
	switch (j->kind) {
	case MEMCPY:
		mem_copy(j->k, res);
		break;
	case LIB:
	case LIB_ALL:
		lib_job(j->kind, j->k, res);
		break;
	case CP:
		cp_run(j->k, res);
		break;
	default:
		rec_run(j->kind, j->k, res, NULL);
	}
}

static int find_job(enum kind kind, int k)
{
	int j;

	for (j = 0; j < NR_JOBS; j++)
		if (jobs[j].kind == kind && jobs[j].k == k)
			return j;
	return -1;
}

/* What median_of() takes the median of: a phase, or one of these. */
enum { F_WALL = NR_PH, F_CPU, F_FAULTS, F_DONE };

static double field(const struct result *r, int f)
{
	switch (f) {
	case F_WALL:
		return r->wall;
	case F_CPU:
		return r->cpu;
	case F_FAULTS:
		return r->faults;
	case F_DONE:
		return r->done;
	default:
		return r->ph[f];
	}
}

static double median_of(const struct result *r, int rounds, int f)
{
	double v[MAX_ROUNDS];
	int i;

	for (i = 0; i < rounds; i++)
		v[i] = field(&r[i], f);
	return bench_median(v, rounds);
}

static bool is_rec(enum kind kind)
{
	return kind == REC || kind == REC_T1 || kind == REC_ONE;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 5;
	unsigned long mib = argc > 2 ? strtoul(argv[2], NULL, 0) : 128;
	static struct result res[NR_JOBS][MAX_ROUNDS];
	double wall[NR_JOBS], cpu[NR_JOBS];
	int i, j, k, o;

	if (rounds < 1 || rounds > MAX_ROUNDS || mib < 64 || mib > 4096 ||
	    (mib & (mib - 1))) {
		fprintf(stderr, "usage: %s [rounds (1-%d) [MiB in all (a power of two, 64-4096)]]\n",
			argv[0], MAX_ROUNDS);
		return 2;
	}
	g.total = (u64)mib << 20;
	g.pid = getpid();
	snprintf(g.tools, sizeof(g.tools), "%s", bench_tools_dir(argv[0]));
	if (!bench_tmpdir())
		return 1;
	atexit(cleanup);
	snprintf(g.out, sizeof(g.out), "%s/out", bench_tmpdir());
	/*
	 * Kept out of the children: a fork() would write-protect every page
	 * of it, and memcpy would then time a write fault per page (which
	 * costs tens of microseconds in some VMs) and copy the page tables
	 * of the buffer into every program timed.
	 */
	g.buf = mmap(NULL, g.total, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (g.buf == MAP_FAILED || madvise(g.buf, g.total, MADV_DONTFORK))
		die("memcpy's buffer", strerror(errno));
	memset(g.buf, 1, g.total);

	for (k = 0; k < NR_K; k++)
		generate(k);
	for (k = 0; k < NR_K; k++)
		check(REC, k);
	check(REC_T1, 2);
	check(REC_ONE, 0);

	for (i = 0; i < rounds; i++) {
		for (o = 0; o < NR_JOBS; o++) {
			j = (i + o) % NR_JOBS;
			run_job(&jobs[j], &res[j][i]);
		}
	}

	printf("bench_many: %d rounds; %lu MiB of segments in all, %u CPUs x %u-byte sub-buffers each,\n"
	       "  filled by ivring-gen (synth:seq, 32-byte records, discard mode, none dropped)\n"
	       "  and stopped; read with --peek; outputs in %s (tmpfs: no disk); trace.dat v7;\n"
	       "  %ld CPUs online\n",
	       rounds, mib, SEG_CPUS, g.kc[0].subbuf_size, bench_tmpdir(),
	       sysconf(_SC_NPROCESSORS_ONLN));
	printf("command: %s %d %lu\n\n", argv[0], rounds, mib);
	printf("%5s %8s %8s %9s %9s %9s %9s %9s %7s\n", "segs", "seg MiB",
	       "ev/CPU", "events", "pages MB", "files MB", "rec flts",
	       "flts/seg", "all in");
	for (k = 0; k < NR_K; k++) {
		const struct kcase *kc = &g.kc[k];

		printf("%5u %8llu %8llu %9llu %9.1f %9.1f %9.0f %9.0f %7s\n",
		       nr_segs[k], (unsigned long long)kc->seg_size >> 20,
		       (unsigned long long)kc->events_per_cpu,
		       (unsigned long long)kc->events,
		       kc->pages * kc->subbuf_size / 1e6, g.total / 1e6,
		       kc->faults[REC], kc->faults[REC] / nr_segs[k],
		       kc->mismatch ? "NO" : "yes");
	}
	printf("(events, pages: in the segments, as the library reads them; rec flts:\n"
	       " minor page faults of ivring-read record, in the untimed recording that\n"
	       " checks it (record -t1 of 64: %.0f, record one: %.0f); all in: each of\n"
	       " those recordings took every page and event, with none lost)\n",
	       g.kc[2].faults[REC_T1], g.kc[0].faults[REC_ONE]);

	printf("\n%-11s %4s  %7s %7s %6s %6s %6s  %7s %7s %6s %8s\n", "", "segs",
	       "wall s", "MB/s", "Mev/s", "vs 1", "of cp", "CPU s",
	       "MB/CPUs", "vs 1", "CPU ns/ev");
	for (j = 0; j < NR_JOBS; j++) {
		wall[j] = median_of(res[j], rounds, F_WALL);
		cpu[j] = median_of(res[j], rounds, F_CPU);
	}
	for (j = 0; j < NR_JOBS; j++) {
		const struct job *jb = &jobs[j];
		const struct kcase *kc = &g.kc[jb->k];
		bool pages = jb->kind != CP && jb->kind != MEMCPY;
		double bytes = pages ? kc->pages * kc->subbuf_size : g.total;
		int base = find_job(is_rec(jb->kind) ? REC : jb->kind, 0);
		const struct kcase *bk = &g.kc[jobs[base].k];
		double bbytes = pages ? bk->pages * bk->subbuf_size : g.total;
		int cpj = find_job(CP, jb->k);

		printf("%-11s %4u  %7.3f %7.0f %6.1f %5.2fx %5.2fx  %7.3f %7.0f %5.2fx %8.1f\n",
		       kind_name[jb->kind], nr_segs[jb->k], wall[j],
		       bytes / wall[j] / 1e6, kc->events / wall[j] / 1e6,
		       bytes / wall[j] / (bbytes / wall[base]),
		       wall[cpj] / wall[j], cpu[j], bytes / cpu[j] / 1e6,
		       bytes / cpu[j] / (bbytes / cpu[base]),
		       cpu[j] / kc->events * 1e9);
	}

	printf("\nrecord, until its last file was complete (wall s above: until it exited)\n");
	printf("%-11s %4s  %7s %7s %6s %6s %6s\n", "", "segs", "done s", "MB/s",
	       "Mev/s", "vs 1", "of cp");
	for (j = 0; j < NR_JOBS; j++) {
		const struct job *jb = &jobs[j];
		const struct kcase *kc = &g.kc[jb->k];
		const struct kcase *bk = &g.kc[0];
		double bytes = kc->pages * kc->subbuf_size;
		double done, bdone;

		if (!is_rec(jb->kind))
			continue;
		done = median_of(res[j], rounds, F_DONE);
		bdone = median_of(res[find_job(REC, 0)], rounds, F_DONE);
		printf("%-11s %4u  %7.3f %7.0f %6.1f %5.2fx %5.2fx\n",
		       kind_name[jb->kind], nr_segs[jb->k], done,
		       bytes / done / 1e6, kc->events / done / 1e6,
		       bytes / done / (bk->pages * bk->subbuf_size / bdone),
		       wall[find_job(CP, jb->k)] / done);
	}

	printf("\nlib, by phase (seconds summed over the segments; ms/seg: open,\n"
	       " rec_open, rec_close and close, per segment; ns/page: the pages' time\n"
	       " per page; faults: minor page faults of the whole job)\n");
	printf("%-8s %4s", "", "segs");
	for (o = 0; o < NR_PH; o++)
		printf(" %9s", ph_name[o]);
	printf(" %7s %7s %7s %8s\n", "ms/seg", "ns/page", "faults", "flts/seg");
	for (j = 0; j < NR_JOBS; j++) {
		const struct job *jb = &jobs[j];
		const struct kcase *kc = &g.kc[jb->k];
		double ph[NR_PH], fixed = 0, flt;

		if (jb->kind != LIB && jb->kind != LIB_ALL)
			continue;
		printf("%-8s %4u", kind_name[jb->kind], nr_segs[jb->k]);
		for (o = 0; o < NR_PH; o++) {
			ph[o] = median_of(res[j], rounds, o);
			printf(" %9.4f", ph[o]);
			if (o != PH_PAGES)
				fixed += ph[o];
		}
		flt = median_of(res[j], rounds, F_FAULTS);
		printf(" %7.3f %7.0f %7.0f %8.0f\n",
		       fixed / nr_segs[jb->k] * 1e3,
		       ph[PH_PAGES] / kc->pages * 1e9, flt,
		       flt / nr_segs[jb->k]);
	}
	printf("\n(medians of the rounds; vs 1: throughput against the same job with 1\n"
	       " segment (record -t1 and record one: against record with 1); of cp: the\n"
	       " fraction of cp's throughput on the same files; MB/CPUs: per second of\n"
	       " user + system time, steadier than wall time on a busy machine)\n");
	return 0;
}
