// SPDX-License-Identifier: GPL-2.0 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
#include <errno.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "tool_msg.h"
#include "tool_text.h"
#include "tool_time.h"

/*
 * One line, whole: threads that warn at once do not mix their lines.  Its
 * control bytes become '?': a message names files and says what guests
 * wrote, and a name with a newline and another guest's prefix would forge
 * a line.
 */
static void say(const char *fmt, va_list ap)
{
	char *line;

	if (vasprintf(&line, fmt, ap) < 0)
		line = NULL;
	else
		tool_safe_text(line);
	flockfile(stderr);
	fprintf(stderr, "%s: %s\n", program_invocation_short_name,
		line ? line : "(no memory for a message)");
	funlockfile(stderr);
	free(line);
}

void tool_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say(fmt, ap);
	va_end(ap);
}

/* Exit status 1: a runtime error, as both tools document. */
void tool_die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say(fmt, ap);
	va_end(ap);
	exit(1);
}

void tool_warn_limited(struct tool_ratelimit *rl, const char *fmt, ...)
{
	unsigned long held = 0;
	uint64_t now = now_ns();
	bool say_it;
	va_list ap;

	pthread_mutex_lock(&rl->lock);
	if (!rl->begin_ns || now - rl->begin_ns >= rl->interval_ns) {
		rl->begin_ns = now;
		rl->said = 0;
	}
	say_it = rl->said < rl->burst;
	if (say_it) {
		rl->said++;
		held = rl->held;
		rl->held = 0;
	} else {
		rl->held++;
	}
	pthread_mutex_unlock(&rl->lock);
	if (!say_it)
		return;
	if (held)
		tool_warn("(%lu more messages %s were not shown)", held,
			  rl->what);
	va_start(ap, fmt);
	say(fmt, ap);
	va_end(ap);
}

void tool_ratelimit_end(struct tool_ratelimit *rl)
{
	unsigned long held;

	pthread_mutex_lock(&rl->lock);
	held = rl->held;
	rl->held = 0;
	pthread_mutex_unlock(&rl->lock);
	if (held)
		tool_warn("%lu more messages %s were not shown", held,
			  rl->what);
}
