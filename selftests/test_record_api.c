// SPDX-License-Identifier: GPL-2.0 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * The recording API's contracts (ivring__rec_*): options by sz and refused
 * with a reason, pages that do not belong to the recording refused, a new
 * generation refused, counts that match what was read, nothing left behind
 * by a recording that completes or never started, a dead recording's
 * spools or snapshot never overwritten, and a write that fails leaving the
 * spools (or the snapshot as last flushed) and failing every later call; a
 * snapshot bounded by the segment's sub-buffers, what it refuses left in
 * the segment; options from a program built before they had flags; drops
 * after the last page carried by CTF and refused by trace.dat.
 * trace-cmd report reads the files in test_record_cli.sh; here the layout
 * is checked for what a reader relies on: the magic and version and,
 * spooled, every CPU's data page-aligned; a snapshot in place is walked
 * from its header to its options, cmdlines and each CPU's data after every
 * flush and at the end, with the fixture's 1 KiB sub-buffers in 4 KiB
 * pages and a lost-events count that only the larger page has room for.
 */
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <trace-cmd/trace-cmd.h>

#include "kselftest_harness.h"
#include "seg_util.h"

FIXTURE(rec)
{
	struct seg s;
	struct ivring *r;
	char dir[64];
	char path[128];
};

FIXTURE_SETUP(rec)
{
	struct ivring_open_opts o = { .sz = sizeof(o) };
	unsigned int cpu;
	u64 i;

	ASSERT_EQ(0, seg_create(&self->s, 1 << 20, 2, 1024, 0,
				IVRING_MODE_DISCARD, NULL));
	for (i = 0; i < 300; i++)
		for (cpu = 0; cpu < 2; cpu++)
			ASSERT_EQ(0, seg_write_seq(&self->s, cpu, i, 0));
	ASSERT_EQ(0, ivring__open(self->s.path, &o, &self->r));
	strcpy(self->dir, "/tmp/ivring-rec-api.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	snprintf(self->path, sizeof(self->path), "%s/t.dat", self->dir);
}

FIXTURE_TEARDOWN(rec)
{
	ivring__close(self->r);
	seg_destroy(&self->s);
	if (seg_rm_dir(self->dir))
		TH_LOG("could not remove %s", self->dir);
}

static bool exists(const char *dir, const char *name)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return !access(p, F_OK);
}

/* Every page of every CPU; returns the events recorded. */
static long record_all(struct ivring_rec *w, struct ivring *r, u32 nr_cpus)
{
	struct ivring_page pg = { .sz = sizeof(pg) };
	long events = 0;
	u32 cpu;
	int ret;

	for (cpu = 0; cpu < nr_cpus; cpu++) {
		while ((ret = ivring__rec_read(w, r, cpu, IVRING_PAGE_PARTIAL,
					       &pg)) > 0)
			events += pg.events;
		if (ret < 0)
			return ret;
	}
	return events;
}

TEST_F(rec, opts_refused_with_reason)
{
	struct {
		struct ivring_rec_opts o;
		uint64_t future;
	} n = { .o = { .sz = sizeof(n), .format = IVRING_REC_TRACE_DAT },
		.future = 0 };
	struct ivring_rec *w = (void *)1;

	n.future = 1;
	ASSERT_EQ(-EINVAL, ivring__rec_open(self->r, self->path, &n.o, &w));
	ASSERT_EQ(NULL, w);
	ASSERT_NE(NULL, strstr(ivring__errmsg(self->r), "unknown options"));

	n.future = 0;
	n.o.format = 99;
	ASSERT_EQ(-EINVAL, ivring__rec_open(self->r, self->path, &n.o, &w));
	ASSERT_NE(NULL, strstr(ivring__errmsg(self->r), "unknown format 99"));

	n.o.format = IVRING_REC_TRACE_DAT;
	n.o.version = 5;
	ASSERT_EQ(-EINVAL, ivring__rec_open(self->r, self->path, &n.o, &w));
	ASSERT_NE(NULL, strstr(ivring__errmsg(self->r), "only 6 and 7"));

	n.o.version = 0;
	n.o.sz = offsetof(struct ivring_rec_opts, format);
	ASSERT_EQ(-EINVAL, ivring__rec_open(self->r, self->path, &n.o, &w));

	n.o.sz = sizeof(n.o);
	n.o.flags = 1U << 7;
	ASSERT_EQ(-EINVAL, ivring__rec_open(self->r, self->path, &n.o, &w));
	ASSERT_NE(NULL, strstr(ivring__errmsg(self->r), "unknown flags 0x80"));

	n.o.flags = 0;
	n.o.compression = 9;
	ASSERT_EQ(-EINVAL, ivring__rec_open(self->r, self->path, &n.o, &w));
	ASSERT_NE(NULL, strstr(ivring__errmsg(self->r), "unknown compression 9"));

	n.o.compression = IVRING_REC_ZSTD;
	n.o.version = 6;
	ASSERT_EQ(-EINVAL, ivring__rec_open(self->r, self->path, &n.o, &w));
	ASSERT_NE(NULL, strstr(ivring__errmsg(self->r), "version 6 has no compression"));

	n.o.version = 0;
	n.o.format = IVRING_REC_CTF;
	ASSERT_EQ(-EINVAL, ivring__rec_open(self->r, self->path, &n.o, &w));
	ASSERT_NE(NULL, strstr(ivring__errmsg(self->r), "CTF 1.8 has no compression"));

	/* Nothing was created by any of them. */
	ASSERT_FALSE(exists(self->dir, "t.dat.cpu0"));
	ASSERT_FALSE(exists(self->dir, "t.dat.head"));
	ASSERT_FALSE(exists(self->dir, "t.dat.tmp"));
}

/*
 * A program built before ivring_rec_opts had flags passes the shorter sz:
 * accepted, as no flags, whatever follows its struct in memory.
 */
TEST_F(rec, opts_before_flags)
{
	struct ivring_rec_opts o = {
		.sz = offsetof(struct ivring_rec_opts, flags),
		.format = IVRING_REC_TRACE_DAT,
		.flags = IVRING_REC_SNAPSHOT,	/* beyond sz: not read */
	};
	struct ivring_rec *w;

	ASSERT_EQ(0, ivring__rec_open(self->r, self->path, &o, &w));
	ASSERT_TRUE(exists(self->dir, "t.dat.head"));	/* spooled */
	ASSERT_EQ(600, record_all(w, self->r, 2));
	ASSERT_EQ(0, ivring__rec_close(w, NULL, 0));
	ASSERT_TRUE(exists(self->dir, "t.dat"));
}

/*
 * The events that trace-cmd's own library reads from @path, and the sum
 * of their first 8 bytes of payload (the fixture's sequence numbers), or
 * -1 if it cannot open it.
 */
struct tc_count {
	long n;
	u64 seq_sum;
};

static int tc_count_one(struct tracecmd_input *h, struct tep_record *rec,
			int cpu, void *arg)
{
	struct tc_count *c = arg;
	u64 seq;

	if (rec->size >= (int)sizeof(struct synth_seq)) {
		memcpy(&seq, (const u8 *)rec->data +
		       offsetof(struct synth_seq, seq), 8);
		c->seq_sum += seq;
	}
	c->n++;
	return 0;
}

static long tracecmd_events(const char *path, u64 *seq_sum)
{
	struct tracecmd_input *h = tracecmd_open(path, 0);
	struct tc_count c = { 0 };

	if (!h)
		return -1;
	tracecmd_iterate_events(h, NULL, 0, tc_count_one, &c);
	tracecmd_close(h);
	*seq_sum = c.seq_sum;
	return c.n;
}

/*
 * A whole recording of the fixture's 600 events into a version @v file,
 * spooled or a snapshot (@flags), compressed or not (@z).
 */
static void counts_and_cleanup(struct __test_metadata *_metadata,
			       FIXTURE_DATA(rec) *self, unsigned int v,
			       unsigned int flags, unsigned int z)
{
	struct ivring_rec_opts o = { .sz = sizeof(o), .version = v,
				     .format = IVRING_REC_TRACE_DAT,
				     .flags = flags, .compression = z };
	bool in_place = flags && v != 6;
	struct ivring_rec_stats st = { .sz = sizeof(st) };
	struct ivring_rec *w;
	unsigned char head[24];
	struct stat sb;
	u64 sum;
	int fd;

	ASSERT_EQ(0, ivring__rec_open(self->r, self->path, &o, &w));
	ASSERT_EQ(!in_place, exists(self->dir, "t.dat.head"));
	/* A spool is made when its CPU has a page. */
	ASSERT_FALSE(exists(self->dir, "t.dat.cpu0"));
	ASSERT_EQ(in_place, exists(self->dir, "t.dat.tmp"));
	ASSERT_EQ(600, record_all(w, self->r, 2));
	ASSERT_EQ(0, ivring__rec_flush(w));
	ASSERT_EQ(!in_place, exists(self->dir, "t.dat.cpu0"));
	ASSERT_EQ(!in_place, exists(self->dir, "t.dat.cpu1"));
	ASSERT_EQ(0, ivring__rec_stats(w, &st));
	ASSERT_EQ(600, st.events);
	ASSERT_EQ(0, st.lost);
	ASSERT_EQ(0, ivring__rec_close(w, NULL, 0));

	ASSERT_FALSE(exists(self->dir, "t.dat.cpu0"));
	ASSERT_FALSE(exists(self->dir, "t.dat.cpu1"));
	ASSERT_FALSE(exists(self->dir, "t.dat.head"));
	ASSERT_FALSE(exists(self->dir, "t.dat.tmp"));
	fd = open(self->path, O_RDONLY);
	ASSERT_LE(0, fd);
	ASSERT_EQ(sizeof(head), read(fd, head, sizeof(head)));
	ASSERT_EQ(0, fstat(fd, &sb));
	close(fd);
	ASSERT_EQ(0, memcmp(head, "\x17\x08\x44tracing", 10));
	ASSERT_EQ('0' + (v ? v : 7), head[10]);
	/* Version 7: the compression's name follows the page size. */
	if (v != 6)
		ASSERT_EQ(0, memcmp(head + 18, z ? "zstd" : "none", 5));
	/* Spooled, the CPUs' data, whole pages, ends the file. */
	if (!in_place && !z)
		ASSERT_EQ(0, sb.st_size % 1024);
	/* Compressed: 600 events of 24 bytes are a few KiB, whatever the way. */
	if (z)
		ASSERT_GT(32768, sb.st_size);
	/* What trace-cmd reads: both CPUs' 0..299. */
	ASSERT_EQ(600, tracecmd_events(self->path, &sum));
	ASSERT_EQ(2 * 299 * 300 / 2, sum);

	/* Consumed: a second recording of the segment finds nothing. */
	ASSERT_EQ(0, ivring__commit(self->r));
	ASSERT_EQ(0, ivring__rec_open(self->r, self->path, &o, &w));
	ASSERT_EQ(0, record_all(w, self->r, 2));
	ASSERT_EQ(0, ivring__rec_close(w, NULL, 0));
}

TEST_F(rec, version_7)
{
	counts_and_cleanup(_metadata, self, 0, 0, 0);
}

TEST_F(rec, version_6)
{
	counts_and_cleanup(_metadata, self, 6, 0, 0);
}

TEST_F(rec, version_7_snapshot)
{
	counts_and_cleanup(_metadata, self, 7, IVRING_REC_SNAPSHOT, 0);
}

/* Version 6 cannot be written in place; a snapshot of it is spooled. */
TEST_F(rec, version_6_snapshot)
{
	counts_and_cleanup(_metadata, self, 6, IVRING_REC_SNAPSHOT, 0);
}

TEST_F(rec, version_7_zstd)
{
	counts_and_cleanup(_metadata, self, 7, 0, IVRING_REC_ZSTD);
}

TEST_F(rec, version_7_zstd_snapshot)
{
	counts_and_cleanup(_metadata, self, 7, IVRING_REC_SNAPSHOT,
			   IVRING_REC_ZSTD);
}

/*
 * A compressed snapshot is a whole trace.dat after every flush, as an
 * uncompressed one is: trace-cmd reads PATH.tmp with what was flushed,
 * half of CPU 0 and then all of both, and the file it ends as.
 */
TEST_F(rec, zstd_snapshot_whole_after_flush)
{
	struct ivring_rec_opts o = { .sz = sizeof(o),
				     .format = IVRING_REC_TRACE_DAT,
				     .flags = IVRING_REC_SNAPSHOT,
				     .compression = IVRING_REC_ZSTD };
	struct ivring_page pg = { .sz = sizeof(pg) };
	char tmp[PATH_MAX];
	struct ivring_rec *w;
	long events = 0;
	u64 sum;

	snprintf(tmp, sizeof(tmp), "%s.tmp", self->path);
	ASSERT_EQ(0, ivring__rec_open(self->r, self->path, &o, &w));
	ASSERT_EQ(0, tracecmd_events(tmp, &sum));
	while (events < 150) {
		ASSERT_EQ(1, ivring__rec_read(w, self->r, 0, 0, &pg));
		events += pg.events;
	}
	ASSERT_EQ(0, ivring__rec_flush(w));
	ASSERT_EQ(events, tracecmd_events(tmp, &sum));
	events += record_all(w, self->r, 2);
	ASSERT_EQ(600, events);
	ASSERT_EQ(0, ivring__rec_flush(w));
	ASSERT_EQ(600, tracecmd_events(tmp, &sum));
	ASSERT_EQ(2 * 299 * 300 / 2, sum);
	ASSERT_EQ(0, ivring__rec_close(w, NULL, 0));
	ASSERT_EQ(600, tracecmd_events(self->path, &sum));
	ASSERT_EQ(2 * 299 * 300 / 2, sum);
}

/*
 * A snapshot takes as many pages of a CPU as the segment has sub-buffers,
 * whether they come from rec_page or rec_read; what it refuses stays in
 * the segment for the next reader.
 */
TEST_F(rec, snapshot_bounded)
{
	struct ivring_rec_opts o = { .sz = sizeof(o),
				     .format = IVRING_REC_TRACE_DAT,
				     .flags = IVRING_REC_SNAPSHOT };
	struct ivring_info info = { .sz = sizeof(info) };
	struct ivring_page pg = { .sz = sizeof(pg) };
	struct ivring_rec_stats st = { .sz = sizeof(st) };
	static u8 page[1024];
	struct ivring_rec *w;
	u32 i;

	ASSERT_EQ(0, ivring__info(self->r, &info));
	ASSERT_LT(2, info.nr_subbufs);
	ASSERT_EQ(0, ivring__rec_open(self->r, self->path, &o, &w));
	/* CPU 0 full of copies of an empty page. */
	pg.data = page;
	pg.size = sizeof(page);
	for (i = 0; i < info.nr_subbufs; i++)
		ASSERT_EQ(0, ivring__rec_page(w, 0, &pg));
	ASSERT_EQ(-ENOBUFS, ivring__rec_page(w, 0, &pg));
	ASSERT_NE(NULL, strstr(ivring__rec_errmsg(w), "sub-buffers"));
	ASSERT_EQ(-ENOBUFS, ivring__rec_read(w, self->r, 0, 0, &pg));
	/* Not a failure: CPU 1 goes on, and the file completes. */
	ASSERT_EQ(1, ivring__rec_read(w, self->r, 1, 0, &pg));
	ASSERT_EQ(0, ivring__rec_flush(w));
	ASSERT_EQ(0, ivring__rec_stats(w, &st));
	ASSERT_EQ(info.nr_subbufs + 1, st.pages);
	ASSERT_EQ(0, ivring__rec_close(w, NULL, 0));
	ASSERT_TRUE(exists(self->dir, "t.dat"));
	ASSERT_FALSE(exists(self->dir, "t.dat.tmp"));

	/* CPU 0's events were never taken, CPU 1's first page was. */
	ASSERT_EQ(0, unlink(self->path));
	o.flags = 0;
	ASSERT_EQ(0, ivring__rec_open(self->r, self->path, &o, &w));
	ASSERT_EQ(300 + 300 - pg.events, record_all(w, self->r, 2));
	ASSERT_EQ(0, ivring__rec_close(w, NULL, 0));
}

/* The file's pages: the fixture's 1 KiB sub-buffers, in 4 KiB (TD_PAGE_MIN). */
#define FILE_PAGE	4096

/* A version 7 file, as a reader follows it (trace-cmd.dat.v7(5)). */
struct v7_file {
	u8 *p;
	size_t len;
	u64 offs[2], sizes[2];
};

static bool get(const struct v7_file *f, u64 at, void *out, size_t n)
{
	if (at > f->len || n > f->len - at)
		return false;
	memcpy(out, f->p + at, n);
	return true;
}

/* A section header's id at @at. */
static int section_id(const struct v7_file *f, u64 at)
{
	u16 id;

	return get(f, at, &id, 2) ? id : -1;
}

/*
 * Follows the header's pointer to the options, and from them to the
 * cmdlines section and the flyrecord buffer: fills each CPU's data.
 * Returns NULL if it parses, else what did not.
 */
static const char *v7_walk(const char *path, struct v7_file *f)
{
	u64 opts, at, b, end, size, fly;
	bool cmdlines = false, buffer = false;
	int fd = open(path, O_RDONLY);
	u32 len, cpus, cpu;
	struct stat st;
	u16 id;

	if (fd < 0 || fstat(fd, &st))
		return "open";
	f->len = st.st_size;
	f->p = malloc(f->len);
	if (!f->p || read(fd, f->p, f->len) != (ssize_t)f->len)
		return "read";
	close(fd);
	if (memcmp(f->p, "\x17\x08\x44tracing7\0\0\x08", 14))
		return "magic";
	/* the page size, "none", "", then the options' offset */
	if (!get(f, 14 + 4 + 5 + 1, &opts, 8) || section_id(f, opts) != 0 ||
	    !get(f, opts + 8, &size, 8))
		return "options section";
	end = opts + 16 + size;
	for (at = opts + 16; ; at += 6 + len) {
		if (at + 6 > end || !get(f, at, &id, 2) || !get(f, at + 2, &len, 4))
			return "option";
		if (id == 0)
			break;
		if (id == 21) {
			if (!get(f, at + 6, &size, 8) || section_id(f, size) != 21)
				return "cmdlines section";
			cmdlines = true;
		}
		if (id != 3)
			continue;
		/* the flyrecord section, "" (the top instance), the clock */
		if (!get(f, at + 6, &fly, 8) || section_id(f, fly) != 3)
			return "flyrecord section";
		b = at + 6 + 8 + 1;
		b += strnlen((char *)f->p + b, f->len - b) + 1 + 4;
		if (!get(f, b, &cpus, 4) || cpus != 2)
			return "buffer option";
		for (cpu = 0; cpu < 2; cpu++)
			if (!get(f, b + 4 + 20 * cpu + 4, &f->offs[cpu], 8) ||
			    !get(f, b + 4 + 20 * cpu + 12, &f->sizes[cpu], 8) ||
			    f->offs[cpu] % FILE_PAGE || f->sizes[cpu] % FILE_PAGE ||
			    f->offs[cpu] + f->sizes[cpu] > f->len)
				return "a CPU's data";
		buffer = true;
	}
	return !cmdlines ? "no cmdlines" : !buffer ? "no buffer option" : NULL;
}

/*
 * A snapshot in place, walked as a reader would after each flush and at
 * the end: CPU 1 (the last) filled to its bound with pages that say which
 * they are, so that at the end the metadata lands on the first slot,
 * which the header points at after an odd number of flushes (@flushes 1)
 * and not after an even one (2).  Its first page is full and follows lost
 * events: the count, for which the sub-buffer had no room, is in the
 * file's page after the records, flagged as the kernel flags it.
 */
static void snapshot_layout(struct __test_metadata *_metadata,
			    FIXTURE_DATA(rec) *self, int flushes)
{
	struct ivring_rec_opts o = { .sz = sizeof(o),
				     .format = IVRING_REC_TRACE_DAT,
				     .flags = IVRING_REC_SNAPSHOT };
	struct ivring_info info = { .sz = sizeof(info) };
	struct ivring_page pg = { .sz = sizeof(pg) };
	static u8 page[1024];
	char tmp[PATH_MAX];
	struct v7_file f = { 0 };
	struct ivring_rec *w;
	u64 stamp, commit;
	u32 i, n = 0;
	int k;

	ASSERT_EQ(0, ivring__info(self->r, &info));
	snprintf(tmp, sizeof(tmp), "%s.tmp", self->path);
	ASSERT_EQ(0, ivring__rec_open(self->r, self->path, &o, &w));
	ASSERT_EQ(NULL, v7_walk(tmp, &f));
	ASSERT_EQ(0, f.sizes[0] + f.sizes[1]);
	free(f.p);
	pg.data = page;
	pg.size = sizeof(page);
	for (k = 1; k <= flushes; k++) {
		for (; n < info.nr_subbufs * k / flushes; n++) {
			stamp = n + 1;
			commit = n ? 0 : (1024 - 16) | IVRING_COMMIT_MISSED_EVENTS;
			pg.len = n ? 0 : 1024 - 16;
			pg.lost = n ? 0 : 7;
			memcpy(page, &stamp, 8);
			memcpy(page + 8, &commit, 8);
			ASSERT_EQ(0, ivring__rec_page(w, 1, &pg));
		}
		ASSERT_EQ(0, ivring__rec_flush(w));
		ASSERT_EQ(NULL, v7_walk(tmp, &f));
		ASSERT_EQ(0, f.sizes[0]);
		ASSERT_EQ(n * FILE_PAGE, f.sizes[1]);
		free(f.p);
	}
	ASSERT_LT(0, record_all(w, self->r, 1));	/* CPU 0, unflushed */
	ASSERT_EQ(0, ivring__rec_close(w, NULL, 0));
	ASSERT_FALSE(exists(self->dir, "t.dat.tmp"));
	ASSERT_EQ(NULL, v7_walk(self->path, &f));
	ASSERT_LT(0, f.sizes[0]);
	ASSERT_EQ(info.nr_subbufs * FILE_PAGE, f.sizes[1]);
	for (i = 0; i < info.nr_subbufs; i++) {
		memcpy(&stamp, f.p + f.offs[1] + i * FILE_PAGE, 8);
		ASSERT_EQ(i + 1, stamp);
	}
	memcpy(&commit, f.p + f.offs[1] + 8, 8);
	ASSERT_EQ((1024 - 16) | IVRING_COMMIT_MISSED_EVENTS |
		  IVRING_COMMIT_MISSED_STORED, commit);
	memcpy(&stamp, f.p + f.offs[1] + 16 + 1024 - 16, 8);
	ASSERT_EQ(7, stamp);
	/* The rest of a page, after the sub-buffer, is empty. */
	memcpy(&stamp, f.p + f.offs[1] + FILE_PAGE + 1024, 8);
	ASSERT_EQ(0, stamp);
	/* The metadata follows the last CPU's data; the file ends with it. */
	ASSERT_GT(f.len, f.offs[1] + f.sizes[1]);
	ASSERT_GT(f.offs[1] + f.sizes[1] + 65536, f.len);
	free(f.p);
}

TEST_F(rec, snapshot_layout_odd_flushes)
{
	snapshot_layout(_metadata, self, 1);
}

TEST_F(rec, snapshot_layout_even_flushes)
{
	snapshot_layout(_metadata, self, 2);
}

/*
 * A snapshot recorder that dies after a flush leaves @path.tmp, which
 * holds the pages it flushed; nothing overwrites it.
 */
TEST_F(rec, dead_snapshot_kept)
{
	struct ivring_rec_opts o = { .sz = sizeof(o),
				     .format = IVRING_REC_TRACE_DAT,
				     .flags = IVRING_REC_SNAPSHOT };
	struct ivring_page pg = { .sz = sizeof(pg) };
	struct ivring_rec *w = (void *)1;
	struct stat a, b;
	char p[PATH_MAX];
	int status;
	pid_t pid;

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		if (ivring__rec_open(self->r, self->path, &o, &w) ||
		    ivring__rec_read(w, self->r, 0, 0, &pg) != 1 ||
		    ivring__rec_flush(w))
			_exit(1);
		_exit(0);	/* as if killed: no rec_close */
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_EQ(0, status);
	snprintf(p, sizeof(p), "%s.tmp", self->path);
	ASSERT_EQ(0, stat(p, &a));
	ASSERT_FALSE(exists(self->dir, "t.dat"));
	ASSERT_FALSE(exists(self->dir, "t.dat.cpu0"));

	w = (void *)1;
	ASSERT_EQ(-EEXIST, ivring__rec_open(self->r, self->path, &o, &w));
	ASSERT_EQ(NULL, w);
	ASSERT_NE(NULL, strstr(ivring__errmsg(self->r), "t.dat.tmp exists"));
	/* Spooled, it is refused as well: the file it would be renamed over. */
	o.flags = 0;
	ASSERT_EQ(-EEXIST, ivring__rec_open(self->r, self->path, &o, &w));
	ASSERT_NE(NULL, strstr(ivring__errmsg(self->r), "t.dat.tmp exists"));
	ASSERT_EQ(0, stat(p, &b));
	ASSERT_EQ(a.st_size, b.st_size);
	ASSERT_EQ(a.st_mtim.tv_nsec, b.st_mtim.tv_nsec);
	ASSERT_FALSE(exists(self->dir, "t.dat.cpu0"));
}

TEST_F(rec, foreign_pages_refused)
{
	struct ivring_rec_opts o = { .sz = sizeof(o),
				     .format = IVRING_REC_TRACE_DAT };
	struct ivring_page pg = { .sz = sizeof(pg) };
	static u8 page[4096];
	struct ivring_rec *w;

	ASSERT_EQ(0, ivring__rec_open(self->r, self->path, &o, &w));
	pg.data = page;
	pg.size = 4096;		/* the segment's are 1024 */
	ASSERT_EQ(-EINVAL, ivring__rec_page(w, 0, &pg));
	ASSERT_NE(NULL, strstr(ivring__rec_errmsg(w), "4096 bytes"));
	pg.size = 1024;
	pg.len = 1024;		/* no room for the page header */
	ASSERT_EQ(-EINVAL, ivring__rec_page(w, 0, &pg));
	pg.len = 0;
	ASSERT_EQ(-EINVAL, ivring__rec_page(w, 2, &pg));
	ASSERT_NE(NULL, strstr(ivring__rec_errmsg(w), "CPU 2"));
	ASSERT_EQ(-EINVAL, ivring__rec_read(w, self->r, 7, 0, &pg));
	ASSERT_EQ(0, ivring__rec_close(w, NULL, 0));
}

/*
 * Drops after the last page (ivring__rec_lost()): a trace.dat cannot carry
 * them, a CTF trace carries them in one more packet of the CPU's stream,
 * with no event, whose events_discarded (the sixth word of its context,
 * after the 32-byte header) counts them; the stats count them then.
 */
TEST_F(rec, lost_after_the_last_page)
{
	struct ivring_rec_opts o = { .sz = sizeof(o),
				     .format = IVRING_REC_TRACE_DAT };
	struct ivring_rec_stats st = { .sz = sizeof(st) };
	char ctf[PATH_MAX], stream[PATH_MAX + 16];
	u64 discarded;
	struct stat sb;
	off_t before;
	u32 magic;
	int fd;
	struct ivring_rec *w;

	ASSERT_EQ(0, ivring__rec_open(self->r, self->path, &o, &w));
	ASSERT_EQ(0, ivring__rec_lost(w, 0, 5));
	ASSERT_EQ(-EINVAL, ivring__rec_lost(w, 2, 5));
	ASSERT_EQ(0, ivring__rec_stats(w, &st));
	ASSERT_EQ(0, st.lost);
	ASSERT_EQ(0, ivring__rec_close(w, NULL, 0));

	snprintf(ctf, sizeof(ctf), "%s/ctf", self->dir);
	snprintf(stream, sizeof(stream), "%s/channel0_1", ctf);
	o.format = IVRING_REC_CTF;
	ASSERT_EQ(0, ivring__rec_open(self->r, ctf, &o, &w));
	ASSERT_EQ(600, record_all(w, self->r, 2));
	ASSERT_EQ(0, ivring__rec_flush(w));
	ASSERT_EQ(0, stat(stream, &sb));
	before = sb.st_size;
	ASSERT_EQ(1, ivring__rec_lost(w, 1, 0));
	ASSERT_EQ(1, ivring__rec_lost(w, 1, 7));
	ASSERT_EQ(0, ivring__rec_stats(w, &st));
	ASSERT_EQ(7, st.lost);
	ASSERT_EQ(0, ivring__rec_close(w, NULL, 0));
	ASSERT_EQ(0, stat(stream, &sb));
	ASSERT_LT(before, sb.st_size);
	fd = open(stream, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(4, pread(fd, &magic, 4, before));
	ASSERT_EQ(0xc1fc1fc1U, magic);
	ASSERT_EQ(8, pread(fd, &discarded, 8, before + 32 + 5 * 8));
	close(fd);
	ASSERT_EQ(7, discarded);
}

TEST_F(rec, new_generation_refused)
{
	struct ivring_rec_opts o = { .sz = sizeof(o),
				     .format = IVRING_REC_TRACE_DAT };
	struct ivring_page pg = { .sz = sizeof(pg) };
	struct ivring_event ev;
	struct ivring_rec *w;

	ASSERT_EQ(0, ivring__rec_open(self->r, self->path, &o, &w));
	ASSERT_EQ(0, seg_reformat(&self->s, 1024));
	ASSERT_EQ(0, seg_write_seq(&self->s, 0, 0, 0));
	/* The reader moves on; the recording stays at its generation. */
	ASSERT_EQ(-ESTALE, ivring__next(self->r, &ev));
	ASSERT_EQ(-ESTALE, ivring__rec_read(w, self->r, 0, 0, &pg));
	ASSERT_NE(NULL, strstr(ivring__rec_errmsg(w), "generation"));
	ASSERT_EQ(0, ivring__rec_close(w, NULL, 0));
}

/* Spooled and as a snapshot. */
static void dead_spools_kept(struct __test_metadata *_metadata,
			     FIXTURE_DATA(rec) *self, unsigned int flags)
{
	struct ivring_rec_opts o = { .sz = sizeof(o), .flags = flags,
				     .format = IVRING_REC_TRACE_DAT };
	char p[PATH_MAX], buf[8] = "";
	struct ivring_rec *w = (void *)1;
	int fd;

	/* A recorder that died left CPU 1's spool and its head. */
	snprintf(p, sizeof(p), "%s.cpu1", self->path);
	fd = open(p, O_WRONLY | O_CREAT, 0644);
	ASSERT_LE(0, fd);
	ASSERT_EQ(4, write(fd, "dead", 4));
	close(fd);
	snprintf(p, sizeof(p), "%s.head", self->path);
	fd = open(p, O_WRONLY | O_CREAT, 0644);
	ASSERT_LE(0, fd);
	close(fd);

	ASSERT_EQ(-EEXIST, ivring__rec_open(self->r, self->path, &o, &w));
	ASSERT_EQ(NULL, w);
	ASSERT_NE(NULL, strstr(ivring__errmsg(self->r), "t.dat.cpu1 exists"));
	/* Untouched, and ours (cpu0) gone again. */
	snprintf(p, sizeof(p), "%s.cpu1", self->path);
	fd = open(p, O_RDONLY);
	ASSERT_LE(0, fd);
	ASSERT_EQ(4, read(fd, buf, sizeof(buf)));
	close(fd);
	ASSERT_EQ(0, memcmp(buf, "dead", 4));
	ASSERT_TRUE(exists(self->dir, "t.dat.head"));
	ASSERT_FALSE(exists(self->dir, "t.dat.cpu0"));
	ASSERT_FALSE(exists(self->dir, "t.dat.tmp"));
}

TEST_F(rec, dead_spools_kept)
{
	dead_spools_kept(_metadata, self, 0);
}

TEST_F(rec, dead_spools_kept_by_snapshot)
{
	dead_spools_kept(_metadata, self, IVRING_REC_SNAPSHOT);
}

/*
 * A file size limit stands in for a full disk.  Spooled, the spools stay;
 * a snapshot stays as flushed last (when it was opened, here: empty).
 */
static void failed_write_keeps(struct __test_metadata *_metadata,
			       FIXTURE_DATA(rec) *self, unsigned int flags)
{
	struct ivring_rec_opts o = { .sz = sizeof(o), .flags = flags,
				     .format = IVRING_REC_TRACE_DAT };
	struct ivring_page pg = { .sz = sizeof(pg) };
	struct rlimit rl, old;
	char err[PATH_MAX + 512] = "";
	struct ivring_rec *w;
	int ret = 0;

	signal(SIGXFSZ, SIG_IGN);
	ASSERT_EQ(0, ivring__rec_open(self->r, self->path, &o, &w));
	ASSERT_EQ(0, getrlimit(RLIMIT_FSIZE, &old));
	rl = old;
	rl.rlim_cur = 2048;
	ASSERT_EQ(0, setrlimit(RLIMIT_FSIZE, &rl));
	while (ret >= 0 && (ret = ivring__rec_read(w, self->r, 0, 0, &pg)) > 0)
		;
	if (ret >= 0)
		ret = ivring__rec_flush(w);
	ASSERT_EQ(-EFBIG, ret);
	ASSERT_NE(NULL, strstr(ivring__rec_errmsg(w),
			       flags ? "t.dat.tmp" : "t.dat.cpu0"));
	/* Every later call fails, and says why. */
	ASSERT_EQ(-EIO, ivring__rec_flush(w));
	ASSERT_NE(NULL, strstr(ivring__rec_errmsg(w), "an earlier write failed"));
	ASSERT_GT(0, ivring__rec_close(w, err, sizeof(err)));
	ASSERT_EQ(0, setrlimit(RLIMIT_FSIZE, &old));
	ASSERT_NE('\0', err[0]);
	ASSERT_EQ(!flags, exists(self->dir, "t.dat.cpu0"));
	ASSERT_EQ(!flags, exists(self->dir, "t.dat.head"));
	ASSERT_EQ(!!flags, exists(self->dir, "t.dat.tmp"));
	ASSERT_FALSE(exists(self->dir, "t.dat"));
}

TEST_F(rec, failed_write_keeps_spools)
{
	failed_write_keeps(_metadata, self, 0);
}

TEST_F(rec, failed_write_keeps_snapshot)
{
	failed_write_keeps(_metadata, self, IVRING_REC_SNAPSHOT);
}

TEST_HARNESS_MAIN
