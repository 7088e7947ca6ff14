// SPDX-License-Identifier: LGPL-2.1 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * ivring__cpu_stats(): a CPU's counters as the guest published them, in
 * the wording of tracefs's per_cpu/cpuN/stats, and this reader's own.
 */
#include <errno.h>
#include <string.h>

#include "iter/iter.h"

struct cpu_stats_args {
	unsigned int cpu;
	struct ivring_cpu_stats *st;
};

static int cpu_stats_mapped(struct ivring *r, void *arg)
{
	struct cpu_stats_args *a = arg;
	struct ivring_cpu_stats *st = a->st, s = { 0 };
	unsigned int cpu = a->cpu;
	struct ivring_cpu *sh;
	struct ivr_cpu *c;
	u64 cs, pending = 0, issued;

	/* A handle whose move to a new generation failed has no cursors. */
	if (!r->attached && r->attach_err)
		return ivr_err(r, r->attach_err, "%s", r->attach_msg);
	if (cpu >= r->ncpus)
		return ivr_err(r, -ERANGE, "CPU %u out of range: the segment has %u",
			       cpu, r->ncpus);
	sh = ivr_shared_cpu(r, cpu);
	c = &r->cpus[cpu];
	s.entries = ivr_load(&sh->entries);
	s.overrun = ivr_load(&sh->overrun);
	s.dropped = ivr_load(&sh->dropped);
	s.rejected = ivr_load(&sh->rejected);
	s.filtered = ivr_load(&sh->filtered);
	s.bytes = ivr_load(&sh->bytes);
	s.last_ts = ivr_load(&sh->last_ts);
	cs = ivr_load_acquire(&sh->commit_seq);
	if (c->page_loaded)
		memcpy(&s.oldest_ts, c->page, sizeof(s.oldest_ts));

	/* Drops after the newest page started have no ticket yet. */
	if (c->page_loaded && c->seq == cs && s.dropped > c->page_dropped)
		pending = s.dropped - c->page_dropped;
	issued = s.entries + s.dropped;
	if (c->ticket_known && issued > c->ticket + pending)
		s.unread = issued - c->ticket - pending;

	s.read = c->read;
	s.lost = c->lost + pending;
	s.lost_unreported = pending;
	s.bad_pages = c->bad_pages;
	s.torn_pages = c->torn_pages;
	s.sz = sizeof(s);
	ivr_struct_out(st, &s, sizeof(s));
	return 0;
}

int ivring__cpu_stats(struct ivring *r, unsigned int cpu,
		      struct ivring_cpu_stats *st)
{
	struct cpu_stats_args a = { cpu, st };

	if (!r)
		return -EINVAL;
	if (!st)
		return ivr_err(r, -EINVAL, "cpu stats: no struct to fill");
	if (st->sz < sizeof(st->sz))
		return ivr_err(r, -EINVAL,
			       "cpu stats: sz %zu; set it to sizeof(struct ivring_cpu_stats)",
			       st->sz);
	return ivr_guarded(r, cpu_stats_mapped, &a);
}
