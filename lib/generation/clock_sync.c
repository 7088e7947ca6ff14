// SPDX-License-Identifier: LGPL-2.1 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * Guest time to host time, through the segment alone (the exchange is in
 * include/uapi/linux/ivring.h, "Clock synchronisation").
 *
 * A burst: one request, which waits for the guest's poller (a sleep, since
 * the poller looks every few milliseconds), then IVR_SYNC_ROUNDS requests
 * in a row while the poller spins, each a round trip of microseconds.  The
 * burst keeps its sample with the shortest round trip: guest time g was
 * host time (t1 + t2) / 2 within (t2 - t1) / 2, whatever the guest or the
 * host were doing meanwhile, since the guest read g after it saw t1's
 * request and before t2 saw its answer.
 *
 * Between two bursts' samples the offset is interpolated, and outside
 * them extrapolated with the drift (base/clock_map.c).  The guest is
 * hostile: its answers are checked against our own
 * request numbers and must keep its clock going forward, but a guest that
 * lies about its time can only misplace its own events.
 *
 * The samples belong to this handle's generation and to this host: a new
 * generation (a reboot, perhaps) starts a new series, and a live migration
 * starts a new reader on the destination with none.  So no series ever
 * mixes two hosts' clocks.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "generation/generation.h"

#define IVR_SYNC_ROUNDS		8
/* How long a request spins for its answer before it naps. */
#define IVR_SYNC_SPIN_NS	1000000ULL
/*
 * The longest nap while waiting: well inside the 200 us for which the
 * guest's poller spins after an answer, so that the next request still
 * finds it spinning.
 */
#define IVR_SYNC_NAP_NS		50000ULL
#define IVR_SYNC_SAMPLES_MAX	65536
/*
 * A burst whose best round trip is this much worse than the best one seen
 * (its bound, times 4, plus 20 us) is not kept while the last sample kept
 * is younger than IVR_SYNC_STALE_NS, unless the samples kept, extrapolated
 * to its time, bound the offset there less well: a guest that was busy,
 * or a vCPU that was not running, must not widen the bound of events near
 * it, but the bound far from every sample, before the drift is measured
 * above all, is wider still.
 */
#define IVR_SYNC_POOR_SLACK_NS	20000ULL
#define IVR_SYNC_STALE_NS	10000000000ULL
/*
 * A burst's wait after a guest answered a request left posted: its module
 * then looks every 50 ms (sync_poll_ms) for 10 s.
 */
#define IVR_SYNC_ANSWERED_MS	200

/* A handle's samples, made at its first burst. */
struct ivr_sync {
	u64 seq;			/* the last request's number */
	u64 posted;			/* a request left unanswered, or 0 */
	u64 generation;			/* the samples' */
	struct ivr_sync_sample *s;	/* the best of each burst, in order */
	u32 nr, cap;
	u64 best_rtt;
	u64 bursts, timeouts, refused, poor;
};

/* What a handle that never asked has. */
static const struct ivr_sync no_sync;

static const struct ivr_sync *sync_of(const struct ivring *r)
{
	return r->sync ? r->sync : &no_sync;
}

static void nap(u64 ns)
{
	struct timespec ts = { 0, (long)ns };

	nanosleep(&ts, NULL);
}

/* A new request, for the guest's poller to answer: its number. */
static u64 post(struct ivring *r)
{
	u64 seq = ++r->sync->seq;

	if (!seq)
		seq = ++r->sync->seq;
	r->sync->posted = seq;
	ivr_store_release(&ivr_host(r)->sync_seq, seq);
	return seq;
}

/*
 * One request and its answer, waited for @wait_ns at most: spinning for
 * the first IVR_SYNC_SPIN_NS, then napping.  True with *s filled when the
 * answer came.
 */
static bool round_trip(struct ivring *r, u64 wait_ns, struct ivr_sync_sample *s)
{
	const struct ivring_header *h = ivr_live_header(r);
	u64 seq, t1, t2, now, back = 5000;

	/* t1 before the request is out: the guest reads its clock after. */
	t1 = ivr_clock_ns(CLOCK_MONOTONIC);
	seq = post(r);
	for (;;) {
		/* Paired with the writer's release of seq after guest_ns. */
		if (ivr_load_acquire(&h->sync.seq) == seq)
			break;
		now = ivr_clock_ns(CLOCK_MONOTONIC);
		if (now - t1 >= wait_ns)
			return false;
		if (now - t1 >= IVR_SYNC_SPIN_NS) {
			nap(back);
			back = back < IVR_SYNC_NAP_NS ? back * 2 : back;
		}
	}
	s->guest = ivr_load(&h->sync.guest_ns);
	t2 = ivr_clock_ns(CLOCK_MONOTONIC);
	s->real_off = ivr_realtime_offset();
	s->host = t1 + (t2 - t1) / 2;
	s->rtt = t2 - t1;
	return true;
}

static bool poor(const struct ivr_sync *y, const struct ivr_sync_sample *s)
{
	return s->rtt > 4 * y->best_rtt + IVR_SYNC_POOR_SLACK_NS;
}

/*
 * Samples kept only for want of better ones (the first of a busy start,
 * say) go once a better one is here: interpolated, they would widen the
 * bound around them more than the better one's drift, extrapolated, does.
 */
static void drop_poor(struct ivr_sync *y)
{
	u32 i, n = 0;

	/* Not the newest: it may be kept because nothing better is recent. */
	for (i = 0; i < y->nr; i++)
		if (i == y->nr - 1 || !poor(y, &y->s[i]))
			y->s[n++] = y->s[i];
	y->nr = n;
}

/*
 * Whether @s, later than every sample kept, bounds the offset at its time
 * better than they do, extrapolated: their bound grows with the distance
 * by the drift's uncertainty, 500 us a second before two samples a second
 * apart measure it.
 */
static bool narrows(const struct ivr_sync *y, const struct ivr_sync_sample *s)
{
	u64 bound;
	s64 off;

	ivr_clock_outside(y->s, y->nr, false, s->guest, &off, &bound);
	return s->rtt / 2 < bound;
}

/* Keep @s, the best of a burst, in guest time order; false if not kept. */
static bool add_sample(struct ivring *r, const struct ivr_sync_sample *s)
{
	struct ivr_sync *y = r->sync;
	const struct ivr_sync_sample *last = y->nr ? &y->s[y->nr - 1] : NULL;
	u32 i;

	/* An honest guest's clock goes on as ours does, and no faster. */
	if (last && (s->guest <= last->guest || s->host <= last->host ||
		     s->guest - last->guest > 2 * (s->host - last->host) + s->rtt)) {
		y->refused++;
		return false;
	}
	if (last && poor(y, s) && s->host - last->host < IVR_SYNC_STALE_NS &&
	    !narrows(y, s)) {
		y->poor++;
		return false;
	}
	if (y->nr == y->cap) {
		if (y->cap == IVR_SYNC_SAMPLES_MAX) {
			/* Thin the past: every other sample, the first kept. */
			for (i = 0; 2 * i < y->nr; i++)
				y->s[i] = y->s[2 * i];
			y->nr = i;
		} else {
			u32 cap = y->cap ? 2 * y->cap : 64;
			struct ivr_sync_sample *p = realloc(y->s, cap * sizeof(*p));

			if (!p)
				return false;
			y->s = p;
			y->cap = cap;
		}
	}
	y->s[y->nr++] = *s;
	if (!y->best_rtt || s->rtt < y->best_rtt)
		y->best_rtt = s->rtt;
	/*
	 * A slow sample kept for narrowing stays until a good one comes: a
	 * busy guest's series is then of slow samples a second apart, each
	 * with its own bound, not the first and the newest alone.
	 */
	if (!poor(y, s))
		drop_poor(y);
	return true;
}

static int sync_mapped(struct ivring *r, void *arg)
{
	u64 timeout = *(const int *)arg * 1000000ULL, t0, spent;
	struct ivr_sync_sample s, best = { .rtt = 0 };
	u32 n = 0;

	/*
	 * Not ivr_begin_call(): a new generation is for the caller's next
	 * ivring__next() to report; until then, no sample.
	 */
	if (!r->attached ||
	    ivr_load_acquire(&ivr_live_header(r)->generation) !=
		    r->hdr.generation)
		return 0;
	if (ivr_live_state(r) != IVRING_STATE_LIVE)
		return ivr_err(r, -EPIPE, "%s: the guest's writer is not running: no clock to ask",
			       r->path);
	if (r->sync->generation != r->hdr.generation) {
		/* Another generation may be another boot: a new series. */
		r->sync->nr = 0;
		r->sync->best_rtt = 0;
		r->sync->posted = 0;
		r->sync->generation = r->hdr.generation;
	}
	/*
	 * Waiting for nothing: a burst only when the guest answered the
	 * request left posted, and is looking often; else ask, and go.
	 */
	if (!timeout) {
		if (!r->sync->posted) {
			post(r);
			return 0;
		}
		if (ivr_load_acquire(&ivr_live_header(r)->sync.seq) !=
		    r->sync->posted)
			return 0;
		timeout = IVR_SYNC_ANSWERED_MS * 1000000ULL;
	}
	r->sync->bursts++;
	/*
	 * The first answer comes at the poller's next look, the others at
	 * once while it spins; one that comes late, after the poller stopped
	 * spinning, waits for its next look again, within @timeout_ms in all.
	 */
	t0 = ivr_clock_ns(CLOCK_MONOTONIC);
	while (n < 1 + IVR_SYNC_ROUNDS) {
		spent = ivr_clock_ns(CLOCK_MONOTONIC) - t0;
		if (spent >= timeout || !round_trip(r, timeout - spent, &s))
			break;
		if (!n++ || s.rtt < best.rtt)
			best = s;
	}
	/*
	 * Unanswered, the request stays posted: the guest's poller answers it
	 * at its next look (within a second), and looks every 50 ms from
	 * then on, which the next burst finds.
	 */
	if (!n) {
		r->sync->timeouts++;
		return 0;
	}
	/* The end of the burst: the guest's poller stops spinning. */
	r->sync->posted = 0;
	ivr_store_release(&ivr_host(r)->sync_seq, 0);
	return add_sample(r, &best);
}

int ivring__clock_sync(struct ivring *r, int timeout_ms)
{
	if (!r || timeout_ms < 0)
		return -EINVAL;
	if (r->peek)
		return ivr_err(r, -EPERM, "%s: a snapshot handle writes nothing to the segment, so it cannot ask the guest for its clock",
			       r->path);
	if (!(r->hdr.flags & IVRING_F_CLOCK_SYNC))
		return ivr_err(r, -EOPNOTSUPP, "%s: the guest's writer does not answer clock requests (ABI %u.%u; ivring.ko before 1.3?)",
			       r->path, r->hdr.abi_major, r->hdr.abi_minor);
	if (!r->sync) {
		r->sync = calloc(1, sizeof(*r->sync));
		if (!r->sync)
			return ivr_err(r, -ENOMEM, "out of memory for clock samples");
		if (getrandom(&r->sync->seq, sizeof(r->sync->seq), 0) < 0)
			r->sync->seq = ivr_mono_ns();
	}
	return ivr_guarded(r, sync_mapped, &timeout_ms);
}

int ivring__clock_host(struct ivring *r, uint64_t guest_ns, unsigned int clock,
		       uint64_t *host_ns, uint64_t *bound_ns)
{
	const struct ivr_sync *y;
	s64 off;
	u32 lo;
	u64 bound;

	if (!r || !host_ns ||
	    (clock != IVRING_HOST_MONOTONIC && clock != IVRING_HOST_REALTIME))
		return -EINVAL;
	y = sync_of(r);
	if (!y->nr || y->generation != r->hdr.generation)
		return ivr_err(r, -ENODATA, "%s: no clock sample of this generation yet (ivring__clock_sync())",
			       r->path);
	lo = ivr_clock_map(y->s, y->nr, guest_ns, &off, &bound);
	*host_ns = guest_ns + off;
	if (clock == IVRING_HOST_REALTIME)
		*host_ns += y->s[lo].real_off;
	if (bound_ns)
		*bound_ns = bound;
	return 0;
}

int ivring__clock_info(struct ivring *r, struct ivring_clock_info *ci)
{
	struct ivring_clock_info i = { .sz = sizeof(i) };
	const struct ivr_sync *y;
	double span;

	if (!r || !ci || ci->sz < sizeof(ci->sz))
		return -EINVAL;
	y = sync_of(r);
	i.bursts = y->bursts;
	i.timeouts = y->timeouts;
	i.refused = y->refused;
	i.poor = y->poor;
	if (y->nr && y->generation == r->hdr.generation) {
		const struct ivr_sync_sample *f = &y->s[0], *l = &y->s[y->nr - 1];

		i.samples = y->nr;
		i.offset_ns = (int64_t)(l->host - l->guest);
		i.last_host_ns = l->host;
		i.last_bound_ns = l->rtt / 2;
		i.best_bound_ns = y->best_rtt / 2;
		span = (double)l->guest - (double)f->guest;
		if (span > 0)
			i.drift_ppm = ((double)(s64)(l->host - l->guest) -
				       (double)(s64)(f->host - f->guest)) /
				      span * 1e6;
	}
	ivr_struct_out(ci, &i, sizeof(i));
	return 0;
}

const struct ivr_sync_sample *ivr_clock_samples(const struct ivring *r,
						u64 generation, u32 *nr)
{
	const struct ivr_sync *y = sync_of(r);

	*nr = y->generation == generation ? y->nr : 0;
	return *nr ? y->s : NULL;
}

void ivr_sync_free(struct ivring *r)
{
	if (r->sync)
		free(r->sync->s);
	free(r->sync);
	r->sync = NULL;
}
