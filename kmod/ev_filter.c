// SPDX-License-Identifier: GPL-2.0
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * Event filters: compiled from their text against the format of the lane
 * that carries the event (include/filter/), installed for the probes under
 * RCU, and the per-CPU buffers in which a filtered event is built.
 */
#include <linux/err.h>
#include <linux/percpu.h>
#include <linux/slab.h>

#include "ev_filter.h"
#include "instance.h"

struct ivr_scratch __percpu *ivr_scratch;

int ivr_filter_init(void)
{
	ivr_scratch = alloc_percpu(struct ivr_scratch);
	return ivr_scratch ? 0 : -ENOMEM;
}

/* After every probe is detached and has returned (main.c). */
void ivr_filter_exit(void)
{
	free_percpu(ivr_scratch);
	ivr_scratch = NULL;
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
