// SPDX-License-Identifier: GPL-2.0
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * The event registry: the events that ivring lists, whichever lane carries
 * them, and what spans the lanes: enabling an event in the lane it is in,
 * moving a native event to the generic lane and back, disabling them all,
 * and the formats that a segment gets when it is formatted.  The lanes
 * (attach.c and events.c for the native one, generic.c, marker.c) know
 * nothing of it; control and the segment layer use it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ctype.h>
#include <linux/pci.h>
#include <linux/printk.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/tracepoint.h>

#include "ev_filter.h"
#include "registry.h"

struct ivr_event *ivr_event_next(struct ivr_event *ev)
{
	unsigned int i = 0;

	lockdep_assert_held(&ivr_mutex);
	if (ev && !ev->probe)
		return ivr_generic_next(ev);
	if (ev)
		i = ev - ivr_events + 1;
	for (; i < ivr_nr_events; i++)
		if (ivr_events[i].tp)
			return &ivr_events[i];
	return ivr_generic_next(NULL);
}

/**
 * ivr_event_set() - attach or detach an event in its lane
 * @ev:		the event; a native one's tracepoint must exist
 * @on:		attach when true
 *
 * Return: 0, or the error of tracepoint_probe_(un)register() or of the
 * generic lane; the event is then as it was.
 */
int ivr_event_set(struct ivr_event *ev, bool on)
{
	int ret;

	lockdep_assert_held(&ivr_mutex);
	if (!ev->lane_generic && !ev->tp)
		return -ENODEV;
	if (ev->enabled == on)
		return 0;
	if (ev->lane_generic)
		ret = ivr_generic_set(ev, on);
	else
		ret = ivr_native_set(ev, on);
	if (!ret)
		ev->enabled = on;
	return ret;
}

/* --- filters -------------------------------------------------------------- */

/* The descriptor whose records the probes write: a twin's in the generic lane. */
static struct ivr_event *ivr_lane_desc(struct ivr_event *ev)
{
	return ev->lane_generic ? &ev->gen->ev : ev;
}

/* "0", after blanks: no filter, as event_filter_write() takes it. */
static bool ivr_filter_is_clear(const char *text, size_t len)
{
	size_t i = 0;

	while (i < len && isspace(text[i]))
		i++;
	return len - i == 1 && text[i] == '0';
}

/*
 * The format of @ev in a lane (@generic: the generic one), as the segment
 * holds it.  Its length, or -E2BIG when @buf is too small.
 */
static int ivr_event_format_in(const struct ivr_event *ev, bool generic,
			       char *buf, size_t size)
{
	if (!generic)
		return ivr_event_format(ev, buf, size);
	if (ev->gen->format_len > size)
		return -E2BIG;
	memcpy(buf, ev->gen->format, ev->gen->format_len);
	return ev->gen->format_len;
}

/*
 * @text compiled against @ev's format in a lane: the filter; NULL with
 * @err set when it is not a filter of those fields; ERR_PTR(-errno) when
 * that could not be found out (no memory, a format too long).
 */
static struct ivr_filter *ivr_filter_for(struct ivr_event *ev, bool generic,
					 const char *text, size_t len,
					 struct ivf_error *err)
{
	struct ivr_filter *f;
	char *fmt;
	int flen;

	fmt = kvmalloc(IVRING_FORMAT_TEXT_MAX, GFP_KERNEL);
	if (!fmt)
		return ERR_PTR(-ENOMEM);
	flen = ivr_event_format_in(ev, generic, fmt, IVRING_FORMAT_TEXT_MAX);
	f = flen < 0 ? ERR_PTR(flen) :
	    ivr_filter_compile(text, len, fmt, flen, err);
	kvfree(fmt);
	return f;
}

/**
 * ivr_event_set_filter() - an event's filter, as its filter file takes it
 * @ev:		a listed event
 * @text:	the filter, blanks at its end stripped; "0" clears it
 * @len:	its length
 * @subsystem:	written to the event's system's filter file
 *
 * As tracefs: a text that does not compile leaves the event unfiltered,
 * and its filter file then shows why (for a subsystem's write, that the
 * field was not found or set in one of the system's events).
 *
 * Return: 0; -EINVAL when refused; another -errno (-ENOMEM), and nothing
 * changed.
 */
int ivr_event_set_filter(struct ivr_event *ev, const char *text, size_t len,
			 bool subsystem)
{
	struct ivf_error err = { 0 };
	struct ivr_filter *f = NULL;
	char *show = NULL;

	lockdep_assert_held(&ivr_mutex);
	if (!ivr_filter_is_clear(text, len)) {
		f = ivr_filter_for(ev, ev->lane_generic, text, len, &err);
		if (IS_ERR(f))
			return PTR_ERR(f);
		if (!f && subsystem)
			err = (struct ivf_error){ IVR_SUBSYS_ERROR, 0 };
		show = f ? kstrndup(text, len, GFP_KERNEL) :
			   ivr_filter_report(text, len, &err);
		if (!show) {
			kfree(f);
			return -ENOMEM;
		}
	}
	ivr_filter_install(&ivr_lane_desc(ev)->filter, f);
	kfree(ev->filter_text);
	ev->filter_text = show;
	return show && !f ? -EINVAL : 0;
}

/*
 * Every filter given back, at exit: the probes are detached and have
 * returned (freed after a grace period, which runs no code of ours).
 */
void ivr_events_free_filters(void)
{
	struct ivr_event *ev;

	mutex_lock(&ivr_mutex);
	ivr_for_each_event(ev) {
		ivr_filter_install(&ev->filter, NULL);
		if (ev->gen)
			ivr_filter_install(&ev->gen->ev.filter, NULL);
		kfree(ev->filter_text);
		ev->filter_text = NULL;
	}
	mutex_unlock(&ivr_mutex);
}

/**
 * ivr_event_set_lane() - carry a native event in the generic lane, or not
 * @ev:		a listed event
 * @generic:	true for the generic lane
 *
 * An enabled event is detached from one lane and attached to the other;
 * the hits in between are not traced.  A generic event with no native
 * probe has one lane only.  Its filter goes along, compiled against the
 * other lane's fields.
 *
 * Return: 0 or -errno (the event stays as it was): -EINVAL too when its
 * filter does not fit the other lane.
 */
int ivr_event_set_lane(struct ivr_event *ev, bool generic)
{
	struct ivr_event *from, *to;
	struct ivr_filter *f = NULL, *old;
	struct ivf_error err;
	bool on = ev->enabled;
	int ret;

	lockdep_assert_held(&ivr_mutex);
	if (!ev->probe)
		return generic ? 0 : -EINVAL;
	if (ev->lane_generic == generic)
		return 0;
	if (generic && !ev->gen) {
		ret = ivr_generic_twin(ev);
		if (ret)
			return ret;
	}
	/*
	 * The filter in force must fit the other lane's fields too: compiled
	 * for it first, so that a move it does not fit changes nothing.
	 */
	if (rcu_access_pointer(ivr_lane_desc(ev)->filter)) {
		f = ivr_filter_for(ev, generic, ev->filter_text,
				   strlen(ev->filter_text), &err);
		if (IS_ERR(f))
			return PTR_ERR(f);
		if (!f)
			return -EINVAL;
	}
	if (on) {
		ret = ivr_event_set(ev, false);
		if (ret) {
			kfree(f);
			return ret;
		}
		/* No hit in flight in the old lane while the new one starts. */
		tracepoint_synchronize_unregister();
	}
	from = ivr_lane_desc(ev);
	to = generic ? &ev->gen->ev : ev;
	/* No probe of the old lane runs: its filter can be held, not freed. */
	old = rcu_replace_pointer(from->filter, NULL,
				  lockdep_is_held(&ivr_mutex));
	ivr_filter_install(&to->filter, f);
	ev->lane_generic = generic;
	if (!on)
		goto done;
	ret = ivr_event_set(ev, true);
	if (ret) {
		/*
		 * Attaching may have compiled the filter again, for a kernel
		 * definition that changed, and dropped it, the file then
		 * saying why (ivr_generic_refilter()): the event goes back
		 * unfiltered, as its file says.
		 */
		bool dropped = f && !rcu_access_pointer(to->filter);

		ev->lane_generic = !generic;
		ivr_filter_install(&to->filter, NULL);
		if (!dropped) {
			rcu_assign_pointer(from->filter, old);
			old = NULL;
		}
		if (ivr_event_set(ev, true))
			pr_err("%s:%s is disabled: neither lane could attach it\n",
			       ev->sys, ev->name);
		/* Read by no probe since the detach above. */
		kfree(old);
		return ret;
	}
done:
	/* Read by no probe since the detach above. */
	kfree(old);
	return 0;
}

/* The id of the lane in use: a native event's generic twin has its own. */
u16 ivr_event_lane_id(const struct ivr_event *ev)
{
	lockdep_assert_held(&ivr_mutex);
	return ev->lane_generic ? ev->gen->ev.id : ev->id;
}

/**
 * ivr_event_lane_format() - an event's format text in the lane in use
 * @ev:		the event
 * @buf:	receives the text, not NUL-terminated
 * @size:	bytes of @buf
 *
 * The text is the one that the segment holds: ours for a native probe,
 * the kernel's (with our id) for the generic lane.
 *
 * Return: the text's length, or -E2BIG when @buf is too small for it.
 */
int ivr_event_lane_format(const struct ivr_event *ev, char *buf, size_t size)
{
	lockdep_assert_held(&ivr_mutex);
	if (!ev->lane_generic)
		return ivr_event_format(ev, buf, size);
	if (ev->gen->format_len > size)
		return -E2BIG;
	memcpy(buf, ev->gen->format, ev->gen->format_len);
	return ev->gen->format_len;
}

/*
 * Detach every probe and perf counter, then wait until no CPU still runs
 * one: after this the probes' code and the instance they read may go away.
 * Perf calls the generic lane's handler with preemption disabled, as
 * tracepoints call probes, so the same grace period covers it.
 *
 * Context: process; takes ivr_mutex.
 */
void ivr_events_disable_all(void)
{
	struct ivr_event *ev;

	mutex_lock(&ivr_mutex);
	ivr_for_each_event(ev)
		ivr_event_set(ev, false);
	mutex_unlock(&ivr_mutex);
	tracepoint_synchronize_unregister();
}

/* The events of the table that this kernel has, then the marker's. */
static int ivr_add_native_formats(struct ivr_instance *inst)
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

/**
 * ivr_events_add_formats() - the formats that a new segment starts with
 * @inst:	an instance being formatted, not yet published
 *
 * Every native event's format that this kernel has, whether enabled or
 * not, the marker's, and those of the events enabled in the generic lane;
 * a generic event enabled later adds its own then.
 *
 * Return: 0 or the first error (of ivw_add_format(), or -ENOMEM).
 */
int ivr_events_add_formats(struct ivr_instance *inst)
{
	struct ivr_event *ev;
	int ret;

	lockdep_assert_held(&ivr_mutex);
	ret = ivr_add_native_formats(inst);
	if (ret)
		return ret;
	ivr_for_each_event(ev) {
		if (!ev->lane_generic || !ev->enabled)
			continue;
		ret = ivr_generic_store_format(ev->gen, inst);
		if (ret)
			return ret;
	}
	return 0;
}
