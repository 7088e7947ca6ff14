/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/* Messages of the command-line tools: "<program>: <what went wrong>". */
#ifndef IVRING_TOOL_MSG_H
#define IVRING_TOOL_MSG_H

#include <pthread.h>
#include <stdint.h>

void tool_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * At most @burst messages in @interval_ns through one limiter, as the
 * kernel's printk_ratelimit() lets them: messages that whoever may create
 * files can multiply (one per file) must not bury the others.  What was
 * held back is counted, and said before the next message let through.
 */
struct tool_ratelimit {
	const char *what;	/* "about ...": what its messages are about */
	pthread_mutex_t lock;
	uint64_t interval_ns;
	unsigned int burst;
	uint64_t begin_ns;
	unsigned int said;
	unsigned long held;
};
#define TOOL_RATELIMIT(about, interval, n) \
	{ .what = (about), .lock = PTHREAD_MUTEX_INITIALIZER, \
	  .interval_ns = (interval), .burst = (n) }

void tool_warn_limited(struct tool_ratelimit *rl, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* At the end: how many messages @rl held back since the last it let by. */
void tool_ratelimit_end(struct tool_ratelimit *rl);
void tool_die(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));

#endif /* IVRING_TOOL_MSG_H */
