/* SPDX-License-Identifier: GPL-2.0 */
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * The lanes layer (kmod/LAYERS): an event, whichever lane carries it, the
 * native lane's table (events.c) and tracepoints (attach.c), and the
 * marker's event (marker.c).  The generic lane is generic.h; the fast
 * path that every lane's writer shares is probe.h.  Nothing here knows
 * the registry, which lists and switches the events of both lanes.
 */
#ifndef IVRING_KMOD_LANES_H
#define IVRING_KMOD_LANES_H

#include <linux/types.h>

#include "instance.h"

struct ivr_filter;
struct ivr_generic;
struct tracepoint;

/*
 * One event.  Those of the table are native: the probe is the class's
 * (events that share a class share a probe and a payload layout, as
 * ftrace's DEFINE_EVENT); the descriptor is the probe's data pointer, which
 * is how it learns its id.  Any other event of the kernel is generic
 * (generic.c): it has no probe, and @gen carries it.  A native event can
 * be switched to the generic lane too; then @gen holds its twin there,
 * with an id of its own, since the layout is the kernel's, not ours.
 */
struct ivr_event {
	const char *sys;
	const char *name;		/* also the tracepoint's name */
	void *probe;
	/* Appends the class's field lines of the format text. */
	int (*fields)(char *buf, size_t size);
	const char *print_fmt;
	u16 id;				/* common_type; index + 1 */
	/* The registry's (registry.c), under ivr_mutex: */
	bool enabled;			/* in its lane */
	bool lane_generic;		/* enabled through @gen */
	struct tracepoint *tp;		/* NULL: this kernel lacks it */
	struct ivr_generic *gen;	/* the generic lane's state, or NULL */
	/*
	 * The filter that this lane's records pass (ev_filter.c), compiled
	 * against this descriptor's format; NULL: every record.  Read by
	 * the probes under RCU-sched, set under ivr_mutex.
	 */
	struct ivr_filter __rcu *filter;
	/*
	 * What the event's filter file shows (the listed event's, not a
	 * twin's): the text of the filter in force when the descriptor of
	 * the lane that carries the event has one, else a refused text's
	 * error report; NULL: "none".
	 */
	char *filter_text;
};

extern struct ivr_event ivr_events[];
extern const unsigned int ivr_nr_events;
/* trace_marker's event (marker.c): no tracepoint, id ivr_nr_events + 1. */
extern struct ivr_event ivr_marker_event;

/* events.c */
void ivr_events_init_ids(void);
int ivr_event_format(const struct ivr_event *ev, char *buf, size_t size);

/* attach.c: the native lane's tracepoints */
void ivr_events_lookup(void);
int ivr_native_set(struct ivr_event *ev, bool on);

/* marker.c */
ssize_t ivr_marker_write(const char *buf, size_t count);

#endif /* IVRING_KMOD_LANES_H */
