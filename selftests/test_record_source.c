// SPDX-License-Identifier: GPL-2.0 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * Recordings of pages from outside a segment (ivring__rec_open_source(),
 * ivring__page_parse(), ivring__rec_guest()): the host's own ring buffer.
 * Pages built here as the kernel lays them out are described exactly, and
 * pages that lie about their length, or records that overrun it, are
 * refused, never read past; random pages too.  A recording of them is a
 * trace.dat whose events and GUEST option libtraceevent's kbuffer and the
 * file's bytes show, or a CTF trace in the host's clock; the options that
 * a source cannot have are refused with a reason.  test_host_cli.sh reads such files with trace-cmd.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "libivring.h"

#define PAGE		4096
#define HDR		16

static const char fmt_text[] =
	"name: tick\nID: 7\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	"\tfield:int n;\toffset:8;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"n=%d\", REC->n\n";

/* A page of @n events of type 7, 1000 ns apart from @ts; returns its length. */
static uint32_t build_page(uint8_t *page, uint64_t ts, uint32_t n)
{
	uint32_t off = HDR, i;

	memset(page, 0, PAGE);
	memcpy(page, &ts, 8);
	for (i = 0; i < n; i++) {
		/* type_len 3: 12 bytes of data; delta 0 for the first */
		uint32_t h = 3 | ((i ? 1000 : 0) << 5);
		uint16_t type = 7;
		int32_t pid = 100 + i, v = (int32_t)i;

		memcpy(page + off, &h, 4);
		memcpy(page + off + 4, &type, 2);
		memcpy(page + off + 8, &pid, 4);
		memcpy(page + off + 12, &v, 4);
		off += 16;
	}
	ts = off - HDR;
	memcpy(page + 8, &ts, 8);
	return off - HDR;
}

static void set_commit(uint8_t *page, uint64_t commit)
{
	memcpy(page + 8, &commit, 8);
}

TEST(page_parse_describes_a_page)
{
	struct ivring_page pg = { .sz = sizeof(pg) };
	uint8_t page[PAGE];
	uint32_t len = build_page(page, 5000, 10);

	ASSERT_EQ(0, ivring__page_parse(page, PAGE, &pg));
	EXPECT_EQ(10, pg.events);
	EXPECT_EQ(len, pg.len);
	EXPECT_EQ(PAGE, pg.size);
	EXPECT_EQ(5000, pg.first_ts);
	EXPECT_EQ(5000 + 9 * 1000, pg.last_ts);
	EXPECT_EQ(0, pg.lost);
	EXPECT_EQ((const void *)page, pg.data);
}

TEST(page_parse_reads_the_kernels_loss_marks)
{
	struct ivring_page pg = { .sz = sizeof(pg) };
	uint8_t page[PAGE];
	uint64_t lost = 4242;
	uint32_t len = build_page(page, 1, 3);

	/* RB_MISSED_EVENTS | RB_MISSED_STORED, the count after the records */
	memcpy(page + HDR + len, &lost, 8);
	set_commit(page, len | (1ULL << 31) | (1ULL << 30));
	ASSERT_EQ(0, ivring__page_parse(page, PAGE, &pg));
	EXPECT_EQ(4242, pg.lost);
	EXPECT_EQ(3, pg.events);
	/* No room to store it: lost, but how many is not known. */
	set_commit(page, len | (1ULL << 31));
	ASSERT_EQ(1, ivring__page_parse(page, PAGE, &pg));
	EXPECT_EQ(0, pg.lost);
}

TEST(page_parse_refuses_lies)
{
	struct ivring_page pg = { .sz = sizeof(pg) };
	uint8_t page[PAGE];
	uint32_t len = build_page(page, 1, 4), h;

	/* A length beyond the page. */
	set_commit(page, PAGE - HDR + 8);
	EXPECT_EQ(-EINVAL, ivring__page_parse(page, PAGE, &pg));
	/* A page smaller than its header says: the same bytes, cut short. */
	set_commit(page, len);
	EXPECT_EQ(-EINVAL, ivring__page_parse(page, HDR + len - 4, &pg));
	/* A record longer than what is left of the length. */
	h = 0 | (0 << 5);
	memcpy(page + HDR + 3 * 16, &h, 4);
	h = 4000;
	memcpy(page + HDR + 3 * 16 + 4, &h, 4);
	EXPECT_EQ(-EBADMSG, ivring__page_parse(page, PAGE, &pg));
	EXPECT_EQ(-EINVAL, ivring__page_parse(NULL, PAGE, &pg));
	EXPECT_EQ(-EINVAL, ivring__page_parse(page, HDR, &pg));
}

/* Random pages, under ASan in the asan variant: refused or within bounds. */
TEST(page_parse_random_pages)
{
	struct ivring_page pg = { .sz = sizeof(pg) };
	uint8_t *page = malloc(PAGE);
	unsigned int i, ok = 0, k;

	ASSERT_NE(NULL, page);
	srandom(22);
	for (i = 0; i < 20000; i++) {
		uint64_t commit = random() % (PAGE + 64);
		int ret;

		for (k = 0; k < PAGE; k++)
			page[k] = random() >> 7;
		/* Mostly small records, so that some pages parse. */
		for (k = HDR; k < PAGE && (i & 1); k += 8)
			page[k] = (page[k] & 0xe0) | (1 + random() % 3);
		commit |= (uint64_t)(random() & 3) << 30;
		set_commit(page, commit);
		ret = ivring__page_parse(page, PAGE, &pg);
		ASSERT_TRUE(ret == 0 || ret == 1 || ret == -EINVAL ||
			    ret == -EBADMSG);
		if (ret >= 0) {
			ASSERT_LE(pg.len, PAGE - HDR);
			/* Every event takes 8 bytes at least. */
			ASSERT_LE((uint64_t)pg.events * 8, pg.len);
			ok++;
		}
	}
	free(page);
	/* Both outcomes were reached. */
	EXPECT_GT(ok, 100);
	EXPECT_LT(ok, 20000);
}

FIXTURE(src) {
	char dir[64];
	char path[96];
	char errbuf[512];
	struct ivring_rec_format fmt;
	struct ivring_rec_source s;
	struct ivring_rec_opts o;
};

FIXTURE_SETUP(src)
{
	strcpy(self->dir, "/tmp/ivring-src.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	snprintf(self->path, sizeof(self->path), "%s/host.dat", self->dir);
	self->fmt = (struct ivring_rec_format){
		.system = "test", .text = fmt_text, .len = strlen(fmt_text),
	};
	self->s = (struct ivring_rec_source){
		.sz = sizeof(self->s), .name = "host", .clock = "mono",
		.nr_cpus = 2, .page_size = PAGE, .formats = &self->fmt,
		.nr_formats = 1, .format_sz = sizeof(self->fmt),
	};
	self->o = (struct ivring_rec_opts){
		.sz = sizeof(self->o), .format = IVRING_REC_TRACE_DAT,
		.trace_id = 0x1234, .errbuf = self->errbuf,
		.errbuf_len = sizeof(self->errbuf),
	};
}

FIXTURE_TEARDOWN(src)
{
	char cmd[160];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", self->dir);
	if (system(cmd))
		TH_LOG("could not remove %s", self->dir);
}

/* Where @needle is in the file @path; -1 if nowhere. */
static long find_in(const char *path, const void *needle, size_t len,
		    uint8_t **buf, size_t *size)
{
	struct stat st;
	size_t i;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || fstat(fd, &st))
		return -1;
	*size = st.st_size;
	*buf = malloc(*size);
	if (!*buf || read(fd, *buf, *size) != (ssize_t)*size) {
		close(fd);
		return -1;
	}
	close(fd);
	for (i = 0; i + len <= *size; i++)
		if (!memcmp(*buf + i, needle, len))
			return i;
	return -1;
}

TEST_F(src, a_recording_with_a_guest)
{
	struct ivring_rec_stats st = { .sz = sizeof(st) };
	struct ivring_page pg = { .sz = sizeof(pg) };
	static const int tids[2] = { 4001, 4002 };
	uint8_t page[PAGE], *file = NULL, guest[64];
	struct ivring_rec *w;
	uint64_t id = 0xabcdef;
	uint32_t v;
	size_t size = 0;
	long at;

	ASSERT_EQ(0, ivring__rec_open_source(&self->s, self->path, &self->o, &w));
	build_page(page, 1000, 20);
	ASSERT_EQ(0, ivring__page_parse(page, PAGE, &pg));
	ASSERT_EQ(0, ivring__rec_page(w, 1, &pg));
	ASSERT_EQ(0, ivring__rec_guest(w, "vm0", id, 2, tids));
	/* The same trace id again replaces it. */
	ASSERT_EQ(0, ivring__rec_guest(w, "vm1", id, 2, tids));
	EXPECT_EQ(-EINVAL, ivring__rec_guest(w, "vm2", 1, 2, NULL));
	EXPECT_EQ(-EINVAL, ivring__rec_read(w, (struct ivring *)w, 0, 0, &pg));
	EXPECT_EQ(-EINVAL, ivring__rec_clock(w, (struct ivring *)w));
	ASSERT_EQ(0, ivring__rec_stats(w, &st));
	EXPECT_EQ(20, st.events);
	EXPECT_EQ(1, st.pages);
	ASSERT_EQ(0, ivring__rec_close(w, self->errbuf, sizeof(self->errbuf)));
	/* GUEST: "vm1\0", the id, 2 vCPUs, {0, 4001}, {1, 4002} */
	memcpy(guest, "vm1", 4);
	memcpy(guest + 4, &id, 8);
	v = 2;
	memcpy(guest + 12, &v, 4);
	v = 0;
	memcpy(guest + 16, &v, 4);
	memcpy(guest + 20, &tids[0], 4);
	v = 1;
	memcpy(guest + 24, &v, 4);
	memcpy(guest + 28, &tids[1], 4);
	at = find_in(self->path, guest, 32, &file, &size);
	EXPECT_GT(at, 0);
	/* Only once: vm0 was replaced. */
	memcpy(guest, "vm0", 4);
	free(file);
	file = NULL;
	EXPECT_EQ(-1, find_in(self->path, guest, 32, &file, &size));
	/* The page, whole, in the file. */
	free(file);
	file = NULL;
	EXPECT_GT(find_in(self->path, page, PAGE, &file, &size), 0);
	free(file);
}

TEST_F(src, what_a_source_cannot_have)
{
	struct ivring_rec *w = NULL;
	char bad[] = "name: x\nformat:\n";
	struct ivring_rec_format nofmt = {
		.system = "test", .text = bad, .len = strlen(bad),
	};

	self->o.flags = IVRING_REC_SNAPSHOT;
	EXPECT_EQ(-EINVAL, ivring__rec_open_source(&self->s, self->path,
						   &self->o, &w));
	EXPECT_NE(NULL, strstr(self->errbuf, "spooled trace.dat"));
	self->o.flags = 0;
	/* CTF is placed in CLOCK_REALTIME through mono: no other clock. */
	self->o.format = IVRING_REC_CTF;
	self->s.clock = "local";
	EXPECT_EQ(-EINVAL, ivring__rec_open_source(&self->s, self->path,
						   &self->o, &w));
	EXPECT_NE(NULL, strstr(self->errbuf, "trace clock mono"));
	self->s.clock = "mono";
	self->o.format = IVRING_REC_TRACE_DAT;
	self->s.formats = &nofmt;
	EXPECT_EQ(-EINVAL, ivring__rec_open_source(&self->s, self->path,
						   &self->o, &w));
	EXPECT_NE(NULL, strstr(self->errbuf, "no ID line"));
	self->s.formats = NULL;
	EXPECT_EQ(-EINVAL, ivring__rec_open_source(&self->s, self->path,
						   &self->o, &w));
	self->s.formats = &self->fmt;
	self->s.format_sz = 4;
	EXPECT_EQ(-EINVAL, ivring__rec_open_source(&self->s, self->path,
						   &self->o, &w));
	self->s.format_sz = sizeof(self->fmt);
	self->s.nr_cpus = 0;
	EXPECT_EQ(-EINVAL, ivring__rec_open_source(&self->s, self->path,
						   &self->o, &w));
	self->s.nr_cpus = 2;
	self->s.page_size = 3;
	EXPECT_EQ(-EINVAL, ivring__rec_open_source(&self->s, self->path,
						   &self->o, &w));
	EXPECT_EQ(NULL, w);
	/* Nothing was left behind by the refusals. */
	EXPECT_NE(0, access(self->path, F_OK));
}

/*
 * A CTF trace of the host's pages: the events at the page's own times, in
 * a clock that is the host's CLOCK_MONOTONIC, absolute, so that
 * babeltrace2 merges it with its guests' (test_host_cli.sh does).
 */
TEST_F(src, a_ctf_recording)
{
	struct ivring_page pg = { .sz = sizeof(pg) };
	uint8_t page[PAGE], *buf = NULL;
	char path[160];
	struct ivring_rec *w;
	size_t size = 0;
	uint32_t i, id;
	uint64_t ts;
	int32_t n;
	long at;

	snprintf(self->path, sizeof(self->path), "%s/host-ctf", self->dir);
	self->o.format = IVRING_REC_CTF;
	ASSERT_EQ(0, ivring__rec_open_source(&self->s, self->path, &self->o, &w));
	build_page(page, 5000, 20);
	ASSERT_EQ(0, ivring__page_parse(page, PAGE, &pg));
	ASSERT_EQ(0, ivring__rec_page(w, 1, &pg));
	ASSERT_EQ(0, ivring__rec_close(w, self->errbuf, sizeof(self->errbuf)));
	snprintf(path, sizeof(path), "%s/metadata", self->path);
	EXPECT_GE(find_in(path, "absolute = TRUE", 15, &buf, &size), 0);
	free(buf);
	EXPECT_GE(find_in(path, "CLOCK_MONOTONIC of host", 23, &buf, &size), 0);
	free(buf);
	EXPECT_GE(find_in(path, "name = \"test:tick\"", 18, &buf, &size), 0);
	free(buf);
	/* ctf_meta.c's layout: 84 bytes of packet, then id, time, fields. */
	snprintf(path, sizeof(path), "%s/channel0_1", self->path);
	at = find_in(path, "\xc1\x1f\xfc\xc1", 4, &buf, &size);
	ASSERT_EQ(0, at);
	ASSERT_LE(84 + 20 * 24, size);
	for (i = 0; i < 20; i++) {
		memcpy(&id, buf + 84 + i * 24, 4);
		memcpy(&ts, buf + 84 + i * 24 + 4, 8);
		memcpy(&n, buf + 84 + i * 24 + 20, 4);
		EXPECT_EQ(7, id);
		EXPECT_EQ(5000 + i * 1000, ts);
		EXPECT_EQ((int32_t)i, n);
	}
	free(buf);
}

TEST_HARNESS_MAIN
