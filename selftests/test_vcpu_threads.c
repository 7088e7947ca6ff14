// SPDX-License-Identifier: GPL-2.0 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * vcpu_threads_find(): the host threads of a guest's vCPUs, for trace-cmd's
 * GUEST option.  Against the real /proc, children that map a segment file
 * as QEMU does and name threads as QEMU does with debug-threads=on: found,
 * refused when none names its vCPUs or two do, the readers beside them
 * passed over.  Against a tree laid out like /proc, what another user's
 * process could put there: huge, repeated and missing vCPU numbers, long
 * maps lines with lookalike lines inside, comms of every shape.
 */
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "fd_count.h"
#include "vcpu_threads.h"

#define SEG_SIZE	4096
#define THREADS_MAX	4

/* What a child's thread tells the parent once it bears its name. */
struct named {
	unsigned int idx;	/* in the child's list of names */
	pid_t tid;
};

struct thread_arg {
	unsigned int idx;
	const char *name;
	int ready, release;
};

static void *named_thread(void *p)
{
	const struct thread_arg *a = p;
	struct named m = { .idx = a->idx, .tid = gettid() };
	char c;

	if (pthread_setname_np(pthread_self(), a->name) ||
	    write(a->ready, &m, sizeof(m)) != sizeof(m))
		_exit(1);
	/* Until the parent closes the pipe's other end, or kills us. */
	while (read(a->release, &c, 1) < 0 && errno == EINTR)
		;
	return NULL;
}

/* The child: a QEMU as far as /proc tells, mapping @seg. */
static void __attribute__((noreturn))
fake_qemu(const char *seg, const char *const *names, unsigned int n,
	  int ready, int release)
{
	struct thread_arg a[THREADS_MAX];
	pthread_t t;
	unsigned int i;
	void *map;
	char c;
	int fd;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	fd = open(seg, O_RDWR | O_CLOEXEC);
	map = fd < 0 ? MAP_FAILED : mmap(NULL, SEG_SIZE, PROT_READ | PROT_WRITE,
					 MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		_exit(1);
	close(fd);
	for (i = 0; i < n; i++) {
		a[i] = (struct thread_arg){ i, names[i], ready, release };
		if (pthread_create(&t, NULL, named_thread, &a[i]))
			_exit(1);
	}
	while (read(release, &c, 1) < 0 && errno == EINTR)
		;
	_exit(0);
}

FIXTURE(proc)
{
	char dir[64];		/* mkdtemp()ed, in /dev/shm as QEMU's are */
	char seg[96];		/* dir/seg, the segment file */
	struct stat st;
	int release[2];		/* children live until its write end closes */
	pid_t child[2];
	unsigned int children;
	struct vcpu_threads v;
	char why[256];
};

FIXTURE_SETUP(proc)
{
	int fd;

	self->release[0] = self->release[1] = -1;
	strcpy(self->dir, "/dev/shm/ivring-vcpu-test.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	snprintf(self->seg, sizeof(self->seg), "%s/seg", self->dir);
	fd = open(self->seg, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ftruncate(fd, SEG_SIZE));
	ASSERT_EQ(0, fstat(fd, &self->st));
	close(fd);
	ASSERT_EQ(0, pipe2(self->release, O_CLOEXEC));
}

FIXTURE_TEARDOWN(proc)
{
	unsigned int i;

	for (i = 0; i < self->children; i++) {
		kill(self->child[i], SIGKILL);
		waitpid(self->child[i], NULL, 0);
	}
	if (self->release[0] >= 0) {
		close(self->release[0]);
		close(self->release[1]);
	}
	vcpu_threads_free(&self->v);
	unlink(self->seg);
	rmdir(self->dir);
}

/*
 * A child mapping the segment, with threads named @names; their tids,
 * in the order of @names, into @tids.  0, or -1 if it did not come up.
 */
static int spawn(FIXTURE_DATA(proc) *self, const char *const *names,
		 unsigned int n, pid_t *tids)
{
	unsigned int got = 0;
	struct named m;
	int ready[2];
	pid_t pid;

	if (n > THREADS_MAX || self->children == 2 || pipe2(ready, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid == 0) {
		close(ready[0]);
		close(self->release[1]);
		fake_qemu(self->seg, names, n, ready[1], self->release[0]);
	}
	close(ready[1]);
	if (pid > 0)
		self->child[self->children++] = pid;
	/* Every name is set once its thread said so; EOF if the child died. */
	while (pid > 0 && got < n && read(ready[0], &m, sizeof(m)) == sizeof(m)) {
		if (m.idx >= n)
			break;
		tids[m.idx] = m.tid;
		got++;
	}
	close(ready[0]);
	return pid > 0 && got == n ? 0 : -1;
}

static int find(FIXTURE_DATA(proc) *self)
{
	int ret;

	vcpu_threads_free(&self->v);
	self->why[0] = '\0';
	ret = vcpu_threads_find("/proc", self->st.st_dev, self->st.st_ino,
				self->st.st_uid, &self->v, self->why,
				sizeof(self->why));
	return ret;
}

/* A pid as text, to look for in a reason. */
static const char *pid_str(pid_t pid)
{
	static char buf[4][16];
	static unsigned int i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%d", pid);
	return buf[i];
}

TEST_F(proc, finds_vcpus)
{
	/* Out of order, beside a thread that is no vCPU. */
	static const char *const names[] = {
		"CPU 1/TCG", "IO iothread0", "CPU 0/TCG",
	};
	pid_t tids[3];

	ASSERT_EQ(0, spawn(self, names, 3, tids));
	ASSERT_EQ(0, find(self)) TH_LOG("%s", self->why);
	EXPECT_EQ(self->child[0], self->v.pid);
	ASSERT_EQ(2, self->v.nr);
	EXPECT_EQ(tids[2], self->v.tid[0]);
	EXPECT_EQ(tids[0], self->v.tid[1]);
}

/* The segment mapped by this process, as ivring-read maps it. */
static void *map_seg(const char *path)
{
	void *map;
	int fd = open(path, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return MAP_FAILED;
	map = mmap(NULL, SEG_SIZE, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	return map;
}

/* ivring-read maps the segment too, and so may others. */
TEST_F(proc, readers_passed_over)
{
	static const char *const qemu[] = { "CPU 0/KVM", "CPU 1/KVM" };
	static const char *const reader[] = { "reader" };
	pid_t tids[2], rtid;
	void *map;

	/* The caller itself, mapping it as the reader does. */
	map = map_seg(self->seg);
	ASSERT_NE(MAP_FAILED, map);
	ASSERT_EQ(0, spawn(self, reader, 1, &rtid));
	ASSERT_EQ(0, spawn(self, qemu, 2, tids));
	ASSERT_EQ(0, find(self)) TH_LOG("%s", self->why);
	munmap(map, SEG_SIZE);
	EXPECT_EQ(self->child[1], self->v.pid);
	ASSERT_EQ(2, self->v.nr);
	EXPECT_EQ(tids[0], self->v.tid[0]);
	EXPECT_EQ(tids[1], self->v.tid[1]);
}

TEST_F(proc, no_debug_threads)
{
	static const char *const names[] = { "qemu-system-x86" };
	pid_t tid;

	ASSERT_EQ(0, spawn(self, names, 1, &tid));
	ASSERT_EQ(-ENOENT, find(self));
	TH_LOG("%s", self->why);
	EXPECT_NE(NULL, strstr(self->why, "debug-threads=on"));
	EXPECT_NE(NULL, strstr(self->why, pid_str(self->child[0])));
	EXPECT_EQ(0, self->v.nr);
	EXPECT_EQ(NULL, self->v.tid);
}

TEST_F(proc, nobody_maps_it)
{
	void *map;

	/* Only the caller, who is passed over. */
	map = map_seg(self->seg);
	ASSERT_NE(MAP_FAILED, map);
	ASSERT_EQ(0, prctl(PR_SET_NAME, "CPU 0/TCG"));
	EXPECT_EQ(-ESRCH, find(self));
	munmap(map, SEG_SIZE);
	TH_LOG("%s", self->why);
	EXPECT_NE(NULL, strstr(self->why, "no process maps it"));
	EXPECT_EQ(NULL, self->v.tid);
}

TEST_F(proc, two_qemus)
{
	static const char *const names[] = { "CPU 0/TCG", "CPU 1/TCG" };
	pid_t tids[2];

	ASSERT_EQ(0, spawn(self, names, 2, tids));
	ASSERT_EQ(0, spawn(self, names, 2, tids));
	ASSERT_EQ(-EEXIST, find(self));
	TH_LOG("%s", self->why);
	EXPECT_NE(NULL, strstr(self->why, "ambiguous"));
	EXPECT_NE(NULL, strstr(self->why, pid_str(self->child[0])));
	EXPECT_NE(NULL, strstr(self->why, pid_str(self->child[1])));
	EXPECT_EQ(NULL, self->v.tid);
}

/* --- a tree laid out like /proc --------------------------------------- */

/* The segment's device and inode in the fake tree: "103:4567 123456789". */
#define FAKE_DEV	makedev(0x103, 0x4567)
#define FAKE_INO	123456789
#define MAPS_SEG	"7f0000000000-7f0000400000 rw-s 00000000 103:4567 123456789                  /dev/shm/guest\n"
#define MAPS_LIBC	"7f1000000000-7f1000001000 r-xp 00000000 08:01 4242                       /usr/lib/libc.so.6\n"

FIXTURE(fake)
{
	char root[64];
	uid_t owner;		/* the segment file's, as the caller says */
	struct vcpu_threads v;
	char why[256];
};

FIXTURE_SETUP(fake)
{
	strcpy(self->root, "/tmp/ivring-fakeproc.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->root));
	self->owner = geteuid();
}

static int rm_one(const char *path, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	return remove(path);
}

FIXTURE_TEARDOWN(fake)
{
	vcpu_threads_free(&self->v);
	if (nftw(self->root, rm_one, 16, FTW_DEPTH | FTW_PHYS))
		TH_LOG("could not remove %s", self->root);
}

/* @len bytes of @text into root/@rel, making the directories on the way. */
static int put_n(FIXTURE_DATA(fake) *self, const char *rel, const char *text,
		 size_t len)
{
	char path[PATH_MAX];
	char *slash;
	int fd, ok;

	snprintf(path, sizeof(path), "%s/%s", self->root, rel);
	for (slash = strchr(path + strlen(self->root) + 1, '/'); slash;
	     slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		if (mkdir(path, 0755) && errno != EEXIST)
			return -1;
		*slash = '/';
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	ok = write(fd, text, len) == (ssize_t)len;
	close(fd);
	return ok ? 0 : -1;
}

static int put(FIXTURE_DATA(fake) *self, const char *rel, const char *text)
{
	return put_n(self, rel, text, strlen(text));
}

/* Process @pid mapping the segment, with threads @tid0.. named @names. */
static int fake_process(FIXTURE_DATA(fake) *self, pid_t pid, pid_t tid0,
			const char *const *names, unsigned int n)
{
	char rel[64];
	unsigned int i;

	snprintf(rel, sizeof(rel), "%d/maps", pid);
	if (put(self, rel, MAPS_LIBC MAPS_SEG MAPS_LIBC))
		return -1;
	for (i = 0; i < n; i++) {
		snprintf(rel, sizeof(rel), "%d/task/%d/comm", pid, tid0 + i);
		if (put(self, rel, names[i]))
			return -1;
	}
	return 0;
}

static int fake_find(FIXTURE_DATA(fake) *self)
{
	int ret;

	vcpu_threads_free(&self->v);
	self->why[0] = '\0';
	ret = vcpu_threads_find(self->root, FAKE_DEV, FAKE_INO, self->owner,
				&self->v, self->why, sizeof(self->why));
	return ret;
}

/*
 * A process of another user's that maps the file and names vCPU threads is
 * not its QEMU: whoever may read a segment may map it.
 */
TEST_F(fake, another_users_process_passed_over)
{
	static const char *const names[] = { "CPU 0/KVM\n", "CPU 1/KVM\n" };
	char dir[128];

	if (geteuid())
		SKIP(return, "needs root to give a directory to another user");
	ASSERT_EQ(0, fake_process(self, 123, 123, names, 2));
	snprintf(dir, sizeof(dir), "%s/123", self->root);
	ASSERT_EQ(0, chown(dir, 4242, 4242));
	EXPECT_EQ(-ESRCH, fake_find(self));
	EXPECT_NE(NULL, strstr(self->why, "other than the file's owner"))
		TH_LOG("%s", self->why);
	/* The control: the file's owner's is taken. */
	self->owner = 4242;
	EXPECT_EQ(0, fake_find(self)) TH_LOG("%s", self->why);
	EXPECT_EQ(2, self->v.nr);
}

TEST_F(fake, finds_vcpus)
{
	static const char *const names[] = {
		"qemu-system-x86\n", "CPU 1/KVM\n", "CPU 0/KVM",	/* no \n */
		"CPU 2/KVM\n",
	};

	ASSERT_EQ(0, fake_process(self, 123, 123, names, 4));
	/* Not processes. */
	ASSERT_EQ(0, put(self, "0123/maps", MAPS_SEG));
	ASSERT_EQ(0, put(self, "0123/task/7/comm", "CPU 0/TCG\n"));
	ASSERT_EQ(0, put(self, "self/maps", MAPS_SEG));
	ASSERT_EQ(0, put(self, "self/task/8/comm", "CPU 0/TCG\n"));
	ASSERT_EQ(0, put(self, "99999999999/maps", MAPS_SEG));
	ASSERT_EQ(0, put(self, "99999999999/task/9/comm", "CPU 0/TCG\n"));
	ASSERT_EQ(0, fake_find(self)) TH_LOG("%s", self->why);
	EXPECT_EQ(123, self->v.pid);
	ASSERT_EQ(3, self->v.nr);
	EXPECT_EQ(125, self->v.tid[0]);
	EXPECT_EQ(124, self->v.tid[1]);
	EXPECT_EQ(126, self->v.tid[2]);
}

TEST_F(fake, caller_passed_over)
{
	static const char *const names[] = { "CPU 0/TCG\n", "CPU 1/TCG\n" };

	ASSERT_EQ(0, fake_process(self, 123, 124, names, 2));
	ASSERT_EQ(0, fake_process(self, getpid(), 1000, names, 2));
	ASSERT_EQ(0, fake_find(self)) TH_LOG("%s", self->why);
	EXPECT_EQ(123, self->v.pid);
	ASSERT_EQ(2, self->v.nr);
	EXPECT_EQ(124, self->v.tid[0]);
	EXPECT_EQ(125, self->v.tid[1]);
	/* The control: any other pid there is a second QEMU. */
	ASSERT_EQ(0, fake_process(self, 456, 1000, names, 2));
	EXPECT_EQ(-EEXIST, fake_find(self)) TH_LOG("%s", self->why);
	EXPECT_NE(NULL, strstr(self->why, "123"));
	EXPECT_NE(NULL, strstr(self->why, "456"));
	EXPECT_EQ(NULL, strstr(self->why, pid_str(getpid())));
}

TEST_F(fake, vcpu_past_the_bound)
{
	static const char *const huge[] = {
		"CPU 0/TCG\n", "CPU 99999999999/TCG\n",
	};
	static const char *const bound[] = { "CPU 0/TCG\n", "CPU 1024/TCG\n" };
	static const char *const overflow[] = {
		"CPU 0/TCG\n", "CPU 184467440737095516170/TCG",
	};

	ASSERT_EQ(0, fake_process(self, 123, 124, huge, 2));
	EXPECT_EQ(-EINVAL, fake_find(self)) TH_LOG("%s", self->why);
	EXPECT_NE(NULL, strstr(self->why, "CPU 99999999999/TCG"));
	EXPECT_EQ(NULL, self->v.tid);
	ASSERT_EQ(0, fake_process(self, 123, 124, bound, 2));
	EXPECT_EQ(-EINVAL, fake_find(self)) TH_LOG("%s", self->why);
	EXPECT_NE(NULL, strstr(self->why, "CPU 1024/TCG"));
	ASSERT_EQ(0, fake_process(self, 123, 124, overflow, 2));
	EXPECT_EQ(-EINVAL, fake_find(self)) TH_LOG("%s", self->why);
}

TEST_F(fake, vcpu_twice)
{
	static const char *const names[] = {
		"CPU 0/TCG\n", "CPU 1/TCG\n", "CPU 0/KVM\n",
	};

	ASSERT_EQ(0, fake_process(self, 123, 124, names, 3));
	EXPECT_EQ(-EINVAL, fake_find(self)) TH_LOG("%s", self->why);
	EXPECT_NE(NULL, strstr(self->why, "two threads"));
	EXPECT_NE(NULL, strstr(self->why, "vCPU 0"));
	EXPECT_EQ(NULL, self->v.tid);
	EXPECT_EQ(0, self->v.nr);
}

TEST_F(fake, vcpu_missing)
{
	static const char *const names[] = { "CPU 0/TCG\n", "CPU 2/TCG\n" };

	ASSERT_EQ(0, fake_process(self, 123, 124, names, 2));
	EXPECT_EQ(-EINVAL, fake_find(self)) TH_LOG("%s", self->why);
	EXPECT_NE(NULL, strstr(self->why, "none for vCPU 1"));
	EXPECT_EQ(NULL, self->v.tid);
}

/* Names that are no vCPU's: the process names none. */
TEST_F(fake, not_vcpu_names)
{
	static const char *const names[] = {
		"CPU 01/TCG\n", "CPU 0/\n", "CPU 0\n", "CPU /TCG\n",
		"CPU -1/TCG\n", "CPU +1/TCG\n", "CPU 0/TC G\n", "cpu 0/TCG\n",
		"CPU 0/TCG\n\n", "CPU  0/TCG\n", "CPU 0/TCG\x1b[2J\n",
		"CPU 0/TCG aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n",
	};
	static const char nul[] = "CPU 0/TCG\0CPU 1/TCG\n";

	ASSERT_EQ(0, fake_process(self, 123, 200, names, 12));
	ASSERT_EQ(0, put_n(self, "123/task/300/comm", nul, sizeof(nul) - 1));
	ASSERT_EQ(0, put(self, "123/task/301/comm", ""));
	EXPECT_EQ(-ENOENT, fake_find(self)) TH_LOG("%s", self->why);
	EXPECT_NE(NULL, strstr(self->why, "pid 123 maps it but names no vCPU thread"));
	EXPECT_NE(NULL, strstr(self->why, "debug-threads=on"));
	/* The control: one good name among them is found. */
	ASSERT_EQ(0, put(self, "123/task/302/comm", "CPU 0/TCG\n"));
	ASSERT_EQ(0, fake_find(self)) TH_LOG("%s", self->why);
	ASSERT_EQ(1, self->v.nr);
	EXPECT_EQ(302, self->v.tid[0]);
}

TEST_F(fake, single_threaded_tcg)
{
	static const char *const names[] = { "qemu-system-x86\n", "ALL CPUs/TCG\n" };

	ASSERT_EQ(0, fake_process(self, 123, 123, names, 2));
	EXPECT_EQ(-ENOENT, fake_find(self)) TH_LOG("%s", self->why);
	EXPECT_NE(NULL, strstr(self->why, "thread=multi"));
}

/*
 * A maps line of @len bytes: its head a mapping of the segment when
 * @seg, else of another file; its path holds, at 2^k - 3 for k = 7..13,
 * "0000-1 ..." lines that map the segment, so that a reader that takes a
 * chunk of 2^k - 1 or 2^k bytes (fgets(), read()) for a line finds one.
 */
static char *long_line(size_t len, bool seg)
{
	static const char lookalike[] = "0000-1 rw-s 0 103:4567 123456789 /x";
	const char *head = seg ? "7f00-7f01 rw-s 00000000 103:4567 123456789 " :
				 "7f00-7f01 rw-s 00000000 103:4567 12345678 ";
	char *line = malloc(len + 2);
	unsigned int k;

	if (!line)
		return NULL;
	memset(line, 'a', len);
	memcpy(line, head, strlen(head));
	for (k = 7; k <= 13; k++)
		memcpy(line + (1u << k) - 3, lookalike, strlen(lookalike));
	line[len] = '\n';
	line[len + 1] = '\0';
	return line;
}

TEST_F(fake, long_maps_lines)
{
	static const char *const names[] = { "CPU 0/TCG\n" };
	char *other = long_line(10000, false), *seg = long_line(10000, true);
	char *maps = malloc(2 * 10002 + sizeof(MAPS_SEG));

	ASSERT_TRUE(other && seg && maps);
	ASSERT_EQ(0, fake_process(self, 123, 124, names, 1));
	/* Only lookalikes, in the middle of a line: nobody maps it. */
	strcpy(maps, other);
	ASSERT_EQ(0, put(self, "123/maps", maps));
	EXPECT_EQ(-ESRCH, fake_find(self)) TH_LOG("%s", self->why);
	/* ... even at the end of the file without a newline. */
	maps[strlen(maps) - 1] = '\0';
	ASSERT_EQ(0, put(self, "123/maps", maps));
	EXPECT_EQ(-ESRCH, fake_find(self)) TH_LOG("%s", self->why);
	/* A long line before the segment's. */
	strcpy(maps, other);
	strcat(maps, MAPS_SEG);
	ASSERT_EQ(0, put(self, "123/maps", maps));
	EXPECT_EQ(0, fake_find(self)) TH_LOG("%s", self->why);
	EXPECT_EQ(1, self->v.nr);
	/* The segment's line long itself (a long path). */
	strcpy(maps, other);
	strcat(maps, seg);
	ASSERT_EQ(0, put(self, "123/maps", maps));
	EXPECT_EQ(0, fake_find(self)) TH_LOG("%s", self->why);
	EXPECT_EQ(1, self->v.nr);
	free(other);
	free(seg);
	free(maps);
}

/*
 * Lines whose inode, 1234567890, is cut after its "123456789" by a reader
 * that reads 2^k - 1 or 2^k bytes of a line (the offset field padded with
 * zeros): that is not the segment's inode.
 */
TEST_F(fake, inode_at_the_cut)
{
	static const char *const names[] = { "CPU 0/TCG\n" };
	const size_t before = strlen("0-1 rw-s  103:4567 123456789");
	char *maps = malloc(16 * 8300), *at = maps;
	unsigned int k, end;

	ASSERT_NE(NULL, maps);
	for (k = 7; k <= 13; k++)
		for (end = (1u << k) - 1; end <= 1u << k; end++)
			at += sprintf(at, "0-1 rw-s %0*u 103:4567 1234567890 /x\n",
				      (int)(end - before), 0);
	ASSERT_EQ(0, fake_process(self, 123, 124, names, 1));
	ASSERT_EQ(0, put(self, "123/maps", maps));
	free(maps);
	EXPECT_EQ(-ESRCH, fake_find(self)) TH_LOG("%s", self->why);
}

/* Fields that are almost the segment's. */
TEST_F(fake, maps_fields)
{
	static const char *const names[] = { "CPU 0/TCG\n" };
	static const char *const lines[] = {
		"7f00-7f01 rw-s 00000000 103:4567 1234567890 /x\n",
		"7f00-7f01 rw-s 00000000 103:4567 12345678 /x\n",
		"7f00-7f01 rw-s 00000000 103:45670 123456789 /x\n",
		"7f00-7f01 rw-s 00000000 1103:4567 123456789 /x\n",
		"7f00-7f01 rw-s 00000000 4567:103 123456789 /x\n",
		"7f00-7f01 rw-s 00000000 103:4567:123456789 /x\n",
		"7f00-7f01 rw-s 00000000 103 4567 123456789 /x\n",
		"7f00-7f01 rw-s 00000000 103:4567 +123456789 /x\n",
		"7f00-7f01 rw-s 103:4567 123456789 /x\n",
		"7f00-7f01 rw-s 00000000 103:4567 123456789x /x\n",
		"7f00-7f01 rw-s 00000000 103:4567 99999999999999999999999 /x\n",
		"7f00-7f01 rw-s 00000000 fffffffffffffffffffff:4567 123456789 /x\n",
		"\n", "", " ", "7f00-7f01\n",
	};
	unsigned int i;

	ASSERT_EQ(0, fake_process(self, 123, 124, names, 1));
	for (i = 0; i < ARRAY_SIZE(lines); i++) {
		ASSERT_EQ(0, put(self, "123/maps", lines[i]));
		EXPECT_EQ(-ESRCH, fake_find(self)) TH_LOG("line %u", i);
	}
	/* The control: the kernel's very line is found. */
	ASSERT_EQ(0, put(self, "123/maps", MAPS_SEG));
	EXPECT_EQ(0, fake_find(self)) TH_LOG("%s", self->why);
}

/* Every outcome, many times: no fd and no memory kept by any. */
TEST_F(fake, nothing_left)
{
	static const char *const names[] = { "CPU 0/TCG\n", "CPU 1/TCG\n" };
	static const struct {
		const char *rel, *text;
		int ret;
	} steps[] = {
		{ "123/task/125/comm", "CPU 1/TCG\n", 0 },
		{ "123/task/125/comm", "CPU 0/TCG\n", -EINVAL },
		{ "123/task/125/comm", "CPU 2/TCG\n", -EINVAL },
		{ "123/task/125/comm", "CPU 1024/TCG\n", -EINVAL },
		{ "123/task/125/comm", "CPU 1/TCG\n", 0 },
		{ "456/maps", MAPS_SEG, -EEXIST },
		{ "456/maps", MAPS_LIBC, 0 },
		{ "123/task/124/comm", "qemu\n", -EINVAL },
		{ "123/task/125/comm", "qemu\n", -ENOENT },
		{ "123/maps", MAPS_LIBC, -ESRCH },
		{ "123/maps", MAPS_SEG, -ENOENT },
		{ "123/task/124/comm", "CPU 0/TCG\n", 0 },
	};
	size_t heap = 0;
	unsigned int round, i;
	int fds = 0;

	ASSERT_EQ(0, fake_process(self, 123, 124, names, 2));
	ASSERT_EQ(0, fake_process(self, 456, 457, names, 2));
	ASSERT_EQ(0, put(self, "456/maps", MAPS_LIBC));
	for (round = 0; round < 20; round++) {
		if (round == 1) {
			fds = nr_fds();
			heap = mallinfo2().uordblks;
		}
		for (i = 0; i < ARRAY_SIZE(steps); i++) {
			ASSERT_EQ(0, put(self, steps[i].rel, steps[i].text));
			ASSERT_EQ(steps[i].ret, fake_find(self))
				TH_LOG("step %u: %s", i, self->why);
			vcpu_threads_free(&self->v);
		}
	}
	EXPECT_EQ(fds, nr_fds());
	/* Nothing but zeros under ASan: its leak check is at exit. */
	EXPECT_EQ(heap, mallinfo2().uordblks);
}

TEST(no_proc_root)
{
	struct vcpu_threads v;
	char why[128];

	EXPECT_EQ(-ENOENT, vcpu_threads_find("/nonexistent-proc", 1, 1, 0, &v,
					     why, sizeof(why)));
	EXPECT_NE(NULL, strstr(why, "/nonexistent-proc"));
	EXPECT_EQ(NULL, v.tid);
}

TEST_HARNESS_MAIN
