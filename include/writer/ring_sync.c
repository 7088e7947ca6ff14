// SPDX-License-Identifier: GPL-2.0 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * Clock answers: the writer's side of the exchange that
 * include/uapi/linux/ivring.h describes ("Clock synchronisation"), and the
 * policy by which a poller answers a host's burst of requests.  ivring.ko's
 * poller (kmod/clock_sync.c), ivring-gen --answer-clock and
 * selftests/test_mt_clock_sync.c all answer through ivw_sync_poll(), so
 * that what the host library is tested against is what the guest does.
 *
 * One look (ivw_sync_poll()) costs a load and a compare.  When it finds a
 * request, it answers and spins, answering each new request at once, so
 * that the host's burst gets round trips of microseconds and not of the
 * caller's poll interval: the host's error bound is half the best round
 * trip.  It waits IVW_SYNC_FIRST_NS for the host to see the first answer
 * (the host may be napping), then IVW_SYNC_TAIL_NS after each answer, and
 * stops at once when the host ends its burst (sync_seq 0).  A burst spins
 * IVW_SYNC_BURST_NS at most and starts IVW_SYNC_GAP_NS after the last at
 * the earliest, so a host that keeps asking (the host may write anything
 * there) costs at most IVW_SYNC_BURST_NS per IVW_SYNC_GAP_NS, 1% of one
 * CPU, plus an answer per look.  How often to look is the caller's.
 */
#include "ring_writer.h"

/**
 * ivw_sync_answer() - answer the host's clock request, if there is one
 * @w:		formatted writer
 *
 * The caller serialises calls on @w (one poller).  sync_seq is loaded only
 * to compare it with 0 and with the last one answered: whatever the host
 * stores there costs at most one answer per call.
 *
 * Return: IVW_SYNC_ANSWERED if a new request was answered, IVW_SYNC_ENDED
 * if the host ended its burst (sync_seq 0), IVW_SYNC_NONE otherwise.
 */
int ivw_sync_answer(struct ivw_writer *w)
{
	/* Paired with the host's release store of it (lib/generation/clock_sync.c). */
	u64 seq = virt_load_acquire(&w->host->sync_seq);

	if (!seq)
		return IVW_SYNC_ENDED;
	if (seq == w->sync_last)
		return IVW_SYNC_NONE;
	WRITE_ONCE(w->hdr->sync.guest_ns, ivw_clock(w));
	WRITE_ONCE(w->hdr->sync.answers, ++w->sync_answers);
	/*
	 * The clock reading before the seq that says it answers; paired
	 * with the host's acquire load of sync.seq (lib/generation/clock_sync.c).
	 */
	virt_store_release(&w->hdr->sync.seq, seq);
	w->sync_last = seq;
	return IVW_SYNC_ANSWERED;
}

/*
 * Answer while requests keep coming, within one burst's limits.  Only the
 * time bounds the loop: the host's values decide nothing but whether an
 * answer is due.
 */
static void sync_burst(struct ivw_sync_poller *p, struct ivw_writer *w,
		       u64 t0)
{
	u64 now = t0, tail = t0 + IVW_SYNC_FIRST_NS;
	u64 end = t0 + IVW_SYNC_BURST_NS;
	int ret;

	while (now < tail && now < end) {
		ivw_cpu_relax();
		now = ivw_clock_policy();
		ret = ivw_sync_answer(w);
		if (ret == IVW_SYNC_ENDED)
			break;
		if (ret == IVW_SYNC_ANSWERED) {
			p->answers++;
			tail = now + IVW_SYNC_TAIL_NS;
		}
	}
	p->bursts++;
	p->next_burst = now + IVW_SYNC_GAP_NS;
}

/**
 * ivw_sync_poll() - one look for the host's clock request, and its burst
 * @p:		the poller's state, zeroed before the first look
 * @w:		formatted writer, or NULL when there is none to answer for
 *		(the look is counted all the same)
 *
 * The caller serialises calls on @p and @w, and calls again after the
 * interval of its choice.  The policy's times are the writer's own
 * CLOCK_MONOTONIC (ivw_clock_policy()), not the segment's clock, which a
 * test may drive.
 *
 * Return: IVW_SYNC_ANSWERED if this look answered a request (@p's
 * last_answer is then its time), else IVW_SYNC_NONE.
 */
int ivw_sync_poll(struct ivw_sync_poller *p, struct ivw_writer *w)
{
	u64 t0 = ivw_clock_policy();
	int ret = IVW_SYNC_NONE;

	if (w && ivw_sync_answer(w) == IVW_SYNC_ANSWERED) {
		ret = IVW_SYNC_ANSWERED;
		p->answers++;
		p->last_answer = t0;
		if (t0 >= p->next_burst)
			sync_burst(p, w, t0);
	}
	p->polls++;
	p->busy_ns += ivw_clock_policy() - t0;
	return ret;
}
