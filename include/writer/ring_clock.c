// SPDX-License-Identifier: GPL-2.0 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * The TSC clock's base, moved while writers read it (kmod/RING-DESIGN 11).
 *
 * A TSC can go back under a running segment: a resume from suspend to RAM
 * that resets it (a KVM guest's vCPUs restart from 0), or a live migration
 * that does not carry it over.  The writer then clamps every event to its
 * CPU's last time (ring_write.c), and the segment's time would stand still
 * until the counter caught up, for as long as the guest had run.  The
 * module calls ivw_tsc_heal() at resume (kmod/segment.c) and at each look
 * of its clock poller (kmod/clock_sync.c), and the clock goes on from the
 * newest time any CPU stamped.
 */
#include "ring_writer.h"

/* The clock behind the newest stamp by more than this: it went back. */
#define IVW_TSC_BACK_NS		1000000ULL

/**
 * ivw_tsc_continue() - make count @cyc read as time @ns from now on
 * @w:		a writer formatted with a TSC clock
 * @cyc:	a count of the cycle counter
 * @ns:		its time
 *
 * Readers on any CPU, and an NMI on this one, see the old base or the new,
 * whole (the latch of struct ivw_tsc_latch).  Context: one caller at a
 * time, which the caller's lock ensures.
 */
void ivw_tsc_continue(struct ivw_writer *w, u64 cyc, u64 ns)
{
	struct ivw_tsc_latch *l = &w->tsc;
	u32 i;

	for (i = 0; i < 2; i++) {
		/* Readers to the other copy, then rewrite this one. */
		smp_wmb();
		WRITE_ONCE(l->seq, l->seq + 1);
		smp_wmb();
		WRITE_ONCE(l->v[i].base_cyc, cyc);
		WRITE_ONCE(l->v[i].base_ns, ns);
	}
}

/**
 * ivw_tsc_heal() - move the clock on to the newest stamp if it went back
 * @w:		the writer
 *
 * A counter that went back reads a time below the one this function read
 * at its last call (or at the format), and below what the CPUs stamped
 * since: then the clock continues from the newest stamp.  The time that
 * the guest spent between (a suspend, a migration's pause) is lost to it,
 * as CLOCK_MONOTONIC loses a suspend.  Both are needed: a clock behind the
 * newest stamp alone may be one CPU's counter trailing another's, which
 * moving the base would only make the others lead by as much again, at
 * every call.  Context: as ivw_tsc_continue(), at least once a second or
 * so for a counter that goes back to be told from one that trails.
 *
 * Return: how far the clock was behind, in ns; 0 if it was not moved.
 */
u64 ivw_tsc_heal(struct ivw_writer *w)
{
	u64 cyc, now, last = w->tsc.heal_now, newest = 0;
	u32 cpu;

	if (!w->tsc.on)
		return 0;
	for (cpu = 0; cpu < w->nr_cpus; cpu++) {
		u64 t = READ_ONCE(w->cpus[cpu].last_ts);

		if (t > newest)
			newest = t;
	}
	cyc = ivw_read_cycles();
	now = ivw_tsc_read(&w->tsc);
	w->tsc.heal_now = now;
	if (now >= last || now + IVW_TSC_BACK_NS >= newest)
		return 0;
	ivw_tsc_continue(w, cyc, newest);
	w->tsc.heal_now = newest;
	return newest - now;
}
