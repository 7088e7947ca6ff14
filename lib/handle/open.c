// SPDX-License-Identifier: LGPL-2.1 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * A reader's handle, from ivring__open() to ivring__close(): the one place
 * that builds every layer below and tears each down (lib/LAYERS), and that
 * tells the generation layer what the others keep per generation.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/guard.h"
#include "decode/decode.h"
#include "iter/iter.h"

/* A new generation's state above the cursors: the merge's, the formats. */
static int gen_attach(struct ivring *r)
{
	int ret = ivr_iter_attach(r);

	/* Copied and checked now; libtraceevent parses them when needed. */
	return ret ? ret : ivr_formats_frame(r);
}

static void gen_detach(struct ivring *r)
{
	ivr_formats_unframe(r);
	ivr_iter_detach(r);
}

/*
 * A function behind a versioned name (ivring__open@@LIBIVRING_1.5): it
 * must be visible for the shared library to export its version; the
 * version script exports only the name, and the static archive makes the
 * ivr_ one local (Makefile, LIB_RELOC).
 */
#define IVR_VERSIONED	__attribute__((visibility("default")))

static const struct ivr_gen_ops gen_ops = {
	.attach = gen_attach,
	.placed = ivr_iter_placed,
	.detach = gen_detach,
};

static int open_mapped(struct ivring *r, void *arg)
{
	int ret;

	ret = ivr_load_header(r);
	if (!ret)
		ret = ivr_lock_consumer(r);
	if (!ret)
		ret = ivr_attach(r);
	/* Write to the segment only once nothing can fail any more. */
	if (!ret)
		ivr_claim(r);
	return ret;
}

/* An open that fails says why in the caller's errbuf, whatever failed. */
static int open_failed(const struct ivring_open_opts *opts, struct ivring *r,
		       int ret, const char *why)
{
	if (opts && ivr_struct_has(opts, struct ivring_open_opts, errbuf_len) &&
	    opts->errbuf && opts->errbuf_len)
		snprintf(opts->errbuf, opts->errbuf_len, "%s",
			 r && r->err.text[0] ? r->err.text : why);
	ivring__close(r);
	return ret;
}

/* @guard: install the SIGBUS guard, as 1.0's open did, once it may. */
static int open_handle(const char *path, const struct ivring_open_opts *opts,
		       struct ivring **out, bool guard)
{
	const unsigned int known = IVRING_OPEN_PEEK | IVRING_OPEN_RDONLY |
				   IVRING_OPEN_EXPLICIT_COMMIT |
				   IVRING_OPEN_NOFOLLOW;
	struct ivring_open_opts o = { 0 };
	unsigned int flags;
	struct ivring *r;
	int ret;

	if (!out)
		return -EINVAL;
	*out = NULL;
	/* A program built against an older header: its fields, then zeros. */
	if (opts && ivr_struct_in(&o, sizeof(o), opts, sizeof(opts->sz)))
		return open_failed(opts, NULL, -EINVAL,
				   "ivring_open_opts: sz is too small, or fields this library does not know are set; is the header newer than the library?");
	flags = o.flags;
	if (flags & ~known)
		return open_failed(opts, NULL, -EINVAL,
				   "ivring_open_opts: unknown flags set; is the header newer than the library?");
	if (!path || !path[0])
		return open_failed(opts, NULL, -EINVAL, "no segment path given");

	r = calloc(1, sizeof(*r));
	if (!r)
		return open_failed(opts, NULL, -ENOMEM, "out of memory");
	r->fd = -1;
	r->peek = flags & (IVRING_OPEN_PEEK | IVRING_OPEN_RDONLY);
	r->explicit_commit = flags & IVRING_OPEN_EXPLICIT_COMMIT;
	r->gen_ops = &gen_ops;

	if (guard)
		ivr_guard_install();
	ret = ivr_map_file(r, path, flags & IVRING_OPEN_RDONLY,
			   flags & IVRING_OPEN_NOFOLLOW);
	if (!ret)
		ret = ivr_guarded(r, open_mapped, NULL);
	if (ret)
		return open_failed(opts, r, ret, strerror(-ret));
	/* Only a failure leaves a message. */
	r->err.text[0] = '\0';
	*out = r;
	return 0;
}

/*
 * Since 1.5 the SIGBUS guard is the application's to install
 * (ivring__sigbus_guard()); ivring__open() installs nothing.
 */
IVR_VERSIONED int ivr_open_1_5(const char *path,
			       const struct ivring_open_opts *opts,
			       struct ivring **out)
{
	return open_handle(path, opts, out, false);
}
__asm__(".symver ivr_open_1_5, ivring__open@@LIBIVRING_1.5");

/*
 * Programs built against libivring 1.0 to 1.4 were promised that the
 * first open installs it: they still get that, at the point of the open
 * where 1.4 installed it (an open refused for its arguments does not).
 */
IVR_VERSIONED int ivr_open_1_0(const char *path,
			       const struct ivring_open_opts *opts,
			       struct ivring **out)
{
	return open_handle(path, opts, out, true);
}
__asm__(".symver ivr_open_1_0, ivring__open@LIBIVRING_1.0");

int ivring__sigbus_guard(bool enable)
{
	if (!enable) {
		ivr_guard_remove();
		return 0;
	}
	return ivr_guard_install();
}

/* The last positions of a reader that consumes as it goes, and a heartbeat. */
static int close_mapped(struct ivring *r, void *arg)
{
	if (!r->peek && !r->explicit_commit)
		return ivr_store_positions(r, NULL);
	ivr_heartbeat(r);
	return 0;
}

void ivring__close(struct ivring *r)
{
	if (!r)
		return;
	/* A handle whose mapping faulted writes nothing more to it. */
	if (r->cpus && r->map && !r->gone)
		ivr_guarded(r, close_mapped, NULL);
	ivr_detach(r);
	ivr_unmap_file(r);
	ivr_decode_free(r);
	ivr_formats_free(r);
	ivr_iter_free(r);
	ivr_sync_free(r);
	free(r->path);
	free(r);
}
