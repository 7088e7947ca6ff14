// SPDX-License-Identifier: GPL-2.0 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * A record run through a compiled filter.
 *
 * Each predicate reads its field and compares as ftrace's does in Linux 6.1
 * (kernel/trace/trace_events_filter.c), so that ivring keeps exactly the
 * events that the guest's own ftrace keeps with the same filter:
 *   - a number is read in the field's size and signedness, and == != &
 *     compare its bits, < <= > >= its value;
 *   - a string is a window of bytes: a char[N] field's N bytes, the
 *     length that a __data_loc or __rel_loc word gives (its NUL
 *     included), the 16 bytes of a comm; the matchers then look at that
 *     window as ftrace's regex_match_*() do, quirks included (a suffix
 *     of a char[N] is looked for just before its last byte).
 * Unlike ftrace's, nothing here trusts the record: every read is checked
 * against its length, and a field or string that is not inside it makes
 * its predicate false.  The cost of a record is at most one test per
 * predicate; a glob's, at most its pattern's length times the window's.
 */
#include "filter_prim.h"
#include "filter.h"

/* The low @size bytes of @v as the field's type, widened to 64 bits. */
static u64 widen(u64 v, unsigned int size, bool is_signed)
{
	unsigned int shift = 64 - size * 8;

	if (size == 8)
		return v;
	v &= ~0ULL >> shift;
	if (is_signed)
		v = (u64)((s64)(v << shift) >> shift);
	return v;
}

static bool compare(const struct ivf_pred *pr, u64 field, u64 val)
{
	switch (pr->op) {
	case IVF_OP_EQ:
		return field == val;
	case IVF_OP_NE:
		return field != val;
	case IVF_OP_BAND:
		return field & val;
	default:
		break;
	}
	if (pr->is_signed) {
		s64 a = (s64)field, b = (s64)val;

		switch (pr->op) {
		case IVF_OP_LT: return a < b;
		case IVF_OP_LE: return a <= b;
		case IVF_OP_GT: return a > b;
		default: return a >= b;
		}
	}
	switch (pr->op) {
	case IVF_OP_LT: return field < val;
	case IVF_OP_LE: return field <= val;
	case IVF_OP_GT: return field > val;
	default: return field >= val;
	}
}

/* A number: the field's bits and the value's, both in the field's type. */
static bool match_int(const struct ivf_pred *pr, const u8 *rec, u32 len,
		      const struct ivf_ctx *ctx)
{
	u64 v = 0;

	if (pr->kind == IVF_CPU) {
		/* As int, both sides (filter_pred_cpu()). */
		return compare(pr, widen(ctx->cpu, 4, true),
			       widen(pr->val, 4, true));
	}
	if (pr->offset > len || pr->size > len - pr->offset)
		return false;
	memcpy(&v, rec + pr->offset, pr->size);	/* little-endian */
	return compare(pr, widen(v, pr->size, pr->is_signed),
		       widen(pr->val, pr->size, pr->is_signed));
}

/*
 * glob_match_len() of lib/glob.c as the guest's 6.1 has it: * ? [...]
 * with ranges and ! for a negated class, \ for a literal; the string is
 * @len bytes, NUL past them; one backtrack point, the last *.  The string
 * moves on by a byte at each step but a *'s, so the steps are bounded by
 * the pattern's length times the string's.
 */
static bool glob(const char *pat, u32 plen, const u8 *str, u32 len)
{
	u32 p = 0, s = 0, back_p = 0, back_s = 0;
	bool starred = false;

	for (;;) {
		u8 c = s < len ? str[s] : 0;
		u8 d = p < plen ? (u8)pat[p] : 0;

		s++;
		p++;
		switch (d) {
		case '?':
			if (!c)
				return false;
			continue;
		case '*':
			if (p >= plen)
				return true;
			starred = true;
			back_p = p;
			back_s = --s;
			continue;
		case '[': {
			bool match = false, inverted = p < plen && pat[p] == '!';
			u32 cls = p + inverted;
			u8 a = cls < plen ? (u8)pat[cls++] : 0;

			/* A [ with no ] is a literal [. */
			do {
				u8 b = a;

				if (!a)
					goto literal;
				if (cls < plen && pat[cls] == '-' &&
				    cls + 1 < plen && pat[cls + 1] != ']') {
					b = (u8)pat[cls + 1];
					if (!b)
						goto literal;
					cls += 2;
				}
				match |= a <= c && c <= b;
				a = cls < plen ? (u8)pat[cls++] : 0;
			} while (a != ']');
			if (match == inverted)
				goto backtrack;
			p = cls;
			continue;
		}
		case '\\':
			d = p < plen ? (u8)pat[p] : 0;
			p++;
			fallthrough;
		default:
literal:
			if (c == d) {
				if (!d)
					return true;
				continue;
			}
backtrack:
			if (!c || !starred)
				return false;
			p = back_p;
			s = ++back_s;
			continue;
		}
	}
}

/*
 * The window's bytes against the pattern, as regex_match_{full,front,
 * middle,end,glob}() look at them.  @len is never 0 here (match_str()).
 */
static bool match_window(const struct ivf_pred *pr, const char *pat,
			 const u8 *str, u32 len)
{
	u32 m = pr->str_len, k;

	switch (pr->match) {
	case IVF_MATCH_FULL:
		/* strncmp(str, pat, len) once len >= m: a C string in the window. */
		if (len < m)
			return false;
		for (k = 0; k < len; k++) {
			u8 pc = k < m ? (u8)pat[k] : 0;

			if (str[k] != pc)
				return false;
			if (!pc)
				return true;
		}
		return true;
	case IVF_MATCH_FRONT:
		if (len < m)
			return false;
		for (k = 0; k < m; k++)
			if (str[k] != (u8)pat[k])
				return false;
		return true;
	case IVF_MATCH_MIDDLE:
		/* The kernel's strnstr(): every offset, NULs and all. */
		if (!m)
			return true;
		for (k = 0; k + m <= len; k++)
			if (!memcmp(str + k, pat, m))
				return true;
		return false;
	case IVF_MATCH_END:
		return len - 1 >= m && !memcmp(str + len - 1 - m, pat, m);
	default:
		return glob(pat, m, str, len);
	}
}

/*
 * A string predicate.  A window of 0 bytes (a __data_loc of length 0)
 * sends ftrace's matchers to the unbounded strcmp()/strstr(), reading
 * past the field: here it is the C string that starts there, within the
 * record, and the glob sees an empty string, as it does in ftrace.
 */
static bool match_str(const struct ivf_pred *pr, const char *pool,
		      const u8 *rec, u32 len, const struct ivf_ctx *ctx)
{
	const char *pat = pool + pr->str;
	const u8 *str;
	u32 off, wlen, loc;
	bool hit;

	switch (pr->kind) {
	case IVF_COMM:
		str = (const u8 *)ctx->comm;
		wlen = IVF_COMM_LEN;
		break;
	case IVF_STR_STATIC:
		if (pr->offset > len || pr->static_size > len - pr->offset)
			return false;
		str = rec + pr->offset;
		wlen = pr->static_size;
		break;
	default:
		if (pr->offset > len || 4 > len - pr->offset)
			return false;
		memcpy(&loc, rec + pr->offset, 4);
		off = (loc & 0xffff) +
		      (pr->kind == IVF_STR_RELLOC ? pr->offset + 4u : 0);
		wlen = loc >> 16;
		if (off > len || wlen > len - off)
			return false;
		str = rec + off;
		if (!wlen && pr->match != IVF_MATCH_GLOB &&
		    pr->match != IVF_MATCH_END) {
			const u8 *nul = memchr(str, 0, len - off);

			/* Unbounded in ftrace: a string that ends in the record. */
			if (!nul)
				return false;
			wlen = nul - str + 1;
		}
		break;
	}
	/* Only a suffix or a glob gets here with no window. */
	if (!wlen)
		hit = pr->match == IVF_MATCH_GLOB &&
		      glob(pat, pr->str_len, str, 0);
	else
		hit = match_window(pr, pat, str, wlen);
	return hit != pr->negate;
}

bool ivf_match(const struct ivf_prog *prog, const void *rec, u32 len,
	       const struct ivf_ctx *ctx)
{
	unsigned int i = 0;

	if (!prog->nr)
		return true;
	while (i < prog->nr) {
		const struct ivf_pred *pr = &prog->p[i];
		bool hit = pr->kind == IVF_INT || pr->kind == IVF_CPU ?
			   match_int(pr, rec, len, ctx) :
			   match_str(pr, prog->pool, rec, len, ctx);

		/* Every target is later, or the end (ivf_compile()). */
		i = hit ? pr->on_true : pr->on_false;
	}
	return i == IVF_ACCEPT;
}
