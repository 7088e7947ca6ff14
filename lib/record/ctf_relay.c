// SPDX-License-Identifier: LGPL-2.1 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * A CTF trace streamed to LTTng's relay daemon (ctf.h's sink): one live
 * session named after the guest, under this host's name; in it, as
 * lttng-modules lays out a kernel trace, the path "kernel" with the
 * metadata and one stream per CPU, channel0_N.  The daemon writes them to
 * OUTPUT/HOST/NAME-DATE-TIME-ID/kernel/ (ID: of the trace) and serves
 * them to live viewers.
 *
 * The metadata goes out just before the first packet, so that a clock
 * made the host's right after open (--clock host) is in it.  The daemon
 * only appends metadata: formats the guest adds later go out as a new
 * piece, each beginning with the "CTF 1.8" comment that babeltrace2
 * looks for at the start of every piece it fetches.  A clock that would
 * change after that cannot: the trace keeps the guest's (ctf_clock()).
 *
 * A flush returns 0 only once the daemon has written every packet sent,
 * data and index: DATA_PENDING (relay.c) for each stream that sent one.
 *
 * A connection that fails (the daemon restarts, the network drops) is
 * made again, no more often than a back-off allows, as a new session of
 * the same name whose directory is the first one's with ".N" appended
 * (N goes up only past a session that sent a packet);
 * the trace goes on in it with the same UUID and metadata, and each
 * stream's packet_seq_num goes on, so that babeltrace2 reads the
 * directories as one trace.  Packets that were sent but not proven
 * written may or may not be in the old directory: they are never sent
 * again, and one that is not there leaves a gap in packet_seq_num, which
 * babeltrace2 reports as discarded packets (include/DESIGN, section 7).
 * Packets not sent yet wait in their buffers, and the reader commits
 * nothing meanwhile.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "record/ctf.h"
#include "record/relay.h"

#define RELAY_PATH	"kernel"
/* Live viewers are told the timer's period; beacons come about as often. */
#define LIVE_TIMER_US	1000000
#define TIMEOUT_MS	10000
#define META_PIECE	"/* CTF 1.8 */\n"
/* Between tries to connect again: 0.1 s, twice as long each time, to 5 s. */
#define BACKOFF_MIN_NS	100000000ULL
#define BACKOFF_MAX_NS	5000000000ULL
#define BASE_MAX	240
/* A packet takes pages up to 256 KiB: the daemon's cost is per packet. */
#define PACK_BYTES	262144

struct relay_stream {
	u64 handle;
	u64 next_seq;		/* the next packet's net_seq_num */
	bool synced;		/* every packet sent is written */
	bool busy;		/* sent a packet since the last beacon */
};

struct ctf_relay {
	struct ivr_relay_dest dest;	/* looked up once, at open */
	struct ivr_relay *rl;	/* NULL while the daemon is out of reach */
	struct relay_stream *st;	/* by CPU */
	u64 meta_handle;
	char *sent;		/* the metadata that any session had */
	size_t sent_len;	/* of it, what this session has */
	size_t fixed_len;	/* of it, what no later text may change */
	char *want;		/* the newest, of which @sent is a prefix */
	size_t want_len;
	char base[BASE_MAX];	/* the first session's directory */
	u32 sessions;		/* the last one's number: BASE.N */
	bool used;		/* it sent a packet */
	u64 retry_at, backoff;	/* CLOCK_MONOTONIC ns */
	struct ivr_msg why;	/* why the daemon is out of reach */
	u64 last_packet_ns;	/* CLOCK_MONOTONIC; 0: none yet */
	u64 *handles;		/* for ivr_relay_sync(), by CPU */
	u64 *seqs;
};

static int relay_failed(struct ivring_rec *w, struct ctf_relay *cr, int ret)
{
	return ivr_err(w, ret, "%s: %s", w->path, ivr_relay_errmsg(cr->rl));
}

/*
 * The session broke: what was sent since the last proof may be in its
 * directory or not, and is not sent again; the next call connects again.
 */
static int relay_down(struct ivring_rec *w, struct ctf_relay *cr)
{
	ivr_msg_set(&cr->why, -ENOTCONN, "%s", ivr_relay_errmsg(cr->rl));
	ivr_relay_free(cr->rl);
	cr->rl = NULL;
	cr->retry_at = ivr_mono_ns();
	return ivr_err(w, -ENOTCONN, "%s: %s", w->path, cr->why.text);
}

/* A session, its streams, and the metadata to send again in full. */
static int connect_session(struct ivring_rec *w, struct ctf *c,
			   struct ctf_relay *cr)
{
	char base[BASE_MAX + 16], channel[32];
	struct ivr_relay_conf conf = {
		.dest = &cr->dest,
		.session = w->name,
		.hostname = w->hostname,
		.base_path = base,
		.live_timer_us = LIVE_TIMER_US,
		.timeout_ms = w->timeout_ms ? w->timeout_ms : TIMEOUT_MS,
	};
	struct relay_stream *st;
	u32 cpu;
	int ret;

	/* Tries that fail keep the number for the next one. */
	if (cr->used) {
		cr->sessions++;
		cr->used = false;
	}
	if (cr->sessions)
		snprintf(base, sizeof(base), "%s.%u", cr->base, cr->sessions);
	else
		snprintf(base, sizeof(base), "%s", cr->base);
	ret = ivr_relay_open(&conf, &cr->rl, &cr->why);
	if (ret)
		return ret;
	cr->sent_len = 0;
	ret = ivr_relay_add_stream(cr->rl, RELAY_PATH, "metadata",
				   &cr->meta_handle);
	for (cpu = 0; !ret && cpu < w->info.nr_cpus; cpu++) {
		st = &cr->st[cpu];
		snprintf(channel, sizeof(channel), "channel0_%u", cpu);
		ret = ivr_relay_add_stream(cr->rl, RELAY_PATH, channel,
					   &st->handle);
		st->next_seq = 0;
		st->synced = true;
		st->busy = false;
	}
	if (!ret)
		ret = ivr_relay_streams_sent(cr->rl);
	if (ret) {
		ivr_msg_set(&cr->why, ret, "%s", ivr_relay_errmsg(cr->rl));
		ivr_relay_free(cr->rl);
		cr->rl = NULL;
	}
	return ret;
}

/*
 * Connected, or -ENOTCONN: tried again once the back-off allows, which
 * grows with each try that fails.
 */
static int relay_up(struct ivring_rec *w, struct ctf *c)
{
	struct ctf_relay *cr = c->sink_priv;
	u64 now;

	/*
	 * A daemon that went away since the last call is found before a
	 * packet is sent into the void and lost in doubt.
	 */
	if (cr->rl && ivr_relay_check(cr->rl))
		relay_down(w, cr);
	if (cr->rl)
		return 0;
	now = ivr_mono_ns();
	if (now >= cr->retry_at) {
		if (!connect_session(w, c, cr)) {
			cr->backoff = 0;
			return 0;
		}
		cr->backoff = cr->backoff ? cr->backoff * 2 : BACKOFF_MIN_NS;
		if (cr->backoff > BACKOFF_MAX_NS)
			cr->backoff = BACKOFF_MAX_NS;
		cr->retry_at = now + cr->backoff;
	}
	return ivr_err(w, -ENOTCONN, "%s: %s; trying again in %.1f s",
		       w->path, cr->why.text, (cr->retry_at - now) / 1e9);
}

/*
 * The first session: not tried again if it fails, since nothing was
 * streamed yet.  Its directory is named as the daemon would name it.
 */
static int relay_open(struct ivring_rec *w, struct ctf *c)
{
	struct ctf_relay *cr;
	time_t now = time(NULL);
	struct tm tm;
	int ret;

	cr = calloc(1, sizeof(*cr));
	if (!cr)
		return ivr_err(w, -ENOMEM, "out of memory for a relay session");
	c->sink_priv = cr;
	cr->st = calloc(w->info.nr_cpus, sizeof(*cr->st));
	cr->handles = calloc(w->info.nr_cpus, sizeof(*cr->handles));
	cr->seqs = calloc(w->info.nr_cpus, sizeof(*cr->seqs));
	if (!cr->st || !cr->handles || !cr->seqs)
		return ivr_err(w, -ENOMEM, "out of memory for a relay session");
	/*
	 * The daemon truncates a stream file that it opens again: a
	 * directory must never be another recording's, even one of the same
	 * name started in the same second (by another reader, or this one
	 * restarted), so the trace's id goes into its name.
	 */
	localtime_r(&now, &tm);
	ret = snprintf(cr->base, sizeof(cr->base),
		       "%s-%04d%02d%02d-%02d%02d%02d-%06llx", w->name,
		       tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
		       tm.tm_min, tm.tm_sec,
		       (unsigned long long)(w->trace_id & 0xffffff));
	if (ret < 0 || ret >= (int)sizeof(cr->base))
		return ivr_err(w, -EINVAL, "%s: the session's name '%s' is too long",
			       w->path, w->name);
	ret = ivr_relay_resolve(w->path, &cr->dest, &cr->why);
	if (!ret)
		ret = connect_session(w, c, cr);
	return ret ? ivr_err(w, ret, "%s: %s", w->path, cr->why.text) : 0;
}

/*
 * Kept until a packet goes out (send_meta()); -EBUSY if it does not
 * extend what the daemon has.
 */
static int relay_meta(struct ivring_rec *w, struct ctf *c, const char *text,
		      size_t len, bool replace)
{
	struct ctf_relay *cr = c->sink_priv;
	char *p;

	if (len < cr->fixed_len ||
	    (cr->fixed_len && memcmp(text, cr->sent, cr->fixed_len)))
		return ivr_err(w, -EBUSY,
			       "%s: lttng-relayd has the trace's metadata already, and only appends to it",
			       w->path);
	p = malloc(len);
	if (!p)
		return ivr_err(w, -ENOMEM, "out of memory for CTF metadata");
	memcpy(p, text, len);
	free(cr->want);
	cr->want = p;
	cr->want_len = len;
	return 0;
}

/* What the daemon lacks of the newest metadata, sent. */
static int send_meta(struct ivring_rec *w, struct ctf_relay *cr)
{
	size_t head = strlen(META_PIECE), more;
	char *piece;
	int ret;

	if (cr->want_len == cr->sent_len)
		return 0;
	more = cr->want_len - cr->sent_len;
	if (!cr->sent_len) {
		ret = ivr_relay_metadata(cr->rl, cr->meta_handle, cr->want,
					 more);
	} else {
		piece = malloc(head + more);
		if (!piece)
			return ivr_err(w, -ENOMEM, "out of memory for CTF metadata");
		memcpy(piece, META_PIECE, head);
		memcpy(piece + head, cr->want + cr->sent_len, more);
		ret = ivr_relay_metadata(cr->rl, cr->meta_handle, piece,
					 head + more);
		free(piece);
	}
	if (ret)
		return relay_down(w, cr);
	piece = realloc(cr->sent, cr->want_len);
	if (!piece)
		return ivr_err(w, -ENOMEM, "out of memory for CTF metadata");
	memcpy(piece, cr->want, cr->want_len);
	cr->sent = piece;
	cr->sent_len = cr->want_len;
	cr->fixed_len = cr->want_len;
	return 0;
}

/* Connected, with every format the guest has so far: what each call needs. */
static int relay_ready(struct ivring_rec *w, struct ctf *c)
{
	int ret = relay_up(w, c);

	return ret ? ret : send_meta(w, c->sink_priv);
}

static u64 get64(const u8 *p)
{
	u64 v;

	memcpy(&v, p, 8);
	return v;
}

/*
 * Each packet of @cpu's buffer, with its index from its own context
 * (ctf_meta.c's layout, which ctf.c wrote: the sizes are ours).  If the
 * session breaks, the packets not sent stay for the next one.
 */
static int relay_write(struct ivring_rec *w, struct ctf *c, u32 cpu)
{
	struct ctf_relay *cr = c->sink_priv;
	struct relay_stream *st = &cr->st[cpu];
	struct ctf_stream *s = &c->streams[cpu];
	struct ivr_relay_index ix = { .instance_id = cpu };
	size_t off, size;
	const u8 *p;
	int ret;

	ret = relay_ready(w, c);
	if (ret)
		return ret;
	for (off = 0; off < s->len; off += size) {
		p = s->buf + off + CTF_PKT_HDR;
		ix.ts_begin = get64(p);
		ix.ts_end = get64(p + 8);
		ix.content_size = get64(p + 16);
		ix.packet_size = get64(p + 24);
		ix.seq_num = get64(p + 32);
		ix.discarded = get64(p + 40);
		size = ix.packet_size / 8;
		ret = ivr_relay_packet(cr->rl, st->handle, st->next_seq,
				       s->buf + off, size, &ix);
		if (ret) {
			memmove(s->buf, s->buf + off, s->len - off);
			s->len -= off;
			return relay_down(w, cr);
		}
		st->next_seq++;
		cr->used = true;
		st->synced = false;
		st->busy = true;
		cr->last_packet_ns = ivr_mono_ns();
	}
	return 0;
}

/* Wait until the daemon has written every packet sent. */
static int relay_commit(struct ivring_rec *w, struct ctf *c)
{
	struct ctf_relay *cr = c->sink_priv;
	u32 cpu, nr = 0;
	int ret;

	/* Formats the guest added, though no event of theirs came yet. */
	ret = relay_ready(w, c);
	if (ret)
		return ret;
	for (cpu = 0; cpu < w->info.nr_cpus; cpu++) {
		if (cr->st[cpu].synced)
			continue;
		cr->handles[nr] = cr->st[cpu].handle;
		cr->seqs[nr++] = cr->st[cpu].next_seq - 1;
	}
	if (ivr_relay_sync(cr->rl, cr->handles, cr->seqs, nr))
		return relay_down(w, cr);
	for (cpu = 0; cpu < w->info.nr_cpus; cpu++)
		cr->st[cpu].synced = true;
	return 0;
}

/*
 * Streams that sent nothing since the last call: a beacon at @ts; one that
 * has no packet in this session gets an empty one instead, since the
 * daemon keeps no beacon of a stream without a packet.
 */
static int relay_beacon(struct ivring_rec *w, struct ctf *c, u64 ts)
{
	struct ctf_relay *cr = c->sink_priv;
	struct relay_stream *st;
	u32 cpu;
	int ret;

	ret = relay_ready(w, c);
	for (cpu = 0; cpu < w->info.nr_cpus && !ret; cpu++) {
		st = &cr->st[cpu];
		if (st->busy || c->streams[cpu].len) {
			st->busy = false;
			continue;
		}
		if (!st->next_seq) {
			ret = ctf_empty_packet(w, cpu, ts);
			st->busy = false;
			continue;
		}
		/* What comes later on this stream is not before the beacon. */
		if (ts > c->streams[cpu].last_ts)
			c->streams[cpu].last_ts = ts;
		if (ivr_relay_beacon(cr->rl, st->handle, 0,
				     c->streams[cpu].last_ts))
			ret = relay_down(w, cr);
	}
	return ret;
}

/*
 * Every stream closed after its last packet; the metadata's has none.
 * babeltrace2 2.0.4's live viewer misses the last packets of a stream
 * that closes right after them (seen in test_relayd.sh: the events of
 * the last flush were missing, every time; with the streams closed a
 * second later, none was), so the streams of a recording that follows
 * its guest stay open until the last packet is a live timer's period
 * old.  A snapshot, over at once, is not waited for.
 */
static int relay_end(struct ivring_rec *w, struct ctf *c)
{
	struct ctf_relay *cr = c->sink_priv;
	u64 linger = cr->last_packet_ns + LIVE_TIMER_US * 1000ULL;
	struct timespec ts;
	struct relay_stream *st;
	u64 now = ivr_mono_ns();
	u32 cpu;
	int ret;

	/* ctf_flush() just proved every packet written, in this session. */
	if (!cr->rl)
		return ivr_err(w, -ENOTCONN, "%s: %s", w->path, cr->why.text);
	if (!w->snapshot && cr->last_packet_ns && now < linger) {
		ts.tv_sec = (linger - now) / 1000000000ULL;
		ts.tv_nsec = (linger - now) % 1000000000ULL;
		while (nanosleep(&ts, &ts) && errno == EINTR)
			;
	}
	for (cpu = 0, ret = 0; cpu < w->info.nr_cpus && !ret; cpu++) {
		st = &cr->st[cpu];
		ret = ivr_relay_close_stream(cr->rl, st->handle,
					     st->next_seq ? st->next_seq - 1 :
							    UINT64_MAX);
	}
	if (!ret)
		ret = ivr_relay_close_stream(cr->rl, cr->meta_handle,
					     UINT64_MAX);
	return ret ? relay_failed(w, cr, ret) : 0;
}

static void relay_free(struct ivring_rec *w, struct ctf *c)
{
	struct ctf_relay *cr = c->sink_priv;

	if (!cr)
		return;
	ivr_relay_free(cr->rl);
	free(cr->st);
	free(cr->handles);
	free(cr->seqs);
	free(cr->sent);
	free(cr->want);
	free(cr);
	c->sink_priv = NULL;
}

const struct ctf_sink ctf_relay_sink = {
	.at_flush = true,
	.pack = PACK_BYTES,
	.open = relay_open,
	.meta = relay_meta,
	.write = relay_write,
	.commit = relay_commit,
	.beacon = relay_beacon,
	.end = relay_end,
	.free = relay_free,
};
