// SPDX-License-Identifier: GPL-2.0
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * The clock a segment is stamped with: the clock parameter.
 *
 * Every event reads the clock once.  ktime_get_mono_fast_ns() goes through
 * the timekeeper's latch and an indirect call to the clocksource; where
 * that is the TSC, reading the TSC and scaling it with one multiply gives
 * the count at a fraction of the cost (kmod/RING-DESIGN 11).  The scaling
 * is measured at each format (include/writer/clock_tsc_kernel.h), so the
 * segment's time runs at mono_raw's rate from mono_raw's value.  The host
 * learns nothing new: timestamps stay nanoseconds, and its clock requests
 * are answered from the same clock (include/writer/ring_sync.c).
 *
 * clock=auto takes the TSC where the kernel would prefer it to kvm-clock;
 * clock=tsc wherever the kernel trusts it, as in a TCG guest booted with
 * tsc=reliable, whose TSC has no invariant flags.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/moduleparam.h>
#include <linux/pci.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "clock_tsc_kernel.h"
#include "segment.h"

enum { IVR_CLOCK_AUTO, IVR_CLOCK_MONO, IVR_CLOCK_TSC };

static const char * const ivr_clock_names[] = {
	[IVR_CLOCK_AUTO] = "auto",
	[IVR_CLOCK_MONO] = "mono",
	[IVR_CLOCK_TSC] = "tsc",
};

static unsigned int ivr_clock = IVR_CLOCK_AUTO;

static int ivr_clock_param_set(const char *val, const struct kernel_param *kp)
{
	int i = sysfs_match_string(ivr_clock_names, val);

	if (i < 0) {
		pr_err("clock=%s: expected auto, mono or tsc\n", val);
		return -EINVAL;
	}
	*(unsigned int *)kp->arg = i;
	return 0;
}

static int ivr_clock_param_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s\n", ivr_clock_names[*(unsigned int *)kp->arg]);
}

static const struct kernel_param_ops ivr_clock_param_ops = {
	.set = ivr_clock_param_set,
	.get = ivr_clock_param_get,
};
module_param_cb(clock, &ivr_clock_param_ops, &ivr_clock, 0444);
MODULE_PARM_DESC(clock,
		 "the events' clock: mono (ktime_get_mono_fast_ns), tsc (the TSC scaled to ns, at mono_raw's rate), or auto (default: tsc where its rate is invariant and the kernel trusts it, else mono)");

/* At module init: clock=tsc where no TSC can serve fails the load. */
int ivr_segment_check_clock(void)
{
	const char *why = ivw_tsc_unfit(false);

	if (ivr_clock == IVR_CLOCK_TSC && why) {
		pr_err("clock=tsc: %s; load with clock=auto or clock=mono\n",
		       why);
		return -EINVAL;
	}
	return 0;
}

/**
 * ivr_segment_pick_clock() - set the clock of the next format in @p
 * @p:		the format's parameters
 * @pdev:	for dmesg
 *
 * Context: process, ivr_mutex held.
 * Return: 0, or -EINVAL when clock=tsc and the TSC has become unfit since
 * the module was loaded.
 */
int ivr_segment_pick_clock(struct ivw_params *p, struct pci_dev *pdev)
{
	unsigned int want = READ_ONCE(ivr_clock);
	const char *why = ivw_tsc_unfit(want == IVR_CLOCK_AUTO);

	memset(&p->tsc, 0, sizeof(p->tsc));
	p->clock_id = IVRING_CLOCK_MONO;
	p->clock_name = "mono";
	if (want == IVR_CLOCK_TSC && why) {
		pci_err(pdev, "clock=tsc: %s; load with clock=auto or clock=mono\n",
			why);
		return -EINVAL;
	}
	if (want == IVR_CLOCK_MONO || why)
		return 0;
	ivw_tsc_measure(&p->tsc);
	p->clock_id = IVRING_CLOCK_TSC;
	/* ftrace's name for the clock whose rate this one has. */
	p->clock_name = "mono_raw";
	pci_info(pdev, "timestamps from the TSC: mult %u shift %u\n",
		 p->tsc.mult, p->tsc.shift);
	return 0;
}
