// SPDX-License-Identifier: GPL-2.0
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * The instance that the probes write to, and the state that every layer
 * above shares: ivr_mutex, ivr_inst and ivr_tracing_on.  The layer that
 * formats segments (segment.c) publishes an instance here once it is LIVE
 * and unpublishes it before it changes or stops it; the probes (probe.h)
 * and the clock poller find it here.
 */
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/tracepoint.h>

#include "instance.h"

DEFINE_MUTEX(ivr_mutex);
struct ivr_instance __rcu *ivr_inst;
/* On by default, as tracefs's tracing_on: enabling an event is enough. */
bool ivr_tracing_on = true;

/* Make the LIVE @inst the one that probes write to. */
void ivr_instance_publish(struct ivr_instance *inst)
{
	lockdep_assert_held(&ivr_mutex);
	/*
	 * The formatted segment and writer state before the pointer: paired
	 * with rcu_dereference_sched() in ivr_probe_start() (probe.h) and
	 * ivr_marker_room() (marker.c).
	 */
	rcu_assign_pointer(ivr_inst, inst);
}

/*
 * Stop the probes writing to @inst and wait for those that still do;
 * then the writer state and the segment may change under nobody.
 */
void ivr_instance_unpublish(struct ivr_instance *inst)
{
	lockdep_assert_held(&ivr_mutex);
	if (rcu_access_pointer(ivr_inst) == inst)
		RCU_INIT_POINTER(ivr_inst, NULL);
	/*
	 * Probes run under RCU-sched (or SRCU for the _rcuidle ones): once
	 * this returns, none of them still writes into the segment.
	 */
	tracepoint_synchronize_unregister();
}
