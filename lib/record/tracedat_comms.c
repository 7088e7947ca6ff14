// SPDX-License-Identifier: LGPL-2.1 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * A trace.dat's cmdlines, learned from the events that name a task, by
 * the rules that ivring__snprint() learns them by (decode/comms.c): of the
 * events that record.c shows it as the pages are verified, only those of
 * these types are looked into.  A hostile guest can invent pids and
 * comms: at most IVR_COMMS_MAX are kept.
 */
#include <string.h>
#include <traceevent/event-parse.h>

#include "record/tracedat.h"

/* The comm sources of w->fmts[@from ..]; @r NULL: w->from_source. */
void ivr_td_find_comm_srcs(struct tracedat *t, struct ivring_rec *w,
			   struct ivring *r, u32 from)
{
	struct ivr_comm_src src[IVR_COMM_SRCS_PER_EVENT];
	u32 i, k, n;

	for (i = from; i < w->nr_fmts; i++) {
		/* A source's formats were parsed at its open (source.c). */
		struct tep_event *ev = r ? ivring__event(r, w->fmts[i].id) :
				       tep_find_event(w->tep, w->fmts[i].id);

		if (!ev)
			continue;
		n = ivr_comm_srcs(ev, src);
		for (k = 0; k < n && t->nr_srcs < COMM_SRCS_MAX; k++) {
			t->srcs[t->nr_srcs++] = src[k];
			t->src_types[src[k].type / 8] |= 1 << (src[k].type % 8);
		}
	}
}

static void learn(struct tracedat *t, const struct ivr_comm_src *s,
		  const u8 *data, u32 size)
{
	char comm[IVR_COMM_LEN + 1];
	struct comm_slot *slot;
	int32_t pid;
	size_t len;
	u32 h;

	if (!ivr_comm_read(s, data, size, &pid, comm))
		return;
	len = strlen(comm) + 1;
	h = ((u32)pid * 2654435761U) % COMM_SLOTS;
	for (;; h = (h + 1) % COMM_SLOTS) {
		slot = &t->comms[h];
		if (!slot->used || slot->pid == pid)
			break;
	}
	if (!slot->used) {
		if (t->nr_comms >= IVR_COMMS_MAX)
			return;
		t->comm_used[t->nr_comms++] = h;
		slot->used = true;
		slot->pid = pid;
	} else if (!memcmp(slot->comm, comm, len)) {
		return;
	}
	memcpy(slot->comm, comm, len);
	t->comms_gen++;
}

void ivr_td_learn(struct tracedat *t, const struct ivring_event *ev)
{
	u32 i;

	if (!(t->src_types[ev->type / 8] & (1 << (ev->type % 8))))
		return;
	for (i = 0; i < t->nr_srcs; i++)
		if (t->srcs[i].type == ev->type)
			learn(t, &t->srcs[i], ev->data, ev->size);
}
