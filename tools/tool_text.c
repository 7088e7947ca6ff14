// SPDX-License-Identifier: GPL-2.0 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * Text that others chose, made safe to print: the names of segment files
 * in a directory that other users write to, and what a guest put in them.
 * A control byte (C0, DEL, or C1, which 8-bit terminals take as CSI and
 * the like) would let them move the cursor, rewrite a line or forge one.
 * UTF-8 is kept, so that names in any script print as they are.
 */
#include <stddef.h>

#include "tool_text.h"

/*
 * The length of the valid UTF-8 sequence at @s that is no C1 control
 * (U+0080..U+009F), or 0.  @s is NUL-terminated, and NUL is no
 * continuation byte.
 */
static size_t utf8_len(const unsigned char *s)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n, i;

	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		n = 2;
		if (s[0] == 0xc2)
			lo = 0xa0;	/* C2 80..9F: the C1 controls */
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		n = 3;
		if (s[0] == 0xe0)
			lo = 0xa0;	/* overlong */
		else if (s[0] == 0xed)
			hi = 0x9f;	/* surrogates */
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		n = 4;
		if (s[0] == 0xf0)
			lo = 0x90;	/* overlong */
		else if (s[0] == 0xf4)
			hi = 0x8f;	/* above U+10FFFF */
	} else {
		return 0;
	}
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return n;
}

void tool_safe_text(char *text)
{
	unsigned char *s = (unsigned char *)text;
	size_t n;

	while (*s) {
		if (*s >= ' ' && *s < 0x7f) {
			s++;
		} else if (*s >= 0x80 && (n = utf8_len(s))) {
			s += n;
		} else {
			*s++ = '?';
		}
	}
}
