// SPDX-License-Identifier: GPL-2.0
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * What the fast path (probe.h) keeps out of line: the end of a filtered
 * record, which every probe class would otherwise carry inlined.
 */
#include <linux/sched.h>
#include <linux/string.h>

#include "probe.h"

/*
 * The record in the scratch buffer is matched, then reserved and copied
 * into the ring if it passes, or counted as filtered.  The writing task's
 * comm and CPU are the filter's COMM and CPU, as in ftrace.  Preemption
 * is disabled (ivr_probe_start()).
 */
void ivr_probe_end_filtered(struct ivr_probe *st)
{
	struct ivf_ctx ctx = { .cpu = st->cpu, .comm = current->comm };

	if (ivf_match(&st->filter->prog, st->rec, st->len, &ctx)) {
		void *p = ivw_reserve(st->w, st->cpu, st->len);

		if (p) {
			memcpy(p, st->rec, st->len);
			ivw_commit(st->w, st->cpu);
		}
	} else {
		ivw_count_filtered(st->w, st->cpu);
	}
	ivr_scratch_put();
}
