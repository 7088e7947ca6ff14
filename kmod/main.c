// SPDX-License-Identifier: GPL-2.0
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * ivring.ko: guest kernel trace events into an ivshmem device's shared
 * memory, for a host reader.  Module init and exit: the order in which
 * the layers below (kmod/LAYERS) start and stop.
 *
 * Loading with no ivshmem device succeeds: sysfs is there and events can be
 * enabled; they are written once a device is bound (hotplug, or a later
 * "echo ... > /sys/bus/pci/drivers/ivring/bind").
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/module.h>

#include "control.h"
#include "driver.h"
#include "ev_filter.h"
#include "ev_pid.h"
#include "generic.h"
#include "lanes.h"
#include "registry.h"
#include "segment.h"
#include "testing.h"

/*
 * The steps of init, and exit as their exact mirror:
 *
 *   init                              exit
 *   find the tracepoints
 *   the filters' scratch buffers      free them, and every filter
 *   mount tracefs privately           free the generic events, unmount
 *   register the PCI driver           unregister it (remove: STOPPED)
 *                                     detach every probe (the pid
 *                                     lists' too) and perf counter,
 *                                     synchronize; free the pid lists
 *   create /sys/kernel/ivring         remove it
 *   start the clock poller            stop it
 *
 * sysfs comes last because it is the only way to attach a probe: once it
 * exists, a user can enable events at any moment, also while a later step
 * would fail.  So every error exit, like exit, first removes sysfs (which
 * waits for writes in progress), then detaches every probe and waits for
 * the running ones: a probe left on a tracepoint would run freed module
 * text at its next hit.
 */
static int __init ivr_init(void)
{
	int ret;

	/* The writer moves its tail and timestamp with one cmpxchg16b. */
	if (!ivw_has_cmpxchg_double()) {
		pr_err("this CPU lacks cmpxchg16b, which the ring writer needs; use a CPU model that has it (e.g. qemu -cpu max)\n");
		return -ENODEV;
	}
	ret = ivr_segment_check_params();
	if (ret)
		return ret;

	ivr_events_init_ids();
	ivr_events_lookup();
	ivr_pids_init();
	ret = ivr_filter_init();
	if (ret)
		return ret;
	ivr_generic_init();

	ret = ivr_test_fail_init("pci");
	if (!ret)
		ret = ivr_pci_register();
	if (ret) {
		pr_err("cannot register the PCI driver: %d\n", ret);
		ivr_generic_exit();
		ivr_filter_exit();
		return ret;
	}
	/* Probing is synchronous: no instance now means no device yet. */
	if (!rcu_access_pointer(ivr_inst))
		pr_info("no ivshmem device (1af4:1110) bound yet; events are written once one is\n");

	/* Last: see above.  It removes what it created when it fails. */
	ret = ivr_sysfs_init();
	if (ret)
		goto probes;
	ivr_sync_start();
	return 0;

probes:
	ivr_pids_exit();
	ivr_events_disable_all();
	ivr_pci_unregister();
	ivr_events_free_filters();
	ivr_generic_exit();
	ivr_filter_exit();
	return ret;
}

static void __exit ivr_exit(void)
{
	/* The clock poller first: it answers for the instance we remove. */
	ivr_sync_stop();
	/* No sysfs write may enable a probe behind our back, */
	ivr_sysfs_exit();
	/* nor a CPU coming online a perf counter. */
	ivr_generic_stop();
	ivr_pids_exit();
	/* Probes next: their code and the instance must outlive them. */
	ivr_events_disable_all();
	ivr_pci_unregister();
	ivr_events_free_filters();
	ivr_generic_exit();
	ivr_filter_exit();
}

module_init(ivr_init);
module_exit(ivr_exit);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("The ivring authors");
MODULE_DESCRIPTION("Guest trace events to the host through ivshmem shared memory");
/* The release of the sources, as VERSION in the top Makefile. */
MODULE_VERSION("1.10.0");
