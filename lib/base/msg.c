// SPDX-License-Identifier: LGPL-2.1 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * A failure's message: every call that fails leaves one on its handle or
 * recording, naming the thing, the value and what to do.  One function for
 * both, so that they cannot say things differently.
 */
#include <stdarg.h>
#include <stdio.h>

#include "base/base.h"

int ivr_msg_set(struct ivr_msg *m, int ret, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(m->text, sizeof(m->text), fmt, ap);
	va_end(ap);
	return ret;
}
