// SPDX-License-Identifier: GPL-2.0 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * libFuzzer: an event format text as a guest may write it, through the
 * library's grammar check and, if it passes (rewritten as the library
 * rewrites it: ivr_format_prepare()), libtraceevent's parser under the
 * library's lock.  Events rendered with formats that pass are
 * fuzz_segment's: the library renders them with checks of its own.
 */
#include <string.h>
#include <traceevent/event-parse.h>

#include "format/format.h"

/* The number after the text's "\nID: ", or 100. */
static u16 text_id(const char *t, size_t n)
{
	const char *p = memmem(t, n, "\nID: ", 5);
	unsigned int id = 0;

	if (!p)
		return 100;
	for (p += 5; p < t + n && *p >= '0' && *p <= '9' && id < 65536; p++)
		id = id * 10 + (*p - '0');
	return id < 65536 ? id : 100;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char text[65536 + 1];
	struct tep_event *ev = NULL;
	struct tep_handle *tep;
	char why[256];
	u32 tokens;
	u16 id;

	if (size > 65536)
		return 0;
	/* The library's copy, which the grammar's prepare rewrites. */
	memcpy(text, data, size);
	text[size] = '\0';
	/* The id the record claims: the text's own, so that seeds pass. */
	id = text_id(text, size);
	if (ivr_format_prepare(text, size, id, why, sizeof(why), &tokens))
		return 0;
	tep = tep_alloc();
	if (!tep || ivr_tep_parse_begin()) {
		tep_free(tep);
		return 0;
	}
	ivr_tep_parse(tep, &ev, text, size, "fuzz");
	ivr_tep_parse_end();
	tep_free(tep);
	return 0;
}
