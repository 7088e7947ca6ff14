// SPDX-License-Identifier: GPL-2.0
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * The ivshmem PCI driver: binds the device, maps BAR2 and hands the
 * instance to the segment layer (segment.c), which formats, publishes and
 * stops it; the driver's callbacks only say when.
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
 */
#include <linux/device.h>
#include <linux/io.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/slab.h>

#include "driver.h"
#include "segment.h"

#define IVR_PCI_DEVICE_ID_IVSHMEM	0x1110
#define IVR_BAR_SHMEM			2

static const struct pci_device_id ivr_pci_ids[] = {
	{ PCI_DEVICE(PCI_VENDOR_ID_REDHAT_QUMRANET, IVR_PCI_DEVICE_ID_IVSHMEM) },
	{ }
};
MODULE_DEVICE_TABLE(pci, ivr_pci_ids);

/*
 * BAR0 and BAR1 are not used.  The device, BAR2's region and its mapping
 * are managed (pcim, devm): a probe that fails, and remove() once it
 * returns, release them, the mapping first; remove() stops the segment
 * before that.
 */
static int ivr_pci_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	const struct ivr_instance *owner;
	struct ivr_instance *inst;
	resource_size_t start;
	int ret;

	mutex_lock(&ivr_mutex);
	owner = ivr_segment_owner();
	if (owner) {
		pci_info(pdev, "ivring already uses %s; this device is left alone\n",
			 pci_name(owner->pdev));
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

	ret = ivr_segment_take(inst);
	if (!ret)
		pci_set_drvdata(pdev, inst);
unlock:
	mutex_unlock(&ivr_mutex);
	return ret;
}

static void ivr_pci_remove(struct pci_dev *pdev)
{
	struct ivr_instance *inst = pci_get_drvdata(pdev);

	mutex_lock(&ivr_mutex);
	ivr_segment_release(inst, "device removed");
	mutex_unlock(&ivr_mutex);
	ivr_segment_free_state(inst);
	/* devres now unmaps BAR2, releases it and disables the device. */
}

/*
 * Reboot, kexec and power-off: the writer goes away with the kernel.  Tasks
 * still run (reboot -f kills none), so the device is given up too.
 * Nothing is freed; the kernel ends.
 */
static void ivr_pci_shutdown(struct pci_dev *pdev)
{
	mutex_lock(&ivr_mutex);
	ivr_segment_release(pci_get_drvdata(pdev), "shutdown");
	mutex_unlock(&ivr_mutex);
}

#ifdef CONFIG_PM_SLEEP
/*
 * Hibernation: each step is the segment layer's (segment.c says what it
 * does to the segment), under ivr_mutex.
 */
static int ivr_pm_step(struct device *dev,
		       void (*step)(struct ivr_instance *inst))
{
	mutex_lock(&ivr_mutex);
	step(dev_get_drvdata(dev));
	mutex_unlock(&ivr_mutex);
	return 0;
}

static int ivr_pm_freeze(struct device *dev)
{
	return ivr_pm_step(dev, ivr_segment_freeze);
}

static int ivr_pm_thaw(struct device *dev)
{
	return ivr_pm_step(dev, ivr_segment_thaw);
}

/* The last callback before hibernation powers the machine off. */
static int ivr_pm_poweroff(struct device *dev)
{
	return ivr_pm_step(dev, ivr_segment_poweroff);
}

/* A formatting failure is not the resume's: the segment stays STOPPED. */
static int ivr_pm_restore(struct device *dev)
{
	return ivr_pm_step(dev, ivr_segment_restore);
}

/* Suspend to RAM, and back (segment.c says what each does). */
static int ivr_pm_suspend(struct device *dev)
{
	return ivr_pm_step(dev, ivr_segment_suspend);
}

static int ivr_pm_resume(struct device *dev)
{
	return ivr_pm_step(dev, ivr_segment_resume);
}
#endif

static const struct dev_pm_ops ivr_pm_ops = {
#ifdef CONFIG_PM_SLEEP
	.suspend = ivr_pm_suspend,
	.resume = ivr_pm_resume,
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
