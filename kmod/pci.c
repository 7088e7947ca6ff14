// SPDX-License-Identifier: GPL-2.0
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * The ivshmem PCI driver: maps BAR2 and formats the ivring segment in it.
 *
 * ivshmem-plain and ivshmem-doorbell share the id 1af4:1110; the doorbell
 * variant adds MSI-X and BAR1, which ivring does not use.  BAR0 (registers)
 * is not touched either: BAR2, the shared memory, is all that matters.
 *
 * Several devices: the first one probed gets the ivring instance; every
 * later one is refused with -ENODEV, the driver core's "not mine" (one
 * dmesg line names the device in use), and stays free for other drivers.
 * -EBUSY would say the device is ours but cannot be had now, and make the
 * core warn about a failed probe.  One instance keeps sysfs in tracefs's
 * shape (one events/ tree, one tracing_on) and a probe's fast path at one
 * pointer load.  If the device in use goes away, the next one is used only
 * after a rebind (or a module reload).
 *
 * Lifecycle: remove, reboot and kexec (shutdown) and the power-off of
 * hibernation leave the segment STOPPED, so that a host reader knows the
 * writer has gone.  BAR2 is not in a hibernation image: the host's memory
 * outlives the guest's, and what the kernel that wrote the image did to it
 * after the snapshot is not in the restored writer's state.  So restore
 * formats the segment again, with a new generation.  Thaw does not: the
 * kernel that thaws is the one that wrote BAR2 all along, after a failed
 * hibernation as after writing the image, so its state still matches.
 */
#include <linux/device.h>
#include <linux/io.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/tracepoint.h>

#include "generic.h"
#include "ivring.h"
#include "testing.h"

#define IVR_PCI_DEVICE_ID_IVSHMEM	0x1110
#define IVR_BAR_SHMEM			2

static const struct pci_device_id ivr_pci_ids[] = {
	{ PCI_DEVICE(PCI_VENDOR_ID_REDHAT_QUMRANET, IVR_PCI_DEVICE_ID_IVSHMEM) },
	{ }
};
MODULE_DEVICE_TABLE(pci, ivr_pci_ids);

/*
 * The instance of the device that ivring owns, under ivr_mutex.  While it
 * is LIVE, ivr_inst points to it too; after a failed format it is STOPPED,
 * unpublished, and still here, so that reset can try again.
 */
static struct ivr_instance *ivr_owned;

/* A new generation on every format, never 0 and never the previous one. */
static u64 ivr_new_generation(const struct ivring_header *old)
{
	u64 prev = READ_ONCE(old->generation), gen;

	do {
		gen = get_random_u64();
	} while (!gen || gen == prev);
	return gen;
}

/*
 * cmpxchg16b on a writer's tail needs 16-byte alignment and a writer state
 * per cache line avoids false sharing; kvcalloc() promises neither for
 * every size, so over-allocate and align.
 */
static struct ivw_cpu *ivr_alloc_cpus(u32 nr_cpus, void **mem)
{
	size_t align = __alignof__(struct ivw_cpu);

	*mem = kvcalloc(1, (size_t)nr_cpus * sizeof(struct ivw_cpu) +
			align - 1, GFP_KERNEL);
	if (!*mem)
		return NULL;
	return PTR_ALIGN(*mem, align);
}

/* The events of the table that this kernel has, then the marker's. */
static int ivr_add_formats(struct ivr_instance *inst)
{
	char *buf;
	unsigned int i;
	int ret = 0;

	buf = kmalloc(IVRING_FORMAT_TEXT_MAX, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	for (i = 0; i <= ivr_nr_events && !ret; i++) {
		const struct ivr_event *ev = i < ivr_nr_events ? &ivr_events[i] :
								 &ivr_marker_event;
		int len;

		if (ev != &ivr_marker_event && !ev->tp)
			continue;
		len = ivr_event_format(ev, buf, IVRING_FORMAT_TEXT_MAX);
		if (len < 0) {
			ret = len;
			break;
		}
		ret = ivw_add_format(&inst->w, ev->id, ev->sys, buf, len);
		if (ret)
			pci_err(inst->pdev, "cannot store the format of %s:%s: %d\n",
				ev->sys, ev->name, ret);
	}
	kfree(buf);
	return ret;
}

/* Lay the segment out in the mapped BAR2 and make it LIVE. */
static int ivr_format_segment(struct ivr_instance *inst)
{
	struct ivw_params p = {
		.segment_size = inst->size,
		.nr_cpus = nr_cpu_ids,
		.subbuf_size = ivr_subbuf_size,
		.mode = ivr_mode,
		.clock_id = IVRING_CLOCK_MONO,
		.clock_name = "mono",
		/* clock_sync.c answers. */
		.flags = IVRING_F_CLOCK_SYNC,
	};
	struct ivring_header lay;
	struct ivw_cpu *cpus;
	u64 need;
	int ret;

	ret = ivw_layout(&p, &lay, &need);
	if (ret == -ENOSPC) {
		pci_err(inst->pdev, "BAR2 has %llu bytes, the layout needs %llu (%u CPUs, subbuf_size=%u, %u sub-buffers each at least); give ivshmem a larger size or load with a smaller subbuf_size\n",
			inst->size, need, p.nr_cpus, p.subbuf_size,
			IVRING_NR_SUBBUFS_MIN);
		return ret;
	}
	if (ret) {
		pci_err(inst->pdev, "invalid layout: %u CPUs, subbuf_size=%u: %d\n",
			p.nr_cpus, p.subbuf_size, ret);
		return ret;
	}

	cpus = ivr_alloc_cpus(p.nr_cpus, &inst->cpus_mem);
	inst->slots = kvcalloc((size_t)p.nr_cpus * lay.nr_subbufs,
			       sizeof(*inst->slots), GFP_KERNEL);
	if (!cpus || !inst->slots)
		return -ENOMEM;

	ret = ivw_format(&inst->w, inst->base, &p,
			    ivr_new_generation(inst->base), cpus, inst->slots);
	if (ret)
		return ret;
	ret = ivr_add_formats(inst);
	if (!ret)
		ret = ivr_generic_add_formats(inst);
	if (!ret)
		ret = ivr_test_fail_format();
	if (ret) {
		/* A reader must not wait for a segment that never goes live. */
		ivw_set_state(&inst->w, IVRING_STATE_STOPPED);
		return ret;
	}
	ivw_set_state(&inst->w, IVRING_STATE_LIVE);
	pci_info(inst->pdev, "segment of %llu bytes: %u CPUs x %u sub-buffers of %u bytes, %s mode, generation %#llx\n",
		 inst->size, p.nr_cpus, lay.nr_subbufs, p.subbuf_size,
		 p.mode == IVRING_MODE_OVERWRITE ? "overwrite" : "discard",
		 inst->w.generation);
	return 0;
}

/* The writer's own memory; the rest of the instance is the device's. */
static void ivr_instance_free_state(struct ivr_instance *inst)
{
	kvfree(inst->slots);
	kvfree(inst->cpus_mem);
	inst->slots = NULL;
	inst->cpus_mem = NULL;
}

/*
 * Stop the probes writing to @inst and wait for those that still do;
 * then the writer state and the segment may change under nobody.
 */
static void ivr_unpublish(struct ivr_instance *inst)
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

/* Unpublished, then STOPPED: a host reader sees the end of the writes. */
static void ivr_stop(struct ivr_instance *inst, const char *why)
{
	ivr_unpublish(inst);
	ivw_set_state(&inst->w, IVRING_STATE_STOPPED);
	pci_info(inst->pdev, "segment generation %#llx stopped (%s)\n",
		 inst->w.generation, why);
}

/* Format @inst's segment afresh and publish it; STOPPED when that fails. */
static int ivr_instance_format(struct ivr_instance *inst)
{
	int ret;

	ivr_unpublish(inst);
	ivr_instance_free_state(inst);
	ret = ivr_format_segment(inst);
	if (ret) {
		/* Keep the device: reset may try again, remove() frees. */
		ivw_set_state(&inst->w, IVRING_STATE_STOPPED);
		return ret;
	}
	/* Paired with rcu_dereference_sched() in ivr_probe_begin(). */
	rcu_assign_pointer(ivr_inst, inst);
	return 0;
}

/**
 * ivr_reformat() - empty the rings: format the segment again
 *
 * Used by sysfs's reset and mode.  The segment gets a new generation, so a
 * host reader starts over instead of mixing old and new pages; the mode and
 * sub-buffer size are taken afresh from ivr_mode and ivr_subbuf_size.
 *
 * Context: process, with ivr_mutex held.
 * Return: 0, -ENODEV when no device is bound, or a formatting error: the
 * segment is then STOPPED and no longer written, and the device stays
 * bound, so that another reset can try again.
 */
int ivr_reformat(void)
{
	struct ivr_instance *inst = ivr_owned;
	int ret;

	lockdep_assert_held(&ivr_mutex);
	if (!inst)
		return -ENODEV;
	ret = ivr_instance_format(inst);
	if (ret)
		pci_err(inst->pdev, "formatting again failed: %d; tracing to it stops until a reset succeeds\n",
			ret);
	return ret;
}

/*
 * BAR0 and BAR1 are not used.  The device, BAR2's region and its mapping
 * are managed (pcim, devm): a probe that fails, and remove() once it
 * returns, release them, the mapping first; remove() stops the segment
 * before that.
 */
static int ivr_pci_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct ivr_instance *inst;
	resource_size_t start;
	int ret;

	mutex_lock(&ivr_mutex);
	if (ivr_owned) {
		pci_info(pdev, "ivring already uses %s; this device is left alone\n",
			 pci_name(ivr_owned->pdev));
		ret = -ENODEV;
		goto unlock;
	}

	ret = pcim_enable_device(pdev);
	if (ret) {
		pci_err(pdev, "cannot enable the device: %d\n", ret);
		goto unlock;
	}
	if (!(pci_resource_flags(pdev, IVR_BAR_SHMEM) & IORESOURCE_MEM) ||
	    !pci_resource_len(pdev, IVR_BAR_SHMEM)) {
		pci_err(pdev, "BAR2 is not a memory BAR; is this an ivshmem device with a memdev?\n");
		ret = -ENODEV;
		goto unlock;
	}
	inst = devm_kzalloc(&pdev->dev, sizeof(*inst), GFP_KERNEL);
	if (!inst) {
		ret = -ENOMEM;
		goto unlock;
	}
	inst->pdev = pdev;
	start = pci_resource_start(pdev, IVR_BAR_SHMEM);
	inst->size = pci_resource_len(pdev, IVR_BAR_SHMEM);
	if (!devm_request_mem_region(&pdev->dev, start, inst->size, IVR_NAME)) {
		pci_err(pdev, "BAR2 is in use by another driver\n");
		ret = -EBUSY;
		goto unlock;
	}
	/*
	 * Write-back cacheable: the host reads the same RAM through its own
	 * cached mapping of the shm file, so no uncached access is needed,
	 * and uncached stores would make every event cost a bus cycle.
	 */
	inst->base = devm_memremap(&pdev->dev, start, inst->size, MEMREMAP_WB);
	if (IS_ERR(inst->base)) {
		ret = PTR_ERR(inst->base);
		pci_err(pdev, "cannot map BAR2 (%llu bytes) write-back: %d\n",
			inst->size, ret);
		goto unlock;
	}

	ret = ivr_format_segment(inst);
	if (ret) {
		ivr_instance_free_state(inst);
		goto unlock;
	}
	pci_set_drvdata(pdev, inst);
	ivr_owned = inst;
	/* Paired with rcu_dereference_sched() in ivr_probe_begin(). */
	rcu_assign_pointer(ivr_inst, inst);
unlock:
	mutex_unlock(&ivr_mutex);
	return ret;
}

static void ivr_pci_remove(struct pci_dev *pdev)
{
	struct ivr_instance *inst = pci_get_drvdata(pdev);

	mutex_lock(&ivr_mutex);
	/* Only what this device owns: another device may be in use. */
	if (ivr_owned == inst)
		ivr_owned = NULL;
	/* The reader sees the end; the contents stay readable on the host. */
	ivr_stop(inst, "device removed");
	mutex_unlock(&ivr_mutex);
	ivr_instance_free_state(inst);
	/* devres now unmaps BAR2, releases it and disables the device. */
}

/*
 * Reboot, kexec and power-off: the writer goes away with the kernel.  Tasks
 * still run (reboot -f kills none), so the device is given up too: a
 * reset or mode write now finds none and cannot make the segment LIVE
 * again.  Nothing is freed; the kernel ends.
 */
static void ivr_pci_shutdown(struct pci_dev *pdev)
{
	struct ivr_instance *inst = pci_get_drvdata(pdev);

	mutex_lock(&ivr_mutex);
	if (ivr_owned == inst)
		ivr_owned = NULL;
	ivr_stop(inst, "shutdown");
	mutex_unlock(&ivr_mutex);
}

#ifdef CONFIG_PM_SLEEP
/*
 * Before the hibernation snapshot: no probe may write while it is taken,
 * so that the image holds an unpublished instance.  Restored, that image
 * then writes nothing with its stale writer state until .restore has
 * formatted BAR2 afresh; the kernel that took the image goes on at .thaw
 * with the state that matches BAR2, since it wrote it all along.
 */
static int ivr_pm_freeze(struct device *dev)
{
	struct ivr_instance *inst = dev_get_drvdata(dev);

	mutex_lock(&ivr_mutex);
	inst->thaw_publish = rcu_access_pointer(ivr_inst) == inst;
	ivr_unpublish(inst);
	mutex_unlock(&ivr_mutex);
	return 0;
}

/* The snapshot is taken (or hibernation failed): tracing goes on. */
static int ivr_pm_thaw(struct device *dev)
{
	struct ivr_instance *inst = dev_get_drvdata(dev);

	mutex_lock(&ivr_mutex);
	if (inst->thaw_publish && inst == ivr_owned)
		/* Paired with rcu_dereference_sched() in ivr_probe_begin(). */
		rcu_assign_pointer(ivr_inst, inst);
	inst->thaw_publish = false;
	mutex_unlock(&ivr_mutex);
	return 0;
}

/* The last callback before hibernation powers the machine off. */
static int ivr_pm_poweroff(struct device *dev)
{
	struct ivr_instance *inst = dev_get_drvdata(dev);

	mutex_lock(&ivr_mutex);
	ivr_stop(inst, "hibernation");
	mutex_unlock(&ivr_mutex);
	return 0;
}

/*
 * Back from a hibernation image: the writer state is the image's, BAR2 is
 * not.  A failure is not the resume's: the segment stays STOPPED and reset
 * may try again.
 */
static int ivr_pm_restore(struct device *dev)
{
	struct ivr_instance *inst = dev_get_drvdata(dev);
	int ret;

	mutex_lock(&ivr_mutex);
	ret = inst == ivr_owned ? ivr_instance_format(inst) : 0;
	mutex_unlock(&ivr_mutex);
	if (ret)
		pci_err(to_pci_dev(dev), "formatting after the hibernation image failed: %d; tracing to it stops until a reset succeeds\n",
			ret);
	return 0;
}
#endif

static const struct dev_pm_ops ivr_pm_ops = {
#ifdef CONFIG_PM_SLEEP
	.freeze = ivr_pm_freeze,
	.thaw = ivr_pm_thaw,
	.poweroff = ivr_pm_poweroff,
	.restore = ivr_pm_restore,
#endif
};

static struct pci_driver ivr_pci_driver = {
	.name = IVR_NAME,
	.id_table = ivr_pci_ids,
	.probe = ivr_pci_probe,
	.remove = ivr_pci_remove,
	.shutdown = ivr_pci_shutdown,
	.driver.pm = &ivr_pm_ops,
};

int ivr_pci_register(void)
{
	return pci_register_driver(&ivr_pci_driver);
}

void ivr_pci_unregister(void)
{
	pci_unregister_driver(&ivr_pci_driver);
}
