// SPDX-License-Identifier: GPL-2.0 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * The hand-over of a live migration, without QEMU: the segment is copied
 * to a second file as QEMU copies it, the writer (whose private state is
 * guest memory, which migrates) goes on writing into the copy, and a
 * second reader takes over from the first one's checkpoint.
 *
 * As QEMU does, the copy carries the host area as it was when its page was
 * sent, early, not as the source's reader left it: only the guest's writes
 * are tracked.  With the checkpoint every event is delivered once; without
 * it, events repeat, no more than the destination's reader says.
 * vm/migrate.sh does the same through QEMU.
 */
#include <fcntl.h>
#include <stdint.h>
#include <sys/stat.h>

#include "kselftest_harness.h"
#include "seg_util.h"

#define NR_CPUS		2
#define NR_SUBBUFS	32

FIXTURE(ckpt)
{
	struct seg s;
	u64 written[NR_CPUS];	/* events written per CPU: seq 0 .. n-1 */
	u8 *host_copy;		/* the host area as the migration sent it */
	char path[64];		/* the checkpoint */
	u64 seen[NR_CPUS];	/* next seq expected per CPU */
	u64 dup, lost;
};

FIXTURE_VARIANT(ckpt)
{
	u32 mode;
};

FIXTURE_VARIANT_ADD(ckpt, discard) { .mode = IVRING_MODE_DISCARD };
FIXTURE_VARIANT_ADD(ckpt, overwrite) { .mode = IVRING_MODE_OVERWRITE };

static int write_n(struct seg *s, u64 *written, unsigned int n)
{
	unsigned int cpu, i;

	for (i = 0; i < n; i++)
		for (cpu = 0; cpu < NR_CPUS; cpu++) {
			if (seg_write_seq(s, cpu, written[cpu], 0) &&
			    s->p.mode == IVRING_MODE_OVERWRITE)
				return -1;
			/* a drop takes its ticket too: the seq moves on */
			written[cpu]++;
		}
	return 0;
}

/*
 * Read up to @max events (0: all there are), checking each CPU's seqs: a
 * seq below the next expected one is a repeat, one above it must be
 * announced by ev.lost.
 */
static int read_n(struct __test_metadata *_metadata, FIXTURE_DATA(ckpt) *self,
		  struct ivring *r, unsigned int max)
{
	struct ivring_event ev;
	unsigned int n = 0;
	int ret;

	while ((!max || n < max) && (ret = ivring__next(r, &ev)) == 1) {
		u64 seq = seg_seq_of(&ev);

		n++;
		if (seq < self->seen[ev.cpu]) {
			self->dup++;
			continue;
		}
		EXPECT_EQ(self->seen[ev.cpu] + ev.lost, seq);
		self->lost += ev.lost;
		self->seen[ev.cpu] = seq + 1;
	}
	return n;
}

FIXTURE_SETUP(ckpt)
{
	const struct ivring_header *h;

	ASSERT_EQ(0, seg_create(&self->s, 1 << 20, NR_CPUS, 4096, NR_SUBBUFS,
				variant->mode, NULL));
	h = (const void *)self->s.base;
	self->host_copy = malloc(h->host_size);
	ASSERT_NE(NULL, self->host_copy);
	snprintf(self->path, sizeof(self->path), "/tmp/ivring-ckpt-%d", getpid());
	memset(self->written, 0, sizeof(self->written));
	memset(self->seen, 0, sizeof(self->seen));
	self->dup = self->lost = 0;
}

FIXTURE_TEARDOWN(ckpt)
{
	unlink(self->path);
	free(self->host_copy);
	seg_destroy(&self->s);
}

/* QEMU's first pass sends the host area's page: keep it as it is now. */
static void send_host_area(FIXTURE_DATA(ckpt) *self)
{
	const struct ivring_header *h = (const void *)self->s.base;

	memcpy(self->host_copy, self->s.base + h->host_offset, h->host_size);
}

/*
 * The migration completes: the destination's file holds the segment as
 * the guest left it, but the host area as it was sent.  The writer goes
 * on in the destination's file, at the same address.
 */
static int complete_migration(FIXTURE_DATA(ckpt) *self)
{
	const struct ivring_header *h = (const void *)self->s.base;
	int fd = memfd_create("ivring-dst", MFD_CLOEXEC);
	void *p;

	if (fd < 0 || ftruncate(fd, self->s.size) ||
	    pwrite(fd, self->s.base, self->s.size, 0) != (ssize_t)self->s.size ||
	    pwrite(fd, self->host_copy, h->host_size, h->host_offset) !=
		    (ssize_t)h->host_size)
		return -1;
	p = mmap(self->s.base, self->s.size, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_FIXED, fd, 0);
	if (p != self->s.base)
		return -1;
	close(self->s.fd);
	self->s.fd = fd;
	snprintf(self->s.path, sizeof(self->s.path), "/proc/self/fd/%d", fd);
	return 0;
}

static void info_of(struct ivring *r, struct ivring_info *info)
{
	memset(info, 0, sizeof(*info));
	info->sz = sizeof(*info);
	ivring__info(r, info);
}

/*
 * The source host: the guest writes @n1 events per CPU, the reader consumes
 * @k in all, the host area is sent, the guest writes @n2 more, the reader
 * is told the migration completed and drains, saving a checkpoint if @ckpt;
 * the migration completes.
 */
static void run_source(struct __test_metadata *_metadata,
		       FIXTURE_DATA(ckpt) *self, unsigned int n1,
		       unsigned int k, unsigned int n2, bool ckpt)
{
	struct ivring *r;

	ASSERT_EQ(0, write_n(&self->s, self->written, n1));
	ASSERT_EQ(0, seg_open(&self->s, 0, &r));
	ASSERT_EQ(k, read_n(_metadata, self, r, k));
	ivring__commit(r);
	send_host_area(self);
	ASSERT_EQ(0, write_n(&self->s, self->written, n2));
	read_n(_metadata, self, r, 0);
	ASSERT_EQ(0, ivring__commit(r));
	if (ckpt)
		ASSERT_EQ(0, ivring__checkpoint_save(r, self->path));
	ivring__close(r);
	ASSERT_EQ(0, complete_migration(self));
}

/*
 * A source reader that consumed 300 events when the host area was sent and
 * many more by the end; it drains and saves.  The guest writes on in the
 * destination, and its reader starts from the checkpoint: each event once.
 */
TEST_F(ckpt, handover)
{
	struct ivring_info info;
	struct ivring *r;
	unsigned int cpu;

	run_source(_metadata, self, 400, 300, 300, true);

	/* Past the ring: dropped, or overwritten, before the reader starts. */
	ASSERT_EQ(0, write_n(&self->s, self->written, 5000));
	ASSERT_EQ(0, seg_open(&self->s, 0, &r));
	info_of(r, &info);
	EXPECT_EQ(IVRING_RESUMED_COPIED, info.resumed);
	ASSERT_EQ(0, ivring__checkpoint_load(r, self->path));
	info_of(r, &info);
	EXPECT_EQ(IVRING_RESUMED_CHECKPOINT, info.resumed);
	read_n(_metadata, self, r, 0);
	/* Drops show at the next event that is written: free room, write one. */
	ASSERT_EQ(0, write_n(&self->s, self->written, 1));
	read_n(_metadata, self, r, 0);
	ivring__close(r);
	EXPECT_EQ(0, self->dup);
	for (cpu = 0; cpu < NR_CPUS; cpu++)
		EXPECT_EQ(self->written[cpu], self->seen[cpu]);
	/* The loss is what the writer dropped or overwrote, and counted. */
	EXPECT_LT(0, self->lost);
	EXPECT_GT(5000 * NR_CPUS, self->lost);
}

/* No checkpoint: repeats, as many as the reader said at most, no loss. */
TEST_F(ckpt, no_checkpoint)
{
	struct ivring_info info;
	struct ivring *r;
	unsigned int cpu;

	run_source(_metadata, self, 10, 20, 50, false);

	ASSERT_EQ(0, seg_open(&self->s, 0, &r));
	info_of(r, &info);
	EXPECT_EQ(IVRING_RESUMED_COPIED, info.resumed);
	ASSERT_EQ(0, write_n(&self->s, self->written, 10));
	read_n(_metadata, self, r, 0);
	ivring__close(r);
	EXPECT_EQ(100, self->dup);
	EXPECT_LE(self->dup, info.may_repeat);
	EXPECT_EQ(0, self->lost);
	for (cpu = 0; cpu < NR_CPUS; cpu++)
		EXPECT_EQ(self->written[cpu], self->seen[cpu]);

	/* The reader after it resumes from its own positions. */
	ASSERT_EQ(0, seg_open(&self->s, 0, &r));
	info_of(r, &info);
	EXPECT_EQ(IVRING_RESUMED_POSITIONS, info.resumed);
	EXPECT_EQ(0, info.may_repeat);
	ivring__close(r);
}

static int write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

static char *read_file(const char *path)
{
	static char buf[4096];
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return buf;
}

/* Checkpoints that do not belong, or are not whole, change nothing. */
TEST_F(ckpt, refused)
{
	char good[4096], bad[4096], *p;
	struct ivring_event ev;
	struct ivring *r;

	ASSERT_EQ(0, write_n(&self->s, self->written, 50));
	ASSERT_EQ(0, seg_open(&self->s, 0, &r));
	ASSERT_EQ(-ENOENT, ivring__checkpoint_load(r, "/nonexistent/ckpt"));
	ASSERT_EQ(10, read_n(_metadata, self, r, 10));
	ivring__commit(r);
	ASSERT_EQ(0, ivring__checkpoint_save(r, self->path));
	/* A reader that has returned events cannot jump. */
	EXPECT_EQ(-EBUSY, ivring__checkpoint_load(r, self->path));
	ivring__close(r);
	snprintf(good, sizeof(good), "%s", read_file(self->path));

	/* Cut short: no "end" line. */
	snprintf(bad, sizeof(bad), "%s", good);
	*strstr(bad, "end ") = '\0';
	ASSERT_EQ(0, write_file(self->path, bad));
	ASSERT_EQ(0, seg_open(&self->s, 0, &r));
	EXPECT_EQ(-EINVAL, ivring__checkpoint_load(r, self->path));
	/* Another layout. */
	snprintf(bad, sizeof(bad), "%s", good);
	p = strstr(bad, " 4096 ");
	ASSERT_NE(NULL, p);
	memcpy(p, " 2048 ", 6);
	ASSERT_EQ(0, write_file(self->path, bad));
	EXPECT_EQ(-EINVAL, ivring__checkpoint_load(r, self->path));
	/* Ahead of what this segment ever published. */
	p = strstr(good, "cpu 1 ");
	ASSERT_NE(NULL, p);
	snprintf(bad, sizeof(bad), "%.*scpu 1 9999%s", (int)(p - good), good,
		 p + 6);
	ASSERT_EQ(0, write_file(self->path, bad));
	EXPECT_EQ(-ERANGE, ivring__checkpoint_load(r, self->path));
	/* Garbage. */
	ASSERT_EQ(0, write_file(self->path, "ivring-checkpoint 1\ngeneration x\n"));
	EXPECT_EQ(-EINVAL, ivring__checkpoint_load(r, self->path));
	/* None of that moved the reader: it starts where the last one stopped. */
	ASSERT_EQ(1, ivring__next(r, &ev));
	EXPECT_EQ(5, seg_seq_of(&ev));
	ivring__close(r);

	/* Another generation: the guest formatted the segment again. */
	ASSERT_EQ(0, write_file(self->path, good));
	ASSERT_EQ(0, seg_reformat(&self->s, 4096));
	ASSERT_EQ(0, seg_open(&self->s, 0, &r));
	EXPECT_EQ(-ESTALE, ivring__checkpoint_load(r, self->path));
	ivring__close(r);

	/* A snapshot consumes nothing: no checkpoint to save. */
	ASSERT_EQ(0, seg_open(&self->s, IVRING_OPEN_PEEK, &r));
	EXPECT_EQ(-EINVAL, ivring__checkpoint_save(r, self->path));
	ivring__close(r);
}

TEST_HARNESS_MAIN
