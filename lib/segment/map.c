// SPDX-License-Identifier: LGPL-2.1 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * The segment's file: opened, mapped whole, locked by its one consumer, and
 * read under the SIGBUS guard, so that a file that shrinks under the
 * mapping costs the handle and not the process.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/guard.h"
#include "segment/segment.h"

#define SHM_DIR "/dev/shm/"

const char *ivring__errmsg(const struct ivring *r)
{
	return r ? r->err.text : "no ivring handle";
}

/*
 * ivring_host.file_id of this file on this host: the boot id tells hosts
 * (and boots) apart, the device and inode the files of one host.  FNV-1a;
 * never 0, which means "not known".
 */
static u64 file_id(const struct stat *st)
{
	u64 v[2] = { st->st_dev, st->st_ino };
	char boot[64] = "";
	u64 h = 0xcbf29ce484222325ULL;
	const u8 *p;
	size_t i;
	FILE *f;

	f = fopen("/proc/sys/kernel/random/boot_id", "re");
	if (f) {
		if (!fgets(boot, sizeof(boot), f))
			boot[0] = '\0';
		fclose(f);
	}
	for (p = (const u8 *)boot; *p; p++)
		h = (h ^ *p) * 0x100000001b3ULL;
	for (p = (const u8 *)v, i = 0; i < sizeof(v); i++)
		h = (h ^ p[i]) * 0x100000001b3ULL;
	return h ? h : 1;
}

#define OPEN_FLAGS	(O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
/*
 * The most a segment maps: ivshmem BARs for tracing are megabytes, a few
 * GiB at most, and a reader of a thousand guests has 128 TiB of address
 * space in all.  A sparse file of 63 TiB was mapped whole.
 */
#define IVR_MAP_MAX	(64ULL << 30)

/*
 * The bytes to map of a file of @file_size at @fd: the size that its
 * header states (read with pread, before anything is mapped) when that is
 * less, since the rest is not the segment's; else the file's.
 */
static u64 map_size(int fd, u64 file_size)
{
	struct ivring_header h;

	if (pread(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h) ||
	    h.magic != IVRING_MAGIC || h.segment_size < sizeof(h) ||
	    h.segment_size > file_size)
		return file_size;
	return h.segment_size;
}

int ivr_map_file(struct ivring *r, const char *path, bool rdonly,
		 bool nofollow)
{
	int prot = PROT_READ, flags = OPEN_FLAGS | (nofollow ? O_NOFOLLOW : 0);
	struct stat st;
	u64 size;
	int ret;

	ret = strchr(path, '/') ? asprintf(&r->path, "%s", path) :
				  asprintf(&r->path, SHM_DIR "%s", path);
	if (ret < 0) {
		r->path = NULL;
		return ivr_err(r, -ENOMEM, "out of memory for the path %.64s...",
			       path);
	}

	/*
	 * Whoever may write to the directory can put anything at the path:
	 * a FIFO, which would block the open for ever, or a device.  So the
	 * open never blocks, and what it opened is checked on the fd before
	 * anything else.  A symlink is followed unless the caller says
	 * IVRING_OPEN_NOFOLLOW, as it does for names found in a directory
	 * that others may write to (ivring-read --watch); a path it named
	 * itself may be one (/proc/self/fd/N).
	 */
	r->fd = open(r->path, (rdonly ? O_RDONLY : O_RDWR) | flags);
	if (r->fd < 0 && !rdonly && (errno == EACCES || errno == EROFS)) {
		/* Not ours to write: a snapshot is all we can offer. */
		r->fd = open(r->path, O_RDONLY | flags);
		rdonly = true;
		r->peek = true;
	}
	if (r->fd < 0 && errno == ELOOP && nofollow)
		return ivr_err(r, -ELOOP,
			       "%s: a symlink, not followed (or a loop of them)",
			       r->path);
	if (r->fd < 0)
		return ivr_err(r, -errno, "%s: %s", r->path, strerror(errno));
	if (fstat(r->fd, &st))
		return ivr_err(r, -errno, "%s: %s", r->path, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return ivr_err(r, -ENOTTY, "%s: not a regular file", r->path);
	if (fcntl(r->fd, F_SETFL, 0))
		return ivr_err(r, -errno, "%s: %s", r->path, strerror(errno));
	r->file_id = file_id(&st);
	r->file_dev = st.st_dev;
	r->file_ino = st.st_ino;
	r->file_uid = st.st_uid;
	if ((size_t)st.st_size < sizeof(struct ivring_header))
		return ivr_err(r, -ENOTTY,
			       "%s: not an ivring segment (file is %lld bytes); is the module loaded in the guest?",
			       r->path, (long long)st.st_size);
	if (!rdonly)
		prot |= PROT_WRITE;
	size = map_size(r->fd, st.st_size);
	if (size > IVR_MAP_MAX)
		return ivr_err(r, -EFBIG,
			       "%s: %llu bytes, more than a segment may have (%llu GiB); not mapped",
			       r->path, (unsigned long long)size, IVR_MAP_MAX >> 30);
	r->map_len = size;
	r->map = mmap(NULL, r->map_len, prot, MAP_SHARED, r->fd, 0);
	if (r->map == MAP_FAILED) {
		r->map = NULL;
		return ivr_err(r, -errno, "%s: mmap of %zu bytes failed: %s",
			       r->path, r->map_len, strerror(errno));
	}
	return 0;
}

/*
 * One consumer per segment: two would each move the consumer positions the
 * guest obeys, and each would see only part of the events.  The lock is on
 * the open file, so it goes with the process, however the process ends.
 */
int ivr_lock_consumer(struct ivring *r)
{
	u32 pid;

	if (r->peek || !flock(r->fd, LOCK_EX | LOCK_NB))
		return 0;
	if (errno != EWOULDBLOCK)
		return ivr_err(r, -errno, "%s: cannot lock the segment: %s",
			       r->path, strerror(errno));
	/* For the message only: the guest could have written any number. */
	pid = ivr_load(&ivr_host(r)->reader_pid);
	return ivr_err(r, -EBUSY,
		       "%s: another reader (pid %u) is consuming this segment; read beside it with --peek (IVRING_OPEN_PEEK), or stop it first",
		       r->path, pid);
}

void ivr_unmap_file(struct ivring *r)
{
	if (r->map)
		munmap(r->map, r->map_len);
	if (r->fd >= 0)
		close(r->fd);
	r->map = NULL;
	r->fd = -1;
}

struct guarded_call {
	struct ivring *r;
	int (*fn)(struct ivring *r, void *arg);
	void *arg;
};

static int guarded_call(void *arg)
{
	struct guarded_call *c = arg;

	return c->fn(c->r, c->arg);
}

/* Back from the handler: the handle is dead, say why. */
static int fault(struct ivring *r)
{
	struct stat st;

	r->gone = -EFBIG;
	if (r->fd >= 0 && !fstat(r->fd, &st))
		ivr_err(r, r->gone,
			"%s: the segment file shrank to %lld bytes under the reader (%zu mapped); was it truncated or re-created?",
			r->path, (long long)st.st_size, r->map_len);
	else
		ivr_err(r, r->gone,
			"%s: the segment file shrank under the reader; was it truncated or re-created?",
			r->path);
	snprintf(r->gone_msg, sizeof(r->gone_msg), "%s", r->err.text);
	return r->gone;
}

/*
 * The handle's state may be half-updated after a fault, so every later
 * call returns the same error, and close unmaps without writing to the
 * segment.
 */
int ivr_guarded(struct ivring *r, int (*fn)(struct ivring *r, void *arg),
		void *arg)
{
	struct guarded_call c = { r, fn, arg };
	bool faulted;
	int ret;

	if (r->gone)
		return ivr_err(r, r->gone, "%s", r->gone_msg);
	ret = ivr_guard_run(r->map, r->map_len, guarded_call, &c, &faulted);
	return faulted ? fault(r) : ret;
}
