// SPDX-License-Identifier: LGPL-2.1 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * Where a CTF trace usually goes (ctf.h's sink): a directory with the
 * metadata file and one stream file per CPU, channel0_N as lttng-modules
 * names them, made when the CPU first has a page; a CPU holds its file
 * open and its buffer only while it is one of the CPUs used last
 * (cpu_files.c).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record/ctf.h"

/*
 * cpu_files.c's: @cpu's packets written, its buffer given up.  Kept if the
 * write failed.
 */
static int files_evict(struct ivring_rec *w, u32 cpu)
{
	struct ctf *c = w->priv;
	struct ctf_stream *s = &c->streams[cpu];
	int ret = ctf_stream_write(w, cpu);

	if (ret)
		return ret;
	free(s->buf);
	s->buf = NULL;
	s->cap = 0;
	return 0;
}

/*
 * A new directory, or an empty one: a trace is never mixed with another.
 * Its fd goes to c->dirfd, and every file of the trace is made in it.
 */
static int make_dir(struct ivring_rec *w, struct ctf *c)
{
	struct dirent *de;
	int fd, ret;
	DIR *d;

	ret = ivr_out_own_dir(w, w->path, &c->made_dir);
	if (ret < 0)
		return ret;
	c->dirfd = ret;
	fd = dup(c->dirfd);
	d = fd < 0 ? NULL : fdopendir(fd);
	if (!d) {
		ret = ivr_err(w, -errno, "%s: %s", w->path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return ret;
	}
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			break;
	closedir(d);
	if (de)
		return ivr_err(w, -EEXIST,
			       "%s: not empty; a CTF trace needs a directory of its own",
			       w->path);
	return 0;
}

/*
 * A directory made for a trace that could not begin goes, if it is still
 * empty: one left would take the name of the next try (out of files,
 * ivring-read tries again), which would then go to NAME-1.
 */
static void files_undo(struct ivring_rec *w, struct ctf *c)
{
	if (c->made_dir)
		unlinkat(w->dirfd, ivr_out_leaf(w->path), AT_REMOVEDIR);
}

static int files_open(struct ivring_rec *w, struct ctf *c)
{
	int ret = make_dir(w, c);

	if (!ret)
		ret = ivr_cpus_init(w, &c->res, c->dirfd, "/channel0_",
				    O_WRONLY, files_evict);
	if (ret) {
		files_undo(w, c);
		if (c->dirfd >= 0)
			close(c->dirfd);
		c->dirfd = -1;
	}
	return ret;
}

/*
 * The metadata file, whole or not at all: a new one is written beside it
 * and renamed over it, so that a reader of a live trace never sees half.
 */
static int files_meta(struct ivring_rec *w, struct ctf *c, const char *text,
		      size_t len, bool replace)
{
	char path[PATH_MAX + 16];
	int fd, ret;

	snprintf(path, sizeof(path), "%s/metadata", w->path);
	if (replace) {
		do
			ret = ivr_out_replace(w, c->dirfd, path, text, len);
		while (ivr_cpus_shed(&c->res, ret, IVR_NO_CPU));
		return ret;
	}
	do
		fd = ivr_out_create(c->dirfd, path, O_WRONLY);
	while (ivr_cpus_shed(&c->res, fd, IVR_NO_CPU));
	if (fd < 0)
		return ivr_err(w, fd, "%s: %s", path, strerror(-fd));
	ret = ivr_write_synced(w, fd, text, len);
	if (close(fd) && !ret)
		ret = -errno;
	if (ret)
		return ivr_err(w, ret, "%s: %s", path, strerror(-ret));
	return 0;
}

static int files_use(struct ivring_rec *w, struct ctf *c, u32 cpu)
{
	return ivr_cpus_use(w, &c->res, cpu);
}

static int files_write(struct ivring_rec *w, struct ctf *c, u32 cpu)
{
	struct ctf_stream *s = &c->streams[cpu];
	int fd, ret;

	fd = ivr_cpus_fd(w, &c->res, cpu, w->cpus[cpu].bytes);
	if (fd < 0)
		return fd;
	ret = ivr_write_synced(w, fd, s->buf, s->len);
	if (ret)
		return ivr_err(w, ret, "%s/channel0_%u: %s", w->path, cpu,
			       strerror(-ret));
	return 0;
}

/* The writes were whole (and synced where the filesystem needs it). */
static int files_commit(struct ivring_rec *w, struct ctf *c)
{
	return 0;
}

static void files_free(struct ivring_rec *w, struct ctf *c)
{
	ivr_cpus_free(w, &c->res, false);
	if (c->dirfd >= 0)
		close(c->dirfd);
	c->dirfd = -1;
}

const struct ctf_sink ctf_files_sink = {
	.open = files_open,
	.undo = files_undo,
	.meta = files_meta,
	.use = files_use,
	.write = files_write,
	.commit = files_commit,
	.free = files_free,
};
