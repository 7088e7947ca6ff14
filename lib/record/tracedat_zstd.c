// SPDX-License-Identifier: LGPL-2.1 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * A compressed trace.dat (version 7, "zstd"): libzstd's frames, in the
 * blocks that trace-cmd 3.1.6 writes and reads (trace-cmd.dat.v7(5)).
 *
 * A block is {u32 compressed size, u32 uncompressed size, one zstd frame}.
 * A metadata section is one block; a CPU's data is a u32 count of blocks
 * followed by them, each holding whole pages.  Frames are made as
 * trace-cmd's zstd plugin makes them (ZSTD_compress2() at the default
 * level, with no content size in the frame header), so that its
 * ZSTD_decompressDCtx() into a buffer of the uncompressed size takes
 * them.  The file's header names the library's version, which trace-cmd
 * reads and ignores.
 */
#include <errno.h>
#include <stdlib.h>
#include <zstd.h>

#include "record/tracedat.h"

const char *ivr_td_z_version(void)
{
	return ZSTD_versionString();
}

size_t ivr_td_z_bound(size_t len)
{
	return ZSTD_COMPRESSBOUND(len);
}

int ivr_td_z_init(struct ivring_rec *w, struct tracedat *t)
{
	ZSTD_CCtx *cctx = ZSTD_createCCtx();

	if (!cctx)
		return ivr_err(w, -ENOMEM, "out of memory for zstd");
	if (ZSTD_isError(ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag,
						0))) {
		ZSTD_freeCCtx(cctx);
		return ivr_err(w, -EINVAL, "zstd %s: no way to leave the content size out of a frame",
			       ZSTD_versionString());
	}
	t->zctx = cctx;
	t->zcap = TD_ZHDR + ZSTD_COMPRESSBOUND((size_t)SPOOL_PAGES *
						t->page_size);
	t->zbuf = malloc(t->zcap);
	if (!t->zbuf)
		return ivr_err(w, -ENOMEM, "out of memory for zstd");
	return 0;
}

void ivr_td_z_free(struct tracedat *t)
{
	ZSTD_freeCCtx(t->zctx);
	t->zctx = NULL;
	free(t->zbuf);
	t->zbuf = NULL;
}

ssize_t ivr_td_z_frame(struct ivring_rec *w, void *dst, size_t cap,
		       const void *src, size_t len)
{
	struct tracedat *t = w->priv;
	size_t n = ZSTD_compress2(t->zctx, dst, cap, src, len);

	if (ZSTD_isError(n)) {
		/* A failed frame leaves the context mid-frame: start over. */
		ZSTD_CCtx_reset(t->zctx, ZSTD_reset_session_only);
		return ivr_err(w, -EIO, "%s: zstd: %s", w->path,
			       ZSTD_getErrorName(n));
	}
	return (ssize_t)n;
}
