// SPDX-License-Identifier: GPL-2.0
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * /sys/kernel/ivring/set_event, with tracefs's syntax.  Each word written
 * is one of
 *
 *   sys:event   the event            sys:* or sys:   every event of sys
 *   *:event     event in any system  event or sys    tracefs's bare word:
 *   !WORD       disables instead                     an event or a system
 *
 * Words match the listed events: the native ones and the generic ones
 * added so far.  An enabling word that names an event, or a system with
 * no native event, first adds the kernel's events it names that are not
 * listed yet, in the generic lane (generic.c).
 *
 * sysfs cannot see O_TRUNC, so a write only adds (or, with !, removes), as
 * tracefs's "echo ... >> set_event" does; a write of nothing but blanks
 * disables every event, as tracefs's "echo > set_event".  Reading lists
 * the enabled events as sys:event.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kobject.h>
#include <linux/minmax.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "control.h"
#include "testing.h"

static bool ivr_match(const char *pat, const char *s)
{
	return !*pat || !strcmp(pat, "*") || !strcmp(pat, s);
}

/* Apply one word; -EINVAL when it names no event, as tracefs. */
static int ivr_set_event_word(char *word)
{
	bool on = true, found = false;
	char *sys = NULL, *ev = word;
	struct ivr_event *e;
	int added, ret;

	if (*word == '!') {
		on = false;
		word++;
		ev = word;
	}
	if (strchr(word, ':')) {
		sys = strsep(&ev, ":");
		if (!*sys && !*ev)
			return -EINVAL;
	}
	/* The kernel's events that the word names join first (generic.c). */
	if (on) {
		added = ivr_generic_add_matching(sys, ev, ivr_sysfs_add_event);
		if (added < 0 && added != -ENOENT && added != -ENODEV)
			return added;
	}
	ivr_for_each_event(e) {
		if (sys ? !ivr_match(sys, e->sys) || !ivr_match(ev, e->name) :
			  strcmp(ev, "*") && strcmp(ev, e->name) &&
			  strcmp(ev, e->sys))
			continue;
		found = true;
		ret = ivr_event_set(e, on);
		if (ret)
			return ret;
	}
	return found ? 0 : -EINVAL;
}

static ssize_t set_event_store(struct kobject *kobj,
			       struct kobj_attribute *attr, const char *buf,
			       size_t count)
{
	char *copy, *cur, *word;
	struct ivr_event *e;
	bool any = false;
	int ret = 0;

	copy = kstrndup(buf, count, GFP_KERNEL);
	if (!copy)
		return -ENOMEM;
	cur = copy;
	mutex_lock(&ivr_mutex);
	while (!ret && (word = strsep(&cur, " \t\n"))) {
		if (!*word)
			continue;
		any = true;
		ret = ivr_set_event_word(word);
	}
	if (!any)
		ivr_for_each_event(e)
			if (!ret)
				ret = ivr_event_set(e, false);
	mutex_unlock(&ivr_mutex);
	kfree(copy);
	return ret ? ret : count;
}

/*
 * The enabled events, "sys:event" a line.  A show() has one page.  A list
 * that outgrows it fails rather than end at the page's edge as if that
 * were all, since a script that reads it would act on part of the list:
 * 68 native events take under 2K, but generic ones are added at will.
 *
 * Context: with ivr_mutex held.
 * Return: the length, or -EFBIG (with a dmesg line) when it outgrew the page.
 */
static ssize_t ivr_show_enabled(char *buf)
{
	/* sysfs_emit_at() keeps a NUL at the page's end. */
	size_t len = 0, room = min_t(size_t, PAGE_SIZE, ivr_test_list_room()) - 1;
	struct ivr_event *ev;

	ivr_for_each_event(ev) {
		if (!ev->enabled)
			continue;
		if (len + strlen(ev->sys) + strlen(ev->name) + 2 > room) {
			pr_warn_ratelimited("/sys/kernel/" IVR_NAME "/set_event: the list outgrew the %zu bytes that sysfs allows; not shown\n",
					    room + 1);
			return -EFBIG;
		}
		len += sysfs_emit_at(buf, len, "%s:%s\n", ev->sys, ev->name);
	}
	return len;
}

static ssize_t set_event_show(struct kobject *kobj,
			      struct kobj_attribute *attr, char *buf)
{
	ssize_t len;

	mutex_lock(&ivr_mutex);
	len = ivr_show_enabled(buf);
	mutex_unlock(&ivr_mutex);
	return len;
}

struct kobj_attribute ivr_set_event_attr = __ATTR_RW(set_event);
