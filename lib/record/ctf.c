// SPDX-License-Identifier: LGPL-2.1 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * CTF 1.8 traces: the metadata (ctf_meta.c) and one stream per CPU, which
 * go to a directory (ctf_files.c) or to LTTng's relay daemon
 * (ctf_relay.c).  Each ivring page becomes one CTF packet, its records
 * transcoded into the layout that ctf_meta.c describes.
 *
 * CTF cannot carry ftrace's records as they are (their fields sit at
 * offsets the format names, with __data_loc words pointing further in), so
 * this recorder decodes, unlike the trace.dat one.  The records are the
 * guest's: nothing outside a record is read, and what a record becomes is
 * bounded by its size as base/out_bound.h says, whatever its format says.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/clock_map.h"
#include "base/out_bound.h"
#include "base/rec_parse.h"
#include "record/ctf.h"

#define FLUSH_AT	(1U << 20)	/* a stream's bytes held before a write */

static int stream_reserve(struct ivring_rec *w, struct ctf_stream *s,
			  size_t more)
{
	size_t cap = s->cap ? s->cap : 65536;
	u8 *p;

	if (s->len + more <= s->cap)
		return 0;
	while (cap < s->len + more)
		cap *= 2;
	p = realloc(s->buf, cap);
	if (!p)
		return ivr_err(w, -ENOMEM, "out of memory for a CTF packet");
	s->buf = p;
	s->cap = cap;
	return 0;
}

static void put(struct ctf_stream *s, const void *src, size_t len)
{
	memcpy(s->buf + s->len, src, len);
	s->len += len;
}

static void put32(struct ctf_stream *s, u32 v) { put(s, &v, 4); }
static void put64(struct ctf_stream *s, u64 v) { put(s, &v, 8); }

/* @len bytes of the payload from @off, zeros for what the record lacks. */
static void put_clamped(struct ctf_stream *s, const u8 *data, u32 size,
			u32 off, u32 len)
{
	u32 have = off < size ? size - off : 0;

	if (have > len)
		have = len;
	put(s, data + off, have);
	memset(s->buf + s->len, 0, len - have);
	s->len += len - have;
}

/*
 * Where a __data_loc (or __rel_loc) field's data lies: the word says
 * offset | length << 16, and both are the guest's to lie about.  Data that
 * does not lie wholly inside the record is left out, as libtraceevent
 * leaves it out of ivring-read's text: an empty string, an empty sequence.
 */
static u32 data_loc(const struct ctf_field *f, const u8 *data, u32 size,
		    u32 *len)
{
	u32 loc, off;

	*len = 0;
	if (f->offset > size || size - f->offset < 4)
		return 0;
	memcpy(&loc, data + f->offset, 4);
	off = (loc & 0xffff) + (f->rel ? f->offset + 4 : 0);
	if (off > size || loc >> 16 > size - off)
		return 0;
	*len = loc >> 16;
	return off;
}

/* The text of @len bytes at @p, up to a NUL if it has one, as a CTF string. */
static void put_string(struct ctf_stream *s, const u8 *p, u32 len)
{
	const u8 *nul = memchr(p, 0, len);

	if (nul)
		len = nul - p;
	put(s, p, len);
	s->buf[s->len++] = 0;
}

/*
 * One field of a record of @size bytes at @data.  @budget is what the
 * record's __data_loc fields may still name (base/out_bound.h): one that
 * names more is empty.
 */
static void put_field(struct ctf_stream *s, const struct ctf_field *f,
		      const u8 *data, u32 size, u32 *budget)
{
	u32 off, len;

	switch (f->kind) {
	case CTF_INT:
	case CTF_ARRAY:
		put_clamped(s, data, size, f->offset, f->size);
		break;
	case CTF_CHARS:
		off = f->offset < size ? f->offset : size;
		put_string(s, data + off,
			   size - off < f->size ? size - off : f->size);
		break;
	case CTF_STRING:
		off = data_loc(f, data, size, &len);
		if (!ivr_dyn_take(budget, len))
			len = 0;
		put_string(s, data + off, len);
		break;
	case CTF_SEQ:
		off = data_loc(f, data, size, &len);
		if (!ivr_dyn_take(budget, len))
			len = 0;
		len -= len % f->elem;
		put32(s, len / f->elem);
		put(s, data + off, len);
		break;
	}
}

/*
 * The most bytes an event of @cl with @size bytes of payload takes: the
 * header, the fixed fields (cl->span), 5 bytes a field for counts and
 * NULs, and the data the fields name (no more than @size, put_field()'s
 * budget); or the unknown event's.
 */
static size_t event_max(const struct ctf_class *cl, u32 size)
{
	size_t n = 12 + 2 + 4 + size;

	if (cl)
		n += cl->span + 5 * (size_t)cl->nr;
	return n;
}

static int put_event(struct ivring_rec *w, struct ctf *c,
		     struct ctf_stream *s, const struct ivring_event *ev)
{
	u32 idx = c->class_of[ev->type];
	const struct ctf_class *cl = idx ? &c->classes[idx - 1] : NULL;
	const u8 *data = ev->data;
	u32 i, budget = ev->size;
	int ret;

	/*
	 * A field that a record is too short for reads as zeros, as
	 * ivring-read shows it; but a guest that writes 8-byte records of a
	 * type whose format has 64 KiB of fields would make each one 8,000
	 * times bigger.  One that could pass IVR_OUT_MAX keeps its bytes as
	 * they are, under the unknown event.
	 */
	if (cl && event_max(cl, ev->size) > IVR_OUT_MAX(ev->size))
		cl = NULL;
	ret = stream_reserve(w, s, event_max(cl, ev->size));
	if (ret)
		return ret;
	put32(s, cl ? ev->type : CTF_ID_UNKNOWN);
	put64(s, s->last_ts);
	if (!cl) {
		put(s, &ev->type, 2);
		put32(s, ev->size);
		put(s, data, ev->size);
		return 0;
	}
	for (i = 0; i < cl->nr; i++)
		put_field(s, &c->fields[cl->first + i], data, ev->size,
			  &budget);
	return 0;
}

/* Start a packet at the end of @s's buffer; its offset there. */
static int packet_open(struct ivring_rec *w, struct ctf_stream *s,
		       size_t *start)
{
	int ret = stream_reserve(w, s, CTF_PKT_START + 8);

	if (ret)
		return ret;
	*start = s->len;
	memset(s->buf + s->len, 0, CTF_PKT_START);
	s->len += CTF_PKT_START;
	return 0;
}

/* Fill in the header and context of the packet at @start, now complete. */
static void packet_close(struct ctf *c, struct ctf_stream *s, u32 cpu,
			 size_t start, u64 begin, u64 end)
{
	u64 content = s->len - start, size = (content + 7) & ~7ULL;
	u8 *p = s->buf + start;
	u32 magic = CTF_MAGIC, zero = 0;
	u64 v[6] = { begin, end, content * 8, size * 8, s->seq_num++,
		     s->discarded };
	u64 instance = cpu;

	/* The room for the padding came with the packet's reservation. */
	memset(s->buf + s->len, 0, size - content);
	s->len = start + size;
	memcpy(p, &magic, 4);
	memcpy(p + 4, c->uuid, 16);
	memcpy(p + 20, &zero, 4);
	memcpy(p + 24, &instance, 8);
	memcpy(p + CTF_PKT_HDR, v, sizeof(v));
	memcpy(p + CTF_PKT_HDR + sizeof(v), &cpu, 4);
}

/*
 * The packet that @cpu's pages go on filling (a sink with pack), closed:
 * a loss, a write, or the size ends it.
 */
static int close_open(struct ivring_rec *w, u32 cpu)
{
	struct ctf *c = w->priv;
	struct ctf_stream *s = &c->streams[cpu];
	int ret;

	if (!s->is_open)
		return 0;
	/* put_event() reserved nothing for the padding. */
	ret = stream_reserve(w, s, 8);
	if (ret)
		return ret;
	packet_close(c, s, cpu, s->open_at, s->open_begin, s->last_ts);
	s->is_open = false;
	return 0;
}

int ctf_stream_write(struct ivring_rec *w, u32 cpu)
{
	struct ctf *c = w->priv;
	struct ctf_stream *s = &c->streams[cpu];
	int ret;
	size_t had;

	ret = close_open(w, cpu);
	if (ret)
		return ret;
	had = s->len;
	if (!s->len)
		return 0;
	/* A sink may take some packets and keep the rest (ctf_relay.c). */
	ret = c->sink->write(w, c, cpu);
	w->cpus[cpu].bytes += had - (ret ? s->len : 0);
	if (ret)
		return ret;
	s->len = 0;
	/*
	 * One page of a hostile guest's tiny records may grow the buffer
	 * to many MiB (IVR_OUT_MAX): not kept past the write.
	 */
	if (s->cap > 2 * FLUSH_AT) {
		free(s->buf);
		s->buf = NULL;
		s->cap = 0;
	}
	return 0;
}

/*
 * Guest time @ts as the trace's clock counts it.  Once the clock is the
 * host's (ctf_clock()), its offset is the one at the sample it was taken
 * at, and each event's own, interpolated between the samples around it or
 * extrapolated with the drift, is applied on top: so the drift is applied
 * per event, as ivring-read --clock prints it, and the offset of the
 * clock is not the whole mapping.  Before, the guest's time: read with
 * the offset that came later, as trace-cmd applies a first sample to the
 * events before it.
 */
static u64 ctf_time(const struct ctf *c, u64 ts)
{
	u64 bound;
	s64 off;

	if (!c->host_time || !c->map_nr)
		return ts;
	ivr_clock_map(c->map, c->map_nr, ts, &off, &bound);
	return ts + ((u64)off - (u64)c->map_base);
}

static int ctf_page(struct ivring_rec *w, u32 cpu, const struct ivring_page *pg)
{
	struct ctf *c = w->priv;
	struct ctf_stream *s = &c->streams[cpu];
	const u8 *rec = (const u8 *)pg->data + sizeof(struct ivring_subbuf_hdr);
	struct ivring_subbuf_hdr h;
	struct ivring_event ev;
	u64 ts, begin;
	u32 off = 0, end;
	size_t start;
	int ret;

	ret = c->sink->use ? c->sink->use(w, c, cpu) : 0;
	if (ret)
		return ret;
	/* A loss shows between two packets: it ends the one being filled. */
	if (s->is_open && (pg->lost || s->len - s->open_at >= c->sink->pack)) {
		ret = close_open(w, cpu);
		if (ret)
			return ret;
		/* Full, it goes out now; what the sink keeps, the flush sends. */
		if (c->sink->pack && c->sink->at_flush)
			ctf_stream_write(w, cpu);
	}
	memcpy(&h, pg->data, sizeof(h));
	begin = ctf_time(c, h.time_stamp);
	if (begin < s->last_ts)
		begin = s->last_ts;
	/*
	 * babeltrace2 reports the events lost between two packets from the
	 * difference of their events_discarded; a loss before the first
	 * packet needs an empty packet before it to show.
	 */
	if (pg->lost && !s->seq_num) {
		ret = packet_open(w, s, &start);
		if (ret)
			return ret;
		packet_close(c, s, cpu, start, begin, begin);
	}
	s->discarded += pg->lost;
	s->last_ts = begin;
	if (!s->is_open) {
		ret = packet_open(w, s, &s->open_at);
		if (ret)
			return ret;
		s->open_begin = begin;
		s->is_open = true;
	}
	ts = h.time_stamp;
	while (ivr_rec_parse(rec, pg->len, &off, &ts, &ev, &end) > 0) {
		u64 t = ctf_time(c, ev.ts);

		/*
		 * Time never goes back within a CTF stream; a guest's may, and
		 * a new sample may move the mapping back by its bound.
		 */
		if (t > s->last_ts)
			s->last_ts = t;
		ret = put_event(w, c, s, &ev);
		if (ret)
			return ret;
		off = end;
		ts = ev.ts;
	}
	/* Each page a packet, unless the sink packs them. */
	if (!c->sink->pack) {
		ret = close_open(w, cpu);
		if (ret)
			return ret;
	}
	return s->len >= FLUSH_AT && !c->sink->at_flush ?
	       ctf_stream_write(w, cpu) : 0;
}

/*
 * After the stream's last packet, one with no event whose events_discarded
 * counts @lost more: babeltrace2 reports them as discarded between the
 * two.  A stream with no packet yet gets an empty one before it, as
 * ctf_page() does for a loss before its first page, at the time the
 * recording's other CPUs reached.
 */
static int ctf_lost(struct ivring_rec *w, u32 cpu, u64 lost)
{
	struct ctf *c = w->priv;
	struct ctf_stream *s = &c->streams[cpu];
	size_t start;
	u32 i;
	int ret;

	ret = c->sink->use ? c->sink->use(w, c, cpu) : 0;
	if (!ret)
		ret = close_open(w, cpu);
	if (ret)
		return ret;
	if (!s->seq_num) {
		for (i = 0; i < w->info.nr_cpus; i++)
			if (c->streams[i].last_ts > s->last_ts)
				s->last_ts = c->streams[i].last_ts;
		ret = packet_open(w, s, &start);
		if (ret)
			return ret;
		packet_close(c, s, cpu, start, s->last_ts, s->last_ts);
	}
	s->discarded += lost;
	ret = packet_open(w, s, &start);
	if (ret)
		return ret;
	packet_close(c, s, cpu, start, s->last_ts, s->last_ts);
	return 0;
}

int ctf_empty_packet(struct ivring_rec *w, u32 cpu, u64 ts)
{
	struct ctf *c = w->priv;
	struct ctf_stream *s = &c->streams[cpu];
	size_t start;
	int ret;

	ret = c->sink->use ? c->sink->use(w, c, cpu) : 0;
	if (!ret)
		ret = close_open(w, cpu);
	if (!ret)
		ret = packet_open(w, s, &start);
	if (ret)
		return ret;
	if (ts > s->last_ts)
		s->last_ts = ts;
	packet_close(c, s, cpu, start, s->last_ts, s->last_ts);
	return ctf_stream_write(w, cpu);
}

/*
 * ivring__rec_beacon(): no stream has an event before the newest time of
 * any.  A guest's event in flight on an idle CPU may be older than that
 * by the time it took to commit; ctf_page() then writes it at the
 * beacon's time (time never goes back within a stream).
 */
static int ctf_beacon(struct ivring_rec *w)
{
	struct ctf *c = w->priv;
	u64 ts = 0;
	u32 cpu;

	if (!c->sink->beacon)
		return 0;
	for (cpu = 0; cpu < w->info.nr_cpus; cpu++)
		if (c->streams[cpu].last_ts > ts)
			ts = c->streams[cpu].last_ts;
	/* Nothing recorded yet: no time to tell, not the clock's zero. */
	return ts ? c->sink->beacon(w, c, ts) : 0;
}

static int ctf_flush(struct ivring_rec *w)
{
	struct ctf *c = w->priv;
	u32 cpu;
	int ret;

	for (cpu = 0; cpu < w->info.nr_cpus; cpu++) {
		ret = ctf_stream_write(w, cpu);
		if (ret)
			return ret;
	}
	return c->sink->commit(w, c);
}

static int ctf_end(struct ivring_rec *w)
{
	struct ctf *c = w->priv;

	return c->sink->end ? c->sink->end(w, c) : 0;
}

/* A copy of @nr samples @src, unless it has them already. */
static int copy_samples(struct ivring_rec *w, struct ctf *c,
			const struct ivr_sync_sample *src, u32 nr)
{
	const struct ivr_sync_sample *last = &src[nr - 1];
	struct ivr_sync_sample *p;

	/* The reader appends samples, and drops others only as it does. */
	if (nr == c->map_nr && last->guest == c->map[nr - 1].guest &&
	    last->host == c->map[nr - 1].host)
		return 0;
	if (nr > c->map_cap) {
		p = realloc(c->map, nr * sizeof(*p));
		if (!p)
			return ivr_err(w, -ENOMEM, "out of memory for %u clock samples",
				       nr);
		c->map = p;
		c->map_cap = nr;
	}
	memcpy(c->map, src, nr * sizeof(*src));
	c->map_nr = nr;
	return 0;
}

/*
 * ivring__rec_clock() of a CTF trace: its clock becomes the host's
 * CLOCK_REALTIME, absolute, at the first call that finds a sample, with
 * the offset of the newest sample; each call takes the samples that the
 * events recorded after it are mapped with (ctf_time()).
 */
static int ctf_clock(struct ivring_rec *w, struct ivring *r)
{
	const struct ivr_sync_sample *smp, *last;
	struct ctf *c = w->priv;
	u32 nr;
	int ret;

	smp = ivr_reader_clock_series(r, w->info.generation, &nr);
	if (!nr)
		return 0;
	ret = copy_samples(w, c, smp, nr);
	if (ret)
		return ret;
	if (c->host_time)
		return 1;
	if (c->clock_fixed)
		return 0;
	last = &c->map[nr - 1];
	c->map_base = (s64)(last->host - last->guest);
	ret = ctf_meta_clock(w, c, (s64)((u64)c->map_base + (u64)last->real_off));
	/* A relay daemon had the metadata first: said once, then kept. */
	if (ret == -EBUSY) {
		c->clock_fixed = true;
		return ivr_err(w, ret, "%s: the guest's clock was mapped to the host's only after lttng-relayd had the trace's metadata; the trace keeps the guest's clock",
			       w->path);
	}
	return ret ? ret : 1;
}

static void ctf_free(struct ivring_rec *w)
{
	struct ctf *c = w->priv;
	u32 cpu;

	if (c->sink)
		c->sink->free(w, c);
	for (cpu = 0; c->streams && cpu < w->info.nr_cpus; cpu++)
		free(c->streams[cpu].buf);
	free(c->streams);
	free(c->fields);
	free(c->classes);
	free(c->class_of);
	free(c->meta);
	free(c->map);
	free(c);
	w->priv = NULL;
}

static int ctf_begin(struct ivring_rec *w, struct ivring *r)
{
	struct ctf *c;
	int ret;

	c = calloc(1, sizeof(*c));
	if (!c)
		return ivr_err(w, -ENOMEM, "out of memory for a CTF trace");
	w->priv = c;
	c->dirfd = -1;
	c->streams = calloc(w->info.nr_cpus, sizeof(*c->streams));
	if (!c->streams)
		return ivr_err(w, -ENOMEM, "out of memory for a CTF trace");
	c->sink = w->ctf_sink;
	ret = c->sink->open(w, c);
	if (ret)
		return ret;
	/*
	 * The metadata goes out first, so that the trace is one that
	 * babeltrace2 reads after any flush, as a live recording runs.
	 */
	ret = ctf_meta_begin(w, r, c);
	if (ret && c->sink->undo)
		c->sink->undo(w, c);
	return ret;
}

static int ctf_formats(struct ivring_rec *w, struct ivring *r, u32 from)
{
	return ctf_meta_formats(w, r, w->priv, from);
}

const struct ivr_rec_ops ivr_rec_ctf_ops = {
	.begin = ctf_begin,
	.page = ctf_page,
	.formats = ctf_formats,
	.clock = ctf_clock,
	.lost = ctf_lost,
	.flush = ctf_flush,
	.beacon = ctf_beacon,
	.end = ctf_end,
	.free = ctf_free,
};
