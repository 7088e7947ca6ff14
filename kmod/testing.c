// SPDX-License-Identifier: GPL-2.0
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * Fault injection for the guest tests; see testing.h.  Compiled in every
 * build, but empty unless IVRING_TEST is set.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#ifdef IVRING_TEST

#include <linux/atomic.h>
#include <linux/delay.h>
#include <linux/moduleparam.h>
#include <linux/printk.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "testing.h"

static char *ivr_fail_init = "";
module_param_named(fail_init, ivr_fail_init, charp, 0444);
MODULE_PARM_DESC(fail_init,
		 "test builds only: module init fails with -ENOMEM at this step: pci, sysfs, events or per_cpu");

static unsigned int ivr_fail_delay_ms;
module_param_named(fail_delay_ms, ivr_fail_delay_ms, uint, 0444);
MODULE_PARM_DESC(fail_delay_ms,
		 "test builds only: milliseconds a failing init step waits before it fails");

static atomic_t ivr_fail_format = ATOMIC_INIT(0);

static int ivr_fail_format_set(const char *val, const struct kernel_param *kp)
{
	unsigned int n;
	int ret = kstrtouint(val, 0, &n);

	if (ret || n > INT_MAX)
		return ret ? ret : -EINVAL;
	atomic_set(&ivr_fail_format, n);
	return 0;
}

static int ivr_fail_format_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", atomic_read(&ivr_fail_format));
}

static const struct kernel_param_ops ivr_fail_format_ops = {
	.set = ivr_fail_format_set,
	.get = ivr_fail_format_get,
};
module_param_cb(fail_format, &ivr_fail_format_ops, NULL, 0600);
MODULE_PARM_DESC(fail_format,
		 "test builds only: the next N formats of a segment (probe, reset, mode, resume) fail part-way with -EIO");

static unsigned int ivr_list_room;
module_param_named(list_room, ivr_list_room, uint, 0600);
MODULE_PARM_DESC(list_room,
		 "test builds only: bytes the sysfs list files may fill instead of a page (0: a page)");

size_t ivr_test_list_room(void)
{
	unsigned int room = READ_ONCE(ivr_list_room);

	return room ? room : SIZE_MAX;
}

/* Return: -ENOMEM when init is to fail at @step, else 0. */
int ivr_test_fail_init(const char *step)
{
	if (strcmp(ivr_fail_init, step))
		return 0;
	pr_info("fault injection: init step %s fails in %u ms\n", step,
		ivr_fail_delay_ms);
	msleep(ivr_fail_delay_ms);
	return -ENOMEM;
}

/* Return: -EIO while fail_format counts down, else 0. */
int ivr_test_fail_format(void)
{
	if (atomic_add_unless(&ivr_fail_format, -1, 0)) {
		pr_info("fault injection: this format fails\n");
		return -EIO;
	}
	return 0;
}

#endif /* IVRING_TEST */
