// SPDX-License-Identifier: GPL-2.0 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * A guest's nr_cpus is its own to claim, up to 8192, and a recorder gave
 * every CPU a file and a buffer from the start: a segment that claimed
 * 1015 CPUs took 1022 fds, and a recorder of many guests then had none
 * left for the honest ones.  Here 1015 CPUs each have events, in two
 * rounds (three of 250 events each, more than a spool buffer's 16 pages
 * per CPU), recorded as a trace.dat spooled and in place, and as CTF:
 *
 *   - the recording holds at most IVR_RESIDENT_CPUS (64) of its CPUs' files
 *     open, and their buffers only (malloc's count, where no sanitizer
 *     replaces malloc);
 *   - every event is in the files, each CPU's in order, as trace-cmd
 *     report and babeltrace2 read them: a CPU's file closed for others
 *     and opened again goes on at its end;
 *   - a spool that someone replaced, or wrote to, while it was closed is
 *     not taken: the recording fails (-EEXIST, not the -ESTALE of a new
 *     generation, which ivring-read takes for a renewal), saying so, and
 *     stays failed, and the file put there is untouched;
 *   - a process short of files (a recorder of many guests) records all
 *     the same with 3 files to spare: a trace.dat's directory, at its end
 *     its .tmp, and the CPU's file at hand; a CTF trace's two fds of its
 *     directory, and a CPU's file or the metadata.  The files close each
 *     other as they need room.  The recording failed for want of files
 *     before.
 */
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <malloc.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "kselftest_harness.h"
#include "fd_count.h"
#include "seg_util.h"

#define NR_CPUS		1015
#define RESIDENT	64	/* lib/record/record.h's IVR_RESIDENT_CPUS */
/* Besides the CPUs' files: the directory, PATH.head or PATH.tmp, slack. */
#define OTHER_FDS	4

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define MALLOC_COUNTED	0
#else
#define MALLOC_COUNTED	1
#endif

FIXTURE(cpus)
{
	struct seg s;
	struct ivring *r;
	char dir[64];
	char path[128];
	char cmd[512];
	int base_fds;
	int max_fds;
	size_t base_heap;
	size_t max_heap;
};

/* The highest fd open, or -1. */
static int top_fd(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	int top = -1, fd;

	if (!d)
		return -1;
	while ((de = readdir(d))) {
		fd = atoi(de->d_name);
		if (de->d_name[0] != '.' && fd != dirfd(d) && fd > top)
			top = fd;
	}
	closedir(d);
	return top;
}

/*
 * The process may open @spare files more than it has open now: the limit
 * (RLIMIT_NOFILE bounds an fd's number) above the highest fd, and the free
 * numbers below it filled.  They count as the recording's base.
 */
static void short_of_files(struct __test_metadata *_metadata,
			   FIXTURE_DATA(cpus) *self, int spare)
{
	int top = top_fd();
	struct rlimit rl;

	ASSERT_LE(0, top);
	ASSERT_EQ(0, getrlimit(RLIMIT_NOFILE, &rl));
	rl.rlim_cur = top + 1 > nr_fds() + spare ? top + 1 : nr_fds() + spare;
	ASSERT_EQ(0, setrlimit(RLIMIT_NOFILE, &rl));
	while (nr_fds() + spare < (int)rl.rlim_cur)
		ASSERT_LE(0, open("/dev/null", O_RDONLY | O_CLOEXEC));
	self->base_fds = nr_fds();
	self->max_fds = self->base_fds;
}

static void files_again(struct __test_metadata *_metadata)
{
	struct rlimit rl;

	ASSERT_EQ(0, getrlimit(RLIMIT_NOFILE, &rl));
	rl.rlim_cur = rl.rlim_max;
	ASSERT_EQ(0, setrlimit(RLIMIT_NOFILE, &rl));
}

static size_t heap_in_use(void)
{
	return mallinfo2().uordblks;
}

/* Events @first .. @first + @n - 1 on every CPU. */
static void write_round(struct __test_metadata *_metadata, struct seg *s,
			u64 first, u64 n)
{
	unsigned int cpu;
	u64 seq;

	for (cpu = 0; cpu < NR_CPUS; cpu++)
		for (seq = first; seq < first + n; seq++)
			ASSERT_EQ(0, seg_write_seq(s, cpu, seq, 0));
}

/* What the recording holds, after one step of it. */
static void measure(FIXTURE_DATA(cpus) *self)
{
	int fds = nr_fds();
	size_t heap = heap_in_use();

	if (fds > self->max_fds)
		self->max_fds = fds;
	if (heap > self->max_heap)
		self->max_heap = heap;
}

/* Every page of every CPU, then a flush; returns the events recorded. */
static long record_round(FIXTURE_DATA(cpus) *self, struct ivring_rec *w)
{
	struct ivring_page pg = { .sz = sizeof(pg) };
	long events = 0;
	u32 cpu;
	int ret;

	for (cpu = 0; cpu < NR_CPUS; cpu++) {
		while ((ret = ivring__rec_read(w, self->r, cpu,
					       IVRING_PAGE_PARTIAL, &pg)) > 0)
			events += pg.events;
		if (ret < 0)
			return ret;
		measure(self);
	}
	ret = ivring__rec_flush(w);
	measure(self);
	return ret < 0 ? ret : events;
}

FIXTURE_SETUP(cpus)
{
	struct ivring_open_opts o = { .sz = sizeof(o) };

	ASSERT_EQ(0, seg_create(&self->s, 32 << 20, NR_CPUS, 1024, 0,
				IVRING_MODE_DISCARD, NULL));
	ASSERT_EQ(0, ivring__open(self->s.path, &o, &self->r));
	strcpy(self->dir, "/tmp/ivring-rec-cpus.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	snprintf(self->path, sizeof(self->path), "%s/t", self->dir);
	self->base_fds = nr_fds();
	self->max_fds = self->base_fds;
	self->base_heap = heap_in_use();
	self->max_heap = self->base_heap;
}

FIXTURE_TEARDOWN(cpus)
{
	ivring__close(self->r);
	seg_destroy(&self->s);
	if (seg_rm_dir(self->dir))
		TH_LOG("could not remove %s", self->dir);
}

/*
 * @rounds rounds of @n events per CPU each into a recording of @format
 * with @flags; the fds and the heap it held checked.
 */
static void record_rounds(struct __test_metadata *_metadata,
			  FIXTURE_DATA(cpus) *self, unsigned int format,
			  unsigned int flags, unsigned int rounds, u64 n)
{
	struct ivring_rec_opts o = { .sz = sizeof(o), .format = format,
				     .flags = flags };
	struct ivring_rec *w;
	unsigned int k;

	ASSERT_EQ(0, ivring__rec_open(self->r, self->path, &o, &w))
		TH_LOG("%s", ivring__errmsg(self->r));
	measure(self);
	for (k = 0; k < rounds; k++) {
		write_round(_metadata, &self->s, k * n, n);
		ASSERT_EQ(NR_CPUS * n, record_round(self, w))
			TH_LOG("%s", ivring__rec_errmsg(w));
	}
	ASSERT_EQ(0, ivring__rec_close(w, NULL, 0));

	TH_LOG("fds: %d before, %d at most; heap: %zu KiB more at most",
	       self->base_fds, self->max_fds,
	       (self->max_heap - self->base_heap) >> 10);
	ASSERT_LE(self->max_fds, self->base_fds + RESIDENT + OTHER_FDS);
	ASSERT_EQ(self->base_fds, nr_fds());
	/*
	 * A CPU's buffer is 64 KiB (16 pages of a trace.dat) or a CTF
	 * stream's 64 KiB: 64 of them, and the recording's own state.  A
	 * buffer per CPU would be 63 MiB.
	 */
	if (MALLOC_COUNTED)
		ASSERT_LE(self->max_heap - self->base_heap, 16u << 20);
}

/*
 * Each CPU's seq 0 .. @total - 1, once each and in order, in @cmd's
 * lines: @form read at @field.
 */
static void check_rounds(struct __test_metadata *_metadata, const char *cmd,
			 const char *field, const char *form,
			 unsigned int total)
{
	static unsigned int seen[NR_CPUS];
	unsigned int seq, cpu, n = 0, bad = 0;
	char line[4096], *at;
	FILE *p = popen(cmd, "r");

	ASSERT_NE(NULL, p);
	memset(seen, 0, sizeof(seen));
	while (fgets(line, sizeof(line), p)) {
		at = strstr(line, field);
		if (!at || sscanf(at, form, &seq, &cpu) != 2)
			continue;
		n++;
		/* The next seq of the CPU it was written on. */
		if (cpu >= NR_CPUS || seen[cpu] != seq) {
			if (bad++ < 5)
				TH_LOG("out of place: %s", line);
			continue;
		}
		seen[cpu] = seq + 1;
	}
	ASSERT_EQ(0, pclose(p)) TH_LOG("%s", cmd);
	EXPECT_EQ(0, bad);
	EXPECT_EQ(total * NR_CPUS, n);
	for (cpu = 0; cpu < NR_CPUS; cpu++)
		if (seen[cpu] != total) {
			TH_LOG("CPU %u: %u of its %u events", cpu, seen[cpu],
			       total);
			ASSERT_EQ(total, seen[cpu]);
		}
}

static void check_tracedat(struct __test_metadata *_metadata,
			   FIXTURE_DATA(cpus) *self, unsigned int total)
{
	if (system("command -v trace-cmd >/dev/null"))
		SKIP(return, "no trace-cmd (Debian package trace-cmd)");
	snprintf(self->cmd, sizeof(self->cmd), "trace-cmd report -i %s",
		 self->path);
	check_rounds(_metadata, self->cmd, "seq=", "seq=%u cpu=%u", total);
}

TEST_F(cpus, tracedat_spooled)
{
	record_rounds(_metadata, self, IVRING_REC_TRACE_DAT, 0, 2, 1);
	check_tracedat(_metadata, self, 2);
}

/* Each CPU's spool flushed many times, and between them closed. */
TEST_F(cpus, tracedat_spooled_many_pages)
{
	record_rounds(_metadata, self, IVRING_REC_TRACE_DAT, 0, 3, 250);
	check_tracedat(_metadata, self, 750);
}

/* Each test runs in a process of its own: its limit dies with it. */
TEST_F(cpus, tracedat_short_of_files)
{
	short_of_files(_metadata, self, 3);
	record_rounds(_metadata, self, IVRING_REC_TRACE_DAT, 0, 2, 250);
	files_again(_metadata);
	check_tracedat(_metadata, self, 500);
}

TEST_F(cpus, ctf_short_of_files)
{
	short_of_files(_metadata, self, 3);
	record_rounds(_metadata, self, IVRING_REC_CTF, 0, 2, 1);
	files_again(_metadata);
	if (system("command -v babeltrace2 >/dev/null"))
		SKIP(return, "no babeltrace2 (Debian package babeltrace2)");
	snprintf(self->cmd, sizeof(self->cmd), "babeltrace2 %s", self->path);
	check_rounds(_metadata, self->cmd, "seq = ", "seq = %u, cpu = %u", 2);
}

TEST_F(cpus, tracedat_in_place)
{
	record_rounds(_metadata, self, IVRING_REC_TRACE_DAT,
		      IVRING_REC_SNAPSHOT, 2, 1);
	check_tracedat(_metadata, self, 2);
}

TEST_F(cpus, ctf)
{
	record_rounds(_metadata, self, IVRING_REC_CTF, 0, 2, 1);
	if (system("command -v babeltrace2 >/dev/null"))
		SKIP(return, "no babeltrace2 (Debian package babeltrace2)");
	snprintf(self->cmd, sizeof(self->cmd), "babeltrace2 %s", self->path);
	check_rounds(_metadata, self->cmd, "seq = ", "seq = %u, cpu = %u", 2);
}

/*
 * CPU 0's spool, closed for the CPUs after it, is replaced by another
 * file (@replace), or written to: the recording fails when CPU 0 next
 * writes, and the file put there keeps what it had.
 */
static void spool_changed(struct __test_metadata *_metadata,
			  FIXTURE_DATA(cpus) *self, bool replace)
{
	struct ivring_rec_opts o = { .sz = sizeof(o),
				     .format = IVRING_REC_TRACE_DAT };
	static const char planted[] = "not ours\n";
	char spool[160], other[160], back[sizeof(planted)] = { 0 };
	struct ivring_rec *w;
	off_t at = 0;
	int fd;

	write_round(_metadata, &self->s, 0, 1);
	ASSERT_EQ(0, ivring__rec_open(self->r, self->path, &o, &w));
	ASSERT_EQ(NR_CPUS, record_round(self, w));
	snprintf(spool, sizeof(spool), "%s.cpu0", self->path);
	snprintf(other, sizeof(other), "%s/other", self->dir);
	if (replace)
		fd = open(other, O_WRONLY | O_CREAT | O_EXCL, 0644);
	else
		fd = open(spool, O_WRONLY | O_APPEND);
	ASSERT_LE(0, fd);
	if (!replace)
		at = lseek(fd, 0, SEEK_END);
	ASSERT_EQ(sizeof(planted) - 1, write(fd, planted, sizeof(planted) - 1));
	close(fd);
	if (replace)
		ASSERT_EQ(0, rename(other, spool));

	write_round(_metadata, &self->s, 1, 1);
	EXPECT_EQ(-EEXIST, record_round(self, w));
	EXPECT_NE(NULL, strstr(ivring__rec_errmsg(w),
			       "replaced or changed by someone else while it was recorded"))
		TH_LOG("%s", ivring__rec_errmsg(w));
	/* A failed recording stays failed. */
	EXPECT_GT(0, ivring__rec_flush(w));
	ivring__rec_close(w, NULL, 0);

	fd = open(spool, O_RDONLY);
	ASSERT_LE(0, fd);
	EXPECT_EQ(sizeof(planted) - 1, pread(fd, back, sizeof(back), at));
	close(fd);
	EXPECT_STREQ(planted, back);
}

TEST_F(cpus, replaced_spool_refused)
{
	spool_changed(_metadata, self, true);
}

TEST_F(cpus, written_spool_refused)
{
	spool_changed(_metadata, self, false);
}

TEST_HARNESS_MAIN
