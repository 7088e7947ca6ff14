// SPDX-License-Identifier: LGPL-2.1 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * Recordings of ftrace pages that do not come from a segment: the host
 * kernel's own ring buffer, recorded beside its guests.  Its pages have the
 * layout of a segment's (struct ivring_subbuf_hdr, then ftrace's records),
 * so the trace.dat writer takes them as they are, and the CTF writer
 * transcodes them as a guest's; only the metadata comes
 * from elsewhere: the format texts and header texts that the caller read
 * from tracefs, copied here, and the guests that the file links to
 * (trace-cmd's GUEST option).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>

#include "base/rec_parse.h"
#include "record/ctf.h"
#include "record/record.h"

/* Formats a source may bring: tracefs lists about two thousand events. */
#define SRC_FORMATS_MAX	65536
#define SRC_FORMAT_MAX	(64 * 1024)
#define SRC_HEADER_MAX	4096
#define SRC_GUESTS_MAX	4096
#define SRC_VCPUS_MAX	4096
/* A format's struct, as a caller's header has it: it only ever grows. */
#define SRC_FORMAT_SZ_MAX	4096

/* The "ID: N" line of a format text: 0 with *@id, or -1. */
static int format_id(const char *text, size_t len, u16 *id)
{
	const char *p = text, *end = text + len;
	unsigned long v = 0;
	int digits = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		const char *eol = nl ? nl : end;

		if (eol - p > 4 && !memcmp(p, "ID: ", 4)) {
			for (p += 4; p < eol && *p >= '0' && *p <= '9'; p++) {
				v = v * 10 + (*p - '0');
				if (v > 0xffff)
					return -1;
				digits++;
			}
			if (!digits || p != eol)
				return -1;
			*id = (u16)v;
			return 0;
		}
		p = eol + 1;
	}
	return -1;
}

static const struct ivring_rec_format *
format_at(const struct ivring_rec_source *src, unsigned int i)
{
	return (const void *)((const char *)src->formats +
			      (size_t)i * src->format_sz);
}

/* Copy @src's formats into one block of strings; parse them for comms. */
static int copy_src_formats(struct ivring_rec *w,
			    const struct ivring_rec_source *src)
{
	size_t str_len = 0, pos = 0;
	unsigned int i;
	char *str;

	if (src->nr_formats > SRC_FORMATS_MAX)
		return ivr_err(w, -EINVAL, "%u formats: at most %u are taken",
			       src->nr_formats, SRC_FORMATS_MAX);
	/* Fields are only ever added at the end, so a caller's may be more. */
	if (src->nr_formats && (!src->formats ||
				src->format_sz < sizeof(struct ivring_rec_format) ||
				src->format_sz > SRC_FORMAT_SZ_MAX))
		return ivr_err(w, -EINVAL,
			       "%u formats, but no array of them, or format_sz %zu",
			       src->nr_formats, src->format_sz);
	for (i = 0; i < src->nr_formats; i++) {
		const struct ivring_rec_format *f = format_at(src, i);

		if (!f->system || !f->text || f->len > SRC_FORMAT_MAX ||
		    strlen(f->system) > 255)
			return ivr_err(w, -EINVAL,
				       "format %u: no system or text, or longer than %u bytes",
				       i, SRC_FORMAT_MAX);
		str_len += strlen(f->system) + 1 + f->len + 1;
	}
	w->fmts = calloc(src->nr_formats ? src->nr_formats : 1,
			 sizeof(*w->fmts));
	w->blocks = malloc(sizeof(*w->blocks));
	str = malloc(str_len ? str_len : 1);
	w->tep = tep_alloc();
	if (!w->fmts || !w->blocks || !str || !w->tep) {
		free(str);
		return ivr_err(w, -ENOMEM, "out of memory copying the formats");
	}
	w->blocks[w->nr_blocks++] = str;
	for (i = 0; i < src->nr_formats; i++) {
		const struct ivring_rec_format *in = format_at(src, i);
		struct ivr_rec_fmt *f = &w->fmts[w->nr_fmts];
		size_t sl = strlen(in->system) + 1;
		struct tep_event *ev;

		if (format_id(in->text, in->len, &f->id))
			return ivr_err(w, -EINVAL,
				       "the format of %s event %u has no ID line",
				       in->system, i);
		f->system = memcpy(str + pos, in->system, sl);
		pos += sl;
		f->text = memcpy(str + pos, in->text, in->len);
		str[pos + in->len] = '\0';
		f->len = in->len;
		f->flags = 0;
		pos += in->len + 1;
		w->nr_fmts++;
		/* A format it cannot parse only teaches no comms. */
		tep_parse_format(w->tep, &ev, f->text, f->len, f->system);
	}
	return 0;
}

static int copy_header(struct ivring_rec *w, char **dst, const char *text,
		       const char *what)
{
	if (!text)
		return 0;
	if (strlen(text) > SRC_HEADER_MAX)
		return ivr_err(w, -EINVAL, "%s: longer than %u bytes", what,
			       SRC_HEADER_MAX);
	*dst = strdup(text);
	return *dst ? 0 : ivr_err(w, -ENOMEM, "out of memory for %s", what);
}

static int source_setup(struct ivring_rec *w,
			const struct ivring_rec_source *src, const char *path,
			const struct ivring_rec_opts *o)
{
	int ret;

	if (o->flags & IVRING_REC_SNAPSHOT)
		return ivr_err(w, -EINVAL,
			       "pages from outside a segment are recorded as a spooled trace.dat or a CTF trace only");
	/* A CTF clock is placed in CLOCK_REALTIME through the host's mono. */
	if (o->format != IVRING_REC_TRACE_DAT &&
	    (!src->clock || strcmp(src->clock, "mono")))
		return ivr_err(w, -EINVAL,
			       "a CTF trace of the host's pages needs trace clock mono, not %s",
			       src->clock ? src->clock : "local");
	if (!src->nr_cpus || src->nr_cpus > 65536)
		return ivr_err(w, -EINVAL, "%u CPUs", src->nr_cpus);
	if (src->page_size < 64 || src->page_size > (1U << 24))
		return ivr_err(w, -EINVAL, "pages of %u bytes", src->page_size);
	w->from_source = true;
	w->info.sz = sizeof(w->info);
	w->info.nr_cpus = src->nr_cpus;
	w->info.subbuf_size = src->page_size;
	snprintf(w->info.clock_name, sizeof(w->info.clock_name), "%s",
		 src->clock ? src->clock : "local");
	ret = ivr_rec_setup_out(w, path, o, src->name ? src->name : "host");
	if (!ret)
		ret = copy_header(w, &w->header_page, src->header_page,
				  "header_page");
	if (!ret)
		ret = copy_header(w, &w->header_event, src->header_event,
				  "header_event");
	if (!ret)
		ret = copy_src_formats(w, src);
	return ret ? ret : w->ops->begin(w, NULL);
}

int ivring__rec_open_source(const struct ivring_rec_source *src,
			    const char *path,
			    const struct ivring_rec_opts *opts,
			    struct ivring_rec **out)
{
	struct ivring_rec_source s = { 0 };
	struct ivring_rec_opts o;
	struct ivring_rec *w;
	struct ivr_msg why;
	int ret;

	if (ivr_rec_open_args(opts, out))
		return -EINVAL;
	ret = ivr_rec_take_opts(&o, opts, &why);
	if (!ret && (!src || ivr_struct_in(&s, sizeof(s), src, sizeof(*src))))
		ret = ivr_msg_set(&why, -EINVAL,
				  "ivring__rec_open_source: no source, or an unknown one");
	if (!ret && (!path || !*path))
		ret = ivr_msg_set(&why, -EINVAL,
				  "ivring__rec_open_source: no path to record into");
	w = ret ? NULL : calloc(1, sizeof(*w));
	if (!ret && !w)
		ret = ivr_msg_set(&why, -ENOMEM, "out of memory for a recording");
	if (w) {
		w->dirfd = -1;
		w->ops = o.format == IVRING_REC_TRACE_DAT ?
			 &ivr_rec_tracedat_ops : &ivr_rec_ctf_ops;
		w->ctf_sink = o.format == IVRING_REC_CTF_RELAYD ?
			      &ctf_relay_sink : &ctf_files_sink;
		ret = source_setup(w, &s, path, &o);
		if (ret) {
			why = w->err;
			ivr_rec_free(w);
			w = NULL;
		}
	}
	if (ret) {
		ivr_rec_say(opts, why.text);
		return ret;
	}
	*out = w;
	return 0;
}

int ivring__rec_guest(struct ivring_rec *w, const char *name,
		      uint64_t trace_id, unsigned int nr_vcpus,
		      const int *tids)
{
	struct ivr_rec_guest *g = NULL, *grown;
	char *n;
	int32_t *t;
	u32 i;

	if (!w || !name || (nr_vcpus && !tids))
		return -EINVAL;
	if (!w->from_source)
		return ivr_err(w, -EINVAL,
			       "guests go into a recording of the host's ring buffer only");
	if (nr_vcpus > SRC_VCPUS_MAX || strlen(name) > 4096)
		return ivr_err(w, -EINVAL, "a guest of %u vCPUs, or a name of %zu bytes",
			       nr_vcpus, strlen(name));
	for (i = 0; i < w->nr_guests; i++)
		if (w->guests[i].trace_id == trace_id)
			g = &w->guests[i];
	if (!g && w->nr_guests >= SRC_GUESTS_MAX)
		return ivr_err(w, -ENOSPC, "more than %u guests", SRC_GUESTS_MAX);
	n = strdup(name);
	t = malloc((nr_vcpus ? nr_vcpus : 1) * sizeof(*t));
	if (!n || !t) {
		free(n);
		free(t);
		return ivr_err(w, -ENOMEM, "out of memory for a guest");
	}
	if (!g) {
		grown = realloc(w->guests, (w->nr_guests + 1) * sizeof(*grown));
		if (!grown) {
			free(n);
			free(t);
			return ivr_err(w, -ENOMEM, "out of memory for a guest");
		}
		w->guests = grown;
		g = &w->guests[w->nr_guests++];
	} else {
		free(g->name);
		free(g->tids);
	}
	for (i = 0; i < nr_vcpus; i++)
		t[i] = tids[i];
	g->name = n;
	g->tids = t;
	g->trace_id = trace_id;
	g->nr_vcpus = nr_vcpus;
	return 0;
}

int ivring__page_parse(const void *data, size_t size, struct ivring_page *pg)
{
	const struct ivring_subbuf_hdr *h = data;
	const u8 *rec = (const u8 *)data + sizeof(*h);
	struct ivring_page p = { .sz = sizeof(p) };
	struct ivring_event ev;
	u64 commit, ts, len;
	u32 off = 0, end;
	int ret, unknown = 0;

	if (!data || !pg || !ivr_struct_has(pg, struct ivring_page, data) ||
	    size <= sizeof(*h) || size > UINT32_MAX)
		return -EINVAL;
	memcpy(&commit, &h->commit, sizeof(commit));
	memcpy(&ts, &h->time_stamp, sizeof(ts));
	len = commit & ~IVRING_COMMIT_FLAGS;
	if (len > size - sizeof(*h))
		return -EINVAL;
	while ((ret = ivr_rec_parse(rec, (u32)len, &off, &ts, &ev, &end)) > 0) {
		if (!p.events++)
			p.first_ts = ev.ts;
		p.last_ts = ev.ts;
		off = end;
		ts = ev.ts;
	}
	if (ret < 0)
		return -EBADMSG;
	if (commit & IVRING_COMMIT_MISSED_EVENTS) {
		/* The count follows the records, where there was room. */
		if ((commit & IVRING_COMMIT_MISSED_STORED) &&
		    len + 8 <= size - sizeof(*h))
			memcpy(&p.lost, rec + len, sizeof(p.lost));
		else
			unknown = 1;
	}
	p.len = (u32)len;
	p.size = (u32)size;
	p.whole = true;
	p.data = data;
	ivr_struct_out(pg, &p, sizeof(p));
	return unknown;
}
