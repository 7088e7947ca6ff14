// SPDX-License-Identifier: LGPL-2.1 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * Tasks' names from the events that carry them.  ivring__snprint() learns
 * them as it renders, a trace.dat recording as its pages go by
 * (record/tracedat_comms.c): both by these rules, so that ivring-read and
 * trace-cmd report of the recording name each task alike.
 */
#include <string.h>
#include <traceevent/event-parse.h>

#include "decode/comms.h"
#include "format/format.h"

/*
 * A fixed char array and a 4-byte pid, inside the 64 KiB that a format may
 * describe: anything else is not a task's name.
 */
static bool add(struct tep_event *ev, const char *comm, const char *pid,
		struct ivr_comm_src *s)
{
	struct tep_format_field *c = tep_find_field(ev, comm);
	struct tep_format_field *p = tep_find_field(ev, pid);

	if (!c || !p || p->size != 4 || (p->flags & TEP_FIELD_IS_ARRAY) ||
	    !(c->flags & TEP_FIELD_IS_ARRAY) ||
	    (c->flags & TEP_FIELD_IS_DYNAMIC) || c->size <= 0 ||
	    c->offset < 0 || p->offset < 0 ||
	    c->offset + c->size > IVR_FIELD_END_MAX ||
	    p->offset + 4 > IVR_FIELD_END_MAX)
		return false;
	s->type = ev->id;
	s->comm_off = c->offset;
	s->comm_len = c->size < IVR_COMM_LEN ? c->size : IVR_COMM_LEN;
	s->pid_off = p->offset;
	return true;
}

u32 ivr_comm_srcs(struct tep_event *ev, struct ivr_comm_src *out)
{
	u32 n = 0;

	n += add(ev, "prev_comm", "prev_pid", &out[n]);
	n += add(ev, "next_comm", "next_pid", &out[n]);
	n += add(ev, "comm", "pid", &out[n]);
	return n;
}

bool ivr_comm_read(const struct ivr_comm_src *src, const u8 *data, u32 size,
		   int32_t *pid, char comm[IVR_COMM_LEN + 1])
{
	u32 i;

	if ((u32)src->comm_off + src->comm_len > size ||
	    (u32)src->pid_off + 4 > size)
		return false;
	memcpy(pid, data + src->pid_off, 4);
	if (*pid <= 0)
		return false;
	/*
	 * A line of trace.dat's cmdlines each, and a column of a line of
	 * text: a control character would end either early.
	 */
	for (i = 0; i < src->comm_len && data[src->comm_off + i]; i++) {
		u8 ch = data[src->comm_off + i];

		comm[i] = ch < 0x20 || ch == 0x7f ? '?' : ch;
	}
	comm[i] = '\0';
	return i > 0;
}
