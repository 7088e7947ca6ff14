// SPDX-License-Identifier: LGPL-2.1 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * Whole writes: a short write is retried, an interrupted one too.  On a
 * filesystem that may report a write's failure only at fsync or close, a
 * recording's writes are synced, so that a flush that returns 0 means the
 * bytes are there: only then may the reader consume them.
 */
#include <errno.h>
#include <linux/magic.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "record/record.h"

#ifndef CIFS_SUPER_MAGIC
#define CIFS_SUPER_MAGIC	0xff534d42
#endif
#ifndef SMB2_SUPER_MAGIC
#define SMB2_SUPER_MAGIC	0xfe534d42
#endif
#ifndef FUSE_SUPER_MAGIC
#define FUSE_SUPER_MAGIC	0x65735546
#endif
#ifndef CEPH_SUPER_MAGIC
#define CEPH_SUPER_MAGIC	0x00c36400
#endif

int ivring__fd_defers_errors(int fd)
{
	struct statfs sf;

	if (fstatfs(fd, &sf))
		return -errno;
	switch ((unsigned long)sf.f_type) {
	case NFS_SUPER_MAGIC:
	case SMB_SUPER_MAGIC:
	case CIFS_SUPER_MAGIC:
	case SMB2_SUPER_MAGIC:
	case FUSE_SUPER_MAGIC:
	case V9FS_MAGIC:
	case CEPH_SUPER_MAGIC:
	case AFS_FS_MAGIC:
	case CODA_SUPER_MAGIC:
		return 1;
	default:
		return 0;
	}
}

int ivr_write_synced(struct ivring_rec *w, int fd, const void *buf,
		     size_t len)
{
	int ret = ivr_write_all(fd, buf, len);

	if (!ret && w->sync && fdatasync(fd))
		ret = -errno;
	return ret;
}

/* @off (u64)-1: at the file's offset, which moves on. */
static int write_at(int fd, const void *buf, size_t len, u64 off)
{
	const u8 *p = buf;

	while (len) {
		ssize_t n = off == (u64)-1 ? write(fd, p, len) :
					     pwrite(fd, p, len, off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (!n)
			return -EIO;
		p += n;
		len -= n;
		if (off != (u64)-1)
			off += n;
	}
	return 0;
}

int ivr_write_all(int fd, const void *buf, size_t len)
{
	return write_at(fd, buf, len, (u64)-1);
}

int ivr_pwrite_all(int fd, const void *buf, size_t len, u64 off)
{
	return write_at(fd, buf, len, off);
}
