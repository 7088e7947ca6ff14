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
 * about 20.  One look costs a load and a compare.  When
 * it finds a request, it answers and spins, answering each new request at
 * once, so that the host's burst of requests gets round trips of
 * microseconds and not of a poll interval: the error bound is half the best
 * round trip.  It waits IVR_SYNC_FIRST_NS for the host to see the first
 * answer (the host may be napping), then IVR_SYNC_TAIL_NS after each
 * answer, and stops at once when the host ends its burst (sync_seq 0).  A
 * burst spins IVR_SYNC_BURST_NS at most and starts IVR_SYNC_GAP_NS after
 * the last at the earliest, so a host that keeps asking (the host may
 * write anything there) costs at most IVR_SYNC_BURST_NS per
 * IVR_SYNC_GAP_NS, 1% of one CPU, plus an answer per poll.  What an honest
 * reader costs is in /sys/kernel/ivring/clock_sync.
 *
 * The poller holds ivr_mutex, under which the instance is published and
 * unpublished, so the instance it answers for stays formatted and mapped
 * while it spins; sysfs writes wait for at most one burst.
 */
#include <linux/jiffies.h>
#include <linux/kobject.h>
#include <linux/module.h>
#include <linux/sysfs.h>
#include <linux/timekeeping.h>
#include <linux/workqueue.h>

#include "ivring.h"

#define IVR_SYNC_FIRST_NS	(1 * NSEC_PER_MSEC)
#define IVR_SYNC_TAIL_NS	(200 * NSEC_PER_USEC)
#define IVR_SYNC_BURST_NS	(2 * NSEC_PER_MSEC)
#define IVR_SYNC_GAP_NS		(200 * NSEC_PER_MSEC)
/* With no request for this long, look only every IVR_SYNC_IDLE_MS. */
#define IVR_SYNC_QUIET_NS	(10 * NSEC_PER_SEC)
/* And how often to look whether sync_poll_ms=0 changed. */
#define IVR_SYNC_IDLE_MS	1000

static unsigned int ivr_sync_poll_ms = 50;
module_param_named(sync_poll_ms, ivr_sync_poll_ms, uint, 0644);
MODULE_PARM_DESC(sync_poll_ms,
		 "how often to look for the host's clock requests while a reader asks, in ms (default 50; 0: never answer)");

/* What the poller did, under ivr_mutex. */
static struct {
	u64 polls;
	u64 answers;
	u64 bursts;
	u64 busy_ns;		/* in the poller, spinning included */
	u64 next_burst;		/* no burst before this time */
	u64 last_answer;	/* when we last answered */
} ivr_sync;

static void ivr_sync_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(ivr_sync_work, ivr_sync_fn);

/* Answer while requests keep coming, within one burst's limits. */
static void ivr_sync_burst(struct ivw_writer *w, u64 t0)
{
	u64 now = t0, tail = t0 + IVR_SYNC_FIRST_NS;
	u64 end = t0 + IVR_SYNC_BURST_NS;
	int ret;

	while (now < tail && now < end) {
		cpu_relax();
		now = ktime_get_mono_fast_ns();
		ret = ivw_sync_answer(w);
		if (ret == IVW_SYNC_ENDED)
			break;
		if (ret == IVW_SYNC_ANSWERED) {
			ivr_sync.answers++;
			tail = now + IVR_SYNC_TAIL_NS;
		}
	}
	ivr_sync.bursts++;
	ivr_sync.next_burst = now + IVR_SYNC_GAP_NS;
}

static void ivr_sync_fn(struct work_struct *work)
{
	unsigned int ms = READ_ONCE(ivr_sync_poll_ms);
	struct ivr_instance *inst;
	bool quiet = true;
	u64 t0;

	if (ms) {
		mutex_lock(&ivr_mutex);
		t0 = ktime_get_mono_fast_ns();
		inst = rcu_dereference_protected(ivr_inst,
						 lockdep_is_held(&ivr_mutex));
		if (inst && ivw_sync_answer(&inst->w) == IVW_SYNC_ANSWERED) {
			ivr_sync.answers++;
			ivr_sync.last_answer = t0;
			if (t0 >= ivr_sync.next_burst)
				ivr_sync_burst(&inst->w, t0);
		}
		quiet = !ivr_sync.last_answer ||
			t0 - ivr_sync.last_answer > IVR_SYNC_QUIET_NS;
		ivr_sync.polls++;
		ivr_sync.busy_ns += ktime_get_mono_fast_ns() - t0;
		mutex_unlock(&ivr_mutex);
	}
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

static ssize_t clock_sync_show(struct kobject *kobj,
			       struct kobj_attribute *attr, char *buf)
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

struct kobj_attribute ivr_clock_sync_attr = __ATTR_RO(clock_sync);
