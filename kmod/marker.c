// SPDX-License-Identifier: GPL-2.0
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * /sys/kernel/ivring/trace_marker, as tracefs's: a process writes a line,
 * and it becomes an event, ivring:marker, on the CPU the write runs on.
 * Users annotate traces with it; the host can tell when a guest process
 * reached a point.  It is written while tracing_on is 1, whatever events
 * are enabled, as ftrace's markers are; it is not an event of
 * available_events, since no tracepoint stands behind it.
 *
 * One write is one event: its text up to IVR_MARKER_MAX - 1 bytes, and
 * less when the sub-buffers are smaller; one trailing newline is dropped
 * (echo adds it).  The rest is cut, as ftrace cuts at its TRACE_BUF_SIZE.
 */
#include <linux/minmax.h>
#include <linux/rcupdate.h>

#include "lanes.h"
#include "probe.h"

#define IVR_MARKER_MAX	1024

struct ivr_raw_marker {
	struct ivr_common common;
	u32 __data_loc_buf;
};

static int ivr_marker_fields(char *buf, size_t size)
{
	return scnprintf(buf, size,
			 "\tfield:__data_loc char[] buf;\toffset:%zu;\tsize:4;\tsigned:%d;\n",
			 offsetof(struct ivr_raw_marker, __data_loc_buf),
			 is_signed_type(char));
}

struct ivr_event ivr_marker_event = {
	.sys = "ivring",
	.name = "marker",
	.fields = ivr_marker_fields,
	.print_fmt = "\"%s\", __get_str(buf)",
};

/* The most text one event carries in the segment now, NUL included. */
static u32 ivr_marker_room(void)
{
	struct ivr_instance *inst;
	u32 room = 0;

	rcu_read_lock_sched();
	inst = rcu_dereference_sched(ivr_inst);
	if (inst && inst->w.max_payload > sizeof(struct ivr_raw_marker))
		room = inst->w.max_payload - sizeof(struct ivr_raw_marker);
	rcu_read_unlock_sched();
	return min_t(u32, room, IVR_MARKER_MAX);
}

/**
 * ivr_marker_write() - one write of trace_marker, one event
 * @buf:	the text written
 * @count:	its length
 *
 * Return: @count, also when the event was dropped on a full ring, or
 * -EBADF while there is no ring to write to, as ftrace.
 */
ssize_t ivr_marker_write(const char *buf, size_t count)
{
	struct ivr_raw_marker *e;
	struct ivr_probe st;
	size_t len = count;
	u32 room;

	/* As ftrace: no ring to write to is a file not open for writing. */
	room = READ_ONCE(ivr_tracing_on) ? ivr_marker_room() : 0;
	if (!room)
		return -EBADF;
	if (len && buf[len - 1] == '\n')
		len--;
	len = min_t(size_t, len, room - 1);
	e = ivr_probe_begin(&ivr_marker_event, sizeof(*e) + len + 1, &st);
	/* Dropped on a full ring, or gone meanwhile: counted, or moot. */
	if (!e)
		return count;
	memcpy(e + 1, buf, len);
	((char *)(e + 1))[len] = '\0';
	e->__data_loc_buf = (len + 1) << 16 | sizeof(*e);
	ivr_probe_end(&st);
	return count;
}
