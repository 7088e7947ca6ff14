// SPDX-License-Identifier: GPL-2.0 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * libFuzzer: a checkpoint file that another user may have written, loaded
 * by a consumer of the honest segment (fuzz_seg.h), which then reads from
 * where it says.  The input patches, as fuzz_patch() does, the real
 * checkpoint of a consumer that read part of that segment, so that the
 * empty input is a checkpoint that loads; an input that begins with 0xff
 * is the file's bytes themselves.
 */
#include <fcntl.h>

#include "fuzz_seg.h"

static int ck = -1;
static char ck_path[64];
static char tpl[4096];
static size_t tpl_len;

/* The checkpoint of a consumer that read some of the honest segment. */
static void checkpoint_init(void)
{
	struct ivring_open_opts o = { .sz = sizeof(o) };
	char dir[] = "/tmp/ivring-fuzz.XXXXXX", path[64];
	struct ivring_event ev;
	struct ivring *r;
	ssize_t n;
	int i;

	ck = memfd_create("ivring-fuzz-ck", MFD_CLOEXEC);
	if (ck < 0)
		abort();
	snprintf(ck_path, sizeof(ck_path), "/proc/self/fd/%d", ck);
	fuzz_seg_lay(NULL, 0);
	if (ivring__open(fuzz_path, &o, &r))
		abort();
	for (i = 0; i < 30; i++)
		ivring__next(r, &ev);
	if (!mkdtemp(dir))
		abort();
	snprintf(path, sizeof(path), "%s/ck", dir);
	if (ivring__checkpoint_save(r, path))
		abort();
	ivring__close(r);
	i = open(path, O_RDONLY | O_CLOEXEC);
	n = i < 0 ? -1 : read(i, tpl, sizeof(tpl));
	if (i >= 0)
		close(i);
	unlink(path);
	rmdir(dir);
	if (n <= 0)
		abort();
	tpl_len = n;
}

/* The file: the template patched by @data, or @data after a 0xff. */
static void lay_checkpoint(const uint8_t *data, size_t size)
{
	uint8_t buf[sizeof(tpl)];

	if (size && data[0] == 0xff) {
		data++;
		size--;
	} else {
		memcpy(buf, tpl, tpl_len);
		fuzz_patch(buf, tpl_len, data, size);
		data = buf;
		size = tpl_len;
	}
	if (ftruncate(ck, 0) || pwrite(ck, data, size, 0) != (ssize_t)size)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ivring_open_opts o = { .sz = sizeof(o) };
	static bool ready;
	struct ivring *r;

	if (!ready) {
		fuzz_seg_init();
		checkpoint_init();
		ready = true;
	}
	lay_checkpoint(data, size);
	fuzz_seg_lay(NULL, 0);
	if (ivring__open(fuzz_path, &o, &r))
		abort();
	if (!ivring__checkpoint_load(r, ck_path))
		fuzz_read_all(r, true);
	ivring__close(r);
	return 0;
}
