/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * The tools' clock: CLOCK_MONOTONIC in nanoseconds, the clock that every
 * interval, deadline and back-off of the tools is measured in.
 */
#ifndef IVRING_TOOL_TIME_H
#define IVRING_TOOL_TIME_H

#include <stdint.h>

uint64_t now_ns(void);
/* Sleep @ns; a signal cuts it short, so callers look at their flags after. */
void sleep_ns(uint64_t ns);

#endif /* IVRING_TOOL_TIME_H */
