/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* SPDX-FileCopyrightText: 2026 The ivring authors */
#ifndef IVRING_READ_RECORD_H
#define IVRING_READ_RECORD_H

#include <stdbool.h>

#include "handover.h"

struct rec_opts {
	const char *path;
	const char *output;
	const char *ctf;
	const char *name;
	unsigned int version;
	struct handover handover;
	bool host_time;		/* --clock host */
	bool follow;
	bool peek;
	bool quiet;
	bool stats;
};

/* ivring-read record ...: argv[0] is "record". */
int record_main(int argc, char **argv);

#endif /* IVRING_READ_RECORD_H */
