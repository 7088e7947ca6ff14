/* SPDX-License-Identifier: GPL-2.0 */
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * What the parts of the guest module share: the one ivring instance, the
 * event table's runtime descriptors, and the functions that cross files.
 *
 *   main.c     module init/exit and parameters
 *   pci.c      the ivshmem driver: maps BAR2, formats the segment
 *   events.c   probes, payloads and format texts, generated from
 *              event_table.h
 *   attach.c   finds tracepoints by name, registers and unregisters probes
 *   marker.c   trace_marker: a line written becomes an event
 *   clock_sync.c  answers the host's clock requests
 *   generic.c  the generic lane: any event of the kernel, through perf
 *   tracefs.c  the kernel's event definitions, from a private tracefs mount
 *   sysfs.c    /sys/kernel/ivring/
 */
#ifndef IVRING_KMOD_IVRING_H
#define IVRING_KMOD_IVRING_H

#include <linux/types.h>

#include "instance.h"

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
	bool enabled;			/* in its lane; under ivr_mutex */
	bool lane_generic;		/* enabled through @gen; under ivr_mutex */
	struct tracepoint *tp;		/* NULL: this kernel lacks it */
	struct ivr_generic *gen;	/* the generic lane's state, or NULL */
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

#endif /* IVRING_KMOD_IVRING_H */
