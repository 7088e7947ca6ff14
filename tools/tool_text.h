/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* SPDX-FileCopyrightText: 2026 The ivring authors */
#ifndef IVRING_TOOL_TEXT_H
#define IVRING_TOOL_TEXT_H

/*
 * @text, in place, safe to print: every byte that is a control (C0, DEL,
 * C1 as a byte or as UTF-8) or not part of valid UTF-8 becomes '?'.
 */
void tool_safe_text(char *text);

#endif
