/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* SPDX-FileCopyrightText: 2026 The ivring authors */
#ifndef IVRING_READ_MANY_TEXT_H
#define IVRING_READ_MANY_TEXT_H

#include <pthread.h>
#include <stdio.h>

/* The one stream that every guest's lines go to (many_opts.arg). */
struct many_text {
	FILE *out;
	const char *name;	/* for messages: stdout, or -o FILE */
	pthread_mutex_t lock;
	int failed;		/* an exit code, or -1 when the reader went away */
};

extern const struct many_ops many_text_ops;

#endif /* IVRING_READ_MANY_TEXT_H */
