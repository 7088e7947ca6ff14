// SPDX-License-Identifier: LGPL-2.1 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * A trace.dat's cmdlines, learned from the events that name a task
 * (sched_switch's prev and next, the comm and pid of sched_wakeup and
 * others): of the events that record.c shows it as the pages are
 * verified, only those of these types are looked into.  A hostile guest can invent
 * pids and comms: at most COMMS_MAX are kept, control characters
 * replaced.
 */
#include <traceevent/event-parse.h>

#include "tracedat.h"

static void add_src(struct tracedat *t, struct tep_event *ev,
		    const char *comm, const char *pid)
{
	struct tep_format_field *c = tep_find_field(ev, comm);
	struct tep_format_field *p = tep_find_field(ev, pid);
	struct comm_src *s;

	/*
	 * A fixed char array and a 4-byte pid, inside the 64 KiB that a
	 * format may describe: anything else is not a task's name.
	 */
	if (!c || !p || t->nr_srcs == COMM_SRCS_MAX || p->size != 4 ||
	    !(c->flags & TEP_FIELD_IS_ARRAY) ||
	    (c->flags & TEP_FIELD_IS_DYNAMIC) || !c->size ||
	    c->offset + c->size > IVR_FIELD_END_MAX ||
	    p->offset + 4 > IVR_FIELD_END_MAX)
		return;
	s = &t->srcs[t->nr_srcs++];
	s->type = ev->id;
	s->comm_off = c->offset;
	s->comm_len = c->size < COMM_LEN ? c->size : COMM_LEN;
	s->pid_off = p->offset;
	t->src_types[ev->id / 8] |= 1 << (ev->id % 8);
}

/*
 * The same events that ivring__snprint() learns comms from (render.c), of
 * w->fmts[@from ..].
 */
void ivr_td_find_comm_srcs(struct tracedat *t, struct ivring_rec *w,
			   struct ivring *r, u32 from)
{
	u32 i;

	for (i = from; i < w->nr_fmts; i++) {
		struct tep_event *ev = ivring__event(r, w->fmts[i].id);

		if (!ev)
			continue;
		add_src(t, ev, "prev_comm", "prev_pid");
		add_src(t, ev, "next_comm", "next_pid");
		add_src(t, ev, "comm", "pid");
	}
}

static void learn(struct tracedat *t, const struct comm_src *s,
		  const u8 *data, u32 size)
{
	char comm[COMM_LEN + 1];
	struct comm_slot *slot;
	int32_t pid;
	u32 h, i;

	if (s->comm_off + s->comm_len > size || s->pid_off + 4u > size)
		return;
	memcpy(&pid, data + s->pid_off, 4);
	if (pid < 0)
		return;
	/*
	 * A line of the cmdlines each: a control character from a hostile
	 * comm would end the line early and add one of the guest's choice.
	 */
	for (i = 0; i < s->comm_len && data[s->comm_off + i]; i++) {
		u8 ch = data[s->comm_off + i];

		comm[i] = ch < 0x20 || ch == 0x7f ? '?' : ch;
	}
	comm[i] = '\0';
	if (!i)
		return;
	h = ((u32)pid * 2654435761U) % COMM_SLOTS;
	for (;; h = (h + 1) % COMM_SLOTS) {
		slot = &t->comms[h];
		if (!slot->used || slot->pid == pid)
			break;
	}
	if (!slot->used) {
		if (t->nr_comms >= COMMS_MAX)
			return;
		t->comm_used[t->nr_comms++] = h;
		slot->used = true;
		slot->pid = pid;
	} else if (!memcmp(slot->comm, comm, i + 1)) {
		return;
	}
	memcpy(slot->comm, comm, i + 1);
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
