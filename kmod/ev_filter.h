/* SPDX-License-Identifier: GPL-2.0 */
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * Event filters in the module (ev_filter.c): a lane descriptor's compiled
 * filter, and the per-CPU buffers that a filtered event is built in before
 * the filter decides whether it goes into the ring (probe.h).  The language
 * itself is include/filter/, shared with userspace.
 */
#ifndef IVRING_KMOD_EV_FILTER_H
#define IVRING_KMOD_EV_FILTER_H

#include <linux/rcupdate.h>
#include <linux/types.h>

#include "filter.h"

/*
 * A compiled filter.  Probes read it under RCU-sched (they run with
 * preemption disabled); a replaced one is freed after a grace period.
 */
struct ivr_filter {
	struct rcu_head rcu;
	struct ivf_prog prog;
};

/*
 * A filtered record is built in one of these, one per nesting level on a
 * CPU (task, softirq, hardirq, NMI, and two more for a probe that a
 * kprobe in a probe's path interrupts), and copied to the ring if it
 * passes: the filter never reads back from the segment, which the host
 * may rewrite at any moment.  A buffer holds the largest record perf
 * gives the generic lane (PERF_MAX_TRACE_SIZE); no native one is larger.
 * Only a seventh nested level, which no context nests to, goes to the
 * ring unfiltered.
 */
#define IVR_SCRATCH_LEVELS	6
#define IVR_SCRATCH_SIZE	8192

struct ivr_scratch {
	unsigned int depth;
	u8 *buf;		/* IVR_SCRATCH_LEVELS * IVR_SCRATCH_SIZE bytes */
};

extern struct ivr_scratch __percpu *ivr_scratch;

int ivr_filter_init(void);
void ivr_filter_exit(void);
/*
 * Compile @text against the format text @fmt; a new filter, or NULL with
 * @err set (ERR_PTR(-ENOMEM) when out of memory).
 */
struct ivr_filter *ivr_filter_compile(const char *text, size_t len,
				      const char *fmt, size_t fmt_len,
				      struct ivf_error *err);
/* Replace @slot's filter with @f (may be NULL); the old one is freed later. */
void ivr_filter_install(struct ivr_filter __rcu **slot, struct ivr_filter *f);
/*
 * What a filter file shows after @text was refused: the text, a caret
 * under the byte at fault and the parse error, as tracefs shows it.
 */
char *ivr_filter_report(const char *text, size_t len,
			const struct ivf_error *err);
/* A system's filter that an event of it does not take, as ftrace says. */
#define IVR_SUBSYS_ERROR \
	"Couldn't find or set field in one of a subsystem's events"

#endif /* IVRING_KMOD_EV_FILTER_H */
