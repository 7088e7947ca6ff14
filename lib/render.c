// SPDX-License-Identifier: LGPL-2.1 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * Decoding events through libtraceevent, and rendering them as
 * trace-cmd report prints them.  The payload is copied into r->scratch,
 * followed by zeros, before libtraceevent sees it: format_grammar.c and
 * formats.c bound every field to 64 KiB, so whatever a hostile record says,
 * each read stays in that copy.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#include "internal.h"

/* Payload bytes that any field can reach; see formats.c. */
#define IVR_PAYLOAD_MAX		65536
/* Distinct pids whose comm we learn; a hostile guest could invent millions. */
#define IVR_COMMS_MAX		32768
#define IVR_COMM_LEN		16	/* the kernel's TASK_COMM_LEN */

struct tep_handle *ivring__tep(struct ivring *r)
{
	return r && !ivr_formats_parse(r) ? r->tep : NULL;
}

/* An event that r->tep holds but that failed its checks (formats.c). */
static bool hidden(const struct ivring *r, int id)
{
	return id < 0 || id > 0xffff ||
	       (r->fmts.hidden[id / 8] & (1U << (id % 8)));
}

/*
 * A type with no format may be one whose format the guest appended after
 * we framed the area: look, then.  Only on a miss, and the look costs a
 * load unless the area grew (format_area.c bounds what growth costs).
 */
struct tep_event *ivring__event(struct ivring *r, uint16_t type)
{
	struct tep_event *ev;

	if (!ivring__tep(r))
		return NULL;
	ev = tep_find_event(r->tep, type);
	if (!ev && ivr_formats_refresh(r) > 0 && !ivr_formats_parse(r))
		ev = tep_find_event(r->tep, type);
	return ev && !hidden(r, type) ? ev : NULL;
}

static bool name_match(const char *pat, size_t len, const char *name)
{
	return (len == 1 && pat[0] == '*') ||
	       (strlen(name) == len && !strncmp(pat, name, len));
}

/*
 * "sys:name", "sys:*", "name" and "*", as trace-cmd's -e takes them (a
 * bare name matches a system of that name too, as "sched" does there).
 */
int ivring__match_events(struct ivring *r, const char *pattern, uint16_t *ids,
			 size_t max)
{
	const char *colon;
	int i, n, found = 0;

	if (!r || !pattern || (!ids && max))
		return -EINVAL;
	/*
	 * Names, not types: a format appended since may have the one asked
	 * for.  If the look fails, what was listed before is matched.
	 */
	ivr_formats_refresh(r);
	if (!ivring__tep(r))
		return -ENOMEM;
	colon = strchr(pattern, ':');
	n = tep_get_events_count(r->tep);
	for (i = 0; i < n; i++) {
		struct tep_event *ev = tep_get_event(r->tep, i);
		bool hit;

		if (!ev || hidden(r, ev->id))
			continue;
		if (colon)
			hit = name_match(pattern, colon - pattern, ev->system) &&
			      name_match(colon + 1, strlen(colon + 1), ev->name);
		else
			hit = name_match(pattern, strlen(pattern), ev->name) ||
			      name_match(pattern, strlen(pattern), ev->system);
		if (!hit)
			continue;
		if ((size_t)found < max)
			ids[found] = ev->id;
		found++;
	}
	return found;
}

static int scratch_get(struct ivring *r)
{
	size_t need = IVR_PAYLOAD_MAX + IVR_PAGE_SLACK;

	if (r->scratch && r->scratch_len >= need)
		return 0;
	free(r->scratch);
	r->scratch = calloc(1, need);
	r->scratch_len = r->scratch ? need : 0;
	return r->scratch ? 0 : -ENOMEM;
}

/* Bytes the event's fields span: libtraceevent assumes a record has them. */
static int event_span(struct tep_event *ev)
{
	struct tep_format_field *f;
	int end = 0;

	for (f = ev->format.common_fields; f; f = f->next)
		if (f->offset + f->size > end)
			end = f->offset + f->size;
	for (f = ev->format.fields; f; f = f->next)
		if (f->offset + f->size > end)
			end = f->offset + f->size;
	return end;
}

static int field_int(struct tep_event *ev, const char *name, const u8 *data,
		     int *val)
{
	struct tep_format_field *f = tep_find_field(ev, name);
	int32_t v;

	if (!f || f->size != 4 || (f->flags & TEP_FIELD_IS_ARRAY))
		return -1;
	memcpy(&v, data + f->offset, sizeof(v));
	*val = v;
	return 0;
}

static int field_comm(struct tep_event *ev, const char *name, const u8 *data,
		      char *comm)
{
	struct tep_format_field *f = tep_find_field(ev, name);
	int i, n;

	if (!f || !(f->flags & TEP_FIELD_IS_ARRAY) ||
	    (f->flags & TEP_FIELD_IS_DYNAMIC))
		return -1;
	n = f->size < IVR_COMM_LEN ? f->size : IVR_COMM_LEN;
	for (i = 0; i < n && data[f->offset + i]; i++)
		comm[i] = data[f->offset + i];
	comm[i] = '\0';
	return i ? 0 : -1;
}

/*
 * Learn a pid's comm from an event that names it, as trace-cmd learns them
 * from saved_cmdlines: sched_switch's prev and next, sched_wakeup's comm.
 */
static void learn_one(struct ivring *r, struct tep_event *ev, const u8 *data,
		      const char *comm_field, const char *pid_field)
{
	char comm[IVR_COMM_LEN + 1];
	const char *old;
	int pid;

	if (field_int(ev, pid_field, data, &pid) || pid <= 0 ||
	    field_comm(ev, comm_field, data, comm))
		return;
	if (tep_is_pid_registered(r->tep, pid)) {
		old = tep_data_comm_from_pid(r->tep, pid);
		if (old && !strcmp(old, comm))
			return;
	} else if (r->nr_comms >= IVR_COMMS_MAX) {
		return;
	} else {
		r->nr_comms++;
	}
	tep_override_comm(r->tep, comm, pid);
}

static void learn_comms(struct ivring *r, struct tep_event *ev, const u8 *data)
{
	learn_one(r, ev, data, "prev_comm", "prev_pid");
	learn_one(r, ev, data, "next_comm", "next_pid");
	learn_one(r, ev, data, "comm", "pid");
}

/*
 * Copy @src to @buf as snprintf would, replacing control bytes: the text
 * comes from the guest, and an escape sequence must not reach a terminal.
 */
static int emit(const char *src, size_t n, char *buf, size_t len)
{
	size_t i;

	if (len) {
		size_t m = n < len - 1 ? n : len - 1;

		for (i = 0; i < m; i++) {
			unsigned char ch = src[i];

			buf[i] = (ch < ' ' && ch != '\t') || ch == 0x7f ? '?' : ch;
		}
		buf[m] = '\0';
	}
	return n > INT32_MAX ? INT32_MAX : (int)n;
}

static void render_unknown(struct ivring *r, const struct ivring_event *ev,
			   const u8 *data, struct trace_seq *s)
{
	u64 us = (ev->ts + 500) / 1000;
	const char *comm;
	int32_t pid = 0;

	if (ev->size >= 8)
		memcpy(&pid, data + 4, sizeof(pid));
	if (r->tep)
		comm = tep_data_comm_from_pid(r->tep, pid);
	else
		comm = pid ? "<...>" : "<idle>";
	trace_seq_printf(s, "%16s-%-5d [%03u] %5llu.%06llu: [UNKNOWN TYPE %u] size=%u",
			 comm, pid, ev->cpu, (unsigned long long)(us / 1000000),
			 (unsigned long long)(us % 1000000), ev->type, ev->size);
}

void ivr_render_free(struct ivring *r)
{
	if (r->line) {
		trace_seq_destroy(r->line);
		free(r->line);
		r->line = NULL;
	}
}

/*
 * A line's buffer, kept from one line to the next: trace_seq_init()
 * allocates a page and trace_seq_destroy() frees it, at every line.
 */
static struct trace_seq *line_get(struct ivring *r)
{
	if (r->line) {
		trace_seq_reset(r->line);
		return r->line;
	}
	r->line = malloc(sizeof(*r->line));
	if (r->line)
		trace_seq_init(r->line);
	return r->line;
}

/*
 * The columns before the info in one trace_seq_printf(), the same text
 * as tep_print_event()'s "%16s-%-5d [%03d]" and " %6.1000d:", then the
 * name padded to 20 characters, as trace-cmd prints it:
 * tep_print_event() parses its format string at every call, and three
 * calls of it cost more than the info itself.  The time is rounded to
 * microseconds, as render_unknown() and trace-cmd do for ns clocks.
 */
static void put_prefix(struct ivring *r, struct trace_seq *s,
		       struct tep_record *rec, struct tep_event *tev)
{
	int pid = tep_data_pid(r->tep, rec);
	u64 us = (rec->ts + 500) / 1000;
	int pad = 20 - (int)strlen(tev->name);

	trace_seq_printf(s, "%16s-%-5d [%03d] %5llu.%06llu: %s: %*s",
			 tep_data_comm_from_pid(r->tep, pid), pid, rec->cpu,
			 (unsigned long long)(us / 1000000),
			 (unsigned long long)(us % 1000000), tev->name,
			 pad > 0 ? pad : 0, "");
}

/*
 * One line, in the columns of trace-cmd report (3.1, default options):
 *   "%16s-%-5d [%03d] %5llu.%06llu: %s: <padded to 20> <info>"
 * The time is rounded to microseconds as trace-cmd does for ns clocks.
 */
int ivring__snprint(struct ivring *r, const struct ivring_event *ev,
		    char *buf, size_t len)
{
	struct tep_record rec = { 0 };
	struct tep_event *tev;
	struct trace_seq *s;
	u32 n;
	int span;

	if (!r || !ev || (!buf && len))
		return -EINVAL;
	if (scratch_get(r))
		return ivr_err(r, -ENOMEM, "no memory to render an event");
	if (ivr_formats_parse(r))
		return -ENOMEM;
	s = line_get(r);
	if (!s)
		return ivr_err(r, -ENOMEM, "no memory to render an event");

	n = ev->size < IVR_PAYLOAD_MAX ? ev->size : IVR_PAYLOAD_MAX;
	if (n && ev->data)
		memcpy(r->scratch, ev->data, n);
	else
		n = 0;

	tev = ivring__event(r, ev->type);
	if (!tev) {
		render_unknown(r, ev, r->scratch, s);
	} else {
		/*
		 * A short record is read as if zero-filled up to its fields'
		 * end, as the zeros are really there; libtraceevent would
		 * otherwise compute negative lengths for it.
		 */
		span = event_span(tev);
		rec.ts = ev->ts;
		rec.cpu = ev->cpu;
		rec.size = (int)n > span ? (int)n : span;
		rec.data = r->scratch;
		learn_comms(r, tev, r->scratch);
		put_prefix(r, s, &rec, tev);
		tep_print_event(r->tep, s, &rec, "%s", TEP_PRINT_INFO);
	}
	/* Leave the slack all zeros for the next record. */
	memset(r->scratch, 0, n);

	if (s->state != TRACE_SEQ__GOOD) {
		/* A failed buffer stays failed: start the next line afresh. */
		ivr_render_free(r);
		return ivr_err(r, -ENOMEM, "no memory to render an event");
	}
	/* trace-cmd drops one trailing newline of a print format. */
	if (s->len && s->buffer[s->len - 1] == '\n')
		s->len--;
	return emit(s->buffer, s->len, buf, len);
}
