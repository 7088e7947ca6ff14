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
 * later one is refused (-EBUSY, one dmesg line naming the device in use)
 * and stays free for other drivers.  One instance keeps sysfs in tracefs's
 * shape (one events/ tree, one tracing_on) and a probe's fast path at one
 * pointer load.  If the device in use goes away, the next one is used only
 * after a rebind (or a module reload).
 */
#include <linux/io.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/tracepoint.h>

#include "ivring.h"

#define IVR_PCI_DEVICE_ID_IVSHMEM	0x1110
#define IVR_BAR_SHMEM			2

static const struct pci_device_id ivr_pci_ids[] = {
	{ PCI_DEVICE(PCI_VENDOR_ID_REDHAT_QUMRANET, IVR_PCI_DEVICE_ID_IVSHMEM) },
	{ }
};
MODULE_DEVICE_TABLE(pci, ivr_pci_ids);

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
static struct ivring_writer_cpu *ivr_alloc_cpus(u32 nr_cpus, void **mem)
{
	size_t align = __alignof__(struct ivring_writer_cpu);

	*mem = kvcalloc(1, (size_t)nr_cpus * sizeof(struct ivring_writer_cpu) +
			align - 1, GFP_KERNEL);
	if (!*mem)
		return NULL;
	return PTR_ALIGN(*mem, align);
}

static int ivr_add_formats(struct ivr_instance *inst)
{
	char *buf;
	unsigned int i;
	int ret = 0;

	buf = kmalloc(IVRING_FORMAT_TEXT_MAX, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	for (i = 0; i < ivr_nr_events && !ret; i++) {
		const struct ivr_event *ev = &ivr_events[i];
		int len;

		if (!ev->tp)
			continue;
		len = ivr_event_format(ev, buf, IVRING_FORMAT_TEXT_MAX);
		if (len < 0) {
			ret = len;
			break;
		}
		ret = ivring_add_format(&inst->w, ev->id, ev->sys, buf, len);
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
	struct ivring_params p = {
		.segment_size = inst->size,
		.nr_cpus = nr_cpu_ids,
		.subbuf_size = ivr_subbuf_size,
		.mode = ivr_mode,
		.clock_id = IVRING_CLOCK_MONO,
		.clock_name = "mono",
	};
	struct ivring_header lay;
	struct ivring_writer_cpu *cpus;
	u64 need;
	int ret;

	ret = ivring_layout(&p, &lay, &need);
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

	ret = ivring_format(&inst->w, inst->base, &p,
			    ivr_new_generation(inst->base), cpus, inst->slots);
	if (ret)
		return ret;
	ret = ivr_add_formats(inst);
	if (ret) {
		/* A reader must not wait for a segment that never goes live. */
		ivring_set_state(&inst->w, IVRING_STATE_STOPPED);
		return ret;
	}
	ivring_set_state(&inst->w, IVRING_STATE_LIVE);
	pci_info(inst->pdev, "segment of %llu bytes: %u CPUs x %u sub-buffers of %u bytes, %s mode, generation %#llx\n",
		 inst->size, p.nr_cpus, lay.nr_subbufs, p.subbuf_size,
		 p.mode == IVRING_MODE_OVERWRITE ? "overwrite" : "discard",
		 inst->w.generation);
	return 0;
}

static void ivr_instance_free(struct ivr_instance *inst)
{
	kvfree(inst->slots);
	kvfree(inst->cpus_mem);
	kfree(inst);
}

/**
 * ivr_reformat() - empty the rings: format the segment again
 *
 * Used by sysfs's reset and mode.  The segment gets a new generation, so a
 * host reader starts over instead of mixing old and new pages; the mode and
 * sub-buffer size are taken afresh from ivr_mode and ivr_subbuf_size.
 *
 * Context: process, with ivr_mutex held.
 * Return: 0, -ENODEV when no device is bound, or a formatting error (the
 * segment is then STOPPED and no longer written).
 */
int ivr_reformat(void)
{
	struct ivr_instance *inst;
	int ret;

	lockdep_assert_held(&ivr_mutex);
	inst = rcu_dereference_protected(ivr_inst, lockdep_is_held(&ivr_mutex));
	if (!inst)
		return -ENODEV;
	RCU_INIT_POINTER(ivr_inst, NULL);
	/* No probe may still write with the old writer state. */
	tracepoint_synchronize_unregister();

	kvfree(inst->slots);
	kvfree(inst->cpus_mem);
	inst->slots = NULL;
	inst->cpus_mem = NULL;
	ret = ivr_format_segment(inst);
	if (ret) {
		/* Keep the device bound; remove() frees what is left. */
		ivring_set_state(&inst->w, IVRING_STATE_STOPPED);
		pci_err(inst->pdev, "formatting again failed: %d; tracing to it stops\n",
			ret);
		return ret;
	}
	rcu_assign_pointer(ivr_inst, inst);
	return 0;
}

static int ivr_pci_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct ivr_instance *inst, *cur;
	int ret;

	mutex_lock(&ivr_mutex);
	cur = rcu_dereference_protected(ivr_inst, lockdep_is_held(&ivr_mutex));
	if (cur) {
		pci_info(pdev, "ivring already uses %s; this device is left alone\n",
			 pci_name(cur->pdev));
		ret = -EBUSY;
		goto unlock;
	}

	inst = kzalloc(sizeof(*inst), GFP_KERNEL);
	if (!inst) {
		ret = -ENOMEM;
		goto unlock;
	}
	inst->pdev = pdev;

	ret = pci_enable_device(pdev);
	if (ret) {
		pci_err(pdev, "cannot enable the device: %d\n", ret);
		goto free;
	}
	if (!(pci_resource_flags(pdev, IVR_BAR_SHMEM) & IORESOURCE_MEM) ||
	    !pci_resource_len(pdev, IVR_BAR_SHMEM)) {
		pci_err(pdev, "BAR2 is not a memory BAR; is this an ivshmem device with a memdev?\n");
		ret = -ENODEV;
		goto disable;
	}
	ret = pci_request_region(pdev, IVR_BAR_SHMEM, IVR_NAME);
	if (ret) {
		pci_err(pdev, "BAR2 is in use by another driver: %d\n", ret);
		goto disable;
	}
	inst->size = pci_resource_len(pdev, IVR_BAR_SHMEM);
	/*
	 * Write-back cacheable: the host reads the same RAM through its own
	 * cached mapping of the shm file, so no uncached access is needed,
	 * and uncached stores would make every event cost a bus cycle.
	 */
	inst->base = memremap(pci_resource_start(pdev, IVR_BAR_SHMEM),
			      inst->size, MEMREMAP_WB);
	if (!inst->base) {
		pci_err(pdev, "cannot map BAR2 (%llu bytes) write-back\n",
			inst->size);
		ret = -ENOMEM;
		goto release;
	}

	ret = ivr_format_segment(inst);
	if (ret)
		goto unmap;

	pci_set_drvdata(pdev, inst);
	/* Paired with rcu_dereference_sched() in ivr_probe_begin(). */
	rcu_assign_pointer(ivr_inst, inst);
	mutex_unlock(&ivr_mutex);
	return 0;

unmap:
	memunmap(inst->base);
release:
	pci_release_region(pdev, IVR_BAR_SHMEM);
disable:
	pci_disable_device(pdev);
free:
	ivr_instance_free(inst);
unlock:
	mutex_unlock(&ivr_mutex);
	return ret;
}

static void ivr_pci_remove(struct pci_dev *pdev)
{
	struct ivr_instance *inst = pci_get_drvdata(pdev);

	mutex_lock(&ivr_mutex);
	RCU_INIT_POINTER(ivr_inst, NULL);
	mutex_unlock(&ivr_mutex);
	/*
	 * Probes run under RCU-sched (or SRCU for the _rcuidle ones): once
	 * this returns, none of them still writes into the segment.
	 */
	tracepoint_synchronize_unregister();

	/* The reader sees the end; the contents stay readable on the host. */
	ivring_set_state(&inst->w, IVRING_STATE_STOPPED);
	pci_info(pdev, "segment generation %#llx stopped\n", inst->w.generation);
	memunmap(inst->base);
	pci_release_region(pdev, IVR_BAR_SHMEM);
	pci_disable_device(pdev);
	ivr_instance_free(inst);
}

static struct pci_driver ivr_pci_driver = {
	.name = IVR_NAME,
	.id_table = ivr_pci_ids,
	.probe = ivr_pci_probe,
	.remove = ivr_pci_remove,
};

int ivr_pci_register(void)
{
	return pci_register_driver(&ivr_pci_driver);
}

void ivr_pci_unregister(void)
{
	pci_unregister_driver(&ivr_pci_driver);
}
