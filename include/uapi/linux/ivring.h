/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * ivring: the layout of the shared segment that carries trace events from a
 * guest kernel (the writer) to a host reader, through the BAR2 memory of an
 * ivshmem PCI device.
 *
 * Everything here is little-endian, naturally aligned, and addressed by byte
 * offsets from the start of the segment; no pointer is ever stored.  The
 * guest writes every area except struct ivring_host and its per-CPU
 * struct ivring_host_cpu array, which only the host writes.  Each side treats
 * what the other side wrote as hostile input.
 *
 * The segment is host memory, which the host may rewrite at any moment.  So
 * the guest keeps every value it uses for addressing, sizes, loop bounds,
 * counters and accounting in its own memory and only stores it here; the
 * only words it loads from the segment are those of the host area, each
 * validated or clamped before use (kmod/RING-DESIGN, section 5).  A reader
 * must not expect a guest-written field to hold a value that the host
 * wrote there: the guest overwrites it at its next store.
 *
 *   0                +--------------------------------+
 *                    | struct ivring_header           |  guest
 *   cpu_offset       | struct ivring_cpu[nr_cpus]     |  guest
 *   desc_offset      | struct ivring_desc[nr_cpus *   |  guest
 *                    |                    nr_subbufs] |
 *   format_offset    | struct ivring_format_area +    |  guest
 *                    |   struct ivring_format records |
 *   host_offset      | struct ivring_host +           |  host
 *                    |   struct ivring_host_cpu[]     |
 *   data_offset      | sub-buffers, CPU-major:        |  guest
 *                    |   cpu c, slot i at data_offset |
 *                    |   + (c * nr_subbufs + i) *     |
 *                    |     subbuf_size                |
 *   segment_size     +--------------------------------+
 *
 * Each sub-buffer is a page in the format of the kernel's ring buffer
 * (struct ivring_subbuf_hdr, then records with a 32-bit header), so it can be
 * copied verbatim into a trace-cmd trace.dat file.  Sub-buffer number 'seq'
 * of a CPU lives in slot seq % nr_subbufs; struct ivring_desc says which seq
 * a slot holds.  Documentation: include/DESIGN, section 3.
 *
 * Two lanes write the same sub-rings: the module's own probes (native
 * events) and the generic lane, which copies the kernel's raw record of any
 * other event (perf's, in the layout of the event's tracefs format).  A
 * generic event's format record is appended to the format area when the
 * event is first enabled, so formats may be added at any time while the
 * segment is LIVE, before the first record that uses them; the layout is
 * the same, and so is the ABI (1.1).
 */
#ifndef _UAPI_LINUX_IVRING_H
#define _UAPI_LINUX_IVRING_H

#include <linux/types.h>

#define IVRING_MAGIC		0x0000676e69727669ULL	/* "ivring\0\0" */
#define IVRING_ABI_MAJOR	1	/* bumped for any incompatible change */
#define IVRING_ABI_MINOR	3	/* bumped for compatible additions */

#define IVRING_CACHELINE	64
#define IVRING_PAGE_SIZE	4096	/* alignment of every area */

/* struct ivring_header.state */
#define IVRING_STATE_FORMATTING	1	/* the writer is laying the segment out */
#define IVRING_STATE_LIVE	2	/* the writer may append at any time */
#define IVRING_STATE_STOPPED	3	/* the writer has gone; contents are final */

/* struct ivring_header.mode */
#define IVRING_MODE_DISCARD	0	/* full ring: drop the newest event */
#define IVRING_MODE_OVERWRITE	1	/* full ring: overwrite the oldest page */

/* struct ivring_header.clock_id: which guest clock timestamps come from */
#define IVRING_CLOCK_MONO	1	/* CLOCK_MONOTONIC ns (ktime_get_mono_fast_ns) */
#define IVRING_CLOCK_LOCAL	2	/* per-CPU sched_clock ns (ftrace "local") */
#define IVRING_CLOCK_BOOT	3	/* CLOCK_BOOTTIME ns */
/*
 * ns of the guest's TSC, scaled by its frequency from CLOCK_MONOTONIC_RAW
 * at format time: mono_raw's rate, never slewed by NTP (ABI 1.3).  Like
 * every clock here, the same on every CPU and NMI-safe.
 */
#define IVRING_CLOCK_TSC	4

/*
 * struct ivring_header.flags: what the writer does beyond ABI 1.0.
 * IVRING_F_CLOCK_SYNC (1.1): it answers the host's clock requests
 * (ivring_host.sync_seq) in ivring_header.sync.
 */
#define IVRING_F_CLOCK_SYNC	(1U << 0)

/* Limits that a reader may rely on; a segment outside them is invalid. */
#define IVRING_SUBBUF_MIN	256
#define IVRING_SUBBUF_MAX	65536
#define IVRING_NR_SUBBUFS_MIN	2
#define IVRING_NR_CPUS_MAX	8192
#define IVRING_FORMAT_TEXT_MAX	16384	/* one event's format text */
#define IVRING_FORMAT_AREA_MAX	(4U << 20)	/* format_size */
#define IVRING_FORMATS_MAX	65536	/* format records read: one per u16 id */

/**
 * struct ivring_header - first bytes of the segment, written by the guest
 * @magic:	IVRING_MAGIC; stored last when the segment is formatted.
 * @abi_major:	IVRING_ABI_MAJOR of the writer; a reader rejects another major.
 * @abi_minor:	IVRING_ABI_MINOR of the writer; a reader accepts any minor.
 * @header_size: sizeof(struct ivring_header) as the writer knew it.
 * @segment_size: bytes of the whole segment (the BAR2 size).
 * @generation:	changes each time the segment is formatted (module load, guest
 *		reboot); a reader that sees it change starts over.
 * @state:	IVRING_STATE_*.
 * @mode:	IVRING_MODE_*.
 * @nr_cpus:	number of sub-rings, one per possible guest CPU.
 * @subbuf_size: bytes of one sub-buffer, header included; a power of two in
 *		[IVRING_SUBBUF_MIN, IVRING_SUBBUF_MAX].
 * @nr_subbufs:	sub-buffers per CPU, at least IVRING_NR_SUBBUFS_MIN.
 * @cpu_size:	sizeof(struct ivring_cpu) as written.
 * @desc_size:	sizeof(struct ivring_desc) as written.
 * @host_cpu_size: sizeof(struct ivring_host_cpu) as written.
 * @cpu_offset:	offset of struct ivring_cpu[nr_cpus].
 * @desc_offset: offset of struct ivring_desc[nr_cpus * nr_subbufs].
 * @format_offset: offset of struct ivring_format_area.
 * @format_size: bytes reserved for the format area, at most
 *		IVRING_FORMAT_AREA_MAX.
 * @host_offset: offset of struct ivring_host, followed by
 *		struct ivring_host_cpu[nr_cpus]; the only host-written area.
 * @host_size:	bytes reserved for the host area.
 * @data_offset: offset of the first sub-buffer.
 * @data_size:	bytes of all sub-buffers: nr_cpus * nr_subbufs * subbuf_size.
 * @clock_id:	IVRING_CLOCK_*: what the nanosecond timestamps count.
 * @flags:	IVRING_F_* features of the writer; zero in ABI 1.0.
 * @clock_name: NUL-padded name of the clock, as in ftrace's trace_clock.
 * @format_time: writer clock reading when the segment was formatted.
 * @reserved:	zero; room for later ABI minors.
 * @sync:	the writer's answer to the host's last clock request, on a
 *		cache line of its own (ABI 1.1, IVRING_F_CLOCK_SYNC).
 */
struct ivring_header {
	__u64 magic;
	__u16 abi_major;
	__u16 abi_minor;
	__u32 header_size;
	__u64 segment_size;
	__u64 generation;
	__u32 state;
	__u32 mode;
	__u32 nr_cpus;
	__u32 subbuf_size;
	__u32 nr_subbufs;
	__u32 cpu_size;
	__u32 desc_size;
	__u32 host_cpu_size;
	__u64 cpu_offset;
	__u64 desc_offset;
	__u64 format_offset;
	__u64 format_size;
	__u64 host_offset;
	__u64 host_size;
	__u64 data_offset;
	__u64 data_size;
	__u32 clock_id;
	__u32 flags;
	__u8 clock_name[16];
	__u64 format_time;
	__u64 reserved[4];
	struct ivring_sync {
		__u64 seq;
		__u64 guest_ns;
		__u64 answers;
		__u64 reserved[5];
	} sync;
};

/*
 * Clock synchronisation, PTP-like, through the segment alone: the host reads
 * its clock (t1), stores a new, non-zero ivring_host.sync_seq; the writer,
 * which polls it, reads its own clock (the clock_id of the header, the one
 * its time stamps come from) into sync.guest_ns, counts the answer in
 * sync.answers, and stores sync.seq = that seq last, with release; the host
 * sees it and reads its clock again (t2).  So guest_ns was read between t1
 * and t2, and guest time guest_ns is host time (t1 + t2) / 2 within
 * (t2 - t1) / 2.  A writer spins briefly after an answer, so that a burst
 * of requests gets quick round trips.  The writer loads sync_seq only to
 * compare it with the last one it answered.
 */

/**
 * struct ivring_cpu - one CPU's published state and counters, guest-written
 * @commit_seq:	the sub-buffer being filled: every seq below it is complete,
 *		this one is valid up to its commit word.  Store-release by the
 *		writer after the sub-buffer's descriptor and data.
 * @entries:	events committed on this CPU since the segment was formatted.
 * @bytes:	bytes committed: record headers, payloads and padding.
 * @last_ts:	timestamp of the newest committed event.
 * @reserved0:	zero.
 * @dropped:	events dropped because no sub-buffer was free (discard), or
 *		because the writer could not pass an uncommitted sub-buffer.
 * @overrun:	events overwritten before the host consumed them (overwrite).
 * @rejected:	events refused because they can never fit a sub-buffer.
 * @filtered:	events that the guest's event filters (or pid lists) kept
 *		out of the ring: neither written nor lost.  Since ABI 1.2;
 *		zero before.
 * @reserved1:	zero.
 *
 * The writer stores every counter with each publication, from its own
 * copies; the loss counters have a cache line of their own, so that a storm
 * of drops on a full ring does not disturb a reader polling commit_seq.  One
 * CPU's writer writes both; the struct is two cache lines so that no two
 * CPUs share one.
 */
struct ivring_cpu {
	__u64 commit_seq;
	__u64 entries;
	__u64 bytes;
	__u64 last_ts;
	__u64 reserved0[4];
	__u64 dropped;
	__u64 overrun;
	__u64 rejected;
	__u64 filtered;
	__u64 reserved1[4];
};

/*
 * Set in ivring_desc.seq while the writer (re)initialises a slot: the slot's
 * old content is gone, the new one is not published yet.
 */
#define IVRING_DESC_BUSY	(1ULL << 63)

/**
 * struct ivring_desc - which sub-buffer a slot holds, guest-written
 * @seq:	sequence number of the sub-buffer in this slot: the count of
 *		sub-buffers ever started on this CPU before it.  Set with
 *		IVRING_DESC_BUSY before any byte of the slot is rewritten;
 *		cleared after the fields below and the page header are valid.
 * @first_ticket: ticket of the first event in the sub-buffer.  Every event
 *		that the CPU committed or dropped takes the next ticket, so a
 *		reader that expected ticket T and finds first_ticket F lost
 *		exactly F - T events.
 * @dropped:	value of ivring_cpu.dropped when the sub-buffer was started.
 * @entries:	events in the sub-buffer; valid once seq < commit_seq.
 * @reserved:	zero.
 */
struct ivring_desc {
	__u64 seq;
	__u64 first_ticket;
	__u64 dropped;
	__u32 entries;
	__u32 reserved;
};

/*
 * A sub-buffer: ftrace's struct buffer_data_page.  Records follow the header
 * up to the commit length.  Complete sub-buffers end with a padding record
 * that fills them to subbuf_size.
 */
struct ivring_subbuf_hdr {
	__u64 time_stamp;	/* absolute time of the first record */
	__u64 commit;		/* bytes of records, plus the flags below */
};

#define IVRING_COMMIT_MISSED_EVENTS	(1ULL << 31)	/* ftrace RB_MISSED_EVENTS */
#define IVRING_COMMIT_MISSED_STORED	(1ULL << 30)	/* ftrace RB_MISSED_STORED */
#define IVRING_COMMIT_FLAGS		(IVRING_COMMIT_MISSED_EVENTS | \
					 IVRING_COMMIT_MISSED_STORED)

/*
 * Record header: __u32 with type_len in bits 0-4 and time_delta in bits 5-31,
 * as the kernel's struct ring_buffer_event.
 *   type_len 1..28: data, payload of type_len * 4 bytes follows
 *   type_len 0:     data, __u32 array[0] = payload bytes + 4, then payload
 *   PADDING:        __u32 array[0] = record bytes - 4; fills to the end
 *   TIME_EXTEND:    __u32 array[0] = delta >> 27; adds to the running time
 *   TIME_STAMP:     absolute time; never written in ABI 1.0
 * Every record that ivring writes is a multiple of IVRING_RECORD_ALIGN bytes.
 */
#define IVRING_TYPE_DATA_MAX		28
#define IVRING_TYPE_PADDING		29
#define IVRING_TYPE_TIME_EXTEND		30
#define IVRING_TYPE_TIME_STAMP		31
#define IVRING_TYPE_LEN_BITS		5
#define IVRING_TS_SHIFT			27
#define IVRING_TS_DELTA_MAX		((1U << IVRING_TS_SHIFT) - 1)
#define IVRING_RECORD_ALIGN		8

/*
 * Format area: a struct ivring_format_area, then nr_events records, each a
 * struct ivring_format, the system name and the event's ftrace "format"
 * text (name:, ID:, format:, print fmt:), padded to 8 bytes.  The writer
 * appends records, then stores used and nr_events with release; it may
 * append at any time while LIVE, and readers take the new records.  A reader
 * takes the first IVRING_FORMATS_MAX records, and of several records with
 * one id the first.
 */
struct ivring_format_area {
	__u32 nr_events;
	__u32 used;		/* bytes of records after this header */
	__u64 reserved;
};

struct ivring_format {
	__u32 rec_size;		/* whole record, multiple of 8 */
	__u16 id;		/* common_type of the event */
	__u16 sys_len;		/* bytes of the system name, no NUL */
	__u32 text_len;		/* bytes of the format text, no NUL */
	__u32 reserved;
};

/**
 * struct ivring_host - the host's own area, never written by the guest
 * @generation:	ivring_header.generation that the positions below belong
 *		to; the guest ignores them while it differs from its own.
 * @heartbeat:	host CLOCK_MONOTONIC ns, advanced by a reader that is alive.
 * @reader_pid:	pid of the consuming reader, for diagnostics only.
 * @file_id:	the reader's id of the file it stored the positions through
 *		(a hash of the host's boot id and the file's device and inode).
 *		A reader that finds another one resumes from positions that
 *		came with a copy of the segment, as a live migration copies it,
 *		and may be older than what that reader delivered.  Zero: not
 *		known.  Between readers only; the guest never reads it.
 * @reserved:	zero.
 * @sync_seq:	the host's clock request: a new non-zero value asks the
 *		writer to answer in ivring_header.sync (ABI 1.1).
 * @reserved1:	zero.
 */
struct ivring_host {
	__u64 generation;
	__u64 heartbeat;
	__u32 reader_pid;
	__u32 reserved0;
	__u64 file_id;
	__u64 reserved[4];
	__u64 sync_seq;
	__u64 reserved1[7];
};

/*
 * A consumer position: sub-buffer seq and byte offset in its record area.
 */
#define IVRING_POS_OFF_BITS	16
#define IVRING_POS(seq, off)	(((__u64)(seq) << IVRING_POS_OFF_BITS) | (off))
#define IVRING_POS_SEQ(pos)	((pos) >> IVRING_POS_OFF_BITS)
#define IVRING_POS_OFF(pos)	((pos) & ((1U << IVRING_POS_OFF_BITS) - 1))

/**
 * struct ivring_host_cpu - the host's consumer position on one CPU
 * @consumer_pos: IVRING_POS() of the first record the host has not consumed.
 *		In discard mode the writer never reuses a slot at or after
 *		IVRING_POS_SEQ(consumer_pos); it clamps the value to what it
 *		has published and ignores it when ivring_host.generation is
 *		not its own.
 * @consumer_ticket: ticket of the event at consumer_pos, stored before it,
 *		so that a reader that resumes after that page was overwritten
 *		still counts exactly what it lost.  The guest never reads it.
 * @reserved:	zero.
 */
struct ivring_host_cpu {
	__u64 consumer_pos;
	__u64 consumer_ticket;
	__u64 reserved[6];
};

/*
 * Every size and offset above, checked wherever this header is compiled: the
 * module, libivring, the tools (include/DESIGN, section 3).
 */
#ifndef __cplusplus
#define __IVRING_OFF(s, f, v) \
	_Static_assert(__builtin_offsetof(struct s, f) == (v), #s "." #f)
#define __IVRING_SIZE(s, v) \
	_Static_assert(sizeof(struct s) == (v), "sizeof(struct " #s ")")

__IVRING_SIZE(ivring_header, 256);
__IVRING_OFF(ivring_header, abi_major, 8);
__IVRING_OFF(ivring_header, header_size, 12);
__IVRING_OFF(ivring_header, segment_size, 16);
__IVRING_OFF(ivring_header, generation, 24);
__IVRING_OFF(ivring_header, state, 32);
__IVRING_OFF(ivring_header, mode, 36);
__IVRING_OFF(ivring_header, nr_cpus, 40);
__IVRING_OFF(ivring_header, subbuf_size, 44);
__IVRING_OFF(ivring_header, nr_subbufs, 48);
__IVRING_OFF(ivring_header, cpu_size, 52);
__IVRING_OFF(ivring_header, desc_size, 56);
__IVRING_OFF(ivring_header, host_cpu_size, 60);
__IVRING_OFF(ivring_header, cpu_offset, 64);
__IVRING_OFF(ivring_header, desc_offset, 72);
__IVRING_OFF(ivring_header, format_offset, 80);
__IVRING_OFF(ivring_header, format_size, 88);
__IVRING_OFF(ivring_header, host_offset, 96);
__IVRING_OFF(ivring_header, host_size, 104);
__IVRING_OFF(ivring_header, data_offset, 112);
__IVRING_OFF(ivring_header, data_size, 120);
__IVRING_OFF(ivring_header, clock_id, 128);
__IVRING_OFF(ivring_header, flags, 132);
__IVRING_OFF(ivring_header, clock_name, 136);
__IVRING_OFF(ivring_header, format_time, 152);
__IVRING_OFF(ivring_header, reserved, 160);
__IVRING_OFF(ivring_header, sync, 3 * IVRING_CACHELINE);

__IVRING_SIZE(ivring_sync, IVRING_CACHELINE);
__IVRING_OFF(ivring_sync, guest_ns, 8);
__IVRING_OFF(ivring_sync, answers, 16);

__IVRING_SIZE(ivring_cpu, 2 * IVRING_CACHELINE);
__IVRING_OFF(ivring_cpu, entries, 8);
__IVRING_OFF(ivring_cpu, bytes, 16);
__IVRING_OFF(ivring_cpu, last_ts, 24);
__IVRING_OFF(ivring_cpu, dropped, IVRING_CACHELINE);
__IVRING_OFF(ivring_cpu, overrun, IVRING_CACHELINE + 8);
__IVRING_OFF(ivring_cpu, rejected, IVRING_CACHELINE + 16);

__IVRING_SIZE(ivring_desc, 32);
__IVRING_OFF(ivring_desc, first_ticket, 8);
__IVRING_OFF(ivring_desc, dropped, 16);
__IVRING_OFF(ivring_desc, entries, 24);

__IVRING_SIZE(ivring_subbuf_hdr, 16);
__IVRING_OFF(ivring_subbuf_hdr, commit, 8);

__IVRING_SIZE(ivring_format_area, 16);
__IVRING_OFF(ivring_format_area, used, 4);

__IVRING_SIZE(ivring_format, 16);
__IVRING_OFF(ivring_format, id, 4);
__IVRING_OFF(ivring_format, sys_len, 6);
__IVRING_OFF(ivring_format, text_len, 8);

__IVRING_SIZE(ivring_host, 2 * IVRING_CACHELINE);
__IVRING_OFF(ivring_host, heartbeat, 8);
__IVRING_OFF(ivring_host, reader_pid, 16);
__IVRING_OFF(ivring_host, file_id, 24);
__IVRING_OFF(ivring_host, sync_seq, IVRING_CACHELINE);

__IVRING_SIZE(ivring_host_cpu, IVRING_CACHELINE);
__IVRING_OFF(ivring_host_cpu, consumer_ticket, 8);
#endif /* !__cplusplus */

#endif /* _UAPI_LINUX_IVRING_H */
