// SPDX-License-Identifier: GPL-2.0
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * /sys/kernel/ivring/: control in the shape of tracefs, so that people and
 * scripts that drive ftrace can drive ivring the same way.
 *
 *   tracing_on                    0/1: probes write, or return at once
 *   available_events              "sys:event lane", one a line: every
 *                                 event of the kernel
 *   set_event                     tracefs's syntax (set_event.c)
 *   set_event_pid                 the tasks followed, and not followed,
 *   set_event_notrace_pid         as in tracefs (set_event_pid.c)
 *   options/event-fork            0/1: children join their parent's list
 *   mode                          discard or overwrite; changes only while
 *                                 tracing_on is 0, and empties the rings
 *   reset                         write 1: empty the rings (the segment is
 *                                 formatted again, with a new generation)
 *   trace_marker                  a line written becomes an event (marker.c)
 *   clock_sync                    the clock poller's counts (clock_sync.c)
 *   per_cpu/cpuN/stats            per_cpu.c
 *   events/                       sysfs_events.c
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kobject.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "control.h"
#include "testing.h"

static struct kobject *ivr_root;

static ssize_t tracing_on_show(struct kobject *kobj,
			       struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n", READ_ONCE(ivr_tracing_on));
}

static ssize_t tracing_on_store(struct kobject *kobj,
				struct kobj_attribute *attr, const char *buf,
				size_t count)
{
	int ret;
	bool on;

	ret = ivr_parse_enable(buf, &on);
	if (ret)
		return ret;
	/* Probes read it without a lock; one already past it finishes. */
	WRITE_ONCE(ivr_tracing_on, on);
	return count;
}

/*
 * Every event of the kernel with its lane (generic.c): some 1500 lines on
 * Debian's kernels, so a binary attribute, which reads past a page.  kernfs
 * reads it a page at a time; the text is built at offset 0 and the later
 * pieces come from that copy, so a read from the start sees one list.  Two
 * readers at once may rebuild it under each other; each piece is still
 * whole lines of some list.  Root's only, as tracefs's own list is.
 */
static DEFINE_MUTEX(ivr_avail_lock);
static char *ivr_avail_text;
static size_t ivr_avail_len;

static ssize_t available_events_read(struct file *file, struct kobject *kobj,
				     struct bin_attribute *attr, char *buf,
				     loff_t off, size_t count)
{
	ssize_t ret = 0;
	size_t len;
	char *text;

	mutex_lock(&ivr_avail_lock);
	if (!off || !ivr_avail_text) {
		text = ivr_generic_available(&len);
		if (IS_ERR(text)) {
			ret = PTR_ERR(text);
		} else {
			kvfree(ivr_avail_text);
			ivr_avail_text = text;
			ivr_avail_len = len;
		}
	}
	if (!ret)
		ret = memory_read_from_buffer(buf, count, &off, ivr_avail_text,
					      ivr_avail_len);
	mutex_unlock(&ivr_avail_lock);
	return ret;
}

static ssize_t mode_show(struct kobject *kobj, struct kobj_attribute *attr,
			 char *buf)
{
	return sysfs_emit(buf, "%s\n", ivr_mode_name(ivr_segment_mode()));
}

/* Only while tracing_on is 0; it empties the rings (segment.c). */
static ssize_t mode_store(struct kobject *kobj, struct kobj_attribute *attr,
			  const char *buf, size_t count)
{
	int mode = ivr_mode_parse(buf);
	int ret;

	if (mode < 0)
		return -EINVAL;
	mutex_lock(&ivr_mutex);
	ret = ivr_segment_set_mode(mode);
	mutex_unlock(&ivr_mutex);
	return ret ? ret : count;
}

static ssize_t reset_store(struct kobject *kobj, struct kobj_attribute *attr,
			   const char *buf, size_t count)
{
	int ret;
	bool on;

	ret = ivr_parse_enable(buf, &on);
	if (ret || !on)
		return ret ? ret : -EINVAL;
	mutex_lock(&ivr_mutex);
	ret = ivr_segment_reset();
	mutex_unlock(&ivr_mutex);
	return ret ? ret : count;
}

/* One write is one event of ivring:marker (marker.c). */
static ssize_t trace_marker_store(struct kobject *kobj,
				  struct kobj_attribute *attr,
				  const char *buf, size_t count)
{
	return ivr_marker_write(buf, count);
}

static ssize_t clock_sync_show(struct kobject *kobj,
			       struct kobj_attribute *attr, char *buf)
{
	return ivr_sync_show(buf);
}

static struct kobj_attribute ivr_tracing_on_attr = __ATTR_RW(tracing_on);
static BIN_ATTR_ADMIN_RO(available_events, 0);
static struct kobj_attribute ivr_mode_attr = __ATTR_RW(mode);
static struct kobj_attribute ivr_reset_attr = __ATTR_WO(reset);
static struct kobj_attribute ivr_trace_marker_attr = __ATTR_WO(trace_marker);
static struct kobj_attribute ivr_clock_sync_attr = __ATTR_RO(clock_sync);

static struct attribute *ivr_root_attrs[] = {
	&ivr_tracing_on_attr.attr,
	&ivr_set_event_attr.attr,
	&ivr_mode_attr.attr,
	&ivr_reset_attr.attr,
	&ivr_trace_marker_attr.attr,
	&ivr_clock_sync_attr.attr,
	NULL,
};

static struct bin_attribute *ivr_root_bin_attrs[] = {
	&bin_attr_available_events,
	&bin_attr_set_event_pid,
	&bin_attr_set_event_notrace_pid,
	NULL,
};

static const struct attribute_group ivr_root_group = {
	.attrs = ivr_root_attrs,
	.bin_attrs = ivr_root_bin_attrs,
};

int ivr_sysfs_init(void)
{
	int ret = -ENOMEM;

	ivr_root = kobject_create_and_add(IVR_NAME, kernel_kobj);
	if (!ivr_root)
		goto err;
	ret = sysfs_create_group(ivr_root, &ivr_root_group);
	if (!ret)
		ret = sysfs_create_group(ivr_root, &ivr_options_group);
	if (!ret)
		ret = ivr_test_fail_init("sysfs");
	if (!ret)
		ret = ivr_sysfs_events_init(ivr_root);
	if (!ret)
		ret = ivr_per_cpu_init(ivr_root);
	if (!ret)
		ret = ivr_test_fail_init("per_cpu");
	if (ret)
		goto err;
	ivr_sysfs_events_live(true);
	return 0;

err:
	pr_err("cannot create /sys/kernel/" IVR_NAME ": %d\n", ret);
	ivr_sysfs_exit();
	return ret;
}

/* Children first; removal waits for readers and writers in progress. */
void ivr_sysfs_exit(void)
{
	ivr_sysfs_events_live(false);
	ivr_per_cpu_exit();
	ivr_sysfs_events_exit();
	/*
	 * Now, with writers in progress drained: a put alone may remove the
	 * files later (CONFIG_DEBUG_KOBJECT_RELEASE), and a write then could
	 * register a pid probe after ivr_pids_exit().
	 */
	kobject_del(ivr_root);
	kobject_put(ivr_root);
	ivr_root = NULL;
	ivr_set_event_pid_exit();
	kvfree(ivr_avail_text);
	ivr_avail_text = NULL;
}
