// SPDX-License-Identifier: GPL-2.0
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * Event filters: compiled from their text against the format of the lane
 * that carries the event (include/filter/), installed for the probes under
 * RCU, and the per-CPU buffers in which a filtered event is built.
 */
#include <linux/err.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/slab.h>

#include "ev_filter.h"
#include "instance.h"

struct ivr_scratch __percpu *ivr_scratch;

/* After every probe is detached and has returned (main.c). */
void ivr_filter_exit(void)
{
	unsigned int cpu;

	if (!ivr_scratch)
		return;
	for_each_possible_cpu(cpu)
		kvfree(per_cpu_ptr(ivr_scratch, cpu)->buf);
	free_percpu(ivr_scratch);
	ivr_scratch = NULL;
}

/* Each possible CPU's buffers, near it. */
int ivr_filter_init(void)
{
	unsigned int cpu;

	ivr_scratch = alloc_percpu(struct ivr_scratch);
	if (!ivr_scratch)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		struct ivr_scratch *s = per_cpu_ptr(ivr_scratch, cpu);

		s->buf = kvmalloc_node(IVR_SCRATCH_LEVELS * IVR_SCRATCH_SIZE,
				       GFP_KERNEL, cpu_to_node(cpu));
		if (!s->buf) {
			ivr_filter_exit();
			return -ENOMEM;
		}
	}
	return 0;
}

struct ivr_filter *ivr_filter_compile(const char *text, size_t len,
				      const char *fmt, size_t fmt_len,
				      struct ivf_error *err)
{
	struct ivf_fields *fields;
	struct ivf_work *work;
	struct ivr_filter *f;
	int ret = -ENOMEM;

	fields = kmalloc(sizeof(*fields), GFP_KERNEL);
	work = kmalloc(sizeof(*work), GFP_KERNEL);
	f = kzalloc(sizeof(*f), GFP_KERNEL);
	if (fields && work && f) {
		ivf_fields_parse(fmt, fmt_len, fields);
		ret = ivf_compile(text, len, fields, &f->prog, work, err);
	}
	kfree(fields);
	kfree(work);
	if (!ret)
		return f;
	kfree(f);
	return ret == -ENOMEM ? ERR_PTR(-ENOMEM) : NULL;
}

void ivr_filter_install(struct ivr_filter __rcu **slot, struct ivr_filter *f)
{
	struct ivr_filter *old;

	old = rcu_replace_pointer(*slot, f, lockdep_is_held(&ivr_mutex));
	/* The probes hold it with preemption disabled: an RCU reader. */
	if (old)
		kfree_rcu(old, rcu);
}

/*
 * As ftrace's append_filter_err().  Its report of a long text outgrows
 * the page that shows it, and loses the message; here the text is then
 * cut to the 64 bytes around the fault, between "...".
 */
#define IVR_REPORT_AROUND	32

char *ivr_filter_report(const char *text, size_t len,
			const struct ivf_error *err)
{
	size_t pos = min_t(size_t, err->pos, len), from, to;

	if (2 * len + strlen(err->msg) + 32 < PAGE_SIZE)
		return kasprintf(GFP_KERNEL, "%.*s\n%*s^\nparse_error: %s\n",
				 (int)len, text, (int)pos, "", err->msg);
	from = pos > IVR_REPORT_AROUND ? pos - IVR_REPORT_AROUND : 0;
	to = min(len, pos + IVR_REPORT_AROUND);
	return kasprintf(GFP_KERNEL, "...%.*s...\n%*s^\nparse_error: %s\n",
			 (int)(to - from), text + from, (int)(pos - from + 3),
			 "", err->msg);
}
