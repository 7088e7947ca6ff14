// SPDX-License-Identifier: GPL-2.0 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * Laying out and formatting a segment: the slow path of the writer, run once
 * per generation before any event is written.
 */
#include "ring_writer.h"

#define ALIGN_UP(x, a)	(((x) + (a) - 1) & ~((u64)(a) - 1))
#define ZERO_CHUNK	(1U << 20)

/* Zero @len bytes of the BAR, rescheduling between chunks. */
static void zero_shared(u8 *p, u64 len)
{
	while (len) {
		u64 n = len < ZERO_CHUNK ? len : ZERO_CHUNK;

		memset(p, 0, n);
		p += n;
		len -= n;
		ivw_cond_resched();
	}
}

static u64 place_areas(const struct ivw_params *p, u32 nr_subbufs,
		       struct ivring_header *h)
{
	u64 off = IVRING_PAGE_SIZE;	/* the header page */

	h->cpu_offset = off;
	off = ALIGN_UP(off + (u64)p->nr_cpus * sizeof(struct ivring_cpu),
		       IVRING_PAGE_SIZE);
	h->desc_offset = off;
	off = ALIGN_UP(off + (u64)p->nr_cpus * nr_subbufs *
			     sizeof(struct ivring_desc), IVRING_PAGE_SIZE);
	h->format_offset = off;
	h->format_size = ALIGN_UP(p->format_size ? p->format_size :
				  IVW_FORMAT_SIZE_DEFAULT, IVRING_PAGE_SIZE);
	off += h->format_size;
	h->host_offset = off;
	h->host_size = ALIGN_UP(sizeof(struct ivring_host) +
				(u64)p->nr_cpus * sizeof(struct ivring_host_cpu),
				IVRING_PAGE_SIZE);
	off += h->host_size;
	h->data_offset = off;
	h->data_size = (u64)p->nr_cpus * nr_subbufs * p->subbuf_size;
	return off + h->data_size;
}

/**
 * ivw_layout() - compute where every area of a segment goes
 * @p:		the requested geometry
 * @h:		receives the header fields that describe the layout
 * @need:	receives the bytes the layout needs (with nr_subbufs 0: for the
 *		minimum of IVRING_NR_SUBBUFS_MIN sub-buffers per CPU)
 *
 * Return: 0, -EINVAL for a geometry outside the ABI's limits, or -ENOSPC
 * when it does not fit in p->segment_size.
 */
int ivw_layout(const struct ivw_params *p, struct ivring_header *h,
	       u64 *need)
{
	u64 n = p->nr_subbufs;
	u64 end;

	memset(h, 0, sizeof(*h));
	*need = 0;
	if (!p->nr_cpus || p->nr_cpus > IVRING_NR_CPUS_MAX ||
	    p->subbuf_size < IVRING_SUBBUF_MIN ||
	    p->subbuf_size > IVRING_SUBBUF_MAX ||
	    (p->subbuf_size & (p->subbuf_size - 1)) ||
	    (n && (n < IVRING_NR_SUBBUFS_MIN || n > IVW_NR_SUBBUFS_MAX)) ||
	    p->format_size > IVRING_FORMAT_AREA_MAX ||
	    (p->mode != IVRING_MODE_DISCARD && p->mode != IVRING_MODE_OVERWRITE))
		return -EINVAL;

	if (!n) {
		/* Grow from the minimum until the next step would not fit. */
		u64 per_step, fixed;

		n = IVRING_NR_SUBBUFS_MIN;
		fixed = place_areas(p, n, h);
		per_step = (u64)p->nr_cpus * (p->subbuf_size +
					      sizeof(struct ivring_desc));
		if (fixed <= p->segment_size)
			n += (p->segment_size - fixed) / per_step;
		if (n > IVW_NR_SUBBUFS_MAX)
			n = IVW_NR_SUBBUFS_MAX;
		/* The estimate ignores page rounding: settle it exactly. */
		while (n > IVRING_NR_SUBBUFS_MIN &&
		       place_areas(p, n, h) > p->segment_size)
			n--;
		while (n < IVW_NR_SUBBUFS_MAX &&
		       place_areas(p, n + 1, h) <= p->segment_size)
			n++;
	}
	end = place_areas(p, n, h);
	*need = end;
	if (end > p->segment_size)
		return -ENOSPC;
	h->nr_subbufs = n;
	return 0;
}

/**
 * ivw_format() - lay out a segment and make it ready for writers
 * @w:		writer handle to initialise
 * @base:	the segment, p->segment_size bytes
 * @p:		geometry
 * @generation:	new generation number; must differ from the previous one
 * @cpus:	p->nr_cpus writer states, owned by the caller
 * @slots:	nr_cpus * nr_subbufs slot records, owned by the caller; size it
 *		with ivw_layout() first
 *
 * Leaves the segment in IVRING_STATE_FORMATTING with an empty format area;
 * add formats, then ivw_set_state(w, IVRING_STATE_LIVE).
 *
 * Return: 0 or the error of ivw_layout().
 */
int ivw_format(struct ivw_writer *w, void *base,
	       const struct ivw_params *p, u64 generation,
	       struct ivw_cpu *cpus, struct ivw_slot *slots)
{
	struct ivring_header lay, *h = base;
	u64 need, now;
	u32 cpu, i;
	int ret;

	ret = ivw_layout(p, &lay, &need);
	if (ret)
		return ret;

	/*
	 * Readers must see FORMATTING, then no magic, before any other byte
	 * changes.  Paired with the reader's acquire of the magic and its
	 * read barrier between its copy of the header and its second look at
	 * the generation (lib/segment/header.c, ivr_load_header()).
	 */
	WRITE_ONCE(h->state, IVRING_STATE_FORMATTING);
	virt_wmb();
	WRITE_ONCE(h->magic, 0);
	virt_wmb();

	*w = (struct ivw_writer){
		.base = base,
		.hdr = h,
		.host = (struct ivring_host *)((u8 *)base + lay.host_offset),
		.fmt = (struct ivring_format_area *)((u8 *)base +
						     lay.format_offset),
		.generation = generation,
		.mode = p->mode,
		.nr_cpus = p->nr_cpus,
		.nr_subbufs = lay.nr_subbufs,
		.subbuf_size = p->subbuf_size,
		.rec_area = p->subbuf_size - sizeof(struct ivring_subbuf_hdr),
		.max_payload = p->subbuf_size -
			       sizeof(struct ivring_subbuf_hdr) - 8,
		.slot_magic = ~0ULL / lay.nr_subbufs + 1,
		.fmt_cap = lay.format_size - sizeof(struct ivring_format_area),
		.cpus = cpus,
		.slots = slots,
		.tsc = { .on = !!p->tsc.mult, .v = { p->tsc, p->tsc } },
#ifndef __KERNEL__
		.clock = w->clock,	/* a test's clock survives formatting */
#endif
	};

	/* Everything but the host's area; the host owns that (invariant 3). */
	zero_shared(w->base + sizeof(*h), lay.host_offset - sizeof(*h));
	zero_shared(w->base + lay.data_offset, lay.data_size);

	now = ivw_clock(w);
	w->tsc.heal_now = now;
	for (cpu = 0; cpu < w->nr_cpus; cpu++) {
		struct ivw_cpu *c = &cpus[cpu];
		struct ivring_subbuf_hdr *page;

		memset(c, 0, sizeof(*c));
		c->shared = (struct ivring_cpu *)(w->base + lay.cpu_offset) + cpu;
		c->host = (struct ivring_host_cpu *)(w->host + 1) + cpu;
		c->desc = (struct ivring_desc *)(w->base + lay.desc_offset) +
			  (u64)cpu * w->nr_subbufs;
		c->data = w->base + lay.data_offset +
			  (u64)cpu * w->nr_subbufs * w->subbuf_size;
		c->slot = slots + (u64)cpu * w->nr_subbufs;
		memset(c->slot, 0, w->nr_subbufs * sizeof(*c->slot));

		/* Page 0 is started; every other slot holds nothing yet. */
		for (i = 1; i < w->nr_subbufs; i++) {
			c->desc[i].seq = IVRING_DESC_BUSY;
			c->slot[i].seq = IVRING_DESC_BUSY;
		}
		c->last_ts = now;
		c->slot[0].time_stamp = now;
		page = (struct ivring_subbuf_hdr *)c->data;
		page->time_stamp = now;
	}

	lay.abi_major = IVRING_ABI_MAJOR;
	lay.abi_minor = IVRING_ABI_MINOR;
	lay.header_size = sizeof(*h);
	lay.segment_size = p->segment_size;
	lay.generation = generation;
	lay.state = IVRING_STATE_FORMATTING;
	lay.mode = p->mode;
	lay.nr_cpus = p->nr_cpus;
	lay.subbuf_size = p->subbuf_size;
	lay.cpu_size = sizeof(struct ivring_cpu);
	lay.desc_size = sizeof(struct ivring_desc);
	lay.host_cpu_size = sizeof(struct ivring_host_cpu);
	lay.clock_id = p->clock_id;
	lay.flags = p->flags & IVRING_F_CLOCK_SYNC;
	if (p->clock_name)
		ivw_strscpy_pad((char *)lay.clock_name, p->clock_name,
				sizeof(lay.clock_name));
	lay.format_time = now;
	lay.magic = 0;
	memcpy(h, &lay, sizeof(lay));
	/*
	 * Every area and the header before the magic.  Paired with the
	 * reader's acquire of the magic.
	 */
	virt_store_release(&h->magic, IVRING_MAGIC);
	return 0;
}

/**
 * ivw_add_format() - append one event's ftrace format text
 * @w:		formatted writer
 * @id:		the event's common_type
 * @sys:	its system (subsystem) name
 * @text:	the format text, as in tracefs events/<sys>/<name>/format
 * @text_len:	bytes of @text, at most IVRING_FORMAT_TEXT_MAX
 *
 * Return: 0, -EINVAL for an empty or oversized name or text, or -ENOSPC when
 * the format area is full.
 */
int ivw_add_format(struct ivw_writer *w, u16 id, const char *sys,
		   const char *text, u32 text_len)
{
	struct ivring_format_area *a = w->fmt;
	size_t sys_len = strlen(sys);
	struct ivring_format *f;
	u32 size;

	if (!sys_len || sys_len > 64 || !text_len ||
	    text_len > IVRING_FORMAT_TEXT_MAX)
		return -EINVAL;
	size = (sizeof(*f) + sys_len + text_len + 7) & ~7U;
	/* Our own books, never the area's: the host may rewrite those. */
	if (w->fmt_used + (u64)size > w->fmt_cap)
		return -ENOSPC;

	f = (struct ivring_format *)((u8 *)(a + 1) + w->fmt_used);
	memset(f, 0, size);
	f->rec_size = size;
	f->id = id;
	f->sys_len = sys_len;
	f->text_len = text_len;
	memcpy(f + 1, sys, sys_len);
	memcpy((u8 *)(f + 1) + sys_len, text, text_len);

	w->fmt_used += size;
	w->fmt_count++;
	WRITE_ONCE(a->used, w->fmt_used);
	/*
	 * The record and used before the count.  Paired with the reader's
	 * acquire of nr_events.
	 */
	virt_store_release(&a->nr_events, w->fmt_count);
	return 0;
}

/* Publish a state change: LIVE once formats are in, STOPPED on the way out. */
void ivw_set_state(struct ivw_writer *w, u32 state)
{
	/*
	 * LIVE after the formats, STOPPED after the last publication.  Paired
	 * with the reader's acquire of the state.
	 */
	virt_store_release(&w->hdr->state, state);
}
