/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * Tasks' names from the events that carry them (comms.c): for the text of
 * ivring__snprint(), and for a trace.dat's cmdlines.  Knows an event's
 * libtraceevent description and its bytes, never a handle.
 */
#ifndef IVRING_LIB_COMMS_H
#define IVRING_LIB_COMMS_H

#include "base/base.h"

struct tep_event;

#define IVR_COMM_LEN	16		/* the kernel's TASK_COMM_LEN */
/* Distinct pids whose comm is kept: a hostile guest could invent millions. */
#define IVR_COMMS_MAX	32768
/* Comm sources one event type may have: prev_, next_, and plain comm/pid. */
#define IVR_COMM_SRCS_PER_EVENT	3

/* Where an event type carries a task's comm and pid. */
struct ivr_comm_src {
	u16 type;
	u16 comm_off;
	u16 comm_len;
	u16 pid_off;
};

/*
 * Where @ev names tasks, as trace-cmd learns comms from saved_cmdlines:
 * sched_switch's prev and next, and the comm and pid of sched_wakeup and
 * the like.  Fills up to IVR_COMM_SRCS_PER_EVENT of @out; returns how many.
 */
u32 ivr_comm_srcs(struct tep_event *ev, struct ivr_comm_src *out);
/*
 * The task that @src names in the record @data of @size bytes: true with
 * *@pid (never 0, the idle task, nor negative) and @comm, NUL-terminated,
 * a control byte of it replaced by '?' (the guest chose it).
 */
bool ivr_comm_read(const struct ivr_comm_src *src, const u8 *data, u32 size,
		   int32_t *pid, char comm[IVR_COMM_LEN + 1]);

#endif /* IVRING_LIB_COMMS_H */
