// SPDX-License-Identifier: LGPL-2.1 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * Rendering events as trace-cmd report prints them.  The payload is copied
 * into the handle's scratch, followed by zeros, before libtraceevent sees
 * it: format/grammar.c and format/parse.c bound every field to 64 KiB, so
 * whatever a hostile record says, each read stays in that copy.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#include "base/out_bound.h"
#include "decode/decode.h"

/*
 * Payload bytes that any field can reach (see format/parse.c), less one:
 * a __data_loc offset is 16 bits, and cap_dynamic() needs one that names
 * a zero byte past the copy.  Fields end by 64 KiB, so only the last byte
 * of a record of 64 KiB can read as zero.
 */
#define IVR_PAYLOAD_MAX		(IVR_FIELD_END_MAX - 1)

#define IVR_LINE_CUT		" [line cut]"

/* The handle's decoding state, with its scratch copy. */
static struct ivr_decode *decode_get(struct ivring *r)
{
	size_t need = IVR_PAYLOAD_MAX + IVR_PAGE_SLACK;
	struct ivr_decode *d = r->dec;

	if (!d) {
		d = calloc(1, sizeof(*d));
		if (!d)
			return NULL;
		r->dec = d;
	}
	if (!d->scratch || d->scratch_len < need) {
		free(d->scratch);
		d->scratch = calloc(1, need);
		d->scratch_len = d->scratch ? need : 0;
	}
	return d->scratch ? d : NULL;
}

/*
 * Learn the comms that @ev names in @data, as trace-cmd learns them from
 * saved_cmdlines (decode/comms.c has the rules), into @tep.
 */
static void learn_comms(struct ivr_decode *d, const struct ivr_formats *fs,
			struct tep_event *ev, const u8 *data, u32 size)
{
	struct ivr_comm_src src[IVR_COMM_SRCS_PER_EVENT];
	char comm[IVR_COMM_LEN + 1];
	u32 i, n = ivr_comm_srcs(ev, src);
	const char *old;
	int32_t pid;

	/* A new handle knows none of the comms that the last one did. */
	if (d->comms_teps != fs->teps) {
		d->nr_comms = 0;
		d->comms_teps = fs->teps;
	}
	for (i = 0; i < n; i++) {
		if (!ivr_comm_read(&src[i], data, size, &pid, comm))
			continue;
		if (tep_is_pid_registered(fs->tep, pid)) {
			old = tep_data_comm_from_pid(fs->tep, pid);
			if (old && !strcmp(old, comm))
				continue;
		} else if (d->nr_comms >= IVR_COMMS_MAX) {
			continue;
		} else {
			d->nr_comms++;
		}
		tep_override_comm(fs->tep, comm, pid);
	}
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

/*
 * What libtraceevent 1.7 takes a __data_loc field @f to say, in a record of
 * @size bytes at @data (dynamic_offset_field()): its data's offset, and
 * its length, 0 where it would not lie in the record.  The word is at
 * @f->offset, which is below the copy's length.
 */
static u32 loc_read(const struct tep_format_field *f, const u8 *data,
		    u32 size, u32 *len)
{
	u32 loc, off;

	memcpy(&loc, data + f->offset, 4);
	off = loc & 0xffff;
	*len = loc >> 16;
	if (off > size)
		off = 0;
	if (off + *len > size)
		*len = 0;
	if (f->flags & TEP_FIELD_IS_RELATIVE)
		off += f->offset + f->size;
	return off;
}

/*
 * The __data_loc fields of the record's @n bytes print, in order, while
 * the bytes they name fit the record (base/out_bound.h); the rest are
 * made empty in the copy (@data, zeros after @n), naming no bytes and
 * the zero at @n.  A string costs its bytes up to the NUL that printing
 * stops at, which libtraceevent prints whatever length the word says.
 */
static void cap_dynamic(struct tep_event *tev, u8 *data, u32 n, u32 size,
			size_t data_len)
{
	struct tep_format_field *f;
	u32 budget = n, off, len, cost, loc;

	for (f = tev->format.fields; f; f = f->next) {
		if (!(f->flags & TEP_FIELD_IS_DYNAMIC) ||
		    (u32)f->offset + 4 > n)
			continue;
		off = loc_read(f, data, size, &len);
		cost = len;
		if (f->flags & TEP_FIELD_IS_STRING) {
			u32 text = strnlen((const char *)data + off,
					   data_len - off) + 1;

			cost = text > cost ? text : cost;
		}
		if (ivr_dyn_take(&budget, cost))
			continue;
		loc = n - (f->flags & TEP_FIELD_IS_RELATIVE ?
			   (u32)f->offset + 4 : 0);
		memcpy(data + f->offset, &loc, 4);
	}
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

static void render_unknown(struct tep_handle *tep,
			   const struct ivring_event *ev, const u8 *data,
			   struct trace_seq *s)
{
	u64 us = (ev->ts + 500) / 1000;
	const char *comm;
	int32_t pid = 0;

	if (ev->size >= 8)
		memcpy(&pid, data + 4, sizeof(pid));
	if (tep)
		comm = tep_data_comm_from_pid(tep, pid);
	else
		comm = pid ? "<...>" : "<idle>";
	trace_seq_printf(s, "%16s-%-5d [%03u] %5llu.%06llu: [UNKNOWN TYPE %u] size=%u",
			 comm, pid, ev->cpu, (unsigned long long)(us / 1000000),
			 (unsigned long long)(us % 1000000), ev->type, ev->size);
}

static void line_free(struct ivr_decode *d)
{
	if (d->line) {
		trace_seq_destroy(d->line);
		free(d->line);
		d->line = NULL;
	}
}

void ivr_decode_free(struct ivring *r)
{
	struct ivr_decode *d = r->dec;

	if (!d)
		return;
	line_free(d);
	free(d->scratch);
	free(d);
	r->dec = NULL;
}

/*
 * A line's buffer, kept from one line to the next: trace_seq_init()
 * allocates a page and trace_seq_destroy() frees it, at every line.
 */
static struct trace_seq *line_get(struct ivr_decode *d)
{
	if (d->line) {
		trace_seq_reset(d->line);
		return d->line;
	}
	d->line = malloc(sizeof(*d->line));
	if (d->line)
		trace_seq_init(d->line);
	return d->line;
}

/*
 * The columns before the info in one trace_seq_printf(), the same text
 * as tep_print_event()'s "%16s-%-5d [%03d]" and " %6.1000d:", then the
 * name padded to 20 characters, as trace-cmd prints it:
 * tep_print_event() parses its format string at every call, and three
 * calls of it cost more than the info itself.  The time is rounded to
 * microseconds, as render_unknown() and trace-cmd do for ns clocks.
 */
static void put_prefix(struct tep_handle *tep, struct trace_seq *s,
		       struct tep_record *rec, struct tep_event *tev)
{
	int pid = tep_data_pid(tep, rec);
	u64 us = (rec->ts + 500) / 1000;
	int pad = 20 - (int)strlen(tev->name);

	trace_seq_printf(s, "%16s-%-5d [%03d] %5llu.%06llu: %s: %*s",
			 tep_data_comm_from_pid(tep, pid), pid, rec->cpu,
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
	struct tep_handle *tep;
	struct ivr_decode *d;
	struct tep_event *tev;
	struct trace_seq *s;
	u32 n;
	int span;

	if (!r || !ev || (!buf && len))
		return -EINVAL;
	d = decode_get(r);
	if (!d)
		return ivr_err(r, -ENOMEM, "no memory to render an event");
	tep = ivr_formats_tep(r);
	if (!tep)
		return -ENOMEM;
	s = line_get(d);
	if (!s)
		return ivr_err(r, -ENOMEM, "no memory to render an event");

	n = ev->size < IVR_PAYLOAD_MAX ? ev->size : IVR_PAYLOAD_MAX;
	if (n && ev->data)
		memcpy(d->scratch, ev->data, n);
	else
		n = 0;

	tev = ivring__event(r, ev->type);
	if (!tev) {
		render_unknown(tep, ev, d->scratch, s);
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
		rec.data = d->scratch;
		learn_comms(d, r->fmts, tev, d->scratch, rec.size);
		cap_dynamic(tev, d->scratch, n, rec.size, d->scratch_len);
		put_prefix(tep, s, &rec, tev);
		tep_print_event(tep, s, &rec, "%s", TEP_PRINT_INFO);
	}
	/* Leave the slack all zeros for the next record. */
	memset(d->scratch, 0, n);
	if (s->len > IVR_OUT_MAX(n)) {
		s->len = IVR_OUT_MAX(n) - strlen(IVR_LINE_CUT);
		trace_seq_puts(s, IVR_LINE_CUT);
	}

	if (s->state != TRACE_SEQ__GOOD) {
		/* A failed buffer stays failed: start the next line afresh. */
		line_free(d);
		return ivr_err(r, -ENOMEM, "no memory to render an event");
	}
	/* trace-cmd drops one trailing newline of a print format. */
	if (s->len && s->buffer[s->len - 1] == '\n')
		s->len--;
	return emit(s->buffer, s->len, buf, len);
}
