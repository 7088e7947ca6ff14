// SPDX-License-Identifier: GPL-2.0
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * Attaching probes to tracepoints.  Most tracepoints are not exported to
 * modules as symbols, so they are found by name with
 * for_each_kernel_tracepoint() and attached with tracepoint_probe_register().
 * A probe stays registered while its event is enabled, whether or not a
 * device is bound: it finds no instance and returns (probe.h).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/printk.h>
#include <linux/string.h>
#include <linux/tracepoint.h>

#include "generic.h"
#include "ivring.h"

static void ivr_match_tracepoint(struct tracepoint *tp, void *priv)
{
	unsigned int i;

	for (i = 0; i < ivr_nr_events; i++)
		if (!ivr_events[i].tp && !strcmp(tp->name, ivr_events[i].name))
			ivr_events[i].tp = tp;
}

/*
 * Find each event's tracepoint in the kernel.  One that this kernel lacks
 * (another version, or configured out) is skipped, never fatal: the event
 * is then simply not offered in sysfs or in the segment's formats.
 */
void ivr_events_lookup(void)
{
	unsigned int i;

	for_each_kernel_tracepoint(ivr_match_tracepoint, NULL);
	for (i = 0; i < ivr_nr_events; i++)
		if (!ivr_events[i].tp)
			pr_info("this kernel has no tracepoint %s:%s; the event is skipped\n",
				ivr_events[i].sys, ivr_events[i].name);
}

/**
 * ivr_event_set() - attach or detach an event in its lane
 * @ev:		the event; a native one's tracepoint must exist
 * @on:		attach when true
 *
 * Context: process, with ivr_mutex held.
 * Return: 0, or the error of tracepoint_probe_(un)register() or of the
 * generic lane.
 */
int ivr_event_set(struct ivr_event *ev, bool on)
{
	int ret;

	lockdep_assert_held(&ivr_mutex);
	if (!ev->lane_generic && !ev->tp)
		return -ENODEV;
	if (ev->enabled == on)
		return 0;
	if (ev->lane_generic) {
		ret = ivr_generic_set(ev, on);
		if (!ret)
			ev->enabled = on;
		return ret;
	}
	if (on)
		ret = tracepoint_probe_register(ev->tp, ev->probe, ev);
	else
		ret = tracepoint_probe_unregister(ev->tp, ev->probe, ev);
	if (ret) {
		pr_err("cannot %s the probe of %s:%s: %d\n",
		       on ? "register" : "unregister", ev->sys, ev->name, ret);
		return ret;
	}
	ev->enabled = on;
	return 0;
}

/*
 * Detach every probe and perf counter, then wait until no CPU still runs
 * one: after this the probes' code and the instance they read may go away.
 * Perf calls the generic lane's handler with preemption disabled, as
 * tracepoints call probes, so the same grace period covers it.
 */
void ivr_events_disable_all(void)
{
	struct ivr_event *ev;

	mutex_lock(&ivr_mutex);
	ivr_for_each_event(ev)
		ivr_event_set(ev, false);
	mutex_unlock(&ivr_mutex);
	tracepoint_synchronize_unregister();
}
