// SPDX-License-Identifier: LGPL-2.1 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * A recording's files, made in one directory that was opened once.
 *
 * A recorder often runs as root, and the directory it writes into may
 * belong to somebody else, who can plant a symlink under any name that the
 * recorder will use, or swap the directory itself.  So every file is made
 * relative to a directory fd (w->dirfd), never through a symlink: a new one
 * with O_EXCL (which does not follow one either), and one that replaces
 * another is written under a name nobody could have guessed and renamed
 * over it, which replaces a planted symlink rather than write through it.
 * Names in messages stay whole paths; a file's name in the directory is
 * the last part of its path.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "record/record.h"

/* @name's entry in the directory that holds it. */
const char *ivr_out_leaf(const char *name)
{
	const char *slash = strrchr(name, '/');

	return slash ? slash + 1 : name;
}

int ivr_out_open_dir(struct ivring_rec *w, const char *path)
{
	const char *leaf = ivr_out_leaf(path);
	char dir[PATH_MAX];
	int fd;

	if (leaf == path)
		snprintf(dir, sizeof(dir), ".");
	else if (leaf == path + 1)
		snprintf(dir, sizeof(dir), "/");
	else if ((size_t)(leaf - path) >= sizeof(dir))
		return ivr_err(w, -ENAMETOOLONG, "%s: %s", path,
			       strerror(ENAMETOOLONG));
	else
		snprintf(dir, sizeof(dir), "%.*s", (int)(leaf - path - 1),
			 path);
	if (!*leaf || !strcmp(leaf, ".") || !strcmp(leaf, ".."))
		return ivr_err(w, -EINVAL,
			       "%s: name a file, not a directory", path);
	/* O_PATH: a directory we may write to but not list will do. */
	fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return ivr_err(w, -errno, "%s: %s", path, strerror(errno));
	return fd;
}

int ivr_out_target(struct ivring_rec *w, const char *path)
{
	struct stat st;

	if (fstatat(w->dirfd, ivr_out_leaf(path), &st, AT_SYMLINK_NOFOLLOW)) {
		if (errno == ENOENT)
			return 0;
		return ivr_err(w, -errno, "%s: %s", path, strerror(errno));
	}
	if (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode))
		return 0;
	return ivr_err(w, -EEXIST,
		       "%s exists and is not a regular file: a recording replaces only a file",
		       path);
}

int ivr_out_create(int dirfd, const char *name, int flags)
{
	int fd = openat(dirfd, ivr_out_leaf(name),
			flags | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			0644);

	return fd < 0 ? -errno : fd;
}

/* 0 if nothing is at @name, -EEXIST if something is (a symlink too). */
int ivr_out_absent(int dirfd, const char *name)
{
	struct stat st;

	if (!fstatat(dirfd, ivr_out_leaf(name), &st, AT_SYMLINK_NOFOLLOW))
		return -EEXIST;
	return errno == ENOENT ? 0 : -errno;
}

int ivr_out_rename(int dirfd, const char *from, const char *to)
{
	if (renameat(dirfd, ivr_out_leaf(from), dirfd, ivr_out_leaf(to)))
		return -errno;
	return 0;
}

void ivr_out_unlink(int dirfd, const char *name)
{
	unlinkat(dirfd, ivr_out_leaf(name), 0);
}

/*
 * A new file beside @name, ".LEAF.RANDOM", that nobody made before us; its
 * name goes to @tmp.  Hidden, so that a reader of the directory (babeltrace2
 * takes every other file of a CTF trace for a stream) never sees it, even
 * if the recorder dies before the rename.  An fd, or -errno.
 */
static int create_beside(int dirfd, const char *name, char *tmp, size_t len)
{
	int tries, fd = -EEXIST;
	u32 rnd;

	for (tries = 0; tries < 64 && fd == -EEXIST; tries++) {
		if (getrandom(&rnd, sizeof(rnd), GRND_NONBLOCK) != sizeof(rnd))
			rnd = (u32)getpid() * 2654435761u + tries;
		if ((size_t)snprintf(tmp, len, "%.*s.%s.%08x",
				     (int)(ivr_out_leaf(name) - name), name,
				     ivr_out_leaf(name), rnd) >= len)
			return -ENAMETOOLONG;
		fd = ivr_out_create(dirfd, tmp, O_WRONLY);
	}
	return fd;
}

int ivr_out_replace(struct ivring_rec *w, int dirfd, const char *name,
		    const void *buf, size_t len)
{
	char tmp[PATH_MAX + 16];
	int fd, ret;

	fd = create_beside(dirfd, name, tmp, sizeof(tmp));
	if (fd < 0)
		return ivr_err(w, fd, "%s: a new copy beside it: %s", name,
			       strerror(-fd));
	ret = ivr_write_synced(w, fd, buf, len);
	if (close(fd) && !ret)
		ret = -errno;
	if (!ret)
		ret = ivr_out_rename(dirfd, tmp, name);
	if (ret) {
		ivr_out_unlink(dirfd, tmp);
		return ivr_err(w, ret, "%s: %s", name, strerror(-ret));
	}
	return 0;
}

int ivr_out_own_dir(struct ivring_rec *w, const char *path, bool *made)
{
	const char *leaf = ivr_out_leaf(path);
	struct stat st;
	int fd;

	*made = !mkdirat(w->dirfd, leaf, 0755);
	if (!*made && errno != EEXIST)
		return ivr_err(w, -errno, "%s: %s", path, strerror(errno));
	fd = openat(w->dirfd, leaf,
		    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && (errno == ELOOP || errno == ENOTDIR))
		return ivr_err(w, -ENOTDIR,
			       "%s: not a directory (a symlink is not followed)",
			       path);
	if (fd < 0)
		return ivr_err(w, -errno, "%s: %s", path, strerror(errno));
	/* One we made is checked too: it may have been swapped since. */
	if (w->any_dir)
		return fd;
	if (fstat(fd, &st)) {
		int ret = -errno;

		close(fd);
		return ivr_err(w, ret, "%s: %s", path, strerror(-ret));
	}
	if (st.st_uid != geteuid() || (st.st_mode & (S_IWGRP | S_IWOTH))) {
		close(fd);
		if (st.st_uid != geteuid())
			return ivr_err(w, -EPERM,
				       "%s belongs to uid %u, not to this user (uid %u), who could change the trace under the recorder; record into a directory of your own",
				       path, (unsigned int)st.st_uid,
				       (unsigned int)geteuid());
		return ivr_err(w, -EPERM,
			       "%s: others may write to it (mode %04o) and change the trace under the recorder; record into a directory that only you may write to",
			       path, (unsigned int)(st.st_mode & 07777));
	}
	return fd;
}
