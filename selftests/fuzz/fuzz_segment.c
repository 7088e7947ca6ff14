// SPDX-License-Identifier: GPL-2.0 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * libFuzzer: a segment that the guest wrote anything into (fuzz_seg.h),
 * opened, iterated and read by pages, as a snapshot and then by a
 * consumer.  The snapshot's events are rendered too: rendering copies the
 * record out of the segment either way (decode/render.c), so doing it
 * again in the consumer's pass would reach no new code, and it is most of
 * an input's time.  Any crash, sanitizer report, hang or leak is a
 * finding.
 */
#include "fuzz_seg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ivring_open_opts o = { .sz = sizeof(o) };
	static bool ready;
	struct ivring *r;

	if (!ready) {
		fuzz_seg_init();
		ready = true;
	}
	fuzz_seg_lay(data, size);
	o.flags = IVRING_OPEN_PEEK;
	if (!ivring__open(fuzz_path, &o, &r)) {
		fuzz_read_all(r, true);
		ivring__close(r);
	}
	o.flags = 0;
	if (!ivring__open(fuzz_path, &o, &r)) {
		fuzz_read_all(r, false);
		ivring__close(r);
	}
	return 0;
}
