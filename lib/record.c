// SPDX-License-Identifier: LGPL-2.1 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * Recordings: the part that does not depend on the file format.  At open it
 * copies what the format writers need from the segment (the layout, the
 * clock, the format texts that passed their checks), so that a recording
 * outlives its reader's generation; then it counts what goes through, and
 * copies the formats that the guest appends as it reads.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "rec_parse.h"
#include "ctf.h"
#include "record.h"

int ivr_rec_err(struct ivring_rec *w, int ret, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(w->err, sizeof(w->err), fmt, ap);
	va_end(ap);
	return ret;
}

/* @off (u64)-1: at the file's offset, which moves on. */
static int write_at(int fd, const void *buf, size_t len, u64 off)
{
	const u8 *p = buf;

	while (len) {
		ssize_t n = off == (u64)-1 ? write(fd, p, len) :
					     pwrite(fd, p, len, off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (!n)
			return -EIO;
		p += n;
		len -= n;
		if (off != (u64)-1)
			off += n;
	}
	return 0;
}

int ivr_write_all(int fd, const void *buf, size_t len)
{
	return write_at(fd, buf, len, (u64)-1);
}

int ivr_pwrite_all(int fd, const void *buf, size_t len, u64 off)
{
	return write_at(fd, buf, len, off);
}

/*
 * The formats @r listed since the last call (all of them at open) join
 * the recording; formats that libtraceevent refused are left out: their
 * events are unknown.  Each call's strings are one block, never moved:
 * w->fmts points into them.  Returns the formats added, or -ENOMEM.
 */
static int copy_formats(struct ivring_rec *w, struct ivring *r)
{
	struct ivring_format_info fi = { .sz = sizeof(fi) };
	size_t str_len = 0, pos = 0;
	unsigned int i, n = 0, from = w->src_listed;
	struct ivr_rec_fmt *fmts;
	char **blocks, *str;

	if (!ivring__tep(r))
		return ivr_err(r, -ENOMEM, "out of memory parsing the formats");
	for (i = from; !ivring__format(r, i, &fi); i++) {
		if (fi.flags & IVRING_FORMAT_REFUSED)
			continue;
		str_len += strlen(fi.system) + 1 + fi.text_len + 1;
		n++;
	}
	if (!n) {
		w->src_listed = i;
		if (!w->fmts)
			w->fmts = calloc(1, sizeof(*w->fmts));
		return w->fmts ? 0 :
		       ivr_err(r, -ENOMEM, "out of memory copying the formats");
	}
	fmts = realloc(w->fmts, (w->nr_fmts + n) * sizeof(*fmts));
	if (fmts)
		w->fmts = fmts;
	blocks = realloc(w->blocks, (w->nr_blocks + 1) * sizeof(*blocks));
	if (blocks)
		w->blocks = blocks;
	str = malloc(str_len);
	if (!fmts || !blocks || !str) {
		free(str);
		return ivr_err(r, -ENOMEM, "out of memory copying the formats");
	}
	w->blocks[w->nr_blocks++] = str;
	for (i = from; !ivring__format(r, i, &fi); i++) {
		struct ivr_rec_fmt *f = &w->fmts[w->nr_fmts];
		size_t sl = strlen(fi.system) + 1;

		if (fi.flags & IVRING_FORMAT_REFUSED)
			continue;
		f->id = fi.id;
		f->system = memcpy(str + pos, fi.system, sl);
		pos += sl;
		f->text = memcpy(str + pos, fi.text, fi.text_len);
		str[pos + fi.text_len] = '\0';
		f->len = fi.text_len;
		f->flags = fi.flags;
		pos += fi.text_len + 1;
		w->nr_fmts++;
	}
	w->src_listed = i;
	return n;
}

/* -ESTALE, with the reason, when @r has moved past the recording's generation. */
static int same_generation(struct ivring_rec *w, struct ivring *r)
{
	if (r->hdr.generation == w->info.generation)
		return 0;
	return ivr_rec_err(w, -ESTALE,
			   "the segment is at generation %#llx, the recording at %#llx",
			   (unsigned long long)r->hdr.generation,
			   (unsigned long long)w->info.generation);
}

/*
 * Formats the guest appended to @r's segment since the recording took
 * them: each is copied, and the writer told (ops->formats), before a page
 * with its events goes to the writer.  Costs a load of the segment when
 * nothing was appended (format_area.c).  0 or -errno, with the reason.
 */
static int take_new_formats(struct ivring_rec *w, struct ivring *r)
{
	u32 from = w->nr_fmts;
	int ret;

	if (r->hdr.generation != w->info.generation)
		return 0;
	ret = ivr_formats_refresh(r);
	if (ret < 0 && r->gone)
		return ivr_rec_err(w, ret, "%s", ivring__errmsg(r));
	if (r->fmts.nr == w->src_listed)
		return 0;
	ret = copy_formats(w, r);
	if (ret < 0)
		return ivr_rec_err(w, ret, "%s", ivring__errmsg(r));
	if (!ret)
		return 0;
	w->fmts_gen++;
	return w->ops->formats ? w->ops->formats(w, r, from) : 0;
}

int ivring__rec_formats(struct ivring_rec *w, struct ivring *r)
{
	int ret;

	if (!w || !r)
		return -EINVAL;
	if (w->failed)
		return ivr_rec_err(w, -EIO, "an earlier write failed: %s",
				   w->err);
	ret = same_generation(w, r);
	if (ret)
		return ret;
	ret = take_new_formats(w, r);
	if (ret && !r->gone)
		w->failed = true;
	return ret;
}

static void rec_free(struct ivring_rec *w)
{
	if (w->ops && w->priv)
		w->ops->free(w);
	free(w->path);
	free(w->name);
	free(w->seg_path);
	free(w->fmts);
	while (w->nr_blocks)
		free(w->blocks[--w->nr_blocks]);
	free(w->blocks);
	free(w->cpus);
	free(w->shift_time);
	free(w->shift_off);
	free(w);
}

int ivring__rec_clock(struct ivring_rec *w, struct ivring *r)
{
	const struct ivr_sync *y;
	u64 *t;
	s64 *o;
	u32 i, n;

	if (!w || !r)
		return -EINVAL;
	if (w->format == IVRING_REC_CTF)
		return ctf_rec_clock(w, r);
	y = &r->sync;
	if (y->generation != w->info.generation || !y->nr)
		return 0;
	/* The samples spread over the recording, the first and last kept. */
	n = y->nr < IVR_REC_SHIFT_MAX ? y->nr : IVR_REC_SHIFT_MAX;
	t = malloc(n * sizeof(*t));
	o = malloc(n * sizeof(*o));
	if (!t || !o) {
		free(t);
		free(o);
		return ivr_rec_err(w, -ENOMEM, "out of memory for %u clock samples", n);
	}
	for (i = 0; i < n; i++) {
		const struct ivr_sync_sample *s =
			&y->s[n == 1 ? 0 : (u64)i * (y->nr - 1) / (n - 1)];

		t[i] = s->guest;
		o[i] = (s64)(s->host - s->guest);
	}
	free(w->shift_time);
	free(w->shift_off);
	w->shift_time = t;
	w->shift_off = o;
	w->nr_shift = n;
	return n;
}

static int rec_setup(struct ivring_rec *w, struct ivring *r, const char *path,
		     const struct ivring_rec_opts *o)
{
	const char *base;
	int ret;

	w->info.sz = sizeof(w->info);
	ret = ivring__info(r, &w->info);
	if (ret)
		return ret;
	w->format = o->format;
	w->version = o->version ? o->version : 7;
	w->snapshot = o->flags & IVRING_REC_SNAPSHOT;
	w->trace_id = o->trace_id;
	while (!w->trace_id &&
	       getrandom(&w->trace_id, sizeof(w->trace_id), 0) < 0) {
		if (errno != EINTR)
			return ivr_err(r, -errno, "getrandom: %s", strerror(errno));
	}
	base = strrchr(r->path, '/');
	base = base ? base + 1 : r->path;
	w->path = strdup(path);
	w->seg_path = strdup(r->path);
	w->name = strdup(o->name ? o->name : base);
	w->cpus = calloc(w->info.nr_cpus ? w->info.nr_cpus : 1, sizeof(*w->cpus));
	if (!w->path || !w->seg_path || !w->name || !w->cpus)
		return ivr_err(r, -ENOMEM, "out of memory for a recording");
	ret = copy_formats(w, r);
	if (ret < 0)
		return ret;
	ret = w->ops->begin(w, r);
	if (ret)
		return ivr_err(r, ret, "%s", w->err);
	return 0;
}

static const struct ivr_rec_ops *rec_ops(unsigned int format)
{
	switch (format) {
	case IVRING_REC_TRACE_DAT:
		return &ivr_rec_tracedat_ops;
	case IVRING_REC_CTF:
		return &ivr_rec_ctf_ops;
	}
	return NULL;
}

/* struct ivring_rec_opts as it first was, before flags. */
#define REC_OPTS_SZ_FIRST	offsetof(struct ivring_rec_opts, flags)

int ivring__rec_open(struct ivring *r, const char *path,
		     const struct ivring_rec_opts *opts, struct ivring_rec **out)
{
	struct ivring_rec_opts copy = { 0 }, *o = &copy;
	struct ivring_rec *w;
	int ret;

	if (!r || !path || !*path || !opts || !out ||
	    opts->sz < sizeof(opts->sz))
		return -EINVAL;
	*out = NULL;
	if (opts->sz > sizeof(*opts) &&
	    !ivr_struct_tail_zero(opts, opts->sz, sizeof(*opts)))
		return ivr_err(r, -EINVAL, "ivring__rec_open: unknown options");
	if (opts->sz < REC_OPTS_SZ_FIRST)
		return ivr_err(r, -EINVAL, "ivring__rec_open: options too short");
	/* A program built against an older header: its fields, then zeros. */
	memcpy(o, opts, opts->sz < sizeof(copy) ? opts->sz : sizeof(copy));
	if (o->format != IVRING_REC_TRACE_DAT && o->format != IVRING_REC_CTF)
		return ivr_err(r, -EINVAL, "ivring__rec_open: unknown format %u",
			       o->format);
	if (o->flags & ~IVRING_REC_SNAPSHOT)
		return ivr_err(r, -EINVAL, "ivring__rec_open: unknown flags %#x",
			       o->flags & ~IVRING_REC_SNAPSHOT);
	if (o->format == IVRING_REC_TRACE_DAT && o->version &&
	    o->version != 6 && o->version != 7)
		return ivr_err(r, -EINVAL,
			       "trace.dat version %u: only 6 and 7 are written",
			       o->version);
	w = calloc(1, sizeof(*w));
	if (!w)
		return ivr_err(r, -ENOMEM, "out of memory for a recording");
	w->ops = rec_ops(o->format);
	if (!w->ops) {
		free(w);
		return ivr_err(r, -EOPNOTSUPP,
			       "ivring__rec_open: format %u is not built in",
			       o->format);
	}
	ret = rec_setup(w, r, path, o);
	if (ret) {
		rec_free(w);
		return ret;
	}
	*out = w;
	return 0;
}

static int check_page(struct ivring_rec *w, u32 cpu,
		      const struct ivring_page *pg)
{
	if (cpu >= w->info.nr_cpus)
		return ivr_rec_err(w, -EINVAL, "CPU %u: the segment has %u",
				   cpu, w->info.nr_cpus);
	if (w->failed)
		return ivr_rec_err(w, -EIO, "an earlier write failed: %s",
				   w->err);
	/*
	 * A snapshot holds what the segment held when it was taken: as many
	 * pages of a CPU as the segment has sub-buffers, whatever the guest
	 * writes meanwhile (a trace.dat is written in place to that bound).
	 */
	if (w->snapshot && w->cpus[cpu].pages >= w->info.nr_subbufs)
		return ivr_rec_err(w, -ENOBUFS,
				   "CPU %u: a snapshot holds %u pages of it, as many as the segment has sub-buffers",
				   cpu, w->info.nr_subbufs);
	if (!pg)
		return 0;
	if (pg->sz < offsetof(struct ivring_page, data) + sizeof(pg->data))
		return -EINVAL;
	if (pg->size != w->info.subbuf_size || pg->len > pg->size - 16)
		return ivr_rec_err(w, -EINVAL,
				   "a page of %u bytes (%u of records) in a recording of %u-byte pages",
				   pg->size, pg->len, w->info.subbuf_size);
	return 0;
}

/* After the writer took @pg: count it, or remember that writing failed. */
static int counted(struct ivring_rec *w, u32 cpu, const struct ivring_page *pg,
		   int ret)
{
	struct ivr_rec_cpu *c = &w->cpus[cpu];

	if (ret) {
		w->failed = true;
		return ret;
	}
	c->pages++;
	c->events += pg->events;
	c->lost += pg->lost;
	if (!c->first_ts)
		c->first_ts = pg->first_ts;
	c->last_ts = pg->last_ts;
	return 0;
}

/* A page the caller read: its events, for the writer's ops->event. */
static void walk_page(struct ivring_rec *w, const struct ivring_page *pg)
{
	const struct ivring_subbuf_hdr *h = pg->data;
	const u8 *rec = (const u8 *)pg->data + sizeof(*h);
	struct ivring_event ev;
	u64 ts = h->time_stamp;
	u32 off = 0, end;

	while (ivr_rec_parse(rec, pg->len, &off, &ts, &ev, &end) > 0) {
		w->ops->event(w, &ev);
		off = end;
		ts = ev.ts;
	}
}

int ivring__rec_page(struct ivring_rec *w, unsigned int cpu,
		     const struct ivring_page *pg)
{
	int ret;

	if (!w || !pg)
		return -EINVAL;
	ret = check_page(w, cpu, pg);
	if (ret)
		return ret;
	if (w->ops->event)
		walk_page(w, pg);
	return counted(w, cpu, pg, w->ops->page(w, cpu, pg));
}

static void event_hook(void *arg, const struct ivring_event *ev)
{
	struct ivring_rec *w = arg;

	w->ops->event(w, ev);
}

int ivring__rec_read(struct ivring_rec *w, struct ivring *r, unsigned int cpu,
		     unsigned int flags, struct ivring_page *pg)
{
	struct ivr_event_hook hook = { event_hook, w };
	u8 *slot;
	int ret;

	if (!w || !r || !pg || pg->sz < sizeof(*pg))
		return -EINVAL;
	ret = check_page(w, cpu, NULL);
	if (ret)
		return ret;
	ret = same_generation(w, r);
	if (ret)
		return ret;
	/*
	 * Formats appended since: before the read, so that the events of the
	 * page are seen with them (comms), and again after it, since the
	 * guest appends a format before it writes events of it.
	 */
	ret = take_new_formats(w, r);
	if (ret)
		goto failed;
	if (!w->ops->slot) {
		ret = ivring__read_page(r, cpu, pg, flags);
		if (ret <= 0)
			goto read_failed;
		/* A page that was read goes in, even if the reader died since. */
		ret = take_new_formats(w, r);
		if (ret && !r->gone)
			goto failed;
		ret = ivring__rec_page(w, cpu, pg);
		return ret ? ret : 1;
	}
	slot = w->ops->slot(w, cpu);
	if (!slot)
		return -ENOBUFS;
	ret = ivr_read_page(r, cpu, pg, flags, slot,
			    w->ops->event ? &hook : NULL);
	if (ret <= 0)
		goto read_failed;
	ret = take_new_formats(w, r);
	if (ret && !r->gone)
		goto failed;
	ret = check_page(w, cpu, pg);
	if (!ret)
		ret = counted(w, cpu, pg, w->ops->put(w, cpu, pg));
	return ret ? ret : 1;

read_failed:
	if (ret < 0)
		ivr_rec_err(w, ret, "%s", ivring__errmsg(r));
	return ret;
failed:
	/* A reader that died is not a write that failed: close still works. */
	if (!r->gone)
		w->failed = true;
	return ret;
}

int ivring__rec_flush(struct ivring_rec *w)
{
	int ret;

	if (!w)
		return -EINVAL;
	if (w->failed)
		return ivr_rec_err(w, -EIO, "an earlier write failed: %s",
				   w->err);
	ret = w->ops->flush(w);
	if (ret)
		w->failed = true;
	return ret;
}

int ivring__rec_close(struct ivring_rec *w, char *errbuf, size_t errbuf_len)
{
	int ret;

	if (!w)
		return 0;
	ret = w->failed ? -EIO : w->ops->flush(w);
	if (!ret)
		ret = w->ops->end(w);
	if (ret && errbuf && errbuf_len)
		snprintf(errbuf, errbuf_len, "%s", w->err);
	rec_free(w);
	return ret;
}

const char *ivring__rec_errmsg(const struct ivring_rec *w)
{
	return w ? w->err : "no recording";
}

int ivring__rec_stats(const struct ivring_rec *w, struct ivring_rec_stats *st)
{
	struct ivring_rec_stats s = { 0 };
	u32 cpu;

	if (!w || !st || st->sz < sizeof(st->sz))
		return -EINVAL;
	s.sz = st->sz;
	s.bytes = w->meta_bytes;
	for (cpu = 0; cpu < w->info.nr_cpus; cpu++) {
		s.pages += w->cpus[cpu].pages;
		s.events += w->cpus[cpu].events;
		s.lost += w->cpus[cpu].lost;
		s.bytes += w->cpus[cpu].bytes;
	}
	memcpy(st, &s, st->sz < sizeof(s) ? st->sz : sizeof(s));
	return 0;
}
