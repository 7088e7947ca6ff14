// SPDX-License-Identifier: LGPL-2.1 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * A CTF 1.8 trace's metadata, generated from the segment's format texts as
 * libtraceevent parsed them, and the tables ctf.c transcodes records with.
 *
 * The layout, little-endian and byte-aligned throughout, so that a packet
 * is built by appending bytes:
 *
 *   packet header   u32 magic 0xc1fc1fc1, u8 uuid[16], u32 stream_id (0),
 *                   u64 stream_instance_id (the CPU)
 *   packet context  u64 timestamp_begin, u64 timestamp_end,
 *                   u64 content_size, u64 packet_size (bits),
 *                   u64 packet_seq_num, u64 events_discarded, u32 cpu_id
 *   event header    u32 id (the ftrace common_type; CTF_ID_UNKNOWN for a
 *                   type without a parsed format), u64 timestamp
 *   event payload   every field of the format, common_ ones included
 *
 * These are the packet header and context fields of lttng-modules' kernel
 * streams, so that the packets can later go to lttng-relayd as they are;
 * its compact/extended event header is left for a plain one, which costs
 * a few bytes per event and no variant.
 *
 * Names follow ftrace, not LTTng: events are "system:event" and fields
 * keep the kernel's names (prev_pid, next_comm, ...), under the
 * environment tracer_name = "perf".  Trace Compass picks its kernel
 * analysis' event layout from that name (LttngKernelTrace.java,
 * getTracerFromEnv(): "perf" -> PerfEventLayout, "lttng-modules" -> the
 * LTTng layouts), and PerfEventLayout.java expects exactly ftrace's names:
 * sched:sched_switch with prev_pid/next_pid/next_comm/prev_state,
 * sched:sched_wakeup{,_new}, sched:sched_process_fork with
 * parent_pid/child_pid, irq:irq_handler_entry, irq:softirq_entry with vec,
 * raw_syscalls:sys_enter/sys_exit.  Renaming to LTTng's names instead
 * would change what ivring-read and trace-cmd show for the same event.
 * perf's own CTF converter keeps the common_ fields too, so they stay.
 *
 * Every field name is written with a leading underscore, as lttng-modules
 * does: CTF readers strip one, and it keeps a field called "event" or
 * "align" from reading as a TSDL keyword.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>
#include <unistd.h>

#include "record/ctf.h"

#define FIELDS_MAX	256	/* per event: more is no kernel format */

static u64 splitmix64(u64 *x)
{
	u64 z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/*
 * A version-4-shaped UUID that is a function of the trace id and @salt: the
 * same recording options give the same UUIDs, and two guests (two trace
 * ids) never share one, which babeltrace2 (it merges traces of one UUID)
 * and Trace Compass (it tells machines apart by the clock's) both need.
 */
static void make_uuid(u8 uuid[16], u64 trace_id, u64 salt)
{
	u64 x = trace_id ^ salt, a = splitmix64(&x), b = splitmix64(&x);

	memcpy(uuid, &a, 8);
	memcpy(uuid + 8, &b, 8);
	uuid[6] = (uuid[6] & 0x0f) | 0x40;
	uuid[8] = (uuid[8] & 0x3f) | 0x80;
}

static void put_uuid(FILE *f, const u8 u[16])
{
	int i;

	for (i = 0; i < 16; i++)
		fprintf(f, "%s%02x", i == 4 || i == 6 || i == 8 || i == 10 ?
			"-" : "", u[i]);
}

/* A TSDL string literal of text that a guest or a file name chose. */
static void put_quoted(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char ch = *s;

		if (ch == '"' || ch == '\\')
			fprintf(f, "\\%c", ch);
		else if (ch < 0x20 || ch >= 0x7f)
			fputc('?', f);
		else
			fputc(ch, f);
	}
	fputc('"', f);
}

static bool is_ident(const char *s)
{
	if (!s || !(*s == '_' || (*s >= 'a' && *s <= 'z') ||
		    (*s >= 'A' && *s <= 'Z')))
		return false;
	for (s++; *s; s++)
		if (!(*s == '_' || (*s >= 'a' && *s <= 'z') ||
		      (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9')))
			return false;
	return strlen(s) < 200;
}

/*
 * Text, as opposed to bytes: plain char only.  libtraceevent flags u8[],
 * s8[] and unsigned char[] as strings too, but the kernel keeps bytes in
 * those (addresses, hashes, synth:blob's data), whose values are numbers.
 */
static bool is_char_type(const char *type)
{
	static const char *const skip[] = { "__data_loc ", "__rel_loc ",
					    "const " };
	size_t i;

	for (i = 0; i < sizeof(skip) / sizeof(skip[0]); i++)
		if (!strncmp(type, skip[i], strlen(skip[i])))
			type += strlen(skip[i]);
	return !strncmp(type, "char", 4) &&
	       (type[4] == '[' || type[4] == ' ' || !type[4]);
}

static bool int_size(unsigned int n)
{
	return n == 1 || n == 2 || n == 4 || n == 8;
}

/* @tf as a CTF field; false for one that carries nothing. */
static bool classify(const struct tep_format_field *tf, struct ctf_field *cf)
{
	unsigned int elem;

	if (tf->offset < 0 || tf->size <= 0)
		return false;
	memset(cf, 0, sizeof(*cf));
	cf->offset = tf->offset;
	cf->size = tf->size;
	if (tf->flags & TEP_FIELD_IS_DYNAMIC) {
		if (tf->size != 4)
			return false;
		cf->rel = tf->flags & TEP_FIELD_IS_RELATIVE;
		if (is_char_type(tf->type)) {
			cf->kind = CTF_STRING;
			cf->elem = 1;
			return true;
		}
		cf->kind = CTF_SEQ;
		cf->elem = int_size(tf->elementsize) ? tf->elementsize : 1;
		return true;
	}
	if (tf->flags & TEP_FIELD_IS_ARRAY) {
		elem = tf->arraylen ? tf->size / tf->arraylen : 1;
		if (is_char_type(tf->type) && elem == 1) {
			cf->kind = CTF_CHARS;
			cf->elem = 1;
			return true;
		}
		cf->kind = CTF_ARRAY;
		cf->elem = int_size(elem) && elem * tf->arraylen == (u32)tf->size ?
			   elem : 1;
		return true;
	}
	if (int_size(tf->size)) {
		cf->kind = CTF_INT;
		cf->elem = tf->size;
		return true;
	}
	/* An integer CTF has no size for, such as a 16-byte one: its bytes. */
	cf->kind = CTF_ARRAY;
	cf->elem = 1;
	return true;
}

static void put_int(FILE *f, unsigned int bytes, bool sign, bool hex)
{
	fprintf(f, "integer { size = %u; align = 8; signed = %d;%s }",
		bytes * 8, sign, hex ? " base = 16;" : "");
}

static void put_field(FILE *f, const struct tep_format_field *tf,
		      const struct ctf_field *cf)
{
	bool sign = tf->flags & TEP_FIELD_IS_SIGNED;

	fputs("\t\t", f);
	switch (cf->kind) {
	case CTF_INT:
		put_int(f, cf->elem, sign, tf->flags & TEP_FIELD_IS_POINTER);
		fprintf(f, " _%s;\n", tf->name);
		break;
	case CTF_CHARS:
	case CTF_STRING:
		fprintf(f, "string _%s;\n", tf->name);
		break;
	case CTF_ARRAY:
		put_int(f, cf->elem, sign, false);
		fprintf(f, " _%s[%u];\n", tf->name, cf->size / cf->elem);
		break;
	case CTF_SEQ:
		put_int(f, 4, false, false);
		fprintf(f, " _%s_length;\n\t\t", tf->name);
		put_int(f, cf->elem, sign, false);
		fprintf(f, " _%s[_%s_length];\n", tf->name, tf->name);
		break;
	}
}

/*
 * The names a field takes in the CTF struct: a format that repeats one, or
 * whose sequence's length name is another field's, would make the whole
 * metadata unreadable, so the later field is left out.
 */
static bool name_taken(const char **names, unsigned int n, const char *name,
		       bool seq)
{
	size_t len = strlen(name);
	unsigned int i;

	for (i = 0; i < n; i++) {
		size_t l = strlen(names[i]);

		if (!strcmp(names[i], name))
			return true;
		if (seq && l == len + 7 && !strncmp(names[i], name, len) &&
		    !strcmp(names[i] + len, "_length"))
			return true;
		if (l + 7 == len && !strncmp(name, names[i], l) &&
		    !strcmp(name + l, "_length"))
			return true;	/* conservative: names[i] may be a seq */
	}
	return false;
}

static bool copied_as_is(const struct ctf_field *f)
{
	return f->kind == CTF_INT || f->kind == CTF_ARRAY;
}

/*
 * Integers that follow each other in the record follow each other in the
 * CTF event too, so a run of them is one copy: most events are one run
 * after another, which halves the cost of transcoding them.  The
 * metadata is written before, from each field on its own.
 */
static bool merge(struct ctf *c, const struct ctf_class *cl,
		  const struct ctf_field *cf)
{
	struct ctf_field *prev = &c->fields[c->nr_fields - 1];

	if (c->nr_fields == cl->first || !copied_as_is(prev) ||
	    !copied_as_is(cf) || cf->offset != prev->offset + prev->size)
		return false;
	prev->kind = CTF_ARRAY;
	prev->elem = 1;
	prev->size += cf->size;
	return true;
}

static int add_class(struct ivring_rec *w, struct ctf *c, FILE *f,
		     const struct ivr_rec_fmt *fmt, struct tep_event *ev)
{
	struct tep_format_field *lists[2] = { ev->format.common_fields,
					      ev->format.fields };
	const char *names[FIELDS_MAX];
	struct ctf_class *cl = &c->classes[c->nr_classes];
	unsigned int n = 0, i;
	char full[512];

	snprintf(full, sizeof(full), "%s:%s", fmt->system, ev->name);
	cl->first = c->nr_fields;
	cl->span = 0;
	fprintf(f, "event {\n\tname = ");
	put_quoted(f, full);
	fprintf(f, ";\n\tid = %u;\n\tstream_id = 0;\n\tfields := struct {\n",
		fmt->id);
	for (i = 0; i < 2; i++) {
		struct tep_format_field *tf;

		for (tf = lists[i]; tf && n < FIELDS_MAX; tf = tf->next) {
			struct ctf_field cf;
			struct ctf_field *p;

			if (!is_ident(tf->name) || !classify(tf, &cf) ||
			    name_taken(names, n, tf->name, cf.kind == CTF_SEQ))
				continue;
			names[n++] = tf->name;
			if (cf.offset + cf.size > cl->span)
				cl->span = cf.offset + cf.size;
			put_field(f, tf, &cf);
			if (merge(c, cl, &cf))
				continue;
			p = realloc(c->fields, (c->nr_fields + 1) * sizeof(*p));
			if (!p)
				return ivr_err(w, -ENOMEM,
					       "out of memory for CTF metadata");
			c->fields = p;
			c->fields[c->nr_fields++] = cf;
		}
	}
	fprintf(f, "\t};\n};\n\n");
	cl->nr = c->nr_fields - cl->first;
	c->class_of[fmt->id] = ++c->nr_classes;
	return 0;
}

/* Ids are unique in the list; a format libtraceevent refused stays unknown. */
static int add_format(struct ivring_rec *w, struct ivring *r, struct ctf *c,
		      FILE *f, const struct ivr_rec_fmt *fmt)
{
	/* A segment's formats as its reader parsed them, or a source's. */
	struct tep_event *ev = r ? ivring__event(r, fmt->id) :
			       tep_find_event(w->tep, fmt->id);

	if (!ev || c->class_of[fmt->id] || !is_ident(ev->name))
		return 0;
	return add_class(w, c, f, fmt, ev);
}

/*
 * The clock: the guest's, counted from its boot, until a mapping onto the
 * host's CLOCK_REALTIME is known (ctf_meta_clock()); then absolute, with
 * the offset that makes the guest's time the host's, so that babeltrace2
 * and Trace Compass merge the trace with other guests' and with the host's
 * own on one timeline.  The host's own trace (a source's, w->from_source)
 * is in its CLOCK_MONOTONIC, with CLOCK_REALTIME's offset from the start.
 */
static void put_clock(FILE *f, struct ivring_rec *w, const u8 *clock_uuid,
		      const char *clock, bool host, s64 offset_ns)
{
	char desc[PATH_MAX + 96];
	s64 sec = offset_ns / 1000000000LL, ns = offset_ns % 1000000000LL;

	if (ns < 0) {
		sec--;
		ns += 1000000000LL;
	}
	fprintf(f, "clock {\n\tname = \"%s\";\n\tuuid = \"", clock);
	put_uuid(f, clock_uuid);
	if (w->from_source)
		snprintf(desc, sizeof(desc),
			 "CLOCK_MONOTONIC of %s, offset to its CLOCK_REALTIME",
			 w->name);
	else
		snprintf(desc, sizeof(desc), "the guest clock %s of %s%s",
			 w->info.clock_name, w->name,
			 host ? ", offset to the host's CLOCK_REALTIME" : "");
	fprintf(f, "\";\n\tdescription = ");
	put_quoted(f, desc);
	fprintf(f, ";\n\tfreq = 1000000000;\n\tprecision = 1;\n"
		"\toffset_s = %" PRId64 ";\n\toffset = %" PRId64 ";\n"
		"\tabsolute = %s;\n};\n\n", (int64_t)sec, (int64_t)ns,
		host ? "TRUE" : "FALSE");
}

static void put_trace(FILE *f, struct ivring_rec *w, const u8 *uuid)
{
	fprintf(f, "/* CTF 1.8 */\n\n/* ivring %s: %s */\n\n"
		"trace {\n\tmajor = 1;\n\tminor = 8;\n\tuuid = \"",
		IVRING_VERSION, w->from_source ?
		"the host's ftrace events, recorded beside its guests'" :
		"a guest's ftrace events, from an ivring segment");
	put_uuid(f, uuid);
	fprintf(f, "\";\n\tbyte_order = le;\n"
		"\tpacket.header := struct {\n"
		"\t\tinteger { size = 32; align = 8; signed = 0; base = 16; } magic;\n"
		"\t\tinteger { size = 8; align = 8; signed = 0; } uuid[16];\n"
		"\t\tinteger { size = 32; align = 8; signed = 0; } stream_id;\n"
		"\t\tinteger { size = 64; align = 8; signed = 0; } stream_instance_id;\n"
		"\t};\n};\n\n");

	fprintf(f, "env {\n\thostname = ");
	put_quoted(f, w->name);
	fprintf(f, ";\n\tdomain = \"kernel\";\n\tsysname = \"Linux\";\n"
		"\ttracer_name = \"perf\";\n"
		"\ttrace_name = ");
	put_quoted(f, w->name);
	fprintf(f, ";\n\tivring_version = \"%s\";\n"
		"\tivring_generation = \"0x%016" PRIx64 "\";\n"
		"\tivring_clock = ", IVRING_VERSION, (uint64_t)w->info.generation);
	put_quoted(f, w->info.clock_name);
	fprintf(f, ";\n};\n\n");
}

static void put_streams(FILE *f, const char *clock)
{
	fprintf(f, "typealias integer { size = 64; align = 8; signed = 0; map = clock.%s.value; } := ivring_clock_t;\n\n",
		clock);
	fprintf(f, "stream {\n\tid = 0;\n"
		"\tpacket.context := struct {\n"
		"\t\tivring_clock_t timestamp_begin;\n"
		"\t\tivring_clock_t timestamp_end;\n"
		"\t\tinteger { size = 64; align = 8; signed = 0; } content_size;\n"
		"\t\tinteger { size = 64; align = 8; signed = 0; } packet_size;\n"
		"\t\tinteger { size = 64; align = 8; signed = 0; } packet_seq_num;\n"
		"\t\tinteger { size = 64; align = 8; signed = 0; } events_discarded;\n"
		"\t\tinteger { size = 32; align = 8; signed = 0; } cpu_id;\n"
		"\t};\n"
		"\tevent.header := struct {\n"
		"\t\tinteger { size = 32; align = 8; signed = 0; } id;\n"
		"\t\tivring_clock_t timestamp;\n"
		"\t};\n};\n\n");
	fprintf(f, "event {\n\tname = \"ivring:unknown\";\n\tid = %u;\n"
		"\tstream_id = 0;\n\tfields := struct {\n"
		"\t\tinteger { size = 16; align = 8; signed = 0; } _common_type;\n"
		"\t\tinteger { size = 32; align = 8; signed = 0; } _data_length;\n"
		"\t\tinteger { size = 8; align = 8; signed = 0; } _data[_data_length];\n"
		"\t};\n};\n\n", CTF_ID_UNKNOWN);
}

/* The clock's TSDL name: the guest's clock name if it is one, else "guest". */
static const char *clock_ident(struct ivring_rec *w)
{
	static const char *const known[] = { "mono", "monotonic", "boot",
					      "local", "global", "raw",
					      "mono_raw" };
	size_t i;

	for (i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (!strcmp(w->info.clock_name, known[i]))
			return !strcmp(known[i], "mono") ? "monotonic" :
			       !strcmp(known[i], "mono_raw") ? "monotonic_raw" :
			       known[i];
	return "guest";
}

/* The metadata, whole, to where the trace goes (@replace: again). */
static int write_meta(struct ivring_rec *w, const char *text, size_t len,
		      bool replace)
{
	struct ctf *c = w->priv;
	int ret = c->sink->meta(w, c, text, len, replace);

	if (!ret)
		w->meta_bytes += len;
	return ret;
}

/*
 * The metadata file again, whole, from c->meta: with the host's clock once
 * it is known, and with every event class so far.
 */
static int rewrite(struct ivring_rec *w, struct ctf *c)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f;
	int ret;

	f = open_memstream(&text, &len);
	if (!f)
		return ivr_err(w, -ENOMEM, "out of memory for CTF metadata");
	fwrite(c->meta, 1, c->clock_at, f);
	put_clock(f, w, c->clock_uuid, clock_ident(w), c->host_time,
		  c->host_offset);
	fwrite(c->meta + c->clock_end, 1, c->meta_len - c->clock_end, f);
	if (fclose(f)) {
		free(text);
		return ivr_err(w, -ENOMEM, "out of memory for CTF metadata");
	}
	ret = write_meta(w, text, len, true);
	free(text);
	return ret;
}

int ctf_meta_clock(struct ivring_rec *w, struct ctf *c, s64 offset_ns)
{
	int ret;

	c->host_time = true;
	c->host_offset = offset_ns;
	ret = rewrite(w, c);
	if (ret)
		c->host_time = false;
	return ret;
}

/*
 * Classes for the formats the guest appended, w->fmts[@from ..], at the
 * end of the metadata, which is replaced at once: the packets that carry
 * their events are written later, so a reader of the live trace never
 * meets an id that its metadata lacks.  Events transcoded before stay
 * ivring:unknown (ctf.c).
 */
int ctf_meta_formats(struct ivring_rec *w, struct ivring *r, struct ctf *c,
		     u32 from)
{
	struct ctf_class *cl;
	char *text = NULL, *meta;
	size_t len = 0;
	u32 i, had = c->nr_classes;
	FILE *f;
	int ret = 0;

	cl = realloc(c->classes, w->nr_fmts * sizeof(*cl));
	if (!cl)
		return ivr_err(w, -ENOMEM, "out of memory for CTF metadata");
	c->classes = cl;
	f = open_memstream(&text, &len);
	if (!f)
		return ivr_err(w, -ENOMEM, "out of memory for CTF metadata");
	for (i = from; i < w->nr_fmts && !ret; i++)
		ret = add_format(w, r, c, f, &w->fmts[i]);
	if (fclose(f) && !ret)
		ret = ivr_err(w, -ENOMEM, "out of memory for CTF metadata");
	meta = ret ? NULL : realloc(c->meta, c->meta_len + len + 1);
	if (!ret && !meta)
		ret = ivr_err(w, -ENOMEM, "out of memory for CTF metadata");
	if (!ret) {
		memcpy(meta + c->meta_len, text, len);
		c->meta = meta;
		c->meta_len += len;
	}
	free(text);
	if (!ret && c->nr_classes != had)
		ret = rewrite(w, c);
	return ret;
}

int ctf_meta_begin(struct ivring_rec *w, struct ivring *r, struct ctf *c)
{
	char *text = NULL;
	size_t len = 0;
	u32 i;
	FILE *f;
	int ret = 0;

	make_uuid(c->uuid, w->trace_id, 0x7472616365ULL);	/* "trace" */
	make_uuid(c->clock_uuid, w->trace_id, 0x636c6f636bULL);	/* "clock" */
	c->class_of = calloc(65536, sizeof(*c->class_of));
	c->classes = calloc(w->nr_fmts ? w->nr_fmts : 1, sizeof(*c->classes));
	f = open_memstream(&text, &len);
	if (!c->class_of || !c->classes || !f) {
		if (f)
			fclose(f);
		free(text);
		return ivr_err(w, -ENOMEM, "out of memory for CTF metadata");
	}
	put_trace(f, w, c->uuid);
	/* Where the clock is, to write it again once it is the host's. */
	fflush(f);
	c->clock_at = len;
	if (w->from_source) {
		c->host_time = true;
		c->host_offset = ivr_realtime_offset();
	}
	put_clock(f, w, c->clock_uuid, clock_ident(w), c->host_time,
		  c->host_offset);
	fflush(f);
	c->clock_end = len;
	put_streams(f, clock_ident(w));
	for (i = 0; i < w->nr_fmts && !ret; i++)
		ret = add_format(w, r, c, f, &w->fmts[i]);
	if (fclose(f) && !ret)
		ret = ivr_err(w, -ENOMEM, "out of memory for CTF metadata");
	if (!ret)
		ret = write_meta(w, text, len, false);
	/* Kept for ctf_meta_clock(). */
	c->meta = text;
	c->meta_len = len;
	return ret;
}
