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
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>
#include <traceevent/event-parse.h>

#include "base/rec_parse.h"
#include "record/ctf.h"
#include "record/record.h"

#define EARLIER	"an earlier write failed: "

/* Every call after a failed write fails, and says which write it was. */
static int earlier_failure(struct ivring_rec *w)
{
	struct ivr_msg first = w->err;

	if (!strncmp(first.text, EARLIER, strlen(EARLIER)))
		return -EIO;
	return ivr_err(w, -EIO, EARLIER "%s", first.text);
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
		return ivr_err(w, -ENOMEM, "%s", ivring__errmsg(r));
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
		       ivr_err(w, -ENOMEM, "out of memory copying the formats");
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
		return ivr_err(w, -ENOMEM, "out of memory copying the formats");
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

/* A recording of a source's pages (source.c) has no segment to read. */
static int no_reader(struct ivring_rec *w)
{
	return ivr_err(w, -EINVAL,
		       "a recording of pages from outside a segment takes no reader");
}

/* -ESTALE, with the reason, when @r has moved past the recording's generation. */
static int same_generation(struct ivring_rec *w, struct ivring *r)
{
	if (ivr_reader_generation(r) == w->info.generation)
		return 0;
	return ivr_err(w, -ESTALE,
		       "the segment is at generation %#llx, the recording at %#llx",
		       (unsigned long long)ivr_reader_generation(r),
		       (unsigned long long)w->info.generation);
}

/*
 * Formats the guest appended to @r's segment since the recording took
 * them: each is copied, and the writer told (ops->formats), before a page
 * with its events goes to the writer.  Costs a load of the segment when
 * nothing was appended (format/area.c).  0 or -errno, with the reason.
 */
static int take_new_formats(struct ivring_rec *w, struct ivring *r)
{
	u32 from = w->nr_fmts;
	int ret;

	if (ivr_reader_generation(r) != w->info.generation)
		return 0;
	ret = ivr_reader_formats_refresh(r);
	if (ret < 0 && ivr_reader_gone(r))
		return ivr_err(w, ret, "%s", ivring__errmsg(r));
	if (ivr_reader_formats_listed(r) == w->src_listed)
		return 0;
	ret = copy_formats(w, r);
	if (ret < 0)
		return ret;
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
	if (w->from_source)
		return no_reader(w);
	if (w->failed)
		return earlier_failure(w);
	ret = same_generation(w, r);
	if (ret)
		return ret;
	ret = take_new_formats(w, r);
	if (ret && !ivr_reader_gone(r))
		w->failed = true;
	return ret;
}

/* What a recording of a source holds besides a segment's (source.c). */
static void source_free(struct ivring_rec *w)
{
	u32 i;

	if (w->tep)
		tep_free(w->tep);
	free(w->header_page);
	free(w->header_event);
	for (i = 0; i < w->nr_guests; i++) {
		free(w->guests[i].name);
		free(w->guests[i].tids);
	}
	free(w->guests);
}

void ivr_rec_free(struct ivring_rec *w)
{
	if (w->ops && w->priv)
		w->ops->free(w);
	if (w->dirfd >= 0)
		close(w->dirfd);
	source_free(w);
	free(w->path);
	free(w->name);
	free(w->hostname);
	free(w->seg_path);
	free(w->fmts);
	while (w->nr_blocks)
		free(w->blocks[--w->nr_blocks]);
	free(w->blocks);
	free(w->cpus);
	free(w);
}

int ivring__rec_clock(struct ivring_rec *w, struct ivring *r)
{
	if (!w || !r)
		return -EINVAL;
	if (w->from_source)
		return no_reader(w);
	return w->ops->clock ? w->ops->clock(w, r) : 0;
}

/* The host a relay session is filed under, and the replies' timeout. */
static int relay_names(struct ivring_rec *w, const struct ivring_rec_opts *o)
{
	char host[HOST_NAME_MAX + 1];

	if (!o->hostname && gethostname(host, sizeof(host)))
		return ivr_err(w, -errno, "gethostname: %s", strerror(errno));
	host[HOST_NAME_MAX] = '\0';
	w->hostname = strdup(o->hostname ? o->hostname : host);
	if (!w->hostname)
		return ivr_err(w, -ENOMEM, "out of memory for a recording");
	w->timeout_ms = o->timeout_ms > INT_MAX ? INT_MAX : (int)o->timeout_ms;
	return 0;
}

int ivr_rec_setup_out(struct ivring_rec *w, const char *path,
		      const struct ivring_rec_opts *o, const char *name)
{
	const char *leaf;

	w->format = o->format;
	w->version = o->version ? o->version : 7;
	w->compression = o->compression;
	w->snapshot = o->flags & IVRING_REC_SNAPSHOT;
	w->any_dir = o->flags & IVRING_REC_ANY_DIR;
	w->trace_id = o->trace_id;
	w->peer_trace_id = o->peer_trace_id;
	while (!w->trace_id &&
	       getrandom(&w->trace_id, sizeof(w->trace_id), 0) < 0) {
		if (errno != EINTR)
			return ivr_err(w, -errno, "getrandom: %s", strerror(errno));
	}
	w->path = strdup(path);
	w->name = strdup(o->name ? o->name : name);
	w->cpus = calloc(w->info.nr_cpus ? w->info.nr_cpus : 1, sizeof(*w->cpus));
	if (!w->path || !w->name || !w->cpus)
		return ivr_err(w, -ENOMEM, "out of memory for a recording");
	/* A relay daemon's session: a URL, no file here. */
	if (w->format == IVRING_REC_CTF_RELAYD)
		return relay_names(w, o);
	/* "DIR/" is DIR: a CTF trace's path names the directory itself. */
	while (strlen(w->path) > 1 && w->path[strlen(w->path) - 1] == '/')
		w->path[strlen(w->path) - 1] = '\0';
	/* "." or "..": the directory it names, which has a parent to make it in. */
	leaf = ivr_out_leaf(w->path);
	if (w->format == IVRING_REC_CTF &&
	    (!strcmp(leaf, ".") || !strcmp(leaf, ".."))) {
		char *real = realpath(w->path, NULL);

		if (!real)
			return ivr_err(w, -errno, "%s: %s", w->path,
				       strerror(errno));
		free(w->path);
		w->path = real;
	}
	w->dirfd = ivr_out_open_dir(w, w->path);
	if (w->dirfd < 0)
		return w->dirfd;
	w->sync = ivring__fd_defers_errors(w->dirfd) > 0;
	return 0;
}

static int rec_setup(struct ivring_rec *w, struct ivring *r, const char *path,
		     const struct ivring_rec_opts *o)
{
	const char *base, *seg;
	int ret;

	w->info.sz = sizeof(w->info);
	ret = ivring__info(r, &w->info);
	if (ret)
		return ivr_err(w, ret, "%s", ivring__errmsg(r));
	seg = ivr_reader_path(r);
	base = strrchr(seg, '/');
	base = base ? base + 1 : seg;
	w->seg_path = strdup(seg);
	if (!w->seg_path)
		return ivr_err(w, -ENOMEM, "out of memory for a recording");
	ret = ivr_rec_setup_out(w, path, o, base);
	if (ret)
		return ret;
	ret = copy_formats(w, r);
	if (ret < 0)
		return ret;
	if (w->snapshot)
		ivr_reader_will_read_all(r);
	return w->ops->begin(w, r);
}

/* struct ivring_rec_opts as it first was, before flags. */
#define REC_OPTS_SZ_FIRST	offsetof(struct ivring_rec_opts, flags)

/*
 * A failed open says why where the caller looks: in opts->errbuf (since
 * 1.5), and, as before 1.5, on the reader.
 */
static int open_failed(struct ivring *r, const struct ivring_rec_opts *opts,
		       int ret, const struct ivr_msg *why)
{
	ivr_rec_say(opts, why->text);
	return ivr_reader_fail(r, ret, why->text);
}

void ivr_rec_say(const struct ivring_rec_opts *opts, const char *why)
{
	if (ivr_struct_has(opts, struct ivring_rec_opts, errbuf_len) &&
	    opts->errbuf && opts->errbuf_len)
		snprintf(opts->errbuf, opts->errbuf_len, "%s", why);
}

int ivr_rec_open_args(const struct ivring_rec_opts *opts,
		      struct ivring_rec **out)
{
	if (!out)
		return -EINVAL;
	*out = NULL;
	return !opts || opts->sz < sizeof(opts->sz) ? -EINVAL : 0;
}

/* Options that this library can do: 0, or -EINVAL with the reason. */
static int check_opts(const struct ivring_rec_opts *o, struct ivr_msg *why)
{
	if (o->format != IVRING_REC_TRACE_DAT && o->format != IVRING_REC_CTF &&
	    o->format != IVRING_REC_CTF_RELAYD)
		return ivr_msg_set(why, -EINVAL,
				   "ivring__rec_open: unknown format %u",
				   o->format);
	if (o->flags & ~(IVRING_REC_SNAPSHOT | IVRING_REC_ANY_DIR))
		return ivr_msg_set(why, -EINVAL,
				   "ivring__rec_open: unknown flags %#x",
				   o->flags & ~(IVRING_REC_SNAPSHOT |
						IVRING_REC_ANY_DIR));
	if (o->format == IVRING_REC_TRACE_DAT && o->version &&
	    o->version != 6 && o->version != 7)
		return ivr_msg_set(why, -EINVAL,
				   "trace.dat version %u: only 6 and 7 are written",
				   o->version);
	if (o->compression != IVRING_REC_NO_COMPRESSION &&
	    o->compression != IVRING_REC_ZSTD)
		return ivr_msg_set(why, -EINVAL,
				   "ivring__rec_open: unknown compression %u",
				   o->compression);
	if (o->compression && o->format != IVRING_REC_TRACE_DAT)
		return ivr_msg_set(why, -EINVAL,
				   "CTF 1.8 has no compression: only a trace.dat is compressed");
	if (o->compression && o->version == 6)
		return ivr_msg_set(why, -EINVAL,
				   "trace.dat version 6 has no compression: only version 7 is compressed");
	return 0;
}

int ivr_rec_take_opts(struct ivring_rec_opts *o,
		      const struct ivring_rec_opts *opts, struct ivr_msg *why)
{
	/* A program built against an older header: its fields, then zeros. */
	if (ivr_struct_in(o, sizeof(*o), opts, REC_OPTS_SZ_FIRST))
		return ivr_msg_set(why, -EINVAL, opts->sz < REC_OPTS_SZ_FIRST ?
				   "ivring__rec_open: options too short" :
				   "ivring__rec_open: unknown options");
	return check_opts(o, why);
}

int ivring__rec_open(struct ivring *r, const char *path,
		     const struct ivring_rec_opts *opts, struct ivring_rec **out)
{
	struct ivring_rec_opts o;
	struct ivring_rec *w;
	struct ivr_msg why;
	int ret;

	if (ivr_rec_open_args(opts, out))
		return -EINVAL;
	if (!r || !path || !*path) {
		ivr_msg_set(&why, -EINVAL, "ivring__rec_open: %s",
			    !r ? "no reader" : "no path to record into");
		ivr_rec_say(opts, why.text);
		return r ? ivr_reader_fail(r, -EINVAL, why.text) : -EINVAL;
	}
	ret = ivr_rec_take_opts(&o, opts, &why);
	if (ret)
		return open_failed(r, opts, ret, &why);
	w = calloc(1, sizeof(*w));
	if (!w) {
		ivr_msg_set(&why, -ENOMEM, "out of memory for a recording");
		return open_failed(r, &o, -ENOMEM, &why);
	}
	w->dirfd = -1;
	w->ops = o.format == IVRING_REC_TRACE_DAT ? &ivr_rec_tracedat_ops :
						    &ivr_rec_ctf_ops;
	w->ctf_sink = o.format == IVRING_REC_CTF_RELAYD ? &ctf_relay_sink :
							  &ctf_files_sink;
	ret = rec_setup(w, r, path, &o);
	if (ret) {
		why = w->err;
		ivr_rec_free(w);
		return open_failed(r, &o, ret, &why);
	}
	*out = w;
	return 0;
}

static int check_page(struct ivring_rec *w, u32 cpu,
		      const struct ivring_page *pg)
{
	if (cpu >= w->info.nr_cpus)
		return ivr_err(w, -EINVAL, "CPU %u: the segment has %u",
			       cpu, w->info.nr_cpus);
	if (w->failed)
		return earlier_failure(w);
	/*
	 * A snapshot holds what the segment held when it was taken: as many
	 * pages of a CPU as the segment has sub-buffers, whatever the guest
	 * writes meanwhile (a trace.dat is written in place to that bound).
	 */
	if (w->snapshot && w->cpus[cpu].pages >= w->info.nr_subbufs)
		return ivr_err(w, -ENOBUFS,
			       "CPU %u: a snapshot holds %u pages of it, as many as the segment has sub-buffers",
			       cpu, w->info.nr_subbufs);
	if (!pg)
		return 0;
	if (!ivr_struct_has(pg, struct ivring_page, data))
		return -EINVAL;
	if (pg->size != w->info.subbuf_size || pg->len > pg->size - 16)
		return ivr_err(w, -EINVAL,
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
		if (!w->event_types ||
		    w->event_types[ev.type / 8] & (1 << (ev.type % 8)))
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
	u8 *slot;
	int ret;

	/* The fields it fills, as ivring__read_page() asks of a page. */
	if (!w || !r || !pg ||
	    !ivr_struct_has(pg, struct ivring_page, data))
		return -EINVAL;
	if (w->from_source)
		return no_reader(w);
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
		if (ret && !ivr_reader_gone(r))
			goto failed;
		ret = ivring__rec_page(w, cpu, pg);
		return ret ? ret : 1;
	}
	ret = w->ops->slot(w, cpu, &slot);
	if (ret) {
		/* A full snapshot goes on; a write that failed does not. */
		if (ret != -ENOBUFS)
			w->failed = true;
		return ret;
	}
	ret = ivr_reader_read_page(r, cpu, pg, flags, slot,
				   w->ops->event ? event_hook : NULL, w,
				   w->event_types);
	if (ret <= 0)
		goto read_failed;
	ret = take_new_formats(w, r);
	if (ret && !ivr_reader_gone(r))
		goto failed;
	ret = check_page(w, cpu, pg);
	if (!ret)
		ret = counted(w, cpu, pg, w->ops->put(w, cpu, pg));
	return ret ? ret : 1;

read_failed:
	if (ret < 0)
		ivr_err(w, ret, "%s", ivring__errmsg(r));
	return ret;
failed:
	/* A reader that died is not a write that failed: close still works. */
	if (!ivr_reader_gone(r))
		w->failed = true;
	return ret;
}

int ivring__rec_lost(struct ivring_rec *w, unsigned int cpu, uint64_t lost)
{
	int ret;

	if (!w)
		return -EINVAL;
	if (cpu >= w->info.nr_cpus)
		return ivr_err(w, -EINVAL, "no CPU %u in a recording of %u",
			       cpu, w->info.nr_cpus);
	if (w->failed)
		return earlier_failure(w);
	if (!w->ops->lost)
		return 0;
	if (!lost)
		return 1;
	ret = w->ops->lost(w, cpu, lost);
	if (ret) {
		w->failed = true;
		return ret;
	}
	w->cpus[cpu].lost += lost;
	return 1;
}

int ivring__rec_flush(struct ivring_rec *w)
{
	int ret;

	if (!w)
		return -EINVAL;
	if (w->failed)
		return earlier_failure(w);
	ret = w->ops->flush(w);
	/*
	 * A relay daemon out of reach: the pages wait for it (libivring.h),
	 * unless this is a snapshot, which is over at once.
	 */
	if (ret && (ret != -ENOTCONN || w->snapshot))
		w->failed = true;
	return ret;
}

int ivring__rec_beacon(struct ivring_rec *w)
{
	int ret;

	if (!w)
		return -EINVAL;
	if (w->failed)
		return earlier_failure(w);
	if (!w->ops->beacon)
		return 0;
	ret = w->ops->beacon(w);
	if (ret && (ret != -ENOTCONN || w->snapshot))
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
		snprintf(errbuf, errbuf_len, "%s", w->err.text);
	ivr_rec_free(w);
	return ret;
}

const char *ivring__rec_errmsg(const struct ivring_rec *w)
{
	return w ? w->err.text : "no recording";
}

int ivring__rec_stats(const struct ivring_rec *w, struct ivring_rec_stats *st)
{
	struct ivring_rec_stats s = { .sz = sizeof(s) };
	u32 cpu;

	if (!w || !st || st->sz < sizeof(st->sz))
		return -EINVAL;
	s.bytes = w->meta_bytes;
	for (cpu = 0; cpu < w->info.nr_cpus; cpu++) {
		s.pages += w->cpus[cpu].pages;
		s.events += w->cpus[cpu].events;
		s.lost += w->cpus[cpu].lost;
		s.bytes += w->cpus[cpu].bytes;
	}
	ivr_struct_out(st, &s, sizeof(s));
	return 0;
}
