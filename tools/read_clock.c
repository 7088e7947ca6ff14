// SPDX-License-Identifier: GPL-2.0 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/* Host times for a reader's events: --clock, and the clock lines of --stats. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "libivring.h"
#include "read_clock.h"
#include "read_common.h"
#include "tool_msg.h"
#include "tool_time.h"

/*
 * How long a burst waits for the guest's poller: it looks every 50 ms
 * while a reader asks, and once a second before.
 */
#define SYNC_TIMEOUT_MS	150
#define SYNC_FIRST_MS	1500
#define SYNC_EVERY_NS	1000000000ULL
/* Bursts tried before --clock host gives up on a guest that is there. */
#define SYNC_TRIES	3

bool read_clock_parse(const char *name, unsigned int *clock)
{
	if (!strcmp(name, "guest"))
		*clock = 0;
	else if (!strcmp(name, "host"))
		*clock = IVRING_HOST_MONOTONIC;
	else if (!strcmp(name, "realtime"))
		*clock = IVRING_HOST_REALTIME;
	else
		return false;
	return true;
}

int read_clock_start(struct ivring *r, struct read_clock *c, bool peek)
{
	int i, ret = 0;

	c->told = false;
	c->next_ns = now_ns() + SYNC_EVERY_NS;
	if (!c->sync)
		return 0;
	if (peek) {
		c->sync = false;
		if (!c->clock)
			return 0;
		tool_warn("--clock: a --peek reader writes nothing to the segment, so it cannot ask the guest for its clock");
		return EXIT_USAGE;
	}
	for (i = 0; i < SYNC_TRIES && ret <= 0 && !stop_is_requested(); i++) {
		ret = ivring__clock_sync(r, i ? SYNC_TIMEOUT_MS : SYNC_FIRST_MS);
		if (ret < 0)
			break;
	}
	if (ret > 0 || !c->clock)
		return 0;
	if (ret < 0)
		tool_warn("--clock %s: %s", c->clock == IVRING_HOST_REALTIME ?
			  "realtime" : "host", ivring__errmsg(r));
	else
		tool_warn("--clock: the guest did not answer %d clock requests (is /sys/module/ivring/parameters/sync_poll_ms 0?)",
			  SYNC_TRIES);
	return EXIT_RUNTIME;
}

int read_clock_burst(struct ivring *r, bool first)
{
	return ivring__clock_sync(r, first ? SYNC_FIRST_MS : SYNC_TIMEOUT_MS);
}

void read_clock_tick(struct ivring *r, struct read_clock *c)
{
	uint64_t now;

	if (!c->sync)
		return;
	now = now_ns();
	if (now < c->next_ns)
		return;
	c->next_ns = now + SYNC_EVERY_NS;
	ivring__clock_sync(r, SYNC_TIMEOUT_MS);
}

const struct ivring_event *read_clock_event(struct ivring *r,
					    struct read_clock *c,
					    const struct ivring_event *ev,
					    struct ivring_event *out,
					    uint64_t *bound_ns)
{
	uint64_t t;

	*bound_ns = UINT64_MAX;
	if (!c->clock)
		return ev;
	if (ivring__clock_host(r, ev->ts, c->clock, &t, bound_ns)) {
		/* A new generation whose guest never answered. */
		if (!c->told)
			tool_warn("%s; printing the guest's times", ivring__errmsg(r));
		c->told = true;
		*bound_ns = UINT64_MAX;
		return ev;
	}
	/* A bound that saturated is still a host time's. */
	if (*bound_ns == UINT64_MAX)
		*bound_ns = UINT64_MAX - 1;
	*out = *ev;
	out->ts = t;
	return out;
}

void read_clock_stats(struct ivring *r)
{
	struct ivring_clock_info ci = { .sz = sizeof(ci) };

	if (ivring__clock_info(r, &ci) || !ci.bursts)
		return;
	fprintf(stderr, "clock samples: %" PRIu64 "\n", ci.samples);
	fprintf(stderr, "clock bursts: %" PRIu64 " (%" PRIu64 " unanswered, %" PRIu64 " refused, %" PRIu64 " too slow)\n",
		ci.bursts, ci.timeouts, ci.refused, ci.poor);
	if (!ci.samples)
		return;
	fprintf(stderr, "clock offset ns: %" PRId64 "\n", ci.offset_ns);
	fprintf(stderr, "clock drift ppm: %.3f\n", ci.drift_ppm);
	fprintf(stderr, "clock bound ns: %" PRIu64 "\n", ci.best_bound_ns);
	fprintf(stderr, "clock last bound ns: %" PRIu64 "\n", ci.last_bound_ns);
}
