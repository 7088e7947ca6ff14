// SPDX-License-Identifier: GPL-2.0 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * The hand-over of a live migration, for both of ivring-read's outputs:
 * --checkpoint saves where the reader stopped, --resume starts there, once
 * the source's reader has written it (ivring__checkpoint_save(),
 * ivring__checkpoint_load()).
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <unistd.h>

#include "libivring.h"
#include "handover.h"
#include "read_common.h"
#include "tool_msg.h"
#include "tool_time.h"

int handover_wait(const char *ckpt, bool follow, bool *stop)
{
	bool told = false;

	*stop = false;
	while (access(ckpt, F_OK)) {
		if (errno != ENOENT || !follow) {
			tool_warn("--resume %s: %s", ckpt, strerror(errno));
			return EXIT_RUNTIME;
		}
		if (!told)
			tool_warn("waiting for the checkpoint %s (Ctrl-C to quit)", ckpt);
		told = true;
		if (stop_is_requested()) {
			*stop = true;
			return 0;
		}
		sleep_ns(BACKOFF_MAX_NS);
	}
	return 0;
}

int handover_start(struct ivring *r, const char *ckpt)
{
	struct ivring_info info = { .sz = sizeof(info) };
	int ret;

	if (ckpt) {
		ret = ivring__checkpoint_load(r, ckpt);
		if (ret == -ESTALE) {
			/* Nobody read the new generation: its start is right. */
			tool_warn("%s; reading the new generation from its start",
				  ivring__errmsg(r));
		} else if (ret) {
			tool_warn("%s", ivring__errmsg(r));
			return ret == -EINVAL || ret == -ERANGE ? EXIT_USAGE :
								  EXIT_RUNTIME;
		}
	}
	if (ivring__info(r, &info))
		return 0;
	if (info.resumed == IVRING_RESUMED_CHECKPOINT)
		tool_warn("resuming from the checkpoint %s (generation %" PRIu64 ")",
			  ckpt, info.generation);
	else if (info.resumed == IVRING_RESUMED_COPIED)
		tool_warn("resuming from positions that came with a copy of the segment (a live migration without a checkpoint?): they may be older than what the reader before delivered; up to %" PRIu64 " events may be repeated",
			  info.may_repeat);
	return 0;
}

int handover_end(struct ivring *r, const struct handover *h, int err)
{
	struct ivring_info info = { .sz = sizeof(info) };

	if (!r || !h->checkpoint)
		return err;
	if (ivring__checkpoint_save(r, h->checkpoint)) {
		tool_warn("%s", ivring__errmsg(r));
		return err ? err : EXIT_RUNTIME;
	}
	ivring__info(r, &info);
	tool_warn("checkpoint saved to %s (generation %" PRIu64 ")",
		  h->checkpoint, info.generation);
	return err;
}
