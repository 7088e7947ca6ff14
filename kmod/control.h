/* SPDX-License-Identifier: GPL-2.0 */
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * The control layer (kmod/LAYERS): /sys/kernel/ivring/, whose files reach
 * the registry, the lanes, the segment and the instance below.
 */
#ifndef IVRING_KMOD_CONTROL_H
#define IVRING_KMOD_CONTROL_H

#include <linux/kernel.h>
#include <linux/types.h>

#include "registry.h"
#include "segment.h"

struct attribute_group;
struct bin_attribute;
struct kobj_attribute;
struct kobject;

/* sysfs.c: the directory, and its files but those below */
int ivr_sysfs_init(void);
void ivr_sysfs_exit(void);

/* sysfs_events.c: events/ */
int ivr_sysfs_events_init(struct kobject *root);
void ivr_sysfs_events_live(bool live);
void ivr_sysfs_events_exit(void);
int ivr_sysfs_add_event(struct ivr_event *ev);

/* set_event.c */
extern struct kobj_attribute ivr_set_event_attr;

/* set_event_pid.c: the pid lists' files, and options/ */
extern struct bin_attribute bin_attr_set_event_pid;
extern struct bin_attribute bin_attr_set_event_notrace_pid;
extern const struct attribute_group ivr_options_group;
void ivr_set_event_pid_exit(void);

/* per_cpu.c: per_cpu/ */
int ivr_per_cpu_init(struct kobject *root);
void ivr_per_cpu_exit(void);

/* "0" or "1" (a trailing newline is fine), as tracefs's enable files. */
static inline int ivr_parse_enable(const char *buf, bool *on)
{
	unsigned int v;
	int ret = kstrtouint(buf, 10, &v);

	if (ret)
		return ret;
	if (v > 1)
		return -EINVAL;
	*on = v;
	return 0;
}

#endif /* IVRING_KMOD_CONTROL_H */
