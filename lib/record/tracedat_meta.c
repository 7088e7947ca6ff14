// SPDX-License-Identifier: LGPL-2.1 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * The bytes of a trace.dat's metadata, versions 6 and 7 (trace-cmd.dat.v6(5),
 * trace-cmd.dat.v7(5)): the header, header_page and header_event as the
 * guest's ring buffer has them, the event formats, the cmdlines and the
 * options.  The CPU data is tracedat.c's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/tracedat.h"

/* Room for @len more bytes in @b: false, with b->nomem, if there is none. */
static bool grow(struct obuf *b, size_t len)
{
	size_t cap = b->cap ? b->cap : 4096;
	u8 *p;

	if (b->nomem)
		return false;
	if (b->len + len <= b->cap)
		return true;
	while (cap < b->len + len)
		cap *= 2;
	p = realloc(b->p, cap);
	if (!p) {
		b->nomem = true;
		return false;
	}
	b->p = p;
	b->cap = cap;
	return true;
}

static void put(struct obuf *b, const void *src, size_t len)
{
	if (!grow(b, len))
		return;
	memcpy(b->p + b->len, src, len);
	b->len += len;
}

/* @len bytes at the end of @b for the caller to fill, or NULL (b->nomem). */
static u8 *reserve(struct obuf *b, size_t len)
{
	if (!grow(b, len))
		return NULL;
	b->len += len;
	return b->p + b->len - len;
}

/* The host is little-endian, as the guest is (x86-64 both). */
static void put16(struct obuf *b, u16 v) { put(b, &v, 2); }
static void put32(struct obuf *b, u32 v) { put(b, &v, 4); }
static void put64(struct obuf *b, u64 v) { put(b, &v, 8); }
static void put_str(struct obuf *b, const char *s) { put(b, s, strlen(s) + 1); }

static void set64(struct obuf *b, size_t at, u64 v)
{
	if (!b->nomem)
		memcpy(b->p + at, &v, 8);
}

static void set32(struct obuf *b, size_t at, u32 v)
{
	if (!b->nomem)
		memcpy(b->p + at, &v, 4);
}

/* As trace-cmd keeps them: their size, then a "pid comm" line each. */
static void put_cmdlines(struct obuf *b, struct tracedat *t)
{
	char line[32 + IVR_COMM_LEN];
	size_t at;
	u32 i;

	at = b->len;
	put64(b, 0);
	for (i = 0; i < t->nr_comms; i++) {
		const struct comm_slot *s = &t->comms[t->comm_used[i]];
		int n;

		n = snprintf(line, sizeof(line), "%d %s\n", s->pid, s->comm);
		put(b, line, n);
	}
	set64(b, at, b->len - at - 8);
}

/*
 * ring_buffer_print_page_header() and ring_buffer_print_entry_header():
 * as the guest's ring buffer has them, or as a source gave its own
 * (source.c: the host kernel's, which lays out its pages the same way).
 */
static void put_header_info(struct obuf *b, struct ivring_rec *w)
{
	u32 page_size = ((struct tracedat *)w->priv)->page_size;
	char text[512];
	int n;

	put_str(b, "header_page");
	if (w->header_page) {
		put64(b, strlen(w->header_page));
		put(b, w->header_page, strlen(w->header_page));
	} else {
		n = snprintf(text, sizeof(text),
			     "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
			     "\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
			     "\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
			     "\tfield: char data;\toffset:16;\tsize:%u;\tsigned:1;\n",
			     page_size - 16);
		put64(b, n);
		put(b, text, n);
	}
	put_str(b, "header_event");
	if (w->header_event) {
		put64(b, strlen(w->header_event));
		put(b, w->header_event, strlen(w->header_event));
		return;
	}
	/* The record header of <linux/ivring.h> */
	n = snprintf(text, sizeof(text),
		     "# compressed entry header\n"
		     "\ttype_len    :    5 bits\n"
		     "\ttime_delta  :   27 bits\n"
		     "\tarray       :   32 bits\n"
		     "\n"
		     "\tpadding     : type == %d\n"
		     "\ttime_extend : type == %d\n"
		     "\ttime_stamp : type == %d\n"
		     "\tdata max type_len  == %d\n",
		     IVRING_TYPE_PADDING, IVRING_TYPE_TIME_EXTEND,
		     IVRING_TYPE_TIME_STAMP, 28);
	put64(b, n);
	put(b, text, n);
}

/*
 * A format's text, for libtraceevent in trace-cmd and KernelShark.  A print
 * fmt that libivring found not provably safe (a division by a field, a
 * helper it does not know) can crash them, as it could crash us (trace-cmd
 * 3.1.6 dies of SIGFPE on the first): it is left empty, which
 * libtraceevent fails to parse, and so prints "[FAILED TO PARSE]" and the
 * event's fields, as ivring-read prints the fields.
 */
static void put_format(struct obuf *b, const struct ivr_rec_fmt *f)
{
	/* Not even "": libtraceevent would print that, and no field. */
	static const char safe[] = "print fmt: \n";
	const char *p = f->text;
	u32 len = f->len;

	if (f->flags & IVRING_FORMAT_RAW) {
		p = memmem(f->text, f->len, "\nprint fmt:", 11);
		len = p ? p + 1 - f->text : f->len;
		p = f->text;
		put64(b, len + sizeof(safe) - 1);
		put(b, p, len);
		put(b, safe, sizeof(safe) - 1);
		return;
	}
	put64(b, len);
	put(b, p, len);
}

static int cmp_sys(const void *a, const void *b)
{
	const struct ivr_rec_fmt *x = a, *y = b;
	int c = strcmp(x->system, y->system);

	return c ? c : (x->id > y->id) - (x->id < y->id);
}

/* Every event's format text, grouped by system. */
static void put_event_formats(struct obuf *b, struct ivring_rec *w)
{
	u32 i, j, nr_sys = 0;
	size_t at_sys;

	qsort(w->fmts, w->nr_fmts, sizeof(*w->fmts), cmp_sys);
	at_sys = b->len;
	put32(b, 0);
	for (i = 0; i < w->nr_fmts; i = j) {
		size_t at_n;

		put_str(b, w->fmts[i].system);
		at_n = b->len;
		put32(b, 0);
		for (j = i; j < w->nr_fmts &&
			    !strcmp(w->fmts[j].system, w->fmts[i].system); j++)
			put_format(b, &w->fmts[j]);
		set32(b, at_n, j - i);
		nr_sys++;
	}
	set32(b, at_sys, nr_sys);
}

static void put_option(struct obuf *b, u16 id, const void *data, u32 len)
{
	put16(b, id);
	put32(b, len);
	put(b, data, len);
}

static void put_option64(struct obuf *b, u16 id, u64 v)
{
	put_option(b, id, &v, 8);
}

static void put_option_str(struct obuf *b, u16 id, const char *s)
{
	put_option(b, id, s, strlen(s) + 1);
}

/*
 * Host time (ivring__rec_clock()): trace-cmd's TIME_SHIFT, which makes
 * trace-cmd report add the offset, interpolated between samples, to every
 * time stamp.  It names the host's recording (ivring_rec_opts
 * peer_trace_id), whose GUEST option names this one: 0 when none was
 * given, and trace-cmd corrects the times without it.  Every CPU gets the
 * same samples, with no scaling, and no fraction bits follow.
 */
static void put_time_shift(struct obuf *b, struct ivring_rec *w)
{
	const struct tracedat *t = w->priv;
	u32 cpu, i, n = t->nr_shift;
	u64 len = 16 + (u64)w->info.nr_cpus * (4 + 24 * (u64)n);

	put16(b, OPT_TIME_SHIFT);
	put32(b, (u32)len);
	put64(b, w->peer_trace_id);
	put32(b, 1);				/* interpolate */
	put32(b, w->info.nr_cpus);
	for (cpu = 0; cpu < w->info.nr_cpus; cpu++) {
		put32(b, n);
		for (i = 0; i < n; i++)
			put64(b, t->shift_time[i]);
		for (i = 0; i < n; i++)
			put64(b, (u64)t->shift_off[i]);
		for (i = 0; i < n; i++)
			put64(b, 1);
	}
}

/*
 * A host's recording: a GUEST option per guest (trace-cmd's
 * trace_guest_load() reads them), its name, its recording's TRACEID, and
 * each vCPU's host thread.
 */
static void put_guests(struct obuf *b, struct ivring_rec *w)
{
	u32 i, cpu;

	for (i = 0; i < w->nr_guests; i++) {
		const struct ivr_rec_guest *g = &w->guests[i];

		put16(b, OPT_GUEST);
		put32(b, strlen(g->name) + 1 + 8 + 4 + 8 * g->nr_vcpus);
		put_str(b, g->name);
		put64(b, g->trace_id);
		put32(b, g->nr_vcpus);
		for (cpu = 0; cpu < g->nr_vcpus; cpu++) {
			put32(b, cpu);
			put32(b, (u32)g->tids[cpu]);
		}
	}
}

/* The options that both versions carry. */
static void put_common_options(struct obuf *b, struct ivring_rec *w)
{
	const struct tracedat *t = w->priv;
	char text[64];
	u32 cpus = w->info.nr_cpus;

	snprintf(text, sizeof(text), "[%s]\n", w->info.clock_name);
	put_option_str(b, OPT_TRACECLOCK, text);
	put_option64(b, OPT_TRACEID, w->trace_id);
	put_option(b, OPT_CPUCOUNT, &cpus, 4);
	put_option_str(b, OPT_UNAME, w->name);
	put_option_str(b, OPT_VERSION, "ivring " IVRING_VERSION);
	if (t->nr_shift)
		put_time_shift(b, w);
	put_guests(b, w);
}

/* The offset of each CPU's data, once the metadata is @meta bytes long. */
static void place_cpus(struct ivring_rec *w, u64 meta, u64 *offs)
{
	struct tracedat *t = w->priv;
	u64 off = ivr_td_page_align(meta, t->page_size);
	u32 cpu;

	for (cpu = 0; cpu < w->info.nr_cpus; cpu++) {
		offs[cpu] = off;
		off += t->cpus[cpu].size;
	}
}

static void put_magic(struct obuf *b, struct ivring_rec *w, unsigned int v)
{
	static const u8 magic[] = { 0x17, 0x08, 0x44 };
	char version[2] = { (char)('0' + v), 0 };

	put(b, magic, sizeof(magic));
	put(b, "tracing", 7);
	put(b, version, 2);
	put(b, "\0\10", 2);		/* little-endian, 8-byte longs */
	put32(b, ((struct tracedat *)w->priv)->page_size);
}

/*
 * Version 6: everything inline, then "options  ", then "flyrecord" with
 * each CPU's offset and size.
 */
void ivr_td_v6_head(struct obuf *b, struct ivring_rec *w)
{
	put_magic(b, w, 6);
	put_header_info(b, w);
	put32(b, 0);				/* ftrace's own events */
	put_event_formats(b, w);
	put32(b, 0);				/* kallsyms */
	put32(b, 0);				/* trace_printk formats */
	put_cmdlines(b, w->priv);
}

void ivr_td_v6(struct obuf *b, struct ivring_rec *w, u64 *offs)
{
	struct tracedat *t = w->priv;
	size_t at_cpus;
	u32 cpu;

	ivr_td_v6_head(b, w);
	put32(b, w->info.nr_cpus);
	put(b, "options  ", 10);
	put_common_options(b, w);
	put16(b, OPT_DONE);
	put(b, "flyrecord", 10);
	at_cpus = b->len;
	for (cpu = 0; cpu < w->info.nr_cpus; cpu++) {
		put64(b, 0);
		put64(b, t->cpus[cpu].size);
	}
	place_cpus(w, b->len, offs);
	for (cpu = 0; cpu < w->info.nr_cpus; cpu++)
		set64(b, at_cpus + 16 * cpu, offs[cpu]);
}

/*
 * A version 7 section: its header, then @fill's bytes, compressed into
 * one block when the file is; returns its offset.
 */
static u64 put_section(struct obuf *b, u16 id,
		       void (*fill)(struct obuf *b, struct ivring_rec *w),
		       struct ivring_rec *w)
{
	struct obuf raw = { 0 };
	u64 at = b->len;
	size_t cap;
	ssize_t n;
	u8 *z;

	put16(b, id);
	put16(b, w->compression ? SEC_FL_COMPRESS : 0);
	put32(b, (u32)-1);		/* no description string */
	put64(b, 0);
	if (!w->compression) {
		fill(b, w);
		set64(b, at + 8, b->len - at - 16);
		return at;
	}
	fill(&raw, w);
	cap = ivr_td_z_bound(raw.len);
	z = raw.nomem ? NULL : reserve(b, 8 + cap);
	n = z ? ivr_td_z_frame(w, z + 8, cap, raw.p, raw.len) : -ENOMEM;
	if (n < 0) {
		b->nomem = true;
		b->zfail = n != -ENOMEM;
	} else {
		memcpy(z, &(u32){ (u32)n }, 4);
		memcpy(z + 4, &(u32){ (u32)raw.len }, 4);
		b->len = z + 8 + n - b->p;
		set64(b, at + 8, b->len - at - 16);
	}
	free(raw.p);
	return at;
}

static void fill_header_info(struct obuf *b, struct ivring_rec *w)
{
	put_header_info(b, w);
}

static void fill_event_formats(struct obuf *b, struct ivring_rec *w)
{
	put_event_formats(b, w);
}

static void fill_empty32(struct obuf *b, struct ivring_rec *w)
{
	put32(b, 0);
}

static void fill_cmdlines(struct obuf *b, struct ivring_rec *w)
{
	put_cmdlines(b, w->priv);
}

static void put_buffer_option(struct obuf *b, struct ivring_rec *w,
			      u64 flyrecord, const u64 *offs)
{
	struct tracedat *t = w->priv;
	struct obuf o = { 0 };
	u32 cpu;

	put64(&o, flyrecord);
	put_str(&o, "");			/* the top instance */
	put_str(&o, w->info.clock_name);
	put32(&o, t->page_size);
	put32(&o, w->info.nr_cpus);
	for (cpu = 0; cpu < w->info.nr_cpus; cpu++) {
		put32(&o, cpu);
		put64(&o, offs[cpu]);
		put64(&o, ivr_td_opt_size(w, cpu));
	}
	if (o.nomem)
		b->nomem = true;
	else
		put_option(b, OPT_BUFFER, o.p, o.len);
	free(o.p);
}

/* The magic and the sections that do not change while recording. */
void ivr_td_v7_front(struct obuf *b, struct ivring_rec *w,
		     struct v7_sections *sec, size_t *at_opts_ptr)
{
	put_magic(b, w, 7);
	if (w->compression) {
		put_str(b, "zstd");
		put_str(b, ivr_td_z_version());
	} else {
		put_str(b, "none");
		put_str(b, "");
	}
	*at_opts_ptr = b->len;
	put64(b, 0);
	sec->header_info = put_section(b, OPT_HEADER_INFO, fill_header_info, w);
	sec->ftrace_events = put_section(b, OPT_FTRACE_EVENTS, fill_empty32, w);
	sec->event_formats = put_section(b, OPT_EVENT_FORMATS, fill_event_formats, w);
	sec->kallsyms = put_section(b, OPT_KALLSYMS, fill_empty32, w);
	sec->printk = put_section(b, OPT_PRINTK, fill_empty32, w);
}

/*
 * The options section: where the sections are, and the flyrecord buffer
 * (its section at @flyrecord, each CPU's data at @offs).
 */
void ivr_td_v7_options(struct obuf *b, struct ivring_rec *w,
		       const struct v7_sections *sec, u64 flyrecord,
		       const u64 *offs)
{
	size_t at = b->len;

	put16(b, 0);
	put16(b, 0);
	put32(b, (u32)-1);
	put64(b, 0);
	put_option64(b, OPT_HEADER_INFO, sec->header_info);
	put_option64(b, OPT_FTRACE_EVENTS, sec->ftrace_events);
	put_option64(b, OPT_EVENT_FORMATS, sec->event_formats);
	put_option64(b, OPT_KALLSYMS, sec->kallsyms);
	put_option64(b, OPT_PRINTK, sec->printk);
	put_option64(b, OPT_CMDLINES, sec->cmdlines);
	put_common_options(b, w);
	put_buffer_option(b, w, flyrecord, offs);
	put_option64(b, OPT_DONE, 0);		/* no further options section */
	set64(b, at + 8, b->len - at - 16);
}

/* The flyrecord section's header; its size is set once the data is known. */
void ivr_td_flyrecord(struct obuf *b, struct ivring_rec *w)
{
	put16(b, OPT_BUFFER);
	put16(b, w->compression ? SEC_FL_COMPRESS : 0);
	put32(b, (u32)-1);
	put64(b, 0);
}

/*
 * Version 7, spooled: the metadata sections, one options section that
 * points at them and describes the flyrecord buffer, then the flyrecord
 * section, whose CPU data starts page-aligned.  The options are built
 * twice: the first pass only measures, as the offsets depend on their own
 * length.
 */
void ivr_td_v7(struct obuf *b, struct ivring_rec *w, u64 *offs)
{
	struct v7_sections sec;
	size_t at_opts_ptr, at_opts, opts_len = 0;
	int pass;

	ivr_td_v7_front(b, w, &sec, &at_opts_ptr);
	sec.cmdlines = put_section(b, OPT_CMDLINES, fill_cmdlines, w);
	at_opts = b->len;
	set64(b, at_opts_ptr, at_opts);
	for (pass = 0; pass < 2; pass++) {
		u64 flyrecord = at_opts + opts_len;

		b->len = at_opts;
		/* The flyrecord section header follows the options. */
		place_cpus(w, flyrecord + 16, offs);
		ivr_td_v7_options(b, w, &sec, flyrecord, offs);
		opts_len = b->len - at_opts;
	}
	ivr_td_flyrecord(b, w);
	set64(b, b->len - 8, ivr_td_data_end(w, offs) - b->len);
}

u64 ivr_td_event_formats(struct obuf *b, struct ivring_rec *w)
{
	return put_section(b, OPT_EVENT_FORMATS, fill_event_formats, w);
}

u64 ivr_td_cmdlines(struct obuf *b, struct ivring_rec *w)
{
	return put_section(b, OPT_CMDLINES, fill_cmdlines, w);
}

void ivr_td_put_obuf(struct obuf *b, const struct obuf *src)
{
	if (src->nomem) {
		b->nomem = true;
		b->zfail |= src->zfail;
	}
	else
		put(b, src->p, src->len);
}
