// SPDX-License-Identifier: GPL-2.0
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * The generic lane: any event that the kernel can trace through perf (a
 * tracepoint, a kprobe or uprobe event made in tracefs; not a synthetic
 * event, which has no perf probe) reaches the segment as the kernel's own
 * raw record, without capture code of ours.
 *
 * For each enabled event the module creates one perf counter per online
 * CPU with perf_event_create_kernel_counter(): type PERF_TYPE_TRACEPOINT,
 * the event's id as config, a sample period of 1, PERF_SAMPLE_RAW and
 * PERF_SAMPLE_PERIOD (below).  The
 * kernel then builds, at every hit, the record that the event's tracefs
 * format describes (perf and ftrace share the TRACE_EVENT() layout) and
 * calls our overflow handler with it, on the hitting CPU, in the hit's own
 * context, with preemption disabled.  The handler copies it into that
 * CPU's sub-ring with the native probes' writer, so both lanes share the
 * rings, the clock, the tickets and the loss counters, and the host merges
 * them per CPU as one stream.  Perf's raw records are what `perf record
 * -e sys:event` stores; only exported interfaces are used.
 *
 * The format text is the kernel's too: tracefs's events/<sys>/<event>/format
 * (tracefs.c), read again at each enable in case the event changed.  Only its "ID:" line changes,
 * to an id of ivring's (past the native ones), which also goes in the
 * record's common_type: the kernel's ids overlap the native ones.
 *
 * The common fields are perf's, which it took in the traced context
 * (tracing_gen_ctx(), in perf_tp_event() and the kprobe and uprobe
 * handlers), but for two: common_type becomes ivring's id, and
 * common_preempt_count loses the level of the tracepoint's own
 * preempt_disable(), as ftrace's tracing_gen_ctx_dec() and the native
 * probes do, so that both lanes agree with ftrace.  They cannot be taken
 * afresh in the handler, as a native probe does: perf calls it with
 * interrupts disabled (6.1 from Debian's backports on, and 6.12), which
 * would mark every event irqs-off.
 *
 * Losses: a record that finds no room is counted by the writer as any
 * dropped event.  Perf itself drops a record, and counts it nowhere, when
 * an event fires inside perf's handling of another in the same context
 * (its recursion guard; nothing in the handler below hits a tracepoint),
 * when a BPF program attached to the event returns 0, and when the record
 * is over PERF_MAX_TRACE_SIZE (RING-DESIGN, section 10).  PERF_SAMPLE_PERIOD makes every hit one
 * overflow, whatever it adds to the count: without it, an event that
 * counts by a field (__perf_count(), as sched_stat_runtime's runtime)
 * overflows a period-1 counter once per unit, up to perf's throttle (400
 * copies of one record), and the throttled counter then misses hits
 * until the next tick, uncounted.  One overflow per hit is never
 * throttled: perf throttles from the second overflow of a hit only.
 *
 * CPU hotplug: perf drops a CPU's counters when it goes offline; the
 * hotplug work below makes new ones when it comes back.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpuhotplug.h>
#include <linux/cpumask.h>
#include <linux/ctype.h>
#include <linux/err.h>
#include <linux/mm.h>
#include <linux/perf_event.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/workqueue.h>

#include "generic.h"
#include "probe.h"

/* Generic events without a native probe, in the order they were added. */
static LIST_HEAD(ivr_generics);
/* The next id to give; ids are never reused while the module is loaded. */
static unsigned int ivr_generic_next_id;
/* Bytes of the kernel's available_events that ivring reads at most. */
#define IVR_AVAILABLE_MAX	(4U << 20)

/**
 * ivr_generic_next() - the listed generic events that have no native probe
 * @ev:		one of them, or NULL for the first
 *
 * Context: with ivr_mutex held.
 * Return: the event added after @ev, or NULL.
 */
struct ivr_event *ivr_generic_next(struct ivr_event *ev)
{
	struct ivr_generic *g;

	lockdep_assert_held(&ivr_mutex);
	if (!ev) {
		g = list_first_entry_or_null(&ivr_generics, struct ivr_generic,
					     node);
		return g ? &g->ev : NULL;
	}
	g = container_of(ev, struct ivr_generic, ev);
	return list_is_last(&g->node, &ivr_generics) ? NULL :
		&list_next_entry(g, node)->ev;
}

/* --- the hot path -------------------------------------------------------- */

/*
 * Called by perf for every hit of the event on this CPU, from the
 * tracepoint (or kprobe, uprobe) with preemption disabled.  @data->raw is
 * the record, in fragments; a tracepoint's is one.
 */
static notrace void ivr_generic_overflow(struct perf_event *pe,
					 struct perf_sample_data *data,
					 struct pt_regs *regs)
{
	struct ivr_generic *g = pe->overflow_handler_context;
	const struct perf_raw_frag *frag;
	struct ivr_common *c;
	struct ivr_probe st;
	u32 len = 0;
	u8 *p;

	if (!(data->sample_flags & PERF_SAMPLE_RAW) || !data->raw)
		return;
	for (frag = &data->raw->frag;; frag = frag->next) {
		/* Only BPF output is copied by a callback; not ours to take. */
		if (frag->copy)
			return;
		len += frag->size;
		if (perf_raw_frag_last(frag))
			break;
	}
	if (len < sizeof(*c))
		return;

	/* With a filter, into a scratch buffer that it is run on first. */
	p = ivr_probe_start(&g->ev, len, &st);
	if (!p)
		return;
	for (frag = &data->raw->frag, len = 0;; frag = frag->next) {
		memcpy(p + len, frag->data, frag->size);
		len += frag->size;
		if (perf_raw_frag_last(frag))
			break;
	}
	/* The two common fields that are not perf's (see above). */
	c = (struct ivr_common *)p;
	c->common_type = g->ev.id;
	if (IS_ENABLED(CONFIG_PREEMPTION) && (c->common_preempt_count & 0xf))
		c->common_preempt_count--;
	ivr_probe_end(&st);
}

/* --- enabling ------------------------------------------------------------ */

/*
 * The kernel's event changed (ivr_generic_refresh()): the filter in force
 * is compiled again for its new fields; one they no longer fit is dropped,
 * and the event's filter file says why, as a refused write would.
 */
static void ivr_generic_refilter(struct ivr_generic *g)
{
	struct ivr_event *owner = g->owner;
	struct ivf_error err = { .msg = "Out of memory" };
	struct ivr_filter *f;
	char *show;

	if (!owner->lane_generic || !rcu_access_pointer(g->ev.filter))
		return;
	f = ivr_filter_compile(owner->filter_text, strlen(owner->filter_text),
			       g->format, g->format_len, &err);
	if (IS_ERR(f))
		f = NULL;
	if (!f) {
		show = ivr_filter_report(owner->filter_text,
					 strlen(owner->filter_text), &err);
		if (show) {
			kfree(owner->filter_text);
			owner->filter_text = show;
		}
	}
	ivr_filter_install(&g->ev.filter, f);
}

static void ivr_generic_detach(struct ivr_generic *g)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		if (!g->pev[cpu])
			continue;
		perf_event_release_kernel(g->pev[cpu]);
		g->pev[cpu] = NULL;
	}
}

/*
 * One CPU's counter, created disabled: the format goes into the segment
 * between creating and enabling, so that an event perf refuses costs no
 * room in the format area.  perf_event_create_kernel_counter() checks the
 * caller's right to raw tracepoint data as perf_event_open() does
 * (perf_event_paranoid, or CAP_PERFMON): enabling is root's, as writing
 * to sysfs is.  -ENODEV: the CPU went offline (the hotplug work below
 * makes its counter when it comes back).
 */
static int ivr_generic_attach_cpu(struct ivr_generic *g, unsigned int cpu)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_TRACEPOINT,
		.size = sizeof(attr),
		.config = g->kid,
		.sample_period = 1,
		/* PERIOD: one overflow per hit (see above). */
		.sample_type = PERF_SAMPLE_RAW | PERF_SAMPLE_PERIOD,
		.disabled = 1,
	};
	struct perf_event *pe;

	pe = perf_event_create_kernel_counter(&attr, cpu, NULL,
					      ivr_generic_overflow, g);
	if (IS_ERR(pe))
		return PTR_ERR(pe);
	g->pev[cpu] = pe;
	return 0;
}

static int ivr_generic_attach(struct ivr_generic *g)
{
	unsigned int cpu;
	int ret;

	for_each_online_cpu(cpu) {
		ret = ivr_generic_attach_cpu(g, cpu);
		if (ret == -ENODEV)
			continue;
		if (ret) {
			pr_err("cannot attach %s:%s on CPU %u through perf: %d\n",
			       g->ev.sys, g->ev.name, cpu, ret);
			ivr_generic_detach(g);
			return ret;
		}
	}
	return 0;
}

static void ivr_generic_enable(struct ivr_generic *g)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu)
		if (g->pev[cpu])
			perf_event_enable(g->pev[cpu]);
}

/**
 * ivr_generic_store_format() - put @g's format in @inst's segment
 * @g:		a generic event
 * @inst:	the published instance, one being formatted, or NULL
 *
 * The format goes in before the first record that needs it, and once per
 * segment generation.
 *
 * Context: with ivr_mutex held.
 * Return: 0 or ivw_add_format()'s error.
 */
int ivr_generic_store_format(struct ivr_generic *g, struct ivr_instance *inst)
{
	int ret;

	if (!inst || g->format_gen == inst->w.generation)
		return 0;
	ret = ivw_add_format(&inst->w, g->ev.id, g->ev.sys, g->format,
			     g->format_len);
	if (ret == -ENOSPC)
		pr_err("the segment's format area is full (%u bytes of formats); %s:%s cannot be enabled until the segment is formatted again (reset)\n",
		       inst->w.fmt_used, g->ev.sys, g->ev.name);
	else if (ret)
		pr_err("cannot store the format of %s:%s: %d\n", g->ev.sys,
		       g->ev.name, ret);
	else
		g->format_gen = inst->w.generation;
	return ret;
}

static int ivr_generic_refresh(struct ivr_generic *g);

/**
 * ivr_generic_set() - attach or detach an event in the generic lane
 * @ev:		an event whose @gen is set
 * @on:		attach when true
 *
 * The kernel's definition is read again first: a kprobe deleted and made
 * again, or a module loaded again, may have another id or another layout
 * under the same name (6.12 hands a freed id out again).  Once the
 * counters exist they hold the event, so a second look then is final.
 *
 * Context: process, with ivr_mutex held (registry.c's ivr_event_set()).
 * Return: 0 or -errno; the event's state is unchanged on failure.
 */
int ivr_generic_set(struct ivr_event *ev, bool on)
{
	struct ivr_generic *g = ev->gen;
	int ret;

	lockdep_assert_held(&ivr_mutex);
	if (!on) {
		ivr_generic_detach(g);
		return 0;
	}
	ret = ivr_generic_refresh(g);
	if (ret < 0)
		return ret;
	if (ret > 0)
		ivr_generic_refilter(g);
	ret = ivr_generic_attach(g);
	if (ret)
		return ret;
	ret = ivr_generic_refresh(g);
	if (ret > 0) {
		pr_err("%s:%s changed while it was being enabled; try again\n",
		       g->ev.sys, g->ev.name);
		ret = -EAGAIN;
	}
	if (!ret)
		ret = ivr_generic_store_format(g, ivr_instance_locked());
	if (ret) {
		ivr_generic_detach(g);
		return ret;
	}
	ivr_generic_enable(g);
	return 0;
}

/* --- CPU hotplug --------------------------------------------------------- */

/*
 * perf removes every counter of a CPU that goes offline and never puts
 * them back (perf_event_exit_cpu()); suspend and hibernation take every
 * CPU but the boot one down and up again.  A CPU that comes online gets
 * new counters for the enabled generic events, from a work item: the
 * hotplug callback runs with the hotplug lock held for writing, and
 * ivr_mutex is taken outside that lock (RING-DESIGN, section 10).  Hits on
 * that CPU between its coming up and the work are not traced.
 */
static cpumask_t ivr_cpus_back;
static int ivr_cpuhp_state = -1;

/* @cpu is back online: new counters for @g if it is enabled in this lane. */
static void ivr_generic_cpu_back(struct ivr_generic *g, unsigned int cpu)
{
	struct ivr_event *ev = g->owner;
	int ret;

	if (!ev->lane_generic || !ev->enabled)
		return;
	if (g->pev[cpu])
		perf_event_release_kernel(g->pev[cpu]);
	g->pev[cpu] = NULL;
	ret = ivr_generic_attach_cpu(g, cpu);
	if (ret)
		pr_err("cannot attach %s:%s on CPU %u, back online: %d; it is not traced there until enabled again\n",
		       ev->sys, ev->name, cpu, ret);
	else
		perf_event_enable(g->pev[cpu]);
}

static void ivr_generic_hotplug_work(struct work_struct *work)
{
	struct ivr_generic *g;
	unsigned int cpu, i;

	mutex_lock(&ivr_mutex);
	for_each_cpu(cpu, &ivr_cpus_back) {
		cpumask_clear_cpu(cpu, &ivr_cpus_back);
		if (!cpu_online(cpu))
			continue;
		/* In the order events are listed: the native ones' twins first. */
		for (i = 0; i < ivr_nr_events; i++)
			if (ivr_events[i].gen)
				ivr_generic_cpu_back(ivr_events[i].gen, cpu);
		list_for_each_entry(g, &ivr_generics, node)
			ivr_generic_cpu_back(g, cpu);
	}
	mutex_unlock(&ivr_mutex);
}

static DECLARE_WORK(ivr_hotplug_work, ivr_generic_hotplug_work);

static int ivr_generic_cpu_online(unsigned int cpu)
{
	cpumask_set_cpu(cpu, &ivr_cpus_back);
	schedule_work(&ivr_hotplug_work);
	return 0;
}

/* --- the kernel's definitions -------------------------------------------- */

/* tracefs names events and systems with these; nothing else gets a path. */
static bool ivr_name_ok(const char *s)
{
	size_t n = strlen(s);

	if (!n || n > 63 || !strcmp(s, ".") || !strcmp(s, ".."))
		return false;
	for (; *s; s++)
		if (!isalnum(*s) && *s != '_' && *s != '-' && *s != '.')
			return false;
	return true;
}

/*
 * The kernel's format text of sys:name, its id in *@kid, and the text with
 * our @id in its ID line.  tracefs's text starts "name: NAME\nID: N\n".
 */
static char *ivr_generic_read_format(const char *sys, const char *name,
				     u16 id, u16 *kid, u32 *lenp)
{
	char *path, *text, *out = NULL, *rest;
	unsigned int k;
	size_t len;
	int n, ret;

	path = kasprintf(GFP_KERNEL, "events/%s/%s/format", sys, name);
	if (!path)
		return ERR_PTR(-ENOMEM);
	text = ivr_tracefs_read(path, IVRING_FORMAT_TEXT_MAX, &len);
	kfree(path);
	if (IS_ERR(text))
		return text;

	n = 0;
	ret = -EINVAL;
	if (sscanf(text, "name: %*s\nID: %u\n%n", &k, &n) != 1 || !n ||
	    !k || k > U16_MAX)
		goto out;
	rest = text + n;
	out = kasprintf(GFP_KERNEL, "name: %s\nID: %u\n%s", name, id, rest);
	ret = -ENOMEM;
	if (!out)
		goto out;
	*lenp = strlen(out);
	*kid = k;
	ret = 0;
	if (*lenp > IVRING_FORMAT_TEXT_MAX) {
		kfree(out);
		ret = -E2BIG;
	}
out:
	kvfree(text);
	if (ret == -EINVAL)
		pr_err("tracefs's format of %s:%s does not start with its name and id\n",
		       sys, name);
	else if (ret == -E2BIG)
		pr_err("the format of %s:%s is longer than the %u bytes a segment takes\n",
		       sys, name, IVRING_FORMAT_TEXT_MAX);
	return ret ? ERR_PTR(ret) : out;
}

static void ivr_generic_free(struct ivr_generic *g)
{
	if (!g)
		return;
	kfree(g->pev);
	kfree(g->format);
	kfree(g->ev.sys);
	kfree(g->ev.name);
	kfree(g);
}

/*
 * Read the kernel's definition of @g again.  Return: 0 when it is the
 * same, 1 when it changed (the event then gets a new id, since a segment
 * may hold the old format under the old one), or -errno.
 */
static int ivr_generic_refresh(struct ivr_generic *g)
{
	u32 len;
	char *format;
	u16 kid;

	format = ivr_generic_read_format(g->ev.sys, g->ev.name, g->ev.id,
					 &kid, &len);
	if (IS_ERR(format))
		return PTR_ERR(format);
	if (kid == g->kid && len == g->format_len &&
	    !memcmp(format, g->format, len)) {
		kfree(format);
		return 0;
	}
	kfree(format);
	if (ivr_generic_next_id > U16_MAX) {
		pr_err("no event id left for %s:%s, which changed\n",
		       g->ev.sys, g->ev.name);
		return -ENOSPC;
	}
	format = ivr_generic_read_format(g->ev.sys, g->ev.name,
					 ivr_generic_next_id, &kid, &len);
	if (IS_ERR(format))
		return PTR_ERR(format);
	pr_info("%s:%s is another event than when it was added (kernel id %u, was %u); it gets id %u\n",
		g->ev.sys, g->ev.name, kid, g->kid, ivr_generic_next_id);
	kfree(g->format);
	g->format = format;
	g->format_len = len;
	g->kid = kid;
	g->ev.id = ivr_generic_next_id++;
	g->format_gen = 0;
	return 1;
}

/* A generic event for sys:name; @owner NULL for one with no native probe. */
static struct ivr_generic *ivr_generic_create(const char *sys,
					      const char *name,
					      struct ivr_event *owner)
{
	struct ivr_generic *g;
	char *format;
	int ret = -ENOMEM;

	if (!ivr_name_ok(sys) || !ivr_name_ok(name))
		return ERR_PTR(-EINVAL);
	/* Synthetic events have no perf probe: perf_trace_init() fails. */
	if (!strcmp(sys, "synthetic")) {
		pr_err("perf cannot carry synthetic events (%s:%s); trace them with ftrace\n",
		       sys, name);
		return ERR_PTR(-EOPNOTSUPP);
	}
	if (ivr_generic_next_id > U16_MAX) {
		pr_err("no event id left for %s:%s\n", sys, name);
		return ERR_PTR(-ENOSPC);
	}
	g = kzalloc(sizeof(*g), GFP_KERNEL);
	if (!g)
		return ERR_PTR(-ENOMEM);
	INIT_LIST_HEAD(&g->node);
	g->ev.sys = kstrdup(sys, GFP_KERNEL);
	g->ev.name = kstrdup(name, GFP_KERNEL);
	g->pev = kcalloc(nr_cpu_ids, sizeof(*g->pev), GFP_KERNEL);
	if (!g->ev.sys || !g->ev.name || !g->pev)
		goto err;
	format = ivr_generic_read_format(sys, name, ivr_generic_next_id,
					 &g->kid, &g->format_len);
	if (IS_ERR(format)) {
		ret = PTR_ERR(format);
		goto err;
	}
	g->format = format;
	g->ev.id = ivr_generic_next_id++;
	g->ev.lane_generic = true;
	g->ev.gen = g;
	g->owner = owner ? owner : &g->ev;
	return g;
err:
	ivr_generic_free(g);
	return ERR_PTR(ret);
}

static struct ivr_event *ivr_native_find(const char *sys, const char *name)
{
	unsigned int i;

	for (i = 0; i < ivr_nr_events; i++)
		if (ivr_events[i].tp && !strcmp(ivr_events[i].sys, sys) &&
		    !strcmp(ivr_events[i].name, name))
			return &ivr_events[i];
	return NULL;
}

/* A listed generic event of that name, one with no native probe. */
static bool ivr_generic_find(const char *sys, const char *name)
{
	struct ivr_generic *g;

	list_for_each_entry(g, &ivr_generics, node)
		if (!strcmp(g->ev.sys, sys) && !strcmp(g->ev.name, name))
			return true;
	return false;
}

/*
 * Add sys:name, an event with no native probe, to the listed events, and
 * tell @added, the caller's (control makes its sysfs directory).  When
 * @added fails the event is not listed, but its id stays used: a segment
 * may hold its format.
 */
static int ivr_generic_add(const char *sys, const char *name,
			   int (*added)(struct ivr_event *ev))
{
	struct ivr_generic *g;
	int ret;

	g = ivr_generic_create(sys, name, NULL);
	if (IS_ERR(g))
		return PTR_ERR(g);
	list_add_tail(&g->node, &ivr_generics);
	ret = added(&g->ev);
	if (ret) {
		list_del(&g->node);
		ivr_generic_free(g);
	}
	return ret;
}

/* Call @fn on each "sys:name" line of @list (cut up); stop at non-zero. */
static int ivr_walk_events(char *list,
			   int (*fn)(char *sys, char *name, void *arg),
			   void *arg)
{
	char *line, *colon;
	int ret = 0;

	while (!ret && (line = strsep(&list, "\n"))) {
		colon = strchr(line, ':');
		if (!colon)
			continue;
		*colon = '\0';
		ret = fn(line, colon + 1, arg);
	}
	return ret;
}

/* The kernel's available_events, kvfree() it; sets *@lenp. */
static char *ivr_kernel_events(size_t *lenp)
{
	return ivr_tracefs_read("available_events", IVR_AVAILABLE_MAX, lenp);
}

struct ivr_match_arg {
	const char *sys;	/* NULL: a bare word, a system or an event */
	const char *name;	/* "" or "*": every event of sys */
	bool whole_sys;		/* a system's every event may be added */
	int (*added_fn)(struct ivr_event *ev);	/* told of each one added */
	int added;
	int err;		/* the first failure */
};

static int ivr_match_one(char *sys, char *name, void *arg)
{
	struct ivr_match_arg *m = arg;
	bool match;
	int ret;

	if (m->sys)
		match = !strcmp(m->sys, sys) &&
			(!strcmp(m->name, name) ||
			 (m->whole_sys && (!*m->name || !strcmp(m->name, "*"))));
	else
		match = !strcmp(m->name, name) ||
			(m->whole_sys && !strcmp(m->name, sys));
	if (!match || ivr_native_find(sys, name) || ivr_generic_find(sys, name))
		return 0;
	/* One event that cannot be added does not stop the others. */
	ret = ivr_generic_add(sys, name, m->added_fn);
	if (!ret)
		m->added++;
	else if (!m->err)
		m->err = ret;
	return 0;
}

static bool ivr_native_sys(const char *sys)
{
	unsigned int i;

	for (i = 0; i < ivr_nr_events; i++)
		if (ivr_events[i].tp && !strcmp(ivr_events[i].sys, sys))
			return true;
	return false;
}

/**
 * ivr_generic_add_matching() - list the kernel's events that a word names
 * @sys:	the word's system, or NULL for a bare word (a system or an
 *		event name, as tracefs reads it)
 * @name:	the event; "" or "*" with @sys for all of the system's
 * @added:	called with each event added, to make what the caller keeps
 *		for a listed event (set_event: its sysfs directory); an
 *		error from it unlists the event again
 *
 * set_event's words match the listed events; an enabling word comes here
 * first, to list the kernel's events it names that are not listed yet.
 * An event's name adds that event; a system's name ("ext4:*", "ext4:",
 * "ext4") adds all of its events, but only for a system that has no
 * native event: "sched:*" keeps meaning the sched events that are listed,
 * as it always did, and does not start every sched event of the kernel.
 * Wildcard systems ("*:name", "*") never add.  An event that cannot be
 * added (dmesg says why) does not stop the others.
 *
 * Context: with ivr_mutex held.
 * Return: how many events were added, or the first error when none was.
 */
int ivr_generic_add_matching(const char *sys, const char *name,
			     int (*added)(struct ivr_event *ev))
{
	struct ivr_match_arg m = {
		.sys = sys, .name = name, .added_fn = added,
	};
	bool wild = !*name || !strcmp(name, "*");
	size_t len;
	char *list;
	int ret;

	lockdep_assert_held(&ivr_mutex);
	if ((sys && (!*sys || !strcmp(sys, "*"))) || (!sys && wild))
		return 0;
	/* The common words need no look at the kernel's list. */
	if (sys && !wild && ivr_native_find(sys, name))
		return 0;
	m.whole_sys = !ivr_native_sys(sys ? sys : name);
	if (sys && wild && !m.whole_sys)
		return 0;
	list = ivr_kernel_events(&len);
	if (IS_ERR(list))
		return PTR_ERR(list);
	ret = ivr_walk_events(list, ivr_match_one, &m);
	kvfree(list);
	if (ret)
		return ret;
	return m.added || !m.err ? m.added : m.err;
}

/**
 * ivr_generic_twin() - give native event @ev its twin in the generic lane
 * @ev:		a listed native event without one (@ev->gen NULL)
 *
 * The twin has an id of its own, since its layout is the kernel's, and
 * stays until the module goes.
 *
 * Context: with ivr_mutex held.
 * Return: 0 or -errno.
 */
int ivr_generic_twin(struct ivr_event *ev)
{
	struct ivr_generic *g;

	lockdep_assert_held(&ivr_mutex);
	g = ivr_generic_create(ev->sys, ev->name, ev);
	if (IS_ERR(g))
		return PTR_ERR(g);
	ev->gen = g;
	return 0;
}

/* --- available_events ---------------------------------------------------- */

struct ivr_avail_arg {
	char *buf;
	size_t len, size;
};

static int ivr_avail_one(char *sys, char *name, void *arg)
{
	struct ivr_avail_arg *a = arg;

	if (ivr_native_find(sys, name) || !strcmp(sys, "synthetic"))
		return 0;
	a->len += scnprintf(a->buf + a->len, a->size - a->len,
			    "%s:%s generic\n", sys, name);
	return 0;
}

/**
 * ivr_generic_available() - the text of available_events
 * @lenp:	receives its length
 *
 * Every event of the kernel, "sys:event LANE" a line: the native ones
 * first, in the table's order, with the lane each is set to, then every
 * other event of the kernel's available_events, "generic".  Without
 * tracefs, only the native ones.
 *
 * Context: takes ivr_mutex.
 * Return: a kvmalloc()ed text, or ERR_PTR(-ENOMEM).
 */
char *ivr_generic_available(size_t *lenp)
{
	struct ivr_avail_arg a = { 0 };
	size_t klen = 0;
	unsigned int i;
	char *klist;

	klist = ivr_kernel_events(&klen);
	if (IS_ERR(klist)) {
		pr_info_ratelimited("cannot read the kernel's available_events: %ld; only the native events are listed\n",
				    PTR_ERR(klist));
		klist = NULL;
		klen = 0;
	}
	/* A line of at least "s:e\n" grows by " generic": at most 3 times. */
	a.size = klen * 3 + ivr_nr_events * 140 + 1;
	a.buf = kvmalloc(a.size, GFP_KERNEL);
	if (!a.buf) {
		kvfree(klist);
		return ERR_PTR(-ENOMEM);
	}

	mutex_lock(&ivr_mutex);
	for (i = 0; i < ivr_nr_events; i++)
		if (ivr_events[i].tp)
			a.len += scnprintf(a.buf + a.len, a.size - a.len,
					   "%s:%s %s\n", ivr_events[i].sys,
					   ivr_events[i].name,
					   ivr_events[i].lane_generic ?
					   "generic" : "native");
	if (klist)
		ivr_walk_events(klist, ivr_avail_one, &a);
	mutex_unlock(&ivr_mutex);
	kvfree(klist);
	*lenp = a.len;
	return a.buf;
}

/* --- module init and exit ------------------------------------------------ */

void ivr_generic_init(void)
{
	ivr_generic_next_id = ivr_nr_events + 2;	/* after the marker's */
	/* Without tracefs the native events still work: it says so. */
	ivr_tracefs_init();
	ivr_cpuhp_state = cpuhp_setup_state_nocalls(CPUHP_AP_ONLINE_DYN,
						    "ivring/generic:online",
						    ivr_generic_cpu_online,
						    NULL);
	if (ivr_cpuhp_state < 0)
		pr_warn("cannot follow CPU hotplug: %d; a CPU that goes offline and back loses its generic events until they are enabled again\n",
			ivr_cpuhp_state);
}

/* Before the events are disabled for good: no work may enable one again. */
void ivr_generic_stop(void)
{
	if (ivr_cpuhp_state >= 0)
		cpuhp_remove_state_nocalls(ivr_cpuhp_state);
	ivr_cpuhp_state = -1;
	cancel_work_sync(&ivr_hotplug_work);
}

/* After every event was disabled and the probes synchronised. */
void ivr_generic_exit(void)
{
	ivr_generic_stop();
	struct ivr_generic *g, *tmp;
	unsigned int i;

	list_for_each_entry_safe(g, tmp, &ivr_generics, node) {
		list_del(&g->node);
		ivr_generic_free(g);
	}
	for (i = 0; i < ivr_nr_events; i++) {
		ivr_generic_free(ivr_events[i].gen);
		ivr_events[i].gen = NULL;
		ivr_events[i].lane_generic = false;
	}
	ivr_tracefs_exit();
}
