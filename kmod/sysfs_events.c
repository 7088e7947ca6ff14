// SPDX-License-Identifier: GPL-2.0
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * /sys/kernel/ivring/events/, in tracefs's shape:
 *
 *   events/enable                 0/1/X for every event
 *   events/<sys>/enable           0/1/X for the system's events
 *   events/<sys>/<event>/enable   0/1
 *   events/<sys>/<event>/format   the format text, as in the segment
 *   events/<sys>/<event>/id       the event's common_type
 *   events/<sys>/<event>/lane     native or generic (generic.c)
 *   events/<sys>/<event>/filter   the event's filter (include/filter/)
 *   events/<sys>/filter           a filter for each of the system's events
 *
 * Only events whose tracepoint this kernel has appear, and the generic
 * events once they were added (set_event.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ctype.h>
#include <linux/kobject.h>
#include <linux/list.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "control.h"
#include "ev_filter.h"
#include "testing.h"

struct ivr_evdir {
	struct kobject kobj;
	struct ivr_event *ev;
	struct list_head node;		/* ivr_gen_evdirs: a generic event's */
};

struct ivr_sysdir {
	struct kobject kobj;
	char *sys;			/* its own copy: events may go */
	char *filter_report;		/* why no event took the last filter */
};

static struct kobject *ivr_events_kobj;
static struct ivr_evdir **ivr_evdirs;
static LIST_HEAD(ivr_gen_evdirs);
/* Grows as generic events of new systems are added; under ivr_mutex. */
static struct ivr_sysdir **ivr_sysdirs;
static unsigned int ivr_nr_sysdirs, ivr_sysdirs_cap;
/*
 * Whether set_event may add directories: from the end of init to the
 * start of exit (sysfs.c says when), which walk the directories without
 * ivr_mutex while set_event exists.  Under ivr_mutex.
 */
static bool ivr_sysfs_live;

/* sys NULL means every event. */
static bool ivr_in_sys(const struct ivr_event *ev, const char *sys)
{
	return !sys || !strcmp(ev->sys, sys);
}

/* tracefs's reading of a system's enable: 0, 1, or X when mixed. */
static ssize_t ivr_show_sys_enable(const char *sys, char *buf)
{
	bool any_on = false, any_off = false;
	struct ivr_event *ev;

	mutex_lock(&ivr_mutex);
	ivr_for_each_event(ev) {
		if (!ivr_in_sys(ev, sys))
			continue;
		if (ev->enabled)
			any_on = true;
		else
			any_off = true;
	}
	mutex_unlock(&ivr_mutex);
	return sysfs_emit(buf, "%c\n", any_on && any_off ? 'X' :
			  any_on ? '1' : '0');
}

/*
 * A write of 0 or 1 to an enable file: @one's, or with @one NULL, a
 * system's or events/'s (every event of @sys, NULL: all); the first error
 * stops it.
 */
static ssize_t ivr_store_enable(struct ivr_event *one, const char *sys,
				const char *buf, size_t count)
{
	struct ivr_event *ev;
	int ret;
	bool on;

	ret = ivr_parse_enable(buf, &on);
	if (ret)
		return ret;
	mutex_lock(&ivr_mutex);
	if (one)
		ret = ivr_event_set(one, on);
	else
		ivr_for_each_event(ev)
			if (!ret && ivr_in_sys(ev, sys))
				ret = ivr_event_set(ev, on);
	mutex_unlock(&ivr_mutex);
	return ret ? ret : count;
}

/* --- events/<sys>/<event>/ ---------------------------------------------- */

static struct ivr_event *ivr_kobj_event(struct kobject *kobj)
{
	return container_of(kobj, struct ivr_evdir, kobj)->ev;
}

static ssize_t enable_show(struct kobject *kobj, struct kobj_attribute *attr,
			   char *buf)
{
	return sysfs_emit(buf, "%d\n", READ_ONCE(ivr_kobj_event(kobj)->enabled));
}

static ssize_t enable_store(struct kobject *kobj, struct kobj_attribute *attr,
			    const char *buf, size_t count)
{
	return ivr_store_enable(ivr_kobj_event(kobj), NULL, buf, count);
}

/*
 * A binary attribute, since a format text may outgrow the page that a plain
 * one gets: 6.12's kmalloc print fmt alone spells some 4 KiB of GFP flags.
 * The text of an event in a lane never changes, so reads at any offset
 * agree while the lane stays.
 */
static ssize_t format_read(struct file *file, struct kobject *kobj,
			   struct bin_attribute *attr, char *buf, loff_t off,
			   size_t count)
{
	struct ivr_event *ev = ivr_kobj_event(kobj);
	char *text;
	ssize_t ret;
	int len;

	text = kmalloc(IVRING_FORMAT_TEXT_MAX, GFP_KERNEL);
	if (!text)
		return -ENOMEM;
	mutex_lock(&ivr_mutex);
	len = ivr_event_lane_format(ev, text, IVRING_FORMAT_TEXT_MAX);
	mutex_unlock(&ivr_mutex);
	if (len < 0)
		ret = len;
	else
		ret = memory_read_from_buffer(buf, count, &off, text, len);
	kfree(text);
	return ret;
}

/* The id of the lane in use (registry.c). */
static ssize_t id_show(struct kobject *kobj, struct kobj_attribute *attr,
		       char *buf)
{
	struct ivr_event *ev = ivr_kobj_event(kobj);
	unsigned int id;

	mutex_lock(&ivr_mutex);
	id = ivr_event_lane_id(ev);
	mutex_unlock(&ivr_mutex);
	return sysfs_emit(buf, "%u\n", id);
}

static ssize_t lane_show(struct kobject *kobj, struct kobj_attribute *attr,
			 char *buf)
{
	return sysfs_emit(buf, "%s\n",
			  READ_ONCE(ivr_kobj_event(kobj)->lane_generic) ?
			  "generic" : "native");
}

static ssize_t lane_store(struct kobject *kobj, struct kobj_attribute *attr,
			  const char *buf, size_t count)
{
	int ret;

	if (!sysfs_streq(buf, "generic") && !sysfs_streq(buf, "native"))
		return -EINVAL;
	mutex_lock(&ivr_mutex);
	ret = ivr_event_set_lane(ivr_kobj_event(kobj),
				 sysfs_streq(buf, "generic"));
	mutex_unlock(&ivr_mutex);
	return ret ? ret : count;
}

/* The text's length once trailing blanks are gone, as ftrace's strstrip(). */
static size_t ivr_filter_len(const char *buf, size_t count)
{
	while (count && isspace(buf[count - 1]))
		count--;
	return count;
}

static ssize_t filter_show(struct kobject *kobj, struct kobj_attribute *attr,
			   char *buf)
{
	struct ivr_event *ev = ivr_kobj_event(kobj);
	ssize_t ret;

	mutex_lock(&ivr_mutex);
	ret = sysfs_emit(buf, "%s\n", ev->filter_text ? ev->filter_text :
			 "none");
	mutex_unlock(&ivr_mutex);
	return ret;
}

static ssize_t filter_store(struct kobject *kobj, struct kobj_attribute *attr,
			    const char *buf, size_t count)
{
	int ret;

	/*
	 * kernfs passes a page at a time: a text of a page or more may have
	 * been cut.  Refused, changing nothing, as ftrace refuses it.
	 */
	if (count >= PAGE_SIZE)
		return -EINVAL;
	mutex_lock(&ivr_mutex);
	ret = ivr_event_set_filter(ivr_kobj_event(kobj), buf,
				   ivr_filter_len(buf, count), false);
	mutex_unlock(&ivr_mutex);
	return ret ? ret : count;
}

static struct kobj_attribute ivr_ev_enable = __ATTR_RW(enable);
static struct kobj_attribute ivr_ev_filter = __ATTR_RW(filter);
static BIN_ATTR_RO(format, 0);
static struct kobj_attribute ivr_ev_id = __ATTR_RO(id);
static struct kobj_attribute ivr_ev_lane = __ATTR_RW(lane);

static struct attribute *ivr_evdir_attrs[] = {
	&ivr_ev_enable.attr,
	&ivr_ev_filter.attr,
	&ivr_ev_id.attr,
	&ivr_ev_lane.attr,
	NULL,
};

static struct bin_attribute *ivr_evdir_bin_attrs[] = {
	&bin_attr_format,
	NULL,
};

static const struct attribute_group ivr_evdir_group = {
	.attrs = ivr_evdir_attrs,
	.bin_attrs = ivr_evdir_bin_attrs,
};
__ATTRIBUTE_GROUPS(ivr_evdir);

static void ivr_evdir_release(struct kobject *kobj)
{
	kfree(container_of(kobj, struct ivr_evdir, kobj));
}

static struct kobj_type ivr_evdir_ktype = {
	.release = ivr_evdir_release,
	.sysfs_ops = &kobj_sysfs_ops,
	.default_groups = ivr_evdir_groups,
};

/* --- events/<sys>/ ------------------------------------------------------ */

static const char *ivr_kobj_sys(struct kobject *kobj)
{
	return container_of(kobj, struct ivr_sysdir, kobj)->sys;
}

static ssize_t sys_enable_show(struct kobject *kobj,
			       struct kobj_attribute *attr, char *buf)
{
	return ivr_show_sys_enable(ivr_kobj_sys(kobj), buf);
}

static ssize_t sys_enable_store(struct kobject *kobj,
				struct kobj_attribute *attr, const char *buf,
				size_t count)
{
	return ivr_store_enable(NULL, ivr_kobj_sys(kobj), buf, count);
}

static struct kobj_attribute ivr_sys_enable =
	__ATTR(enable, 0644, sys_enable_show, sys_enable_store);

/* Until a write that no event took: tracefs's words. */
#define IVR_SYS_FILTER_HELP \
	"### global filter ###\n" \
	"# Use this to set filters for multiple events.\n" \
	"# Only events with the given fields will be affected.\n" \
	"# If no events are modified, an error message will be displayed here\n"

static ssize_t sys_filter_show(struct kobject *kobj,
			       struct kobj_attribute *attr, char *buf)
{
	struct ivr_sysdir *d = container_of(kobj, struct ivr_sysdir, kobj);
	ssize_t ret;

	mutex_lock(&ivr_mutex);
	ret = d->filter_report ? sysfs_emit(buf, "%s\n", d->filter_report) :
				 sysfs_emit(buf, IVR_SYS_FILTER_HELP);
	mutex_unlock(&ivr_mutex);
	return ret;
}

/*
 * Each event of the system gets the filter, compiled against its own
 * fields; one that lacks a field is left unfiltered and says so, as in
 * tracefs.  Refused (-EINVAL) only when no event took it.
 */
static ssize_t sys_filter_store(struct kobject *kobj,
				struct kobj_attribute *attr, const char *buf,
				size_t count)
{
	struct ivr_sysdir *d = container_of(kobj, struct ivr_sysdir, kobj);
	size_t len = ivr_filter_len(buf, count);
	unsigned int took = 0, events = 0;
	struct ivr_event *ev;
	int ret = 0;

	if (count >= PAGE_SIZE)
		return -EINVAL;
	mutex_lock(&ivr_mutex);
	ivr_for_each_event(ev) {
		if (!ivr_in_sys(ev, d->sys))
			continue;
		events++;
		ret = ivr_event_set_filter(ev, buf, len, true);
		if (ret && ret != -EINVAL)
			break;
		took += !ret;
	}
	kfree(d->filter_report);
	d->filter_report = NULL;
	if ((!ret || ret == -EINVAL) && events && !took)
		d->filter_report = ivr_filter_report(buf, len,
				&(struct ivf_error){ IVR_SUBSYS_ERROR, 0 });
	mutex_unlock(&ivr_mutex);
	if (ret && ret != -EINVAL)
		return ret;
	if (!events)
		return -ENODEV;
	return took ? count : -EINVAL;
}

static struct kobj_attribute ivr_sys_filter =
	__ATTR(filter, 0644, sys_filter_show, sys_filter_store);

static struct attribute *ivr_sysdir_attrs[] = {
	&ivr_sys_enable.attr,
	&ivr_sys_filter.attr,
	NULL,
};
ATTRIBUTE_GROUPS(ivr_sysdir);

static void ivr_sysdir_release(struct kobject *kobj)
{
	struct ivr_sysdir *d = container_of(kobj, struct ivr_sysdir, kobj);

	kfree(d->sys);
	kfree(d->filter_report);
	kfree(d);
}

static struct kobj_type ivr_sysdir_ktype = {
	.release = ivr_sysdir_release,
	.sysfs_ops = &kobj_sysfs_ops,
	.default_groups = ivr_sysdir_groups,
};

/* --- events/ ------------------------------------------------------------ */

static ssize_t all_enable_show(struct kobject *kobj,
			       struct kobj_attribute *attr, char *buf)
{
	return ivr_show_sys_enable(NULL, buf);
}

static ssize_t all_enable_store(struct kobject *kobj,
				struct kobj_attribute *attr, const char *buf,
				size_t count)
{
	return ivr_store_enable(NULL, NULL, buf, count);
}

static struct kobj_attribute ivr_all_enable =
	__ATTR(enable, 0644, all_enable_show, all_enable_store);

static struct attribute *ivr_events_attrs[] = {
	&ivr_all_enable.attr,
	NULL,
};

static const struct attribute_group ivr_events_group = {
	.attrs = ivr_events_attrs,
};

static struct ivr_sysdir *ivr_add_sysdir(const char *sys)
{
	struct ivr_sysdir *d, **grown;
	int ret;

	if (ivr_nr_sysdirs == ivr_sysdirs_cap) {
		grown = krealloc_array(ivr_sysdirs, ivr_sysdirs_cap * 2 + 16,
				       sizeof(*grown), GFP_KERNEL);
		if (!grown)
			return ERR_PTR(-ENOMEM);
		ivr_sysdirs = grown;
		ivr_sysdirs_cap = ivr_sysdirs_cap * 2 + 16;
	}
	d = kzalloc(sizeof(*d), GFP_KERNEL);
	if (!d)
		return ERR_PTR(-ENOMEM);
	d->sys = kstrdup(sys, GFP_KERNEL);
	if (!d->sys) {
		kfree(d);
		return ERR_PTR(-ENOMEM);
	}
	ret = kobject_init_and_add(&d->kobj, &ivr_sysdir_ktype, ivr_events_kobj,
				   "%s", sys);
	if (ret) {
		kobject_put(&d->kobj);
		return ERR_PTR(ret);
	}
	ivr_sysdirs[ivr_nr_sysdirs++] = d;
	return d;
}

static struct ivr_evdir *ivr_add_evdir(struct ivr_sysdir *sd,
				       struct ivr_event *ev)
{
	struct ivr_evdir *d;
	int ret;

	d = kzalloc(sizeof(*d), GFP_KERNEL);
	if (!d)
		return ERR_PTR(-ENOMEM);
	d->ev = ev;
	INIT_LIST_HEAD(&d->node);
	ret = kobject_init_and_add(&d->kobj, &ivr_evdir_ktype, &sd->kobj, "%s",
				   d->ev->name);
	if (ret) {
		kobject_put(&d->kobj);
		return ERR_PTR(ret);
	}
	return d;
}

static int ivr_sysfs_add_evdir(struct ivr_event *ev)
{
	struct ivr_sysdir *sd = NULL;
	struct ivr_evdir *d;
	unsigned int i;

	if (!ivr_sysfs_live)
		return -ENODEV;
	for (i = 0; i < ivr_nr_sysdirs && !sd; i++)
		if (!strcmp(ivr_sysdirs[i]->sys, ev->sys))
			sd = ivr_sysdirs[i];
	if (!sd)
		sd = ivr_add_sysdir(ev->sys);
	if (IS_ERR(sd))
		return PTR_ERR(sd);
	d = ivr_add_evdir(sd, ev);
	if (IS_ERR(d))
		return PTR_ERR(d);
	list_add_tail(&d->node, &ivr_gen_evdirs);
	return 0;
}

/**
 * ivr_sysfs_add_event() - the directory of a generic event just added
 * @ev:		the event; its sys and name live as long as the module
 *
 * set_event hands it to the generic lane, which calls it for each event
 * that a word adds (ivr_generic_add_matching()); an error unlists the
 * event again.
 *
 * Context: with ivr_mutex held.
 * Return: 0 or -errno.
 */
int ivr_sysfs_add_event(struct ivr_event *ev)
{
	int ret;

	lockdep_assert_held(&ivr_mutex);
	ret = ivr_sysfs_add_evdir(ev);
	if (ret)
		pr_err("cannot add %s:%s to /sys/kernel/" IVR_NAME "/events: %d\n",
		       ev->sys, ev->name, ret);
	return ret;
}

/* One directory per system, in table order; the table groups by system. */
static int ivr_add_event_dirs(void)
{
	struct ivr_sysdir *sd = NULL;
	unsigned int i;
	int ret;

	for (i = 0; i < ivr_nr_events; i++) {
		const struct ivr_event *ev = &ivr_events[i];

		if (!ev->tp)
			continue;
		if (!sd || strcmp(sd->sys, ev->sys)) {
			sd = ivr_add_sysdir(ev->sys);
			if (IS_ERR(sd))
				return PTR_ERR(sd);
		}
		ivr_evdirs[i] = ivr_add_evdir(sd, &ivr_events[i]);
		if (IS_ERR(ivr_evdirs[i])) {
			ret = PTR_ERR(ivr_evdirs[i]);
			ivr_evdirs[i] = NULL;
			return ret;
		}
	}
	return 0;
}

/**
 * ivr_sysfs_events_init() - create events/ and a directory per native event
 * @root:	/sys/kernel/ivring
 *
 * Return: 0 or -errno; ivr_sysfs_events_exit() removes what it made.
 */
int ivr_sysfs_events_init(struct kobject *root)
{
	int ret;

	ivr_evdirs = kcalloc(ivr_nr_events, sizeof(*ivr_evdirs), GFP_KERNEL);
	if (!ivr_evdirs)
		return -ENOMEM;
	ivr_events_kobj = kobject_create_and_add("events", root);
	if (!ivr_events_kobj)
		return -ENOMEM;
	ret = sysfs_create_group(ivr_events_kobj, &ivr_events_group);
	if (ret)
		return ret;
	ret = ivr_add_event_dirs();
	if (!ret)
		ret = ivr_test_fail_init("events");
	return ret;
}

/* From here set_event may add directories, or no longer (see above). */
void ivr_sysfs_events_live(bool live)
{
	mutex_lock(&ivr_mutex);
	ivr_sysfs_live = live;
	mutex_unlock(&ivr_mutex);
}

/*
 * Children first; removal waits for readers and writers in progress.
 * Safe after a partial ivr_sysfs_events_init().
 */
void ivr_sysfs_events_exit(void)
{
	struct ivr_evdir *d, *tmp;
	unsigned int i;

	list_for_each_entry_safe(d, tmp, &ivr_gen_evdirs, node) {
		list_del(&d->node);
		kobject_put(&d->kobj);
	}
	if (ivr_evdirs)
		for (i = 0; i < ivr_nr_events; i++)
			if (ivr_evdirs[i])
				kobject_put(&ivr_evdirs[i]->kobj);
	for (i = 0; i < ivr_nr_sysdirs; i++)
		kobject_put(&ivr_sysdirs[i]->kobj);
	ivr_nr_sysdirs = 0;
	ivr_sysdirs_cap = 0;
	kobject_put(ivr_events_kobj);
	ivr_events_kobj = NULL;
	kfree(ivr_evdirs);
	kfree(ivr_sysdirs);
	ivr_evdirs = NULL;
	ivr_sysdirs = NULL;
}
