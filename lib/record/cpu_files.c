// SPDX-License-Identifier: LGPL-2.1 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * The CPUs whose data a recording holds: a buffer each, and a file each
 * where the data goes to one file per CPU (a trace.dat's spools, a CTF
 * trace's streams).
 *
 * A guest's nr_cpus is its own to claim, up to 8192.  With a buffer and a
 * file per CPU from the start, a segment that claimed 1015 CPUs took 1022
 * fds and 64 KiB to 1 MiB of memory per CPU, and a recorder of many guests
 * ran out of fds for the honest ones.  So a CPU holds them only while it
 * is one of the IVR_RESIDENT_CPUS used last: the one used longest ago
 * writes what it holds and gives both up, through the writer's @evict,
 * when another needs room.  Its file is made when it first has data, and
 * opened again by name when it comes back, in the recording's directory.
 * A trace.dat's directory may be one that others write to (only the
 * files made in it are checked), so the file found is taken only if it
 * is still ours and as we left it: the inode made then, a regular file
 * of this user's with one link, and the size written.  A guest with no
 * more CPUs than that never sees any of it; one with more, all busy,
 * costs an open and a close per page.
 *
 * The files are opened O_APPEND: a file opened again goes on at its end,
 * as the one that was closed would have.
 *
 * Files are the process's, and a recorder of many guests may run short of
 * them.  An open that finds none closes this recording's own, the one
 * used longest ago first, and tries again (ivr_cpus_shed()); a CPU keeps
 * its buffer and opens its file again when next written.  So a recording
 * fails for want of files only when it holds none of these to close.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "record/record.h"

int ivr_cpus_init(struct ivring_rec *w, struct ivr_cpus *cs, int dirfd,
		  const char *suffix, int flags,
		  int (*evict)(struct ivring_rec *, u32))
{
	u32 cpu;

	cs->cpu = calloc(w->info.nr_cpus, sizeof(*cs->cpu));
	if (!cs->cpu)
		return ivr_err(w, -ENOMEM, "out of memory for a recording");
	for (cpu = 0; cpu < w->info.nr_cpus; cpu++)
		cs->cpu[cpu].fd = -1;
	cs->nr = w->info.nr_cpus;
	cs->dirfd = dirfd;
	cs->suffix = suffix;
	cs->flags = flags;
	cs->evict = evict;
	return 0;
}

void ivr_cpus_name(const struct ivring_rec *w, const struct ivr_cpus *cs,
		   u32 cpu, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%u", w->path, cs->suffix, cpu);
}

static void close_file(struct ivr_cpus *cs, u32 cpu)
{
	struct ivr_cpu *c = &cs->cpu[cpu];

	if (c->fd < 0)
		return;
	close(c->fd);
	c->fd = -1;
}

bool ivr_cpus_shed(struct ivr_cpus *cs, int err, u32 keep)
{
	u32 i, cpu, best = IVR_NO_CPU;

	if ((err != -EMFILE && err != -ENFILE) || !cs->cpu)
		return false;
	/* Only a resident CPU holds its file open. */
	for (i = 0; i < cs->resident; i++) {
		cpu = cs->list[i];
		if (cpu == keep || cs->cpu[cpu].fd < 0)
			continue;
		if (best == IVR_NO_CPU || cs->cpu[cpu].used < cs->cpu[best].used)
			best = cpu;
	}
	if (best == IVR_NO_CPU)
		return false;
	close_file(cs, best);
	return true;
}

/* The index in cs->list of the resident CPU used longest ago. */
static u32 oldest(const struct ivr_cpus *cs)
{
	u32 i, best = 0;

	for (i = 1; i < cs->resident; i++)
		if (cs->cpu[cs->list[i]].used < cs->cpu[cs->list[best]].used)
			best = i;
	return best;
}

int ivr_cpus_use(struct ivring_rec *w, struct ivr_cpus *cs, u32 cpu)
{
	struct ivr_cpu *c = &cs->cpu[cpu];
	u32 i;

	if (!c->used) {
		if (cs->resident < IVR_RESIDENT_CPUS) {
			i = cs->resident++;
		} else {
			u32 old;
			int ret;

			i = oldest(cs);
			old = cs->list[i];
			ret = cs->evict(w, old);
			if (ret)
				return ret;
			close_file(cs, old);
			cs->cpu[old].used = 0;
		}
		cs->list[i] = cpu;
	}
	c->used = ++cs->tick;
	return 0;
}

bool ivr_cpus_resident(const struct ivr_cpus *cs, u32 cpu)
{
	return cs->cpu[cpu].used;
}

/*
 * Is @st the file made for @c, as we left it with @size bytes?  An inode
 * number alone is not enough: once the file is unlinked, a new one may
 * get it.
 */
static bool as_left(const struct ivr_cpu *c, const struct stat *st, u64 size)
{
	return S_ISREG(st->st_mode) && st->st_dev == c->dev &&
	       st->st_ino == c->ino && st->st_uid == geteuid() &&
	       st->st_nlink == 1 && (u64)st->st_size == size;
}

/* Opened again: the file made for @cpu, or -errno with w->err. */
static int reopen(struct ivring_rec *w, struct ivr_cpus *cs, u32 cpu,
		  const char *name, u64 size)
{
	struct ivr_cpu *c = &cs->cpu[cpu];
	struct stat st;
	int fd;

	/* O_NONBLOCK: a FIFO put in its place must not hold us. */
	do
		fd = openat(cs->dirfd, ivr_out_leaf(name),
			    cs->flags | O_APPEND | O_NOFOLLOW | O_NONBLOCK |
			    O_NOCTTY | O_CLOEXEC);
	while (fd < 0 && ivr_cpus_shed(cs, -errno, cpu));
	if (fd < 0)
		return ivr_err(w, -errno, "%s: %s", name, strerror(errno));
	/*
	 * -EEXIST, as for the leftovers of a dead recorder: someone else's
	 * file stands at our name.  Not -ESTALE, which ivring__rec_read()
	 * returns for a handle at another generation, a renewal.
	 */
	if (fstat(fd, &st) || !as_left(c, &st, size)) {
		close(fd);
		return ivr_err(w, -EEXIST,
			       "%s: replaced or changed by someone else while it was recorded",
			       name);
	}
	if (fcntl(fd, F_SETFL, cs->flags | O_APPEND) < 0) {
		close(fd);
		return ivr_err(w, -errno, "%s: %s", name, strerror(errno));
	}
	return fd;
}

int ivr_cpus_fd(struct ivring_rec *w, struct ivr_cpus *cs, u32 cpu,
		u64 size)
{
	struct ivr_cpu *c = &cs->cpu[cpu];
	char name[PATH_MAX + 32];
	struct stat st;
	int ret;

	ret = ivr_cpus_use(w, cs, cpu);
	if (ret)
		return ret;
	if (c->fd >= 0)
		return c->fd;
	ivr_cpus_name(w, cs, cpu, name, sizeof(name));
	if (c->made) {
		ret = reopen(w, cs, cpu, name, size);
		if (ret < 0)
			return ret;
		c->fd = ret;
		return c->fd;
	}
	do
		ret = ivr_out_create(cs->dirfd, name, cs->flags | O_APPEND);
	while (ivr_cpus_shed(cs, ret, cpu));
	if (ret == -EEXIST)
		return ivr_err(w, ret,
			       "%s exists: it was made while this recording ran; move it away first",
			       name);
	if (ret < 0)
		return ivr_err(w, ret, "%s: %s", name, strerror(-ret));
	if (fstat(ret, &st)) {
		int err = -errno;

		close(ret);
		ivr_out_unlink(cs->dirfd, name);
		return ivr_err(w, err, "%s: %s", name, strerror(-err));
	}
	c->fd = ret;
	c->made = true;
	c->dev = st.st_dev;
	c->ino = st.st_ino;
	return c->fd;
}

void ivr_cpus_free(struct ivring_rec *w, struct ivr_cpus *cs, bool drop)
{
	char name[PATH_MAX + 32];
	u32 cpu;

	for (cpu = 0; cs->cpu && cpu < cs->nr; cpu++) {
		struct ivr_cpu *c = &cs->cpu[cpu];
		struct stat st;

		close_file(cs, cpu);
		if (!drop || !c->made)
			continue;
		/* Ours alone: what stands there now may be someone else's. */
		ivr_cpus_name(w, cs, cpu, name, sizeof(name));
		if (!fstatat(cs->dirfd, ivr_out_leaf(name), &st,
			     AT_SYMLINK_NOFOLLOW) &&
		    st.st_dev == c->dev && st.st_ino == c->ino)
			ivr_out_unlink(cs->dirfd, name);
	}
	free(cs->cpu);
	cs->cpu = NULL;
}
