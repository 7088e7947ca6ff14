// SPDX-License-Identifier: GPL-2.0 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * ivring-read --watch DIR: the events of every guest as text, in one
 * stream, each line prefixed with its guest's name.
 *
 * A reader thread renders one guest's batch into a buffer of its own, then
 * writes it out in one go under the stream's lock, flushes, and only then
 * consumes those events: lines of different guests never interleave within
 * a line, and a reader killed at any point has consumed nothing it did not
 * write.  Lines are in time order per guest, not across guests.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libivring.h"
#include "guest_registry.h"
#include "read_common.h"
#include "read_many.h"
#include "read_many_text.h"
#include "tool_msg.h"

/* Events rendered per batch, at most. */
#define TEXT_BATCH	2048

struct text_out {
	char *buf;
	size_t len, cap;
	char *line;
	size_t line_len;
};

static bool grow(struct text_out *t, size_t more)
{
	size_t cap = t->cap ? t->cap : 65536;
	char *p;

	if (t->len + more <= t->cap)
		return true;
	while (cap < t->len + more)
		cap *= 2;
	p = realloc(t->buf, cap);
	if (!p)
		return false;
	t->buf = p;
	t->cap = cap;
	return true;
}

static bool append(struct text_out *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(t->buf + t->len, t->cap - t->len, fmt, ap);
		va_end(ap);
		if (n < 0)
			return false;
		if ((size_t)n < t->cap - t->len) {
			t->len += n;
			return true;
		}
		if (!grow(t, n + 1))
			return false;
	}
}

static int render(struct seg *s, struct text_out *t,
		  const struct ivring_event *ev)
{
	struct ivring_event at;
	int len;

	if (ev->lost && !append(t, "%s: CPU:%u [LOST %" PRIu64 " EVENTS]\n",
				s->name, ev->cpu, ev->lost))
		return -ENOMEM;
	ev = read_clock_event(s->r, &s->clk, ev, &at);
	len = ivring__snprint(s->r, ev, t->line, t->line_len);
	if (len < 0) {
		tool_warn("%s: CPU %u: cannot render an event of type %u: %s",
			  s->name, ev->cpu, ev->type, ivring__errmsg(s->r));
		return len;
	}
	if ((size_t)len >= t->line_len) {
		char *p = realloc(t->line, len + 1);

		if (!p)
			return -ENOMEM;
		t->line = p;
		t->line_len = len + 1;
		ivring__snprint(s->r, ev, t->line, t->line_len);
	}
	return append(t, "%s: %s\n", s->name, t->line) ? 0 : -ENOMEM;
}

/*
 * The batch goes out whole, then is consumed.  Returns 0, an exit code
 * when writing failed (having said why; -1: the reader went away), or the
 * library's negative errno when the segment refused the commit.
 */
static int write_out(struct seg *s, struct many_text *mt, struct text_out *t)
{
	int ret = 0;

	pthread_mutex_lock(&mt->lock);
	if (mt->failed) {
		ret = mt->failed;
	} else if (t->len && (fwrite(t->buf, 1, t->len, mt->out) != t->len ||
			      fflush(mt->out))) {
		/* A reader that went away (| head) is not an error of ours. */
		mt->failed = errno == EPIPE ? -1 : EXIT_RUNTIME;
		if (mt->failed > 0)
			tool_warn("%s: write error: %s", mt->name, strerror(errno));
		ret = mt->failed;
	}
	pthread_mutex_unlock(&mt->lock);
	t->len = 0;
	if (ret || s->failed)
		return ret;
	return ivring__commit(s->r);
}

static int text_start(struct seg *s, void *arg)
{
	struct text_out *t = calloc(1, sizeof(*t));

	if (!t || !grow(t, 1) || !(t->line = malloc(4096))) {
		if (t)
			free(t->buf);
		free(t);
		tool_warn("%s: out of memory", s->name);
		return EXIT_RUNTIME;
	}
	t->line_len = 4096;
	s->out = t;
	return 0;
}

static int text_serve(struct seg *s, void *arg, bool drain, int *err)
{
	struct text_out *t = s->out;
	uint64_t events = 0, lost = 0, bytes = 0;
	struct ivring_event ev;
	int ret = 0, n;

	for (n = 0; n < TEXT_BATCH; n++) {
		ret = ivring__next(s->r, &ev);
		if (ret <= 0)
			break;
		ret = render(s, t, &ev);
		if (ret) {
			*err = EXIT_RUNTIME;
			return -ECANCELED;
		}
		events++;
		lost += ev.lost;
		bytes += ev.size;
	}
	guest_count(s->g, events, lost, bytes);
	*err = write_out(s, arg, t);
	if (*err < -1)
		return *err;
	if (*err)
		return -ECANCELED;
	/* A new generation or an error ends a batch: it must be seen. */
	return ret < 0 || !n ? ret : n;
}

static int text_end(struct seg *s, void *arg)
{
	struct text_out *t = s->out;
	int err = write_out(s, arg, t);

	if (err < -1)
		tool_warn("%s", ivring__errmsg(s->r));
	free(t->buf);
	free(t->line);
	free(t);
	s->out = NULL;
	return err > 0 ? err : err < -1 ? exit_code(err) : 0;
}

const struct many_ops many_text_ops = {
	.wait_clock = true,
	.start = text_start,
	.serve = text_serve,
	.end = text_end,
};
