// SPDX-License-Identifier: LGPL-2.1 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * Generations: each formatting of the segment (a module load, a guest boot)
 * is one, with a number of its own.  A handle reads one generation at a
 * time: it attaches cursors to it, claims it in the host area when it
 * consumes, and moves to the next one when the guest formats again.  What
 * the layers above keep per generation follows through the handle's
 * ivr_gen_ops.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "generation/generation.h"

u32 ivr_live_state(struct ivring *r)
{
	/* Read before the cursors: STOPPED comes after the last publication. */
	return ivr_load_acquire(&ivr_live_header(r)->state);
}

int ivr_attach(struct ivring *r)
{
	struct ivring_host *host = ivr_host(r);
	u64 file_id;
	bool resume;
	u32 cpu;
	int ret;

	ret = ivr_cursors_alloc(r);
	if (ret)
		return ret;

	/* A consumer of this generation left positions: continue from them. */
	resume = !r->peek && ivr_load(&host->generation) == r->hdr.generation;
	file_id = ivr_load(&host->file_id);
	r->resumed = !resume ? IVRING_RESUMED_START :
		     file_id && file_id != r->file_id ? IVRING_RESUMED_COPIED :
							IVRING_RESUMED_POSITIONS;
	r->may_repeat = 0;
	for (cpu = 0; cpu < r->ncpus; cpu++) {
		struct ivr_cpu *c = &r->cpus[cpu];
		u64 cs = ivr_load_acquire(&ivr_shared_cpu(r, cpu)->commit_seq);
		struct ivring_host_cpu *hc = ivr_host_cpu(r, cpu);
		u64 next;

		/* Ahead of the writer, a position is taken as gone, too. */
		if (resume)
			ivr_cpu_place(r, cpu, ivr_load(&hc->consumer_pos),
				      ivr_load(&hc->consumer_ticket), cs);
		else
			ivr_cpu_place(r, cpu, 0, 0, cs);
		/*
		 * A consumer owes an account of every event since the one it
		 * resumes at, or since ticket 0 when it starts with the
		 * generation.  A snapshot does not: another reader may have
		 * consumed them.
		 */
		c->ticket_known = !r->peek;
		next = ivr_cpu_next_ticket(r, cpu);
		if (r->resumed == IVRING_RESUMED_COPIED && next > c->ticket)
			r->may_repeat += next - c->ticket;
	}

	if (r->gen_ops && r->gen_ops->attach) {
		ret = r->gen_ops->attach(r);
		if (ret)
			return ret;
	}
	r->attached = true;
	return 0;
}

void ivr_claim(struct ivring *r)
{
	struct ivring_host *host = ivr_host(r);
	u32 cpu;

	if (r->peek)
		return;
	/* A claim writes them whatever the host area holds. */
	for (cpu = 0; cpu < r->ncpus; cpu++) {
		r->cpus[cpu].pos_stored = false;
		ivr_cpu_store_pos(r, cpu);
	}
	/*
	 * Positions first, then the generation that makes the guest believe
	 * them; paired with its READ_ONCE of the generation before the
	 * acquire of consumer_pos.
	 */
	ivr_store_release(&host->generation, r->hdr.generation);
	ivr_store_release(&host->reader_pid, (u32)getpid());
	ivr_store_release(&host->file_id, r->file_id);
	ivr_store_release(&host->heartbeat, ivr_mono_ns());
}

/* Safe on a handle that never attached, or whose attach failed halfway. */
void ivr_detach(struct ivring *r)
{
	if (r->gen_ops && r->gen_ops->detach)
		r->gen_ops->detach(r);
	ivr_cursors_free(r);
	r->attached = false;
}

void ivr_heartbeat(struct ivring *r)
{
	if (!r->peek && r->attached)
		ivr_store_release(&ivr_host(r)->heartbeat, ivr_mono_ns());
}

/*
 * A handle whose move failed is not attached: every call tries the move
 * again and returns its error, rather than read a generation it has no
 * cursors for.
 */
int ivr_check_generation(struct ivring *r)
{
	const struct ivring_header *live = ivr_live_header(r);
	bool loaded;
	int ret;

	if (r->attached && ivr_load_acquire(&live->magic) == IVRING_MAGIC &&
	    ivr_load(&live->generation) == r->hdr.generation &&
	    ivr_load(&live->state) != IVRING_STATE_FORMATTING)
		return 0;

	ret = ivr_load_header(r);
	loaded = !ret;
	if (ret == -EAGAIN)
		return 1;	/* mid-format: the magic comes back last */
	/*
	 * A writer clears the magic only after it has stored FORMATTING, so
	 * a segment that this handle read whose magic is gone while it is
	 * not being formatted was overwritten: damage, not a wait.
	 */
	if (ret == -ENOTTY)
		ivr_err(r, ret,
			"%s: the segment's magic was overwritten (%#llx) while the guest was not formatting it; is the segment damaged?",
			r->path, (unsigned long long)ivr_load(&live->magic));
	/* The header that failed us last time, unchanged: the same answer. */
	if (!ret && r->attach_err &&
	    !memcmp(&r->hdr, &r->failed_hdr, sizeof(r->hdr)))
		return ivr_err(r, r->attach_err, "%s", r->attach_msg);
	ivr_detach(r);
	if (!ret)
		ret = ivr_attach(r);
	if (ret) {
		ivr_detach(r);
		/* A lack of memory may pass: only a verdict on the header is kept. */
		if (ret == -ENOMEM)
			return ret;
		r->attach_err = ret;
		/*
		 * A header that loaded and that we could not attach to is
		 * the verdict to repeat while it stays; one that did not even
		 * load is compared with nothing (r->hdr is still the last
		 * good one, which must not be taken for it).
		 */
		if (loaded)
			r->failed_hdr = r->hdr;
		else
			memset(&r->failed_hdr, 0, sizeof(r->failed_hdr));
		snprintf(r->attach_msg, sizeof(r->attach_msg), "%s",
			 r->err.text);
		return ret;
	}
	r->attach_err = 0;
	ivr_claim(r);
	return -ESTALE;
}
