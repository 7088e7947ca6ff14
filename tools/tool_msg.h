/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/* Messages of the command-line tools: "<program>: <what went wrong>". */
#ifndef IVRING_TOOL_MSG_H
#define IVRING_TOOL_MSG_H

void tool_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void tool_die(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));

#endif /* IVRING_TOOL_MSG_H */
