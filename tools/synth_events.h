/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * Synthetic trace events for userspace writers: ivring-gen, the selftests,
 * the fuzzer and the benchmarks.  Each event has a payload layout that
 * starts with ftrace's common fields and an ftrace "format" text that
 * describes exactly that layout, so libtraceevent decodes what the
 * userspace writer wrote just as it decodes the guest module's events.
 *
 *   synth:seq	  fixed size; a per-CPU, per-origin sequence number
 *   synth:blob	  variable size: __data_loc byte array with a pattern
 *		  derived from seq, so a torn or overwritten record shows
 *   synth:switch sched_switch's fields, for comm-pid rendering
 */
#ifndef IVRING_SYNTH_EVENTS_H
#define IVRING_SYNTH_EVENTS_H

#include <stddef.h>
#include <stdint.h>

#define SYNTH_SYSTEM		"synth"

enum synth_id {
	SYNTH_ID_SEQ = 1,
	SYNTH_ID_BLOB = 2,
	SYNTH_ID_SWITCH = 3,
};
#define SYNTH_NR_EVENTS		3

/* synth_seq.origin: who wrote the event on its writer thread. */
#define SYNTH_ORIGIN_TASK	0
#define SYNTH_ORIGIN_SIGNAL	1	/* a signal handler, as an interrupt */

/* ftrace's common fields: the first 8 bytes of every payload. */
#define SYNTH_COMMON_FIELDS \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n" \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"

struct synth_common {
	uint16_t common_type;
	uint8_t common_flags;
	uint8_t common_preempt_count;
	int32_t common_pid;
};

struct synth_seq {
	struct synth_common c;
	uint64_t seq;
	uint32_t cpu;
	uint32_t origin;
};

struct synth_blob {
	struct synth_common c;
	uint64_t seq;
	uint32_t len;		/* bytes of data[], repeated for checking */
	uint32_t data_loc;	/* __data_loc: len << 16 | offsetof(data) */
	uint8_t data[];
};

struct synth_switch {
	struct synth_common c;
	char prev_comm[16];
	int32_t prev_pid;
	int32_t prev_prio;
	int64_t prev_state;
	char next_comm[16];
	int32_t next_pid;
	int32_t next_prio;
};

struct synth_event_desc {
	uint16_t id;
	const char *name;	/* without the system */
	const char *format;	/* tracefs events/synth/<name>/format text */
	uint32_t size;		/* fixed payload size; blob: without data */
};

extern const struct synth_event_desc synth_events[SYNTH_NR_EVENTS];

/* The descriptor of @id, or NULL. */
const struct synth_event_desc *synth_event(uint16_t id);

struct ivw_writer;
/* Add every synth format to @w: 0 or ivw_add_format()'s -errno. */
int synth_add_formats(struct ivw_writer *w);

/*
 * The fill and check functions take plain pointers: a payload in a ring is
 * only 4-byte aligned, so they may point straight into a reservation.
 */
void synth_fill_seq(void *buf, int32_t pid, uint64_t seq, uint32_t cpu,
		    uint32_t origin);

/* Payload bytes of a blob carrying @len data bytes. */
static inline uint32_t synth_blob_size(uint32_t len)
{
	return (uint32_t)sizeof(struct synth_blob) + len;
}

/* Largest data length for a writer whose largest payload is @max_payload. */
static inline uint32_t synth_blob_max_len(uint32_t max_payload)
{
	return max_payload - (uint32_t)sizeof(struct synth_blob);
}

/*
 * A record's payload is padded to keep records 8-byte multiples, and the
 * page format keeps no exact length: a reader sees @size bytes for a
 * payload of @written, up to 7 more.
 */
static inline int synth_size_ok(uint32_t size, uint32_t written)
{
	return size >= written && size - written < 8;
}

/* Fill a blob of synth_blob_size(@len) bytes at @buf; the data is a
 * pattern of @seq so synth_check_blob() can prove it intact. */
void synth_fill_blob(void *buf, int32_t pid, uint64_t seq, uint32_t len);

/*
 * Check a blob payload of @size bytes (as read: see synth_size_ok()):
 * header consistent with @size, data
 * equal to the pattern of its seq.  Returns 0 and sets *seq, or -1.
 */
int synth_check_blob(const void *buf, uint32_t size, uint64_t *seq);

/* Check a seq payload of @size bytes as read: 0 and the fields, or -1. */
int synth_check_seq(const void *buf, uint32_t size, uint64_t *seq,
		    uint32_t *cpu, uint32_t *origin);

void synth_fill_switch(void *buf, int32_t pid, const char *prev_comm,
		       int32_t prev_pid, int32_t prev_prio, int64_t prev_state,
		       const char *next_comm, int32_t next_pid,
		       int32_t next_prio);

#endif /* IVRING_SYNTH_EVENTS_H */
