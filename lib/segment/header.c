// SPDX-License-Identifier: LGPL-2.1 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * The segment's header: copied, then every size and offset in the copy is
 * checked before anything else in the mapping is touched.  The guest may
 * be compromised, so nothing it wrote is trusted (include/DESIGN,
 * section 4).
 */
#include <errno.h>
#include <string.h>

#include "segment/segment.h"

struct area {
	const char *name;
	u64 off;
	u64 len;
};

/* Does [off, off + len) lie inside [0, size) without wrapping? */
static bool inside(u64 off, u64 len, u64 size)
{
	return off <= size && len <= size - off;
}

static int check_areas(struct ivring *r, const struct ivring_header *h)
{
	struct area a[] = {
		{ "header", 0, sizeof(*h) },
		{ "cpu", h->cpu_offset, (u64)h->nr_cpus * sizeof(struct ivring_cpu) },
		{ "descriptor", h->desc_offset,
		  (u64)h->nr_cpus * h->nr_subbufs * sizeof(struct ivring_desc) },
		{ "format", h->format_offset, h->format_size },
		{ "host", h->host_offset, h->host_size },
		{ "data", h->data_offset, h->data_size },
	};
	size_t i, j;

	/* nr_cpus and nr_subbufs are bounded, so the products cannot wrap. */
	if (h->data_size != (u64)h->nr_cpus * h->nr_subbufs * h->subbuf_size)
		return ivr_err(r, -EINVAL,
			       "data area is %llu bytes, expected %u CPUs x %u sub-buffers x %u bytes",
			       (unsigned long long)h->data_size, h->nr_cpus,
			       h->nr_subbufs, h->subbuf_size);
	if (h->host_size < sizeof(struct ivring_host) +
			   (u64)h->nr_cpus * sizeof(struct ivring_host_cpu))
		return ivr_err(r, -EINVAL, "host area of %llu bytes is too small for %u CPUs",
			       (unsigned long long)h->host_size, h->nr_cpus);
	if (h->format_size < sizeof(struct ivring_format_area))
		return ivr_err(r, -EINVAL, "format area of %llu bytes is too small",
			       (unsigned long long)h->format_size);
	/* What a reader copies and checks is bounded, whatever the guest says. */
	if (h->format_size > IVRING_FORMAT_AREA_MAX)
		return ivr_err(r, -EINVAL,
			       "%s: format area of %llu bytes is larger than IVRING_FORMAT_AREA_MAX (%u), which no writer exceeds; is the segment damaged?",
			       r->path, (unsigned long long)h->format_size,
			       IVRING_FORMAT_AREA_MAX);

	for (i = 0; i < sizeof(a) / sizeof(a[0]); i++) {
		if (!inside(a[i].off, a[i].len, h->segment_size) ||
		    a[i].off % IVRING_RECORD_ALIGN)
			return ivr_err(r, -EINVAL,
				       "%s area at offset %llu, %llu bytes, is outside the %llu-byte segment or misaligned",
				       a[i].name, (unsigned long long)a[i].off,
				       (unsigned long long)a[i].len,
				       (unsigned long long)h->segment_size);
		for (j = 0; j < i; j++) {
			if (a[i].off < a[j].off + a[j].len &&
			    a[j].off < a[i].off + a[i].len)
				return ivr_err(r, -EINVAL, "%s area overlaps the %s area",
					       a[i].name, a[j].name);
		}
	}
	return 0;
}

/*
 * Validate a private copy of the header against the mapped file size.
 * On success r->hdr holds it.
 */
int ivr_check_header(struct ivring *r, const struct ivring_header *h)
{
	u32 sb = h->subbuf_size;

	/*
	 * First: a copy taken as a re-format began holds FORMATTING with the
	 * magic already cleared (ivw_format() stores them in that order),
	 * which is a wait, not a segment that is not ours.
	 */
	if (h->state == IVRING_STATE_FORMATTING)
		return ivr_err(r, -EAGAIN, "%s: the guest is formatting the segment; try again",
			       r->path);
	if (h->magic != IVRING_MAGIC)
		return ivr_err(r, -ENOTTY,
			       "%s: not an ivring segment (magic %#llx); is the module loaded in the guest?",
			       r->path, (unsigned long long)h->magic);
	if (h->abi_major != IVRING_ABI_MAJOR)
		return ivr_err(r, -EPROTONOSUPPORT,
			       "%s: ABI version %u.x not supported by this reader (%u.x)",
			       r->path, h->abi_major, IVRING_ABI_MAJOR);
	if (h->header_size < sizeof(*h) || h->header_size > IVRING_PAGE_SIZE)
		return ivr_err(r, -EINVAL, "%s: header size %u, expected %zu to %u",
			       r->path, h->header_size, sizeof(*h), IVRING_PAGE_SIZE);
	if (h->segment_size > r->map_len)
		return ivr_err(r, -EFBIG,
			       "%s: segment truncated: header says %llu bytes, %zu mapped (the file's size when opened, or the size it stated then)",
			       r->path, (unsigned long long)h->segment_size,
			       r->map_len);
	if (h->state != IVRING_STATE_LIVE && h->state != IVRING_STATE_STOPPED)
		return ivr_err(r, -EINVAL, "%s: unknown segment state %u", r->path,
			       h->state);
	if (h->mode != IVRING_MODE_DISCARD && h->mode != IVRING_MODE_OVERWRITE)
		return ivr_err(r, -EINVAL, "%s: unknown mode %u", r->path, h->mode);
	if (!h->nr_cpus || h->nr_cpus > IVRING_NR_CPUS_MAX)
		return ivr_err(r, -EINVAL, "%s: %u CPUs, expected 1 to %u", r->path,
			       h->nr_cpus, IVRING_NR_CPUS_MAX);
	if (sb < IVRING_SUBBUF_MIN || sb > IVRING_SUBBUF_MAX || (sb & (sb - 1)))
		return ivr_err(r, -EINVAL,
			       "%s: sub-buffer size %u is not a power of two in [%u, %u]",
			       r->path, sb, IVRING_SUBBUF_MIN, IVRING_SUBBUF_MAX);
	if (h->nr_subbufs < IVRING_NR_SUBBUFS_MIN ||
	    (u64)h->nr_subbufs * sb > h->segment_size)
		return ivr_err(r, -EINVAL, "%s: %u sub-buffers per CPU do not fit",
			       r->path, h->nr_subbufs);
	if (h->cpu_size != sizeof(struct ivring_cpu) ||
	    h->desc_size != sizeof(struct ivring_desc) ||
	    h->host_cpu_size != sizeof(struct ivring_host_cpu))
		return ivr_err(r, -EINVAL,
			       "%s: structure sizes %u/%u/%u differ from ABI %u.x's %zu/%zu/%zu",
			       r->path, h->cpu_size, h->desc_size, h->host_cpu_size,
			       IVRING_ABI_MAJOR, sizeof(struct ivring_cpu),
			       sizeof(struct ivring_desc),
			       sizeof(struct ivring_host_cpu));
	return check_areas(r, h);
}

/*
 * Copy the live header.  The magic is read with acquire first, pairing with
 * the writer's store-release after formatting; the generation is read again
 * after the copy so that a concurrent re-format is noticed.
 */
int ivr_load_header(struct ivring *r)
{
	const struct ivring_header *live = ivr_live_header(r);
	struct ivring_header h;
	u64 gen;
	int ret;

	if (ivr_load_acquire(&live->magic) != IVRING_MAGIC &&
	    ivr_load(&live->state) ==
		    IVRING_STATE_FORMATTING)
		return ivr_err(r, -EAGAIN, "%s: the guest is formatting the segment; try again",
			       r->path);
	memcpy(&h, live, sizeof(h));
	ivr_rmb();
	gen = ivr_load(&live->generation);
	if (gen != h.generation)
		return ivr_err(r, -EAGAIN, "%s: the guest re-formatted the segment while we read it; try again",
			       r->path);
	ret = ivr_check_header(r, &h);
	if (ret)
		return ret;
	r->hdr = h;
	r->rec_area = h.subbuf_size - sizeof(struct ivring_subbuf_hdr);
	return 0;
}
