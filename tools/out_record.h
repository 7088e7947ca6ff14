/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * The recording output of ivring-read record: whole pages copied into a
 * trace.dat or a CTF directory, decoding nothing.
 */
#ifndef IVRING_OUT_RECORD_H
#define IVRING_OUT_RECORD_H

#include <stdbool.h>

#include "host_trace.h"
#include "seg.h"

/* What the run records into (seg_conf.arg). */
struct rec_conf {
	const char *output;	/* -o FILE.dat; with @dir, the directory */
	const char *ctf;	/* --ctf DIR */
	const char *relayd;	/* --relayd URL: a live session per guest */
	const char *hostname;	/* the sessions' host; NULL: this one */
	unsigned int relayd_timeout_ms;	/* 0: the library's */
	const char *name;	/* -N: the guest's name in the file */
	unsigned int version;	/* -V; 0: the default */
	unsigned int compression;	/* IVRING_REC_ZSTD, or 0 */
	bool follow;		/* spool per CPU; else a snapshot */
	/*
	 * Many segments: each into DIR/NAME.dat (a CTF trace: DIR/NAME), NAME
	 * its file's name, or the next NAME-N that no other recording has;
	 * messages name the segment.
	 */
	bool dir;
	/* --any-dir: a directory of another user's, or others', is taken */
	bool any_dir;
	bool progress;		/* a progress line on stderr */
	/* --host: the host's trace, which links each recording */
	struct host_trace *host;
};

extern const struct seg_ops rec_ops;

#endif /* IVRING_OUT_RECORD_H */
