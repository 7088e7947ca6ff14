// SPDX-License-Identifier: GPL-2.0
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * Clock answers: a host reader that wants to put host times on the guest's
 * events asks for the guest's clock through the segment
 * (include/uapi/linux/ivring.h, "Clock synchronisation"), and this poller
 * answers.
 *
 * There is no interrupt to wake us (ivshmem-plain has none), so a delayed
 * work looks every sync_poll_ms while a reader asks, and once a second
 * when none has for IVR_SYNC_QUIET_NS: a guest with no syncing reader
 * pays a wake-up a second, one with a reader that asks once a second
 * about 20.  What a look does, and how it spins through the host's burst
 * of requests within the limits that keep a hostile host's cost at 1% of
 * one CPU, is the shared writer's policy, ivw_sync_poll()
 * (include/writer/ring_sync.c).  What an honest reader costs is in
 * /sys/kernel/ivring/clock_sync.  Each look also keeps a TSC clock going
 * (ivr_sync_check_tsc()).
 *
 * The poller holds ivr_mutex, under which the instance is published and
 * unpublished, so the instance it answers for stays formatted and mapped
 * while it spins; sysfs writes wait for at most one burst.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/sysfs.h>
#include <linux/workqueue.h>

#include "instance.h"

/* With no request for this long, look only every IVR_SYNC_IDLE_MS. */
#define IVR_SYNC_QUIET_NS	(10 * NSEC_PER_SEC)
/* And how often to look whether sync_poll_ms=0 changed. */
#define IVR_SYNC_IDLE_MS	1000

static unsigned int ivr_sync_poll_ms = 50;
module_param_named(sync_poll_ms, ivr_sync_poll_ms, uint, 0644);
MODULE_PARM_DESC(sync_poll_ms,
		 "how often to look for the host's clock requests while a reader asks, in ms (default 50; 0: never answer)");

/* What the poller did, under ivr_mutex. */
static struct ivw_sync_poller ivr_sync;

/*
 * A segment stamped from the TSC (kmod/segment_clock.c): a counter that
 * went back would hold every event at its CPU's last time; the clock goes
 * on from the newest stamp instead (include/writer/ring_clock.c).  A
 * resume from suspend heals before it lets probes write (segment.c);
 * this look catches the rest, such as a migration that did not carry the
 * counter.  The TSC stays the segment's clock until its next format even
 * if the kernel stops trusting it: say so once.
 */
static void ivr_sync_check_tsc(struct ivr_instance *inst)
{
	u64 back;

	if (!inst || !inst->w.tsc.on)
		return;
#ifdef CONFIG_X86
	/* Then CPUs may count apart, which no base can mend. */
	if (check_tsc_unstable()) {
		pr_warn_once("the kernel marked the TSC unstable, and the segment's timestamps still come from it; a reset with clock=auto stamps the next segment with mono\n");
		return;
	}
#endif
	back = ivw_tsc_heal(&inst->w);
	/* The host can move a guest's TSC: it must not flood dmesg. */
	if (back)
		pci_info_ratelimited(inst->pdev, "the TSC went back (%llu ns behind the newest event): timestamps go on from that event\n",
				     back);
}

static void ivr_sync_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(ivr_sync_work, ivr_sync_fn);

static void ivr_sync_fn(struct work_struct *work)
{
	unsigned int ms = READ_ONCE(ivr_sync_poll_ms);
	struct ivr_instance *inst;
	bool quiet = true;

	mutex_lock(&ivr_mutex);
	inst = ivr_instance_locked();
	/* Before any answer, which a clock that went back would spoil. */
	ivr_sync_check_tsc(inst);
	if (ms) {
		ivw_sync_poll(&ivr_sync, inst ? &inst->w : NULL);
		quiet = !ivr_sync.last_answer ||
			ivw_clock_policy() - ivr_sync.last_answer >
				IVR_SYNC_QUIET_NS;
	}
	mutex_unlock(&ivr_mutex);
	queue_delayed_work(system_power_efficient_wq, &ivr_sync_work,
			   msecs_to_jiffies(quiet ? IVR_SYNC_IDLE_MS : ms));
}

void ivr_sync_start(void)
{
	queue_delayed_work(system_power_efficient_wq, &ivr_sync_work, 0);
}

/* Context: process, without ivr_mutex (the poller takes it). */
void ivr_sync_stop(void)
{
	cancel_delayed_work_sync(&ivr_sync_work);
}

/* /sys/kernel/ivring/clock_sync: what the poller did. */
ssize_t ivr_sync_show(char *buf)
{
	ssize_t len;

	mutex_lock(&ivr_mutex);
	len = sysfs_emit(buf,
			 "poll_ms: %u\npolls: %llu\nanswers: %llu\nbursts: %llu\nbusy_ns: %llu\n",
			 READ_ONCE(ivr_sync_poll_ms), ivr_sync.polls,
			 ivr_sync.answers, ivr_sync.bursts, ivr_sync.busy_ns);
	mutex_unlock(&ivr_mutex);
	return len;
}
