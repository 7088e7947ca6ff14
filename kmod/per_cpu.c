// SPDX-License-Identifier: GPL-2.0
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * /sys/kernel/ivring/per_cpu/cpuN/stats, in the wording of tracefs's
 * per_cpu/cpuN/stats: the counters the writer last stored in the segment
 * (struct ivring_cpu), so the guest and the host see the same numbers, but
 * taken from the writer's private copy, as the host may have rewritten the
 * segment's (kmod/RING-DESIGN 5):
 *
 *   entries          events committed since the segment was formatted
 *   overrun          events overwritten before the host consumed them
 *   bytes            bytes committed: headers, payloads and padding
 *   oldest event ts  first event of the oldest sub-buffer still in the ring
 *   now ts           the ring's clock now
 *   dropped events   events lost because no sub-buffer was free
 *   rejected events  events too large for a sub-buffer
 *   filtered events  events that their filter kept out: neither written
 *                    nor lost (not in tracefs's file)
 *
 * Timestamps are seconds.microseconds of the segment's clock (mono).
 */
#include <linux/cpumask.h>
#include <linux/kobject.h>
#include <linux/math64.h>
#include <linux/slab.h>
#include <linux/sysfs.h>

#include "control.h"

struct ivr_cpudir {
	struct kobject kobj;
	unsigned int cpu;
};

static struct kobject *ivr_per_cpu_kobj;
static struct ivr_cpudir **ivr_cpudirs;

static int ivr_emit_ts(char *buf, int len, const char *what, u64 ns)
{
	u32 rem;
	u64 sec = div_u64_rem(ns, NSEC_PER_SEC, &rem);

	return sysfs_emit_at(buf, len, "%s: %5llu.%06u\n", what, sec,
			     rem / 1000);
}

/*
 * Time stamp of the oldest sub-buffer that the ring still holds, or 0, from
 * the writer's slot records: the page's own time_stamp is host memory.
 */
static u64 ivr_oldest_ts(const struct ivw_writer *w, unsigned int cpu)
{
	const struct ivw_cpu *c = &w->cpus[cpu];
	u64 commit = READ_ONCE(c->commit_seq);
	u64 seq = commit >= w->nr_subbufs ? commit - (w->nr_subbufs - 1) : 0;
	const struct ivw_slot *sl;
	u32 slot;
	u64 ts;

	div_u64_rem(seq, w->nr_subbufs, &slot);
	sl = &c->slot[slot];
	/*
	 * A slot being reused has no oldest event to speak of.  Paired with
	 * the smp_wmb() between the writer's stores of seq and time_stamp in
	 * advance(): a time stamp read between two reads of the same seq is
	 * that page's.
	 */
	if (READ_ONCE(sl->seq) != seq)
		return 0;
	smp_rmb();
	ts = READ_ONCE(sl->time_stamp);
	smp_rmb();
	return READ_ONCE(sl->seq) == seq ? ts : 0;
}

static ssize_t stats_show(struct kobject *kobj, struct kobj_attribute *attr,
			  char *buf)
{
	unsigned int cpu = container_of(kobj, struct ivr_cpudir, kobj)->cpu;
	const struct ivr_instance *inst;
	const struct ivw_cpu_counts *s;
	int len = 0;

	mutex_lock(&ivr_mutex);
	inst = ivr_instance_locked();
	if (!inst || cpu >= inst->w.nr_cpus) {
		mutex_unlock(&ivr_mutex);
		return -ENODEV;
	}
	s = &inst->w.cpus[cpu].shown;
	len += sysfs_emit_at(buf, len, "entries: %llu\n", READ_ONCE(s->entries));
	len += sysfs_emit_at(buf, len, "overrun: %llu\n", READ_ONCE(s->overrun));
	len += sysfs_emit_at(buf, len, "bytes: %llu\n", READ_ONCE(s->bytes));
	len += ivr_emit_ts(buf, len, "oldest event ts",
			   ivr_oldest_ts(&inst->w, cpu));
	len += ivr_emit_ts(buf, len, "now ts", ivw_clock(&inst->w));
	len += sysfs_emit_at(buf, len, "dropped events: %llu\n",
			     READ_ONCE(s->dropped));
	len += sysfs_emit_at(buf, len, "rejected events: %llu\n",
			     READ_ONCE(s->rejected));
	len += sysfs_emit_at(buf, len, "filtered events: %llu\n",
			     READ_ONCE(s->filtered));
	mutex_unlock(&ivr_mutex);
	return len;
}

static struct kobj_attribute ivr_stats_attr = __ATTR_RO(stats);

static struct attribute *ivr_cpudir_attrs[] = {
	&ivr_stats_attr.attr,
	NULL,
};
ATTRIBUTE_GROUPS(ivr_cpudir);

static void ivr_cpudir_release(struct kobject *kobj)
{
	kfree(container_of(kobj, struct ivr_cpudir, kobj));
}

static struct kobj_type ivr_cpudir_ktype = {
	.release = ivr_cpudir_release,
	.sysfs_ops = &kobj_sysfs_ops,
	.default_groups = ivr_cpudir_groups,
};

/* One directory per possible CPU: the segment has a sub-ring for each. */
int ivr_per_cpu_init(struct kobject *root)
{
	unsigned int cpu;
	int ret;

	ivr_cpudirs = kcalloc(nr_cpu_ids, sizeof(*ivr_cpudirs), GFP_KERNEL);
	if (!ivr_cpudirs)
		return -ENOMEM;
	ivr_per_cpu_kobj = kobject_create_and_add("per_cpu", root);
	if (!ivr_per_cpu_kobj)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		struct ivr_cpudir *d = kzalloc(sizeof(*d), GFP_KERNEL);

		if (!d)
			return -ENOMEM;
		d->cpu = cpu;
		ret = kobject_init_and_add(&d->kobj, &ivr_cpudir_ktype,
					   ivr_per_cpu_kobj, "cpu%u", cpu);
		if (ret) {
			kobject_put(&d->kobj);
			return ret;
		}
		ivr_cpudirs[cpu] = d;
	}
	return 0;
}

/* Safe after a partial ivr_per_cpu_init(). */
void ivr_per_cpu_exit(void)
{
	unsigned int cpu;

	if (ivr_cpudirs)
		for (cpu = 0; cpu < nr_cpu_ids; cpu++)
			if (ivr_cpudirs[cpu])
				kobject_put(&ivr_cpudirs[cpu]->kobj);
	kfree(ivr_cpudirs);
	ivr_cpudirs = NULL;
	kobject_put(ivr_per_cpu_kobj);
	ivr_per_cpu_kobj = NULL;
}
