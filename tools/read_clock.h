/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * Host times for a reader's events: --clock, and the clock lines of
 * --stats.  The reader asks the guest for its clock at the start and then
 * every second (ivring__clock_sync()).
 */
#ifndef IVRING_READ_CLOCK_H
#define IVRING_READ_CLOCK_H

#include <stdbool.h>
#include <stdint.h>

struct ivring;
struct ivring_event;

struct read_clock {
	unsigned int clock;	/* 0: the guest's; IVRING_HOST_* */
	bool sync;		/* ask the guest (--clock host, --stats) */
	uint64_t next_ns;	/* the next burst */
	bool told;		/* said that there are no host times */
};

/* --clock NAME: guest (0), host or realtime.  False for another name. */
bool read_clock_parse(const char *name, unsigned int *clock);
/*
 * Before the first event of a generation: the first samples.  With host
 * times asked for, a guest that cannot answer is an error: returns an exit
 * code, having said why; 0 otherwise.
 */
int read_clock_start(struct ivring *r, struct read_clock *c, bool peek);
/*
 * One burst of clock requests, as read_clock_start() (@first: the guest's
 * poller may be looking only once a second yet) or read_clock_tick() make
 * them: ivring__clock_sync()'s result.
 */
int read_clock_burst(struct ivring *r, bool first);
/* In the read loop: a burst once a second. */
void read_clock_tick(struct ivring *r, struct read_clock *c);
/*
 * @ev with its time stamp in the chosen clock, in *out, and in *bound_ns
 * how far off that may be; @ev itself when that is the guest's, with
 * *bound_ns UINT64_MAX.
 */
const struct ivring_event *read_clock_event(struct ivring *r,
					    struct read_clock *c,
					    const struct ivring_event *ev,
					    struct ivring_event *out,
					    uint64_t *bound_ns);
/* The clock lines of --stats, if the reader asked the guest. */
void read_clock_stats(struct ivring *r);

#endif /* IVRING_READ_CLOCK_H */
