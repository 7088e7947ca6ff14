/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/* The driver's opening of a segment (seg_open.c), for follow.c. */
#ifndef IVRING_SEG_OPEN_H
#define IVRING_SEG_OPEN_H

#include <stdbool.h>

struct seg;

/*
 * One attempt: SEG_WORK with s->r set, SEG_WAIT when it is worth another
 * at s->retry_ns (@may_wait: a segment not there or not formatted yet,
 * or, for one of many, that another reader consumes), SEG_GONE, or
 * SEG_FAIL having said why.
 */
int seg_try_open(struct seg *s, bool may_wait);
/*
 * The open, or the start of its output, failed with -errno @ret, for the
 * reason @why: SEG_WAIT or SEG_FAIL, as seg_try_open() decides.
 */
int seg_open_failed(struct seg *s, int ret, bool may_wait, const char *why);
/*
 * One segment: wait for it as --follow and --resume ask, open it, and
 * start where the checkpoint says.  Returns 0 with s->r set, or NULL when
 * Ctrl-C ended a wait; or an exit code, having said why.
 */
int seg_open_one(struct seg *s);
/* Why @s cannot be read; for one of many, naming it, and that it is skipped. */
void seg_say_why(const struct seg *s, const char *why);
/*
 * Of many, such messages are rate-limited: at the end, how many were not
 * shown.
 */
void seg_said_end(void);

#endif /* IVRING_SEG_OPEN_H */
