// SPDX-License-Identifier: GPL-2.0
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * The native lane's tracepoints.  Most tracepoints are not exported to
 * modules as symbols, so they are found by name with
 * for_each_kernel_tracepoint() and attached with tracepoint_probe_register().
 * A probe stays registered while its event is enabled, whether or not a
 * device is bound: it finds no instance and returns (probe.h).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/printk.h>
#include <linux/string.h>
#include <linux/tracepoint.h>

#include "lanes.h"

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
 * ivr_native_set() - register or unregister a native event's probe
 * @ev:		an event of the table whose tracepoint exists
 * @on:		register when true
 *
 * Context: process, with ivr_mutex held (registry.c's ivr_event_set()).
 * Return: 0, or the error of tracepoint_probe_(un)register().
 */
int ivr_native_set(struct ivr_event *ev, bool on)
{
	int ret;

	if (on)
		ret = tracepoint_probe_register(ev->tp, ev->probe, ev);
	else
		ret = tracepoint_probe_unregister(ev->tp, ev->probe, ev);
	if (ret)
		pr_err("cannot %s the probe of %s:%s: %d\n",
		       on ? "register" : "unregister", ev->sys, ev->name, ret);
	return ret;
}
