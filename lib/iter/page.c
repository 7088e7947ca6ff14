// SPDX-License-Identifier: LGPL-2.1 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * Whole pages for a recorder: ivring__read_page().  A recorder copies pages
 * into a trace.dat or CTF file and decodes nothing, so it gets each CPU's
 * sub-buffers as the writer laid them out, verified against tearing by the
 * same sequence checks as events (segment/cursor.c), with the loss that tickets
 * prove marked in the page header as the kernel marks it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "iter/iter.h"

struct read_page_args {
	unsigned int cpu;
	unsigned int flags;
	struct ivring_page *pg;
	u8 *out;
	const struct ivr_event_hook *hook;
};

static int read_page_mapped(struct ivring *r, void *arg)
{
	struct read_page_args *a = arg;
	struct ivring_page pg = { 0 };
	u32 state;
	int ret;

	ret = ivr_begin_cpu_call(r, a->cpu);
	if (ret)
		return ret > 0 ? 0 : ret;
	if (!a->out) {
		struct ivr_iter *it = r->iter;

		if (it->page_out_len < r->hdr.subbuf_size) {
			free(it->page_out);
			it->page_out = malloc(r->hdr.subbuf_size);
			it->page_out_len = it->page_out ? r->hdr.subbuf_size : 0;
		}
		if (!it->page_out)
			return ivr_err(r, -ENOMEM, "out of memory for a page");
		a->out = it->page_out;
	}
	state = ivr_live_state(r);
	ret = ivr_cpu_take_page(r, a->cpu, a->flags & IVRING_PAGE_PARTIAL,
				state == IVRING_STATE_STOPPED, &pg, a->out,
				a->hook);
	if (ret < 0)
		return ret;
	if (!ret)
		return state == IVRING_STATE_STOPPED ? -EPIPE : 0;
	/* Consumed, in consume mode, when the caller comes back. */
	r->iter->last_cpu = a->cpu;
	pg.sz = sizeof(pg);
	ivr_struct_out(a->pg, &pg, sizeof(pg));
	return 1;
}

int ivr_read_page(struct ivring *r, unsigned int cpu, struct ivring_page *pg,
		  unsigned int flags, u8 *out,
		  const struct ivr_event_hook *hook)
{
	struct read_page_args a = { cpu, flags, pg, out, hook };
	int ret;

	if (!r || !pg || pg->sz < sizeof(pg->sz))
		return -EINVAL;
	if (!r->gone && (flags & ~IVRING_PAGE_PARTIAL))
		return ivr_err(r, -EINVAL, "ivring__read_page: unknown flags %#x",
			       flags & ~IVRING_PAGE_PARTIAL);
	ret = ivr_guarded(r, read_page_mapped, &a);
	/* Also after a SIGBUS, which leaves the take halfway. */
	ivr_cpu_take_ended(r, cpu);
	return ret;
}

int ivring__read_page(struct ivring *r, unsigned int cpu,
		      struct ivring_page *pg, unsigned int flags)
{
	return ivr_read_page(r, cpu, pg, flags, NULL, NULL);
}
