/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * The hand-over of a live migration, for a reader of one segment in
 * either mode: --checkpoint FILE saves where the reader stopped, --resume
 * FILE starts there.
 */
#ifndef IVRING_HANDOVER_H
#define IVRING_HANDOVER_H

#include <stdbool.h>

struct ivring;

struct handover {
	const char *checkpoint;
	const char *resume;
};

/*
 * --resume: wait for the checkpoint @ckpt to appear when @follow, else
 * find it there.  0 once it exists, with *stop set if Ctrl-C came first;
 * or an exit code, having said why.
 */
int handover_wait(const char *ckpt, bool follow, bool *stop);
/*
 * Start @r where @ckpt (if set) says, and say where reading starts when
 * that is not where the last reader of this file stopped.  0 or an exit
 * code, having said why.
 */
int handover_start(struct ivring *r, const char *ckpt);
/*
 * --checkpoint: save where @r stopped, whatever @err ended the reading:
 * what was consumed was written out.  Returns @err, or the exit code of a
 * failed save.
 */
int handover_end(struct ivring *r, const struct handover *h, int err);

#endif /* IVRING_HANDOVER_H */
