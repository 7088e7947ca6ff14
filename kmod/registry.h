/* SPDX-License-Identifier: GPL-2.0 */
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * The registry layer (kmod/LAYERS): every event that ivring lists,
 * whichever lane carries it, and what spans the lanes (registry.c).  All
 * of it runs in process context with ivr_mutex held, but
 * ivr_events_disable_all(), which takes it.
 */
#ifndef IVRING_KMOD_REGISTRY_H
#define IVRING_KMOD_REGISTRY_H

#include "generic.h"
#include "lanes.h"

/*
 * Every event that ivring lists: the table's that this kernel has, then the
 * generic ones added so far, in the order they were added.
 */
struct ivr_event *ivr_event_next(struct ivr_event *ev);
#define ivr_for_each_event(ev) \
	for (ev = ivr_event_next(NULL); ev; ev = ivr_event_next(ev))

int ivr_event_set(struct ivr_event *ev, bool on);
int ivr_event_set_lane(struct ivr_event *ev, bool generic);
u16 ivr_event_lane_id(const struct ivr_event *ev);
int ivr_event_lane_format(const struct ivr_event *ev, char *buf, size_t size);
int ivr_event_set_filter(struct ivr_event *ev, const char *text, size_t len,
			 bool subsystem);
void ivr_events_free_filters(void);
void ivr_events_disable_all(void);
int ivr_events_add_formats(struct ivr_instance *inst);

#endif /* IVRING_KMOD_REGISTRY_H */
