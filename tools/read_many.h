/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * One reader for many segments: every guest of a host (read_many.c).  Each
 * guest is read by the driver (follow.h), one batch at a time, into the
 * output of the run's seg_conf.
 */
#ifndef IVRING_READ_MANY_H
#define IVRING_READ_MANY_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct seg_conf;

struct many_opts {
	const char *watch;	/* --watch DIR */
	const char *match;	/* --match GLOB */
	char **paths;		/* the segments named, without --watch */
	unsigned int nr_paths;
	unsigned int threads;
	unsigned int stats_interval;	/* seconds; 0: at SIGUSR2 only */
	/*
	 * Whose files in the watched directory are read: root's, this
	 * user's, and --owner's (has_owner).  Anyone may create files in
	 * /dev/shm: another user's are not guests of ours.
	 */
	uid_t owner;
	bool has_owner;
	unsigned int max_guests;	/* --max-guests; 0: the default */
	/* How each guest is read: one_of_many, and the run's output. */
	const struct seg_conf *seg;
};

/*
 * Serve every guest of @m until Ctrl-C (or, without follow, until each
 * has been read to its end).  Returns the exit code: 0, or the worst of
 * the guests' (each said why).
 */
int many_main(struct many_opts *m);

#endif /* IVRING_READ_MANY_H */
