// SPDX-License-Identifier: LGPL-2.1 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * Host time in a trace.dat: the reader's clock samples as trace-cmd's
 * TIME_SHIFT option (tracedat_meta.c writes it), so that trace-cmd report
 * prints the host's CLOCK_MONOTONIC, interpolating between samples as
 * libivring does.  The file's metadata carries them at each flush.
 */
#include <errno.h>
#include <stdlib.h>

#include "record/tracedat.h"

int ivr_td_clock(struct ivring_rec *w, struct ivring *r)
{
	u64 gen = w->info.generation, guest, host;
	struct tracedat *t = w->priv;
	u32 i, n, nr;
	u64 *time;
	s64 *off;

	nr = ivr_reader_clock_samples(r, gen);
	if (!nr)
		return 0;
	/* The samples spread over the recording, the first and last kept. */
	n = nr < TD_SHIFT_MAX ? nr : TD_SHIFT_MAX;
	time = malloc(n * sizeof(*time));
	off = malloc(n * sizeof(*off));
	if (!time || !off) {
		free(time);
		free(off);
		return ivr_err(w, -ENOMEM, "out of memory for %u clock samples", n);
	}
	for (i = 0; i < n; i++) {
		ivr_reader_clock_sample(r, gen,
					n == 1 ? 0 : (u64)i * (nr - 1) / (n - 1),
					&guest, &host);
		time[i] = guest;
		off[i] = (s64)(host - guest);
	}
	ivr_td_clock_free(t);
	t->shift_time = time;
	t->shift_off = off;
	t->nr_shift = n;
	return n;
}

void ivr_td_clock_free(struct tracedat *t)
{
	free(t->shift_time);
	free(t->shift_off);
	t->shift_time = NULL;
	t->shift_off = NULL;
	t->nr_shift = 0;
}
