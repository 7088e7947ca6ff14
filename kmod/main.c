// SPDX-License-Identifier: GPL-2.0
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * ivring.ko: guest kernel trace events into an ivshmem device's shared
 * memory, for a host reader.  Module init and exit, and the parameters.
 *
 * Loading with no ivshmem device succeeds: sysfs is there and events can be
 * enabled; they are written once a device is bound (hotplug, or a later
 * "echo ... > /sys/bus/pci/drivers/ivring/bind").
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/string.h>

#include "generic.h"
#include "ivring.h"
#include "testing.h"

/* Serialises device probe/remove, enabling and every sysfs write. */
DEFINE_MUTEX(ivr_mutex);
struct ivr_instance __rcu *ivr_inst;
/* On by default, as tracefs's tracing_on: enabling an event is enough. */
bool ivr_tracing_on = true;

unsigned int ivr_subbuf_size = 4096;
module_param_named(subbuf_size, ivr_subbuf_size, uint, 0444);
MODULE_PARM_DESC(subbuf_size,
		 "bytes of one sub-buffer (ftrace page), a power of two in [256, 65536]; default 4096");

unsigned int ivr_mode = IVRING_MODE_DISCARD;

static const char * const ivr_mode_names[] = {
	[IVRING_MODE_DISCARD] = "discard",
	[IVRING_MODE_OVERWRITE] = "overwrite",
};

/* IVRING_MODE_* from its name (a trailing newline is fine), or -EINVAL. */
int ivr_mode_parse(const char *val)
{
	return sysfs_match_string(ivr_mode_names, val);
}

const char *ivr_mode_name(unsigned int mode)
{
	return mode < ARRAY_SIZE(ivr_mode_names) ? ivr_mode_names[mode] : "?";
}

static int ivr_mode_param_set(const char *val, const struct kernel_param *kp)
{
	int i = ivr_mode_parse(val);

	if (i < 0) {
		pr_err("mode=%s: expected discard or overwrite\n",
		       val);
		return -EINVAL;
	}
	*(unsigned int *)kp->arg = i;
	return 0;
}

static int ivr_mode_param_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s\n", ivr_mode_name(*(unsigned int *)kp->arg));
}

static const struct kernel_param_ops ivr_mode_param_ops = {
	.set = ivr_mode_param_set,
	.get = ivr_mode_param_get,
};
module_param_cb(mode, &ivr_mode_param_ops, &ivr_mode, 0444);
MODULE_PARM_DESC(mode,
		 "discard (drop the newest events when the host falls behind, default) or overwrite (flight recorder)");

/*
 * The steps of init, and exit as their exact mirror:
 *
 *   init                              exit
 *   find the tracepoints
 *   mount tracefs privately           free the generic events, unmount
 *   register the PCI driver           unregister it (remove: STOPPED)
 *                                     detach every probe and perf
 *                                     counter, synchronize
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
	if (ivr_subbuf_size < IVRING_SUBBUF_MIN ||
	    ivr_subbuf_size > IVRING_SUBBUF_MAX ||
	    !is_power_of_2(ivr_subbuf_size)) {
		pr_err("subbuf_size=%u: expected a power of two in [%u, %u]\n",
		       ivr_subbuf_size, IVRING_SUBBUF_MIN, IVRING_SUBBUF_MAX);
		return -EINVAL;
	}

	ivr_events_init_ids();
	ivr_events_lookup();
	ivr_generic_init();

	ret = ivr_test_fail_init("pci");
	if (!ret)
		ret = ivr_pci_register();
	if (ret) {
		pr_err("cannot register the PCI driver: %d\n", ret);
		ivr_generic_exit();
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
	ivr_events_disable_all();
	ivr_pci_unregister();
	ivr_generic_exit();
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
	/* Probes next: their code and the instance must outlive them. */
	ivr_events_disable_all();
	ivr_pci_unregister();
	ivr_generic_exit();
}

module_init(ivr_init);
module_exit(ivr_exit);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("The ivring authors");
MODULE_DESCRIPTION("Guest trace events to the host through ivshmem shared memory");
/* The release of the sources, as VERSION in the top Makefile. */
MODULE_VERSION("1.4.0");
