/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * The text output: events printed as trace-cmd report prints them, one
 * line each, into one stream for every segment of the run.
 */
#ifndef IVRING_OUT_TEXT_H
#define IVRING_OUT_TEXT_H

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>

#include "seg.h"

/* The run's stream and what it prints (seg_conf.arg). */
struct text_conf {
	const char *path;	/* -o FILE; NULL: stdout */
	FILE *out;		/* NULL until text_open() */
	/* Taken for each batch, which goes out whole. */
	pthread_mutex_t lock;
	int failed;		/* an exit code, or -1 when the reader went away */
	/* Writes may fail only at fsync there (NFS...): each batch syncs. */
	bool sync;
	bool tag;		/* each line begins with its segment's name */
	unsigned int batch;	/* events per batch, at most */
	/* One segment: -e and --cpu. */
	const char *const *patterns;
	unsigned int nr_patterns;
	const unsigned long *cpus;	/* --cpu's bitmap; NULL: all */
	unsigned int max_cpu;		/* the highest CPU in it */
};

extern const struct seg_ops text_ops;

/*
 * The stream: stdout, or -o's file.  The first start() opens it when it
 * is not yet, so that a segment that cannot be read leaves no empty file.
 * 0 or an exit code, having said why.
 */
int text_open(struct text_conf *tc);
/* The stream closed; @err, or the exit code of a failed close. */
int text_close(struct text_conf *tc, int err);

#endif /* IVRING_OUT_TEXT_H */
