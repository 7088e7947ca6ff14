// SPDX-License-Identifier: GPL-2.0 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * The API's contracts as libbpf keeps them: option and result structs grow
 * by their sz (unknown options must be zero, results never written past the
 * caller's sz, and sz says what was written), IVRING_OPTS() declares them,
 * every failed open says why in errbuf, a lookup tells a missing event from
 * a lack of memory, and a path of any length is taken whole.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <limits.h>
#include <sys/stat.h>

#include "kselftest_harness.h"
#include "seg_util.h"

FIXTURE(api)
{
	struct seg s;
};

FIXTURE_SETUP(api)
{
	ASSERT_EQ(0, seg_create(&self->s, 1 << 20, 2, 1024, 0,
				IVRING_MODE_DISCARD, NULL));
	ASSERT_EQ(0, seg_write_seq(&self->s, 0, 0, 0));
}

FIXTURE_TEARDOWN(api)
{
	seg_destroy(&self->s);
}

/* An options struct from a newer header, with its new fields after ours. */
struct newer_opts {
	struct ivring_open_opts o;
	uint64_t future;
};

TEST_F(api, open_opts_sz)
{
	struct newer_opts n = { 0 };
	char err[256];
	struct ivring *r = (void *)1;

	n.o.errbuf = err;
	n.o.errbuf_len = sizeof(err);

	/* Zero where we know nothing: fine. */
	n.o.sz = sizeof(n);
	ASSERT_EQ(0, ivring__open(self->s.path, &n.o, &r));
	ivring__close(r);

	/* Something asked that this library cannot do: refused, and said. */
	n.future = 1;
	err[0] = '\0';
	ASSERT_EQ(-EINVAL, ivring__open(self->s.path, &n.o, &r));
	ASSERT_EQ(NULL, r);
	ASSERT_NE(NULL, strstr(err, "fields this library does not know"))
		TH_LOG("%s", err);

	/* A struct from an older header: only what it has is read. */
	n.future = 0;
	n.o.sz = offsetof(struct ivring_open_opts, flags) + sizeof(n.o.flags);
	n.o.flags = IVRING_OPEN_PEEK;
	ASSERT_EQ(0, ivring__open(self->s.path, &n.o, &r));
	ivring__close(r);

	n.o.sz = 0;
	ASSERT_EQ(-EINVAL, ivring__open(self->s.path, &n.o, &r));
}

/* Every failure fills errbuf, the early ones too. */
TEST_F(api, errbuf_always)
{
	char err[256];
	struct ivring_open_opts o = { .sz = sizeof(o), .errbuf = err,
				      .errbuf_len = sizeof(err) };
	struct ivring *r;

	err[0] = '\0';
	o.flags = 1U << 30;
	ASSERT_EQ(-EINVAL, ivring__open(self->s.path, &o, &r));
	ASSERT_NE(NULL, strstr(err, "unknown flags")) TH_LOG("%s", err);

	err[0] = '\0';
	o.flags = 0;
	ASSERT_EQ(-EINVAL, ivring__open("", &o, &r));
	ASSERT_NE(0, err[0]);

	err[0] = '\0';
	ASSERT_EQ(-ENOENT, ivring__open("/nonexistent/seg", &o, &r));
	ASSERT_NE(NULL, strstr(err, "/nonexistent/seg: No such file"))
		TH_LOG("%s", err);

	/* And a success leaves nothing behind in errmsg. */
	ASSERT_EQ(0, ivring__open(self->s.path, &o, &r));
	ASSERT_STREQ("", ivring__errmsg(r));
	ivring__close(r);
}

/* A path longer than any fixed buffer: opened, and named whole. */
TEST_F(api, long_path)
{
	char path[PATH_MAX], err[PATH_MAX + 256];
	struct ivring_open_opts o = { .sz = sizeof(o), .errbuf = err,
				      .errbuf_len = sizeof(err) };
	struct ivring *r;
	size_t len = 0;
	int i;

	len = snprintf(path, sizeof(path), "/proc");
	for (i = 0; i < 500; i++)
		len += snprintf(path + len, sizeof(path) - len, "/.");
	snprintf(path + len, sizeof(path) - len, "/self/fd/%d", self->s.fd);
	ASSERT_GT(strlen(path), 1000);
	ASSERT_EQ(0, ivring__open(path, &o, &r)) TH_LOG("%s", err);
	ivring__close(r);

	strcat(path, "-missing");
	ASSERT_EQ(-ENOENT, ivring__open(path, &o, &r));
	ASSERT_NE(NULL, strstr(err, path)) TH_LOG("%s", err);
}

/* Results are written up to the caller's sz and not a byte further. */
TEST_F(api, info_sz)
{
	struct {
		struct ivring_info i;
		u8 canary[64];
	} big;
	struct ivring *r;
	size_t part = offsetof(struct ivring_info, nr_cpus);
	size_t k;

	ASSERT_EQ(0, seg_open(&self->s, IVRING_OPEN_PEEK, &r));
	memset(&big, 0xa5, sizeof(big));
	big.i.sz = part;
	ASSERT_EQ(0, ivring__info(r, &big.i));
	ASSERT_EQ(part, big.i.sz);
	ASSERT_EQ(IVRING_ABI_MAJOR, big.i.abi_major);
	for (k = part; k < sizeof(big); k++)
		ASSERT_EQ(0xa5, ((u8 *)&big)[k]) TH_LOG("byte %zu", k);

	memset(&big, 0xa5, sizeof(big));
	big.i.sz = sizeof(big.i);
	ASSERT_EQ(0, ivring__info(r, &big.i));
	ASSERT_EQ(2, big.i.nr_cpus);
	ASSERT_TRUE(big.i.peek);
	for (k = 0; k < sizeof(big.canary); k++)
		ASSERT_EQ(0xa5, big.canary[k]);

	big.i.sz = 1;
	ASSERT_EQ(-EINVAL, ivring__info(r, &big.i));
	ivring__close(r);
}

/*
 * Every result struct, filled for a caller that knows only its first
 * @part bytes: those written, sz set to them, nothing past them; for a
 * caller that knows more than the library, sz says what the library knows.
 */
#define RESULT_SZ(type, call, part) do {				\
		struct { struct type v; u8 canary[64]; } b;		\
		size_t k;						\
									\
		memset(&b, 0xa5, sizeof(b));				\
		b.v.sz = (part);					\
		ASSERT_LE(0, call(&b.v)) TH_LOG(#type);			\
		ASSERT_EQ((part), b.v.sz) TH_LOG(#type);		\
		for (k = (part); k < sizeof(b); k++)			\
			ASSERT_EQ(0xa5, ((u8 *)&b)[k])			\
				TH_LOG(#type ": byte %zu", k);		\
		memset(&b, 0, sizeof(b));				\
		b.v.sz = sizeof(b);					\
		ASSERT_LE(0, call(&b.v)) TH_LOG(#type);			\
		ASSERT_EQ(sizeof(b.v), b.v.sz) TH_LOG(#type);		\
	} while (0)

TEST_F(api, results_sz)
{
	struct ivring_rec_opts ro = { .sz = sizeof(ro),
				      .format = IVRING_REC_TRACE_DAT,
				      .flags = IVRING_REC_SNAPSHOT };
	char dir[] = "/tmp/ivring-api.XXXXXX", path[64];
	struct ivring_rec *w;
	struct ivring *r;

	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/t.dat", dir);
	ASSERT_EQ(0, seg_open(&self->s, IVRING_OPEN_PEEK, &r));
	ASSERT_EQ(0, ivring__rec_open(r, path, &ro, &w));

#define INFO(p)		ivring__info(r, p)
#define CPU_STATS(p)	ivring__cpu_stats(r, 0, p)
#define CLOCK_INFO(p)	ivring__clock_info(r, p)
#define FORMAT(p)	ivring__format(r, 0, p)
#define FORMAT_STATS(p)	ivring__format_stats(r, p)
#define REC_STATS(p)	ivring__rec_stats(w, p)
	RESULT_SZ(ivring_info, INFO, offsetof(struct ivring_info, nr_cpus));
	RESULT_SZ(ivring_cpu_stats, CPU_STATS,
		  offsetof(struct ivring_cpu_stats, read));
	RESULT_SZ(ivring_clock_info, CLOCK_INFO,
		  offsetof(struct ivring_clock_info, offset_ns));
	RESULT_SZ(ivring_format_info, FORMAT,
		  offsetof(struct ivring_format_info, text));
	RESULT_SZ(ivring_format_stats, FORMAT_STATS,
		  offsetof(struct ivring_format_stats, raw));
	RESULT_SZ(ivring_rec_stats, REC_STATS,
		  offsetof(struct ivring_rec_stats, lost));

	/* A page, too: it is read once, so a shorter caller reads it. */
	{
		struct { struct ivring_page pg; u8 canary[64]; } b;
		size_t part = offsetof(struct ivring_page, events), k;

		memset(&b, 0xa5, sizeof(b));
		b.pg.sz = part;
		ASSERT_EQ(1, ivring__read_page(r, 0, &b.pg, IVRING_PAGE_PARTIAL));
		ASSERT_EQ(part, b.pg.sz);
		for (k = part; k < sizeof(b); k++)
			ASSERT_EQ(0xa5, ((u8 *)&b)[k]) TH_LOG("byte %zu", k);
	}
	ivring__rec_close(w, NULL, 0);
	ivring__close(r);
	snprintf(path, sizeof(path), "rm -rf %s", dir);
	ASSERT_EQ(0, system(path));
}

/* IVRING_OPTS(): sz set, every other byte zero, the fields given set. */
TEST_F(api, opts_macro)
{
	struct ivring *r;
	size_t k;

	IVRING_OPTS(ivring_open_opts, o, .flags = IVRING_OPEN_PEEK);
	ASSERT_EQ(sizeof(o), o.sz);
	ASSERT_EQ(IVRING_OPEN_PEEK, o.flags);
	/* The padding after flags, where a later field could go, is zero. */
	for (k = offsetof(struct ivring_open_opts, flags) + sizeof(o.flags);
	     k < offsetof(struct ivring_open_opts, errbuf); k++)
		ASSERT_EQ(0, ((u8 *)&o)[k]);
	ASSERT_EQ(0, ivring__open(self->s.path, &o, &r));
	ivring__close(r);
}

/* A failed ivring__rec_open() says why in errbuf, and on the reader. */
TEST_F(api, rec_open_errbuf)
{
	char err[256] = "", path[] = "/tmp/ivring-api-never.dat";
	struct ivring_rec *w = (void *)1;
	struct ivring *r;

	IVRING_OPTS(ivring_rec_opts, ro, .format = 99, .errbuf = err,
		    .errbuf_len = sizeof(err));
	ASSERT_EQ(0, seg_open(&self->s, IVRING_OPEN_PEEK, &r));
	ASSERT_EQ(-EINVAL, ivring__rec_open(r, path, &ro, &w));
	ASSERT_EQ(NULL, w);
	ASSERT_NE(NULL, strstr(err, "unknown format 99")) TH_LOG("%s", err);
	ASSERT_STREQ(err, ivring__errmsg(r));

	/* No path: refused, and said too. */
	err[0] = '\0';
	ASSERT_EQ(-EINVAL, ivring__rec_open(r, "", &ro, &w));
	ASSERT_NE(NULL, strstr(err, "no path")) TH_LOG("%s", err);

	/* A failure of the file's, late in the open: said the same way. */
	err[0] = '\0';
	ro.format = IVRING_REC_CTF;
	ASSERT_GT(0, ivring__rec_open(r, "/nonexistent/ctf", &ro, &w));
	ASSERT_NE(NULL, strstr(err, "/nonexistent/ctf")) TH_LOG("%s", err);
	ASSERT_STREQ(err, ivring__errmsg(r));
	ivring__close(r);
}

/* Finding an event: found, not there (and why), never confused. */
TEST_F(api, find_event)
{
	struct tep_handle *tep = NULL;
	struct tep_event *ev = (void *)1;
	struct ivring *r;
	uint16_t id;

	ASSERT_EQ(0, seg_open(&self->s, IVRING_OPEN_PEEK, &r));
	ASSERT_EQ(0, ivring__get_tep(r, &tep));
	ASSERT_TRUE(tep == ivring__tep(r));
	ASSERT_EQ(1, ivring__match_events(r, "*", &id, 1) > 0);
	ASSERT_EQ(0, ivring__find_event(r, id, &ev));
	ASSERT_TRUE(ev == ivring__event(r, id));

	ASSERT_EQ(-ENOENT, ivring__find_event(r, 0xfffe, &ev));
	ASSERT_EQ(NULL, ev);
	ASSERT_NE(NULL, strstr(ivring__errmsg(r), "no format of this generation has event id 65534"))
		TH_LOG("%s", ivring__errmsg(r));
	/* The NULL of ivring__event() leaves no message: a miss is no failure. */
	ivring__close(r);
	ASSERT_EQ(0, seg_open(&self->s, IVRING_OPEN_PEEK, &r));
	ASSERT_EQ(NULL, ivring__event(r, 0xfffe));
	ASSERT_STREQ("", ivring__errmsg(r));
	ASSERT_EQ(-EINVAL, ivring__find_event(r, id, NULL));
	ivring__close(r);
}

/*
 * IVRING_OPEN_NOFOLLOW: a symlink at the path is refused (a name found in
 * a directory that others may write to); without it, followed.  The info
 * names the file opened.
 */
TEST_F(api, open_nofollow)
{
	struct ivring_open_opts o = { .sz = sizeof(o) };
	struct ivring_info info = { .sz = sizeof(info) };
	char dir[] = "/tmp/ivring-api.XXXXXX", link[64], err[256];
	struct ivring *r;
	struct stat st;

	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(link, sizeof(link), "%s/seg", dir);
	ASSERT_EQ(0, symlink(self->s.path, link));
	o.errbuf = err;
	o.errbuf_len = sizeof(err);
	o.flags = IVRING_OPEN_PEEK | IVRING_OPEN_NOFOLLOW;
	EXPECT_EQ(-ELOOP, ivring__open(link, &o, &r));
	EXPECT_NE(NULL, strstr(err, "a symlink, not followed"));
	o.flags = IVRING_OPEN_PEEK;
	ASSERT_EQ(0, ivring__open(link, &o, &r));
	ASSERT_EQ(0, ivring__info(r, &info));
	ASSERT_EQ(0, fstat(self->s.fd, &st));
	EXPECT_EQ((uint64_t)st.st_dev, info.file_dev);
	EXPECT_EQ((uint64_t)st.st_ino, info.file_ino);
	EXPECT_EQ((uint32_t)st.st_uid, info.file_uid);
	ivring__close(r);
	unlink(link);
	rmdir(dir);
}

/* The bytes mapped from the file at /proc/self/fd/@fd, from /proc/self/maps. */
static unsigned long long mapped_of(int fd)
{
	char want[64], line[512], path[256];
	unsigned long long total = 0, lo, hi;
	struct stat st;
	FILE *f;

	if (fstat(fd, &st))
		return 0;
	snprintf(want, sizeof(want), " %llu ", (unsigned long long)st.st_ino);
	f = fopen("/proc/self/maps", "r");
	while (f && fgets(line, sizeof(line), f))
		if (strstr(line, want) &&
		    sscanf(line, "%llx-%llx %*s %*s %*s %*s %255s", &lo, &hi,
			   path) == 3 && strstr(path, "ivring-test"))
			total += hi - lo;
	if (f)
		fclose(f);
	return total;
}

/*
 * A segment in a much bigger file maps only its stated size, and a file
 * that states a size beyond what a segment may have is not mapped: a
 * sparse file of 63 TiB was mapped whole.
 */
TEST_F(api, maps_the_stated_size)
{
	struct ivring_open_opts o = { .sz = sizeof(o), .flags = IVRING_OPEN_PEEK };
	unsigned long long before = mapped_of(self->s.fd);
	char err[256];
	struct ivring *r;

	ASSERT_EQ(0, ftruncate(self->s.fd, 63ULL << 40));
	ASSERT_EQ(0, ivring__open(self->s.path, &o, &r));
	EXPECT_EQ(before + self->s.size, mapped_of(self->s.fd));
	ivring__close(r);
	o.errbuf = err;
	o.errbuf_len = sizeof(err);
	self->s.w.hdr->segment_size = 63ULL << 40;
	EXPECT_EQ(-EFBIG, ivring__open(self->s.path, &o, &r));
	EXPECT_NE(NULL, strstr(err, "more than a segment may have")) TH_LOG("%s", err);
	EXPECT_EQ(before, mapped_of(self->s.fd));
	self->s.w.hdr->segment_size = self->s.size;
	ASSERT_EQ(0, ftruncate(self->s.fd, self->s.size));
}

/*
 * Where a write's failure may show only at fsync, recordings and text
 * sync before they consume; here (tmpfs, a pipe) nothing does, and a bad
 * fd says so.  This machine has no NFS or FUSE mount to show the 1.
 */
TEST(defers_errors)
{
	int p[2];

	ASSERT_EQ(0, pipe(p));
	EXPECT_EQ(0, ivring__fd_defers_errors(p[0]));
	close(p[0]);
	EXPECT_EQ(-EBADF, ivring__fd_defers_errors(p[0]));
	close(p[1]);
	p[0] = memfd_create("ivring-test", MFD_CLOEXEC);
	ASSERT_LE(0, p[0]);
	EXPECT_EQ(0, ivring__fd_defers_errors(p[0]));
	close(p[0]);
}

TEST_HARNESS_MAIN
