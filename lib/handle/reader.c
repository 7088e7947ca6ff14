// SPDX-License-Identifier: LGPL-2.1 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/* The few accessors through which a recording reads its reader. */
#include <sys/mman.h>
#include <unistd.h>

#include "handle/reader.h"
#include "format/format.h"
#include "iter/iter.h"

u64 ivr_reader_generation(const struct ivring *r)
{
	return r->hdr.generation;
}

const char *ivr_reader_path(const struct ivring *r)
{
	return r->path;
}

bool ivr_reader_gone(const struct ivring *r)
{
	return r->gone;
}

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ	22	/* Linux 5.14 */
#endif

void ivr_reader_will_read_all(struct ivring *r)
{
	u64 len = (u64)r->hdr.nr_cpus * r->hdr.nr_subbufs * r->hdr.subbuf_size;
	long page = sysconf(_SC_PAGESIZE);
	uintptr_t from = (uintptr_t)r->map + r->hdr.data_offset;
	uintptr_t start = from & ~(uintptr_t)(page - 1);

	/*
	 * Within the mapping: the header was checked against it.  A file
	 * that shrank fails the call (EFAULT), not with a SIGBUS; older
	 * kernels say EINVAL.  Either way the reads fault as before.
	 */
	if (r->gone || !r->map)
		return;
	madvise((void *)start, from + len - start, MADV_POPULATE_READ);
}

u64 ivr_reader_format_area_size(const struct ivring *r)
{
	return r->hdr.format_size;
}

u32 ivr_reader_formats_listed(const struct ivring *r)
{
	return r->fmts ? r->fmts->nr : 0;
}

int ivr_reader_formats_refresh(struct ivring *r)
{
	return ivr_formats_refresh(r);
}

int ivr_reader_read_page(struct ivring *r, unsigned int cpu,
			 struct ivring_page *pg, unsigned int flags, u8 *out,
			 void (*fn)(void *arg, const struct ivring_event *ev),
			 void *arg, const u8 *types)
{
	struct ivr_event_hook hook = { fn, arg, types };

	return ivr_read_page(r, cpu, pg, flags, out, fn ? &hook : NULL);
}

u32 ivr_reader_clock_samples(const struct ivring *r, u64 generation)
{
	u32 nr;

	ivr_clock_samples(r, generation, &nr);
	return nr;
}

void ivr_reader_clock_sample(const struct ivring *r, u64 generation, u32 i,
			     u64 *guest, u64 *host)
{
	const struct ivr_sync_sample *s;
	u32 nr;

	s = ivr_clock_samples(r, generation, &nr);
	*guest = i < nr ? s[i].guest : 0;
	*host = i < nr ? s[i].host : 0;
}

const struct ivr_sync_sample *ivr_reader_clock_series(const struct ivring *r,
						      u64 generation, u32 *nr)
{
	return ivr_clock_samples(r, generation, nr);
}

int ivr_reader_fail(struct ivring *r, int ret, const char *msg)
{
	return ivr_err(r, ret, "%s", msg);
}
