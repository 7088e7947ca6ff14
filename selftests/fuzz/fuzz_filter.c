// SPDX-License-Identifier: GPL-2.0 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * libFuzzer: a filter text, as a guest's root may write one to
 * /sys/kernel/ivring/events/SYS/EVENT/filter, compiled by the module's own
 * include/filter/ against a format's fields; then a record, which the
 * filter must read within its bounds, whatever its bytes say.  The input
 * is the text, then a NUL, then the record (empty: a zeroed one).
 * Checked besides ASan and UBSan: a refusal says why, at a byte of the
 * text or just past it (as ftrace's positions go); a program has no more predicates than the limit, and every jump
 * goes forward; the same text compiles to the same program again.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "filter.h"

static const char format[] =
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
	"\tfield:pid_t next_pid;\toffset:40;\tsize:4;\tsigned:1;\n"
	"\tfield:__data_loc char[] name;\toffset:44;\tsize:4;\tsigned:0;\n"
	"\tfield:__rel_loc char[] rel;\toffset:48;\tsize:4;\tsigned:0;\n"
	"\tfield:u8 flag;\toffset:52;\tsize:1;\tsigned:0;\n"
	"\tfield:short small;\toffset:54;\tsize:2;\tsigned:1;\n";

static struct ivf_fields fields;
static struct ivf_prog prog, again;
static struct ivf_work work;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nul = memchr(data, 0, size);
	size_t tlen = nul ? (size_t)(nul - data) : size;
	static uint8_t zero[64];
	const uint8_t *rec = nul ? nul + 1 : zero;
	uint32_t rlen = nul ? size - tlen - 1 : sizeof(zero);
	struct ivf_ctx ctx = { .cpu = 1, .comm = "fuzz\0\0\0\0\0\0\0\0\0\0\0" };
	struct ivf_error err;
	unsigned int i;
	uint8_t *copy;
	int ret;

	if (!fields.nr)
		ivf_fields_parse(format, sizeof(format) - 1, &fields);
	ret = ivf_compile((const char *)data, tlen, &fields, &prog, &work,
			  &err);
	if (ret) {
		if (ret != -EINVAL || !err.msg || err.pos > tlen + 1 || prog.nr)
			abort();
		return 0;
	}
	if (prog.nr > IVF_PREDS_MAX || prog.pool_len > IVF_POOL_MAX)
		abort();
	for (i = 0; i < prog.nr; i++)
		if (prog.p[i].on_true <= i || prog.p[i].on_false <= i ||
		    (prog.p[i].on_true > prog.nr && prog.p[i].on_true != IVF_ACCEPT &&
		     prog.p[i].on_true != IVF_REJECT))
			abort();
	if (ivf_compile((const char *)data, tlen, &fields, &again, &work,
			&err) || again.nr != prog.nr ||
	    memcmp(again.p, prog.p, prog.nr * sizeof(prog.p[0])))
		abort();
	/* The record in a buffer of its own size: ASan sees any read past it. */
	copy = malloc(rlen ? rlen : 1);
	if (!copy)
		abort();
	memcpy(copy, rec, rlen);
	ivf_match(&prog, copy, rlen, &ctx);
	free(copy);
	return 0;
}
