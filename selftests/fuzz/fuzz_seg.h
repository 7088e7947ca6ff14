/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * The fuzz targets' segment: one the shared writer formats at start (2
 * CPUs, 256-byte sub-buffers, the synth formats, events of every kind, one
 * CPU wrapped), copied into a memfd for each input, then patched by it:
 * the input is a list of patches, each a 32-bit offset (modulo the
 * segment's size), a length byte and that many bytes.  The empty input is
 * the honest segment, and a few bytes of input reach any byte of it.
 */
#ifndef IVRING_FUZZ_SEG_H
#define IVRING_FUZZ_SEG_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "seg_util.h"

#define FUZZ_SEG_SIZE	(128 << 10)

static struct seg fuzz_tpl;
static int fuzz_fd = -1;
static uint8_t *fuzz_map;
static char fuzz_path[64];

/* The template and the memfd each input is laid into; exits on failure. */
static void fuzz_seg_init(void)
{
	unsigned int cpu;
	u64 i;

	if (seg_format(&fuzz_tpl, FUZZ_SEG_SIZE, 2, 256, 0,
		       IVRING_MODE_DISCARD, NULL, 16 << 10) ||
	    synth_add_formats(&fuzz_tpl.w))
		abort();
	ivw_set_state(&fuzz_tpl.w, IVRING_STATE_LIVE);
	for (i = 0; i < 40; i++)
		for (cpu = 0; cpu < 2; cpu++)
			if (seg_write_seq(&fuzz_tpl, cpu, i, i & 1) ||
			    seg_write_blob(&fuzz_tpl, cpu, i, i % 60))
				break;
	fuzz_fd = memfd_create("ivring-fuzz", MFD_CLOEXEC);
	if (fuzz_fd < 0 || ftruncate(fuzz_fd, FUZZ_SEG_SIZE))
		abort();
	fuzz_map = mmap(NULL, FUZZ_SEG_SIZE, PROT_READ | PROT_WRITE,
			MAP_SHARED, fuzz_fd, 0);
	if (fuzz_map == MAP_FAILED)
		abort();
	snprintf(fuzz_path, sizeof(fuzz_path), "/proc/self/fd/%d", fuzz_fd);
}

/*
 * @dst, @len bytes, patched by @data: each patch a 32-bit offset (modulo
 * @len), a length byte and that many bytes.
 */
static void fuzz_patch(uint8_t *dst, size_t len, const uint8_t *data,
		       size_t size)
{
	while (size >= 5) {
		uint32_t off;
		size_t n = data[4];

		memcpy(&off, data, 4);
		data += 5;
		size -= 5;
		if (n > size)
			n = size;
		off %= len;
		if (n > len - off)
			n = len - off;
		memcpy(dst + off, data, n);
		data += n;
		size -= n;
	}
}

/* The honest segment, patched by @data. */
static void fuzz_seg_lay(const uint8_t *data, size_t size)
{
	memcpy(fuzz_map, fuzz_tpl.base, FUZZ_SEG_SIZE);
	fuzz_patch(fuzz_map, FUZZ_SEG_SIZE, data, size);
}

/* Every event of @r, rendered if @render, and every page, up to a bound. */
static void fuzz_read_all(struct ivring *r, bool render)
{
	struct ivring_page pg = { .sz = sizeof(pg) };
	struct ivring_info info = { .sz = sizeof(info) };
	struct ivring_event ev;
	unsigned int cpu, n;
	char line[1024];

	for (n = 0; n < 2048 && ivring__next(r, &ev) > 0; n++)
		if (render)
			ivring__snprint(r, &ev, line, sizeof(line));
	if (ivring__info(r, &info))
		return;
	for (cpu = 0; cpu < info.nr_cpus && cpu < 4; cpu++)
		for (n = 0; n < 64; n++)
			if (ivring__read_page(r, cpu, &pg,
					      IVRING_PAGE_PARTIAL) <= 0)
				break;
}

#endif /* IVRING_FUZZ_SEG_H */
