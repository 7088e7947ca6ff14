// SPDX-License-Identifier: GPL-2.0 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * Synthetic events: payload builders and their ftrace format texts.  The
 * texts follow tracefs's events/<sys>/<name>/format byte for byte (tabs, a
 * blank line between the common and the event fields), because readers
 * hand them to libtraceevent's tep_parse_event() unchanged.
 */
#include <string.h>

#include "ring_writer.h"
#include "synth_events.h"

#define COMMON_FIELDS	SYNTH_COMMON_FIELDS "\n"

static const char seq_format[] =
	"name: seq\n"
	"ID: 1\n"
	"format:\n"
	COMMON_FIELDS
	"\tfield:u64 seq;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:u32 cpu;\toffset:16;\tsize:4;\tsigned:0;\n"
	"\tfield:u32 origin;\toffset:20;\tsize:4;\tsigned:0;\n"
	"\n"
	"print fmt: \"seq=%llu cpu=%u origin=%u\", REC->seq, REC->cpu, REC->origin\n";

static const char blob_format[] =
	"name: blob\n"
	"ID: 2\n"
	"format:\n"
	COMMON_FIELDS
	"\tfield:u64 seq;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:u32 len;\toffset:16;\tsize:4;\tsigned:0;\n"
	"\tfield:__data_loc unsigned char[] data;\toffset:20;\tsize:4;\tsigned:0;\n"
	"\n"
	"print fmt: \"seq=%llu len=%u data=%s\", REC->seq, REC->len, "
	"__print_hex(__get_dynamic_array(data), __get_dynamic_array_len(data))\n";

/* The kernel's sched_switch (v6.1), only the system and the ID differ. */
#define TASK_REPORT \
	"(0x0000 | 0x0001 | 0x0002 | 0x0004 | 0x0008 | 0x0010 | 0x0020 | 0x0040)"

static const char switch_format[] =
	"name: switch\n"
	"ID: 3\n"
	"format:\n"
	COMMON_FIELDS
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
	"\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
	"\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n"
	"\n"
	"print fmt: \"prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s%s ==> "
	"next_comm=%s next_pid=%d next_prio=%d\", REC->prev_comm, REC->prev_pid, "
	"REC->prev_prio, (REC->prev_state & (((" TASK_REPORT " + 1) << 1) - 1)) ? "
	"__print_flags(REC->prev_state & (((" TASK_REPORT " + 1) << 1) - 1), \"|\", "
	"{ 0x0001, \"S\" }, { 0x0002, \"D\" }, { 0x0004, \"T\" }, "
	"{ 0x0008, \"t\" }, { 0x0010, \"X\" }, { 0x0020, \"Z\" }, "
	"{ 0x0040, \"P\" }, { 0x0080, \"I\" }) : \"R\", "
	"REC->prev_state & ((" TASK_REPORT " + 1) << 1) ? \"+\" : \"\", "
	"REC->next_comm, REC->next_pid, REC->next_prio\n";

/* The texts above hard-code these offsets; keep the structs honest. */
_Static_assert(sizeof(struct synth_common) == 8, "common fields");
_Static_assert(offsetof(struct synth_seq, seq) == 8, "seq.seq");
_Static_assert(offsetof(struct synth_seq, cpu) == 16, "seq.cpu");
_Static_assert(offsetof(struct synth_seq, origin) == 20, "seq.origin");
_Static_assert(sizeof(struct synth_seq) == 24, "seq size");
_Static_assert(offsetof(struct synth_blob, len) == 16, "blob.len");
_Static_assert(offsetof(struct synth_blob, data_loc) == 20, "blob.data_loc");
_Static_assert(offsetof(struct synth_blob, data) == 24, "blob.data");
_Static_assert(offsetof(struct synth_switch, prev_pid) == 24, "prev_pid");
_Static_assert(offsetof(struct synth_switch, prev_state) == 32, "prev_state");
_Static_assert(offsetof(struct synth_switch, next_comm) == 40, "next_comm");
_Static_assert(offsetof(struct synth_switch, next_pid) == 56, "next_pid");
_Static_assert(offsetof(struct synth_switch, next_prio) == 60, "next_prio");
_Static_assert(sizeof(struct synth_switch) == 64, "switch size");

const struct synth_event_desc synth_events[SYNTH_NR_EVENTS] = {
	{ SYNTH_ID_SEQ, "seq", seq_format, sizeof(struct synth_seq) },
	{ SYNTH_ID_BLOB, "blob", blob_format, sizeof(struct synth_blob) },
	{ SYNTH_ID_SWITCH, "switch", switch_format, sizeof(struct synth_switch) },
};

const struct synth_event_desc *synth_event(uint16_t id)
{
	if (id < 1 || id > SYNTH_NR_EVENTS)
		return NULL;
	return &synth_events[id - 1];
}

int synth_add_formats(struct ivw_writer *w)
{
	int i, ret;

	for (i = 0; i < SYNTH_NR_EVENTS; i++) {
		const struct synth_event_desc *d = &synth_events[i];

		ret = ivw_add_format(w, d->id, SYNTH_SYSTEM, d->format,
				     strlen(d->format));
		if (ret)
			return ret;
	}
	return 0;
}

static void fill_common(struct synth_common *c, uint16_t type, int32_t pid)
{
	c->common_type = type;
	c->common_flags = 0;
	c->common_preempt_count = 0;
	c->common_pid = pid;
}

/*
 * Payloads in a ring are only 4-byte aligned (a 4-byte record header, then
 * the payload, as in ftrace), so every payload access below goes through
 * memcpy, never through a struct pointer into the ring.
 */
void synth_fill_seq(void *buf, int32_t pid, uint64_t seq, uint32_t cpu,
		    uint32_t origin)
{
	struct synth_seq e;

	fill_common(&e.c, SYNTH_ID_SEQ, pid);
	e.seq = seq;
	e.cpu = cpu;
	e.origin = origin;
	memcpy(buf, &e, sizeof(e));
}

int synth_check_seq(const void *buf, uint32_t size, uint64_t *seq,
		    uint32_t *cpu, uint32_t *origin)
{
	struct synth_seq e;

	if (!synth_size_ok(size, sizeof(e)))
		return -1;
	memcpy(&e, buf, sizeof(e));
	if (e.c.common_type != SYNTH_ID_SEQ)
		return -1;
	*seq = e.seq;
	*cpu = e.cpu;
	*origin = e.origin;
	return 0;
}

/* splitmix64's finaliser: every seq gets a distinct-looking pattern. */
static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static inline uint8_t pattern_byte(uint64_t m, uint32_t i)
{
	return (uint8_t)((m >> ((i & 7) * 8)) + (i >> 3));
}

void synth_fill_blob(void *buf, int32_t pid, uint64_t seq, uint32_t len)
{
	uint8_t *data = (uint8_t *)buf + offsetof(struct synth_blob, data);
	struct synth_blob h;
	uint64_t m = mix(seq);
	uint32_t i;

	fill_common(&h.c, SYNTH_ID_BLOB, pid);
	h.seq = seq;
	h.len = len;
	h.data_loc = len << 16 | (uint32_t)offsetof(struct synth_blob, data);
	memcpy(buf, &h, sizeof(h));
	for (i = 0; i < len; i++)
		data[i] = pattern_byte(m, i);
}

int synth_check_blob(const void *buf, uint32_t size, uint64_t *seq)
{
	const uint8_t *data = (const uint8_t *)buf +
			      offsetof(struct synth_blob, data);
	struct synth_blob h;
	uint32_t i;
	uint64_t m;

	if (size < sizeof(h))
		return -1;
	memcpy(&h, buf, sizeof(h));
	if (h.c.common_type != SYNTH_ID_BLOB ||
	    !synth_size_ok(size, synth_blob_size(h.len)) ||
	    h.len > 0xffff ||
	    h.data_loc != (h.len << 16 | (uint32_t)offsetof(struct synth_blob, data)))
		return -1;
	m = mix(h.seq);
	for (i = 0; i < h.len; i++)
		if (data[i] != pattern_byte(m, i))
			return -1;
	*seq = h.seq;
	return 0;
}

void synth_fill_switch(void *buf, int32_t pid, const char *prev_comm,
		       int32_t prev_pid, int32_t prev_prio, int64_t prev_state,
		       const char *next_comm, int32_t next_pid,
		       int32_t next_prio)
{
	struct synth_switch e;

	memset(&e, 0, sizeof(e));
	fill_common(&e.c, SYNTH_ID_SWITCH, pid);
	/* Like the kernel's memcpy of TASK_COMM_LEN: NUL-padded, truncated. */
	strncpy(e.prev_comm, prev_comm, sizeof(e.prev_comm) - 1);
	e.prev_pid = prev_pid;
	e.prev_prio = prev_prio;
	e.prev_state = prev_state;
	strncpy(e.next_comm, next_comm, sizeof(e.next_comm) - 1);
	e.next_pid = next_pid;
	e.next_prio = next_prio;
	memcpy(buf, &e, sizeof(e));
}
