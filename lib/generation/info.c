// SPDX-License-Identifier: LGPL-2.1 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/* ivring__info(): the generation being read, and how it was laid out. */
#include <errno.h>
#include <string.h>

#include "generation/generation.h"

static int info_mapped(struct ivring *r, void *arg)
{
	const struct ivring_header *h = &r->hdr;
	struct ivring_info *info = arg;
	struct ivring_info i = { .sz = sizeof(i) };

	i.abi_major = h->abi_major;
	i.abi_minor = h->abi_minor;
	i.generation = h->generation;
	i.segment_size = h->segment_size;
	i.state = ivr_live_state(r);
	i.mode = h->mode;
	i.nr_cpus = h->nr_cpus;
	i.subbuf_size = h->subbuf_size;
	i.nr_subbufs = h->nr_subbufs;
	i.clock_id = h->clock_id;
	memcpy(i.clock_name, h->clock_name, sizeof(h->clock_name));
	i.clock_name[sizeof(h->clock_name)] = '\0';
	i.peek = r->peek;
	i.resumed = r->resumed;
	i.may_repeat = r->may_repeat;
	i.file_dev = r->file_dev;
	i.file_ino = r->file_ino;
	i.file_uid = r->file_uid;
	/* A caller built against an older, shorter struct gets its part. */
	ivr_struct_out(info, &i, sizeof(i));
	return 0;
}

int ivring__info(struct ivring *r, struct ivring_info *info)
{
	if (!r || !info || info->sz < sizeof(info->sz))
		return -EINVAL;
	return ivr_guarded(r, info_mapped, info);
}
