/* SPDX-License-Identifier: GPL-2.0 */
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * The generic lane (generic.c) and the tracefs files it reads (tracefs.c).
 */
#ifndef IVRING_KMOD_GENERIC_H
#define IVRING_KMOD_GENERIC_H

#include <linux/list.h>
#include <linux/types.h>

#include "lanes.h"

struct perf_event;
struct ivr_instance;

/*
 * An event in the generic lane.  Created the first time the event is
 * named (set_event, or a native event's lane), and kept until the module
 * goes: its id then stays the same for as long as the module is loaded,
 * and a segment never gets two formats with one id.
 * @node:	in the list of generic events that have no native probe;
 *		a native event's twin is not on it
 * @ev:		the descriptor: its id is the generic lane's, its sys and
 *		name are allocated here
 * @owner:	&@ev, or the native event this is the twin of
 * @kid:	the kernel's id of the event: perf's config
 * @format:	the kernel's format text, with the ID line made ours
 * @format_len:	its length
 * @format_gen:	generation of the segment whose format area holds it
 * @pev:	the perf counters, one per online CPU while enabled
 */
struct ivr_generic {
	struct list_head node;
	struct ivr_event ev;
	struct ivr_event *owner;
	u16 kid;
	char *format;
	u32 format_len;
	u64 format_gen;
	struct perf_event **pev;
};

/* generic.c; all but init and exit under ivr_mutex */
void ivr_generic_init(void);
void ivr_generic_stop(void);
void ivr_generic_exit(void);
struct ivr_event *ivr_generic_next(struct ivr_event *ev);
int ivr_generic_set(struct ivr_event *ev, bool on);
int ivr_generic_twin(struct ivr_event *ev);
int ivr_generic_store_format(struct ivr_generic *g, struct ivr_instance *inst);
int ivr_generic_add_matching(const char *sys, const char *name,
			     int (*added)(struct ivr_event *ev));
char *ivr_generic_available(size_t *lenp);

/* tracefs.c */
int ivr_tracefs_init(void);
void ivr_tracefs_exit(void);
char *ivr_tracefs_read(const char *path, size_t max, size_t *lenp);

#endif /* IVRING_KMOD_GENERIC_H */
