// SPDX-License-Identifier: LGPL-2.1 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/* Whole writes: a short write is retried, an interrupted one too. */
#include <errno.h>
#include <unistd.h>

#include "record/record.h"

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
