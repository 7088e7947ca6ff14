// SPDX-License-Identifier: GPL-2.0
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * Generates, from the one declaration per event in event_table.h, the
 * payload struct, the probe, the format text and the runtime descriptor of
 * every event.  Each stage below defines the table's five macros and
 * includes the table again (which undefines them at its end), as the
 * kernel's TRACE_EVENT() machinery does.
 */
#include <linux/binfmts.h>
#include <linux/blkdev.h>
#include <linux/blktrace_api.h>
#include <linux/build_bug.h>
#include <linux/ctype.h>
#include <linux/hrtimer.h>
#include <linux/interrupt.h>
#include <linux/kernel.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/netdevice.h>
#include <linux/pid.h>
#include <linux/random.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/siphash.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/stddef.h>
#include <linux/string.h>
#include <linux/stringify.h>
#include <linux/tick.h>
#include <linux/timer.h>
#include <linux/topology.h>
#include <linux/version.h>
#include <linux/workqueue.h>
#include <asm/syscall.h>

/*
 * The kernel's own declarations of the tracepoints; only used to check each
 * probe's prototype at build time (stage 6), never to register.
 */
#include <trace/events/block.h>
#include <trace/events/irq.h>
#include <trace/events/kmem.h>
#include <trace/events/net.h>
#include <trace/events/power.h>
#include <trace/events/sched.h>
#include <trace/events/syscalls.h>
#include <trace/events/timer.h>
#include <trace/events/workqueue.h>

#include "lanes.h"
#include "probe.h"

#define IVR_PASS(...)	__VA_ARGS__
#define IVR_PROTO(...)	__VA_ARGS__
#define IVR_ARGS(...)	__VA_ARGS__
#define IVR_FIELDS(...)	__VA_ARGS__

/* sched_switch's prev_state, as the kernel's __trace_sched_switch_state(). */
static __always_inline long ivr_switch_state(bool preempt,
					     unsigned int prev_state,
					     struct task_struct *p)
{
	unsigned int state;

	/* A preempted task is still runnable, whatever its state says. */
	if (preempt)
		return TASK_REPORT_MAX;
	state = __task_state_index(prev_state, p->exit_state);
	return state ? (1 << (state - 1)) : state;
}

/* The softirq print fmt spells the vectors as numbers. */
static_assert(HI_SOFTIRQ == 0 && TIMER_SOFTIRQ == 1 && NET_TX_SOFTIRQ == 2 &&
	      NET_RX_SOFTIRQ == 3 && BLOCK_SOFTIRQ == 4 &&
	      IRQ_POLL_SOFTIRQ == 5 && TASKLET_SOFTIRQ == 6 &&
	      SCHED_SOFTIRQ == 7 && HRTIMER_SOFTIRQ == 8 && RCU_SOFTIRQ == 9);

/* tick_stop's print fmt spells the dependency masks as numbers. */
static_assert(TICK_DEP_MASK_NONE == 0 &&
	      TICK_DEP_MASK_POSIX_TIMER == (1 << 0) &&
	      TICK_DEP_MASK_PERF_EVENTS == (1 << 1) &&
	      TICK_DEP_MASK_SCHED == (1 << 2) &&
	      TICK_DEP_MASK_CLOCK_UNSTABLE == (1 << 3) &&
	      TICK_DEP_MASK_RCU == (1 << 4) &&
	      TICK_DEP_MASK_RCU_EXP == (1 << 5));

/* rss_stat's print fmt spells the counters as numbers. */
static_assert(MM_FILEPAGES == 0 && MM_ANONPAGES == 1 && MM_SWAPENTS == 2 &&
	      MM_SHMEMPAGES == 3);

/* sys_enter's args: fills @buf (the probe's own compound literal). */
static __always_inline const unsigned long *
ivr_syscall_args(struct pt_regs *regs, unsigned long *buf)
{
	syscall_get_arguments(current, regs, buf);
	return buf;
}

/* block's rwbs: fills @buf (RWBS_LEN bytes) as blktrace does. */
static __always_inline const char *ivr_rwbs(blk_opf_t opf, char *buf)
{
	blk_fill_rwbs(buf, opf);
	return buf;
}

/*
 * rss_stat's ivr_mm_id: an id of the mm that does not show its address,
 * the same for one mm while the module stays loaded (the key is drawn at
 * load).  The kernel's mm_id is ptr_to_hashval(), which is not exported;
 * this is a keyed hash of the same pointer with a key of ivring's own, so
 * its values differ from ftrace's and the field carries another name.
 * hash_ptr() would keep ftrace's meaning no better: it is unkeyed, and
 * its 32 bits are the top of a multiplication of the address.
 */
static siphash_key_t ivr_mm_id_key __read_mostly;

static __always_inline unsigned int ivr_mm_id(const struct mm_struct *mm)
{
	return (unsigned int)siphash_1u64((unsigned long)mm, &ivr_mm_id_key);
}

/* --- stage 1: the payload of each class ---------------------------------- */

#define ivr_field(type, name, expr)		type name;
#define ivr_array(type, name, len, src)		type name[len];
#define ivr_string(name, src)			u32 __data_loc_##name;
#define IVR_CLASS(class, proto, args, fields, print) \
	struct ivr_raw_##class { \
		struct ivr_common common; \
		fields \
	};
#define IVR_EVENT(sys, event, class)
#include "event_table.h"

/* --- stage 2: the sizes of the strings that follow the payload ----------- */

#define ivr_field(type, name, expr)
#define ivr_array(type, name, len, src)
#define ivr_string(name, src)			u32 name;
#define IVR_CLASS(class, proto, args, fields, print) \
	struct ivr_dyn_##class { \
		fields \
	};
#define IVR_EVENT(sys, event, class)
#include "event_table.h"

#define ivr_field(type, name, expr)
#define ivr_array(type, name, len, src)
#define ivr_string(name, src) \
	dyn->name = ivr_str_size(src); \
	size += dyn->name;
#define IVR_CLASS(class, proto, args, fields, print) \
	static __always_inline u32 \
	ivr_dyn_size_##class(struct ivr_dyn_##class *dyn, proto) \
	{ \
		u32 size = 0; \
		fields \
		return size; \
	}
#define IVR_EVENT(sys, event, class)
#include "event_table.h"

/* --- stage 3: the probes ------------------------------------------------- */

/*
 * A payload in the ring is only 4-byte aligned (after a 4-byte record
 * header), as in ftrace's own ring buffer, whose TP_fast_assign stores
 * through __entry the same way; x86 handles the unaligned 8-byte stores.
 */
#define ivr_field(type, name, expr)	__e->name = (expr);
#define ivr_array(type, name, len, src) \
	memcpy(__e->name, (src), sizeof(__e->name));
#define ivr_string(name, src) \
	__off = ivr_put_str(__e, __off, &__e->__data_loc_##name, (src), \
			    __dyn.name);
#define IVR_CLASS(class, proto, args, fields, print) \
	static notrace void ivr_probe_##class(void *__data, proto) \
	{ \
		const struct ivr_event *__ev = __data; \
		struct ivr_dyn_##class __dyn; \
		struct ivr_raw_##class *__e; \
		struct ivr_probe __st; \
		u32 __off = sizeof(*__e); \
		\
		__e = ivr_probe_begin(__ev, __off + \
				      ivr_dyn_size_##class(&__dyn, args), \
				      &__st); \
		if (!__e) \
			return; \
		fields \
		ivr_probe_end(&__st); \
	}
#define IVR_EVENT(sys, event, class)
#include "event_table.h"

/* --- stage 4: the field lines and print fmt of each class's format ------- */

/* The lines that tracefs's f_show() prints, in its exact spelling. */
#define ivr_field(type, name, expr) \
	len += scnprintf(buf + len, size - len, "\tfield:" #type " " #name \
			 ";\toffset:%zu;\tsize:%zu;\tsigned:%d;\n", \
			 offsetof(ivr_raw_t, name), sizeof(type), \
			 is_signed_type(type));
#define ivr_array(type, name, alen, src) \
	len += scnprintf(buf + len, size - len, "\tfield:" #type " " #name \
			 "[%d];\toffset:%zu;\tsize:%zu;\tsigned:%d;\n", \
			 (int)(alen), offsetof(ivr_raw_t, name), \
			 sizeof(type[alen]), is_signed_type(type));
#define ivr_string(name, src) \
	len += scnprintf(buf + len, size - len, \
			 "\tfield:__data_loc char[] " #name \
			 ";\toffset:%zu;\tsize:4;\tsigned:%d;\n", \
			 offsetof(ivr_raw_t, __data_loc_##name), \
			 is_signed_type(char));
#define IVR_CLASS(class, proto, args, fields, print) \
	static int ivr_fields_##class(char *buf, size_t size) \
	{ \
		typedef struct ivr_raw_##class ivr_raw_t; \
		int len = 0; \
		\
		fields \
		return len; \
	} \
	static const char ivr_print_##class[] = print;
#define IVR_EVENT(sys, event, class)
#include "event_table.h"

/* --- stage 5: the runtime descriptors ------------------------------------ */

#define IVR_CLASS(class, proto, args, fields, print)
#define IVR_EVENT(_sys, _event, _class) \
	{ \
		.sys = #_sys, \
		.name = #_event, \
		.probe = ivr_probe_##_class, \
		.fields = ivr_fields_##_class, \
		.print_fmt = ivr_print_##_class, \
	},
struct ivr_event ivr_events[] = {
#include "event_table.h"
};

const unsigned int ivr_nr_events = ARRAY_SIZE(ivr_events);

/* --- stage 6: each probe matches its tracepoint's prototype -------------- */

/*
 * register_trace_<event>() takes exactly the probe type the tracepoint
 * calls; the kernel builds with -Werror=incompatible-pointer-types, so a
 * prototype that drifts from TP_PROTO fails here rather than in the guest.
 * sizeof() does not evaluate the call: nothing refers to the tracepoint
 * symbol, which modules cannot link against anyway.
 */
#define IVR_CLASS(class, proto, args, fields, print)
#define IVR_EVENT(sys, event, class) \
	static_assert(sizeof(register_trace_##event(ivr_probe_##class, \
						    NULL)) == sizeof(int));
#include "event_table.h"

/* ------------------------------------------------------------------------- */

/* Ids are positions in the table: stable within one build of the module. */
void ivr_events_init_ids(void)
{
	unsigned int i;

	BUILD_BUG_ON(ARRAY_SIZE(ivr_events) >= U16_MAX);
	for (i = 0; i < ivr_nr_events; i++)
		ivr_events[i].id = i + 1;
	ivr_marker_event.id = ivr_nr_events + 1;
	get_random_bytes(&ivr_mm_id_key, sizeof(ivr_mm_id_key));
}

#ifdef IVR_COMMON_LAZY
#define IVR_COMMON_LAZY_FIELD \
	"\tfield:unsigned char common_preempt_lazy_count;\toffset:8;\tsize:1;\tsigned:0;\n"
static_assert(offsetof(struct ivr_common, common_preempt_lazy_count) == 8);
#else
#define IVR_COMMON_LAZY_FIELD	""
#endif

#define IVR_COMMON_FIELDS \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n" \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n" \
	IVR_COMMON_LAZY_FIELD

static_assert(offsetof(struct ivr_common, common_flags) == 2);
static_assert(offsetof(struct ivr_common, common_preempt_count) == 3);
static_assert(offsetof(struct ivr_common, common_pid) == 4);
/*
 * The kernel's own header, so that every field after it lands where
 * ftrace's does; a kernel whose trace_entry grew otherwise fails here.
 */
static_assert(sizeof(struct ivr_common) == sizeof(struct trace_entry) &&
	      __alignof__(struct ivr_common) == __alignof__(struct trace_entry));

/*
 * At boot, ftrace rewrites in every print fmt the enum constants that
 * TRACE_DEFINE_ENUM() declared into their values (trace_event_eval_update()),
 * so the guest's tracefs shows numbers where our stringified macros still
 * name the constants.  Newer kernels (6.12) spell show_gfp_flags()'s flags
 * with the ___GFP_*_BIT enum, which mmflags.h lists in TRACE_GFP_FLAGS for
 * that purpose; only kmem's events print GFP flags.
 */
struct ivr_eval {
	const char *name;
	long value;
};

static const struct ivr_eval ivr_evals[] = {
#ifdef TRACE_GFP_FLAGS
#undef TRACE_GFP_EM
#define TRACE_GFP_EM(a)	{ "___GFP_" #a "_BIT", ___GFP_##a##_BIT },
	TRACE_GFP_FLAGS
#undef TRACE_GFP_EM
#endif
	{ NULL, 0 }
};

static const struct ivr_eval *ivr_eval_find(const char *id, size_t len)
{
	const struct ivr_eval *e;

	for (e = ivr_evals; e->name; e++)
		if (strlen(e->name) == len && !memcmp(e->name, id, len))
			return e;
	return NULL;
}

/*
 * Append @fmt to @buf as ftrace's rewrite leaves it: an identifier outside
 * string literals, and not a member name (after '.' or "->"), that names a
 * known enum constant becomes its value.  Numbers keep their suffixes.
 */
static int ivr_print_fmt(char *buf, size_t size, const char *fmt)
{
	const struct ivr_eval *e;
	const char *p = fmt, *start;
	bool quote = false, member = false;
	int len = 0;

	while (*p) {
		start = p;
		if (*p == '\\' && p[1]) {
			p += 2;
		} else if (*p == '"') {
			quote = !quote;
			p++;
		} else if (quote) {
			p++;
		} else if (isdigit(*p)) {
			while (isalnum(*p))
				p++;
		} else if (isalpha(*p) || *p == '_') {
			while (isalnum(*p) || *p == '_')
				p++;
			e = member ? NULL : ivr_eval_find(start, p - start);
			if (e) {
				len += scnprintf(buf + len, size - len, "%ld",
						 e->value);
				start = p;
			}
			/* What follows a '.' or "->" is a member's name. */
			member = *p == '.' || (p[0] == '-' && p[1] == '>');
			p += *p == '.' ? 1 : member ? 2 : 0;
		} else {
			p++;
			member = false;
		}
		len += scnprintf(buf + len, size - len, "%.*s",
				 (int)(p - start), start);
	}
	return len;
}

/**
 * ivr_event_format() - an event's format text, as tracefs shows it
 * @ev:		the event
 * @buf:	receives the text, NUL-terminated
 * @size:	bytes of @buf
 *
 * Return: the text's length, or -E2BIG when @buf is too small for it.
 */
int ivr_event_format(const struct ivr_event *ev, char *buf, size_t size)
{
	int len;

	len = scnprintf(buf, size, "name: %s\nID: %u\nformat:\n%s\n",
			ev->name, ev->id, IVR_COMMON_FIELDS);
	len += ev->fields(buf + len, size - len);
	len += scnprintf(buf + len, size - len, "\nprint fmt: ");
	len += ivr_print_fmt(buf + len, size - len, ev->print_fmt);
	len += scnprintf(buf + len, size - len, "\n");
	/* scnprintf() stops one short of size: then something was cut. */
	if (len + 1 >= size)
		return -E2BIG;
	return len;
}
