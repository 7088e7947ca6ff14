// SPDX-License-Identifier: GPL-2.0 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * An event's fields from its format text, as ftrace's filter sees them
 * (filter_assign_type() in kernel/trace/trace_events_filter.c): a
 * __data_loc or __rel_loc char[] is a string found through its location
 * word, a char array a string in place, a char pointer a string that the
 * filter cannot read here, any other array nothing a predicate may name,
 * and the rest a number of its size.
 */
#include "filter_prim.h"
#include "filter.h"

/* The unsigned number at *@p, which moves past it; false if none. */
static bool take_num(const char **p, const char *end, unsigned int *out)
{
	unsigned int v = 0;
	const char *s = *p;

	if (s == end || *s < '0' || *s > '9')
		return false;
	while (s < end && *s >= '0' && *s <= '9') {
		if (v > 100000)
			return false;
		v = v * 10 + (*s++ - '0');
	}
	*p = s;
	*out = v;
	return true;
}

/* @key ("offset:") at *@p, after blanks; *@p moves past it. */
static bool take_key(const char **p, const char *end, const char *key)
{
	const char *s = *p;
	size_t n = strlen(key);

	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	if ((size_t)(end - s) < n || memcmp(s, key, n))
		return false;
	*p = s + n;
	return true;
}

static bool has(const char *s, size_t len, const char *what)
{
	size_t n = strlen(what), i;

	for (i = 0; i + n <= len; i++)
		if (!memcmp(s + i, what, n))
			return true;
	return false;
}

static bool is_type(const char *s, size_t len, const char *what)
{
	return strlen(what) == len && !memcmp(s, what, len);
}

/*
 * "TYPE NAME" (@decl, @len bytes, up to the ';'), with NAME the last
 * word, maybe with [N] after it: the field's name and kind.
 */
static bool decl(const char *d, size_t len, struct ivf_field *f)
{
	size_t end = len, start, type_len, name_len;
	const char *bracket;
	bool array;

	while (end && (d[end - 1] == ' ' || d[end - 1] == '\t'))
		end--;
	start = end;
	while (start && d[start - 1] != ' ' && d[start - 1] != '\t')
		start--;
	if (start == end || !start)
		return false;
	type_len = start;
	while (type_len && (d[type_len - 1] == ' ' || d[type_len - 1] == '\t'))
		type_len--;
	if (!type_len)
		return false;
	bracket = memchr(d + start, '[', end - start);
	array = bracket != NULL;
	name_len = array ? (size_t)(bracket - (d + start)) : end - start;
	if (!name_len || name_len >= sizeof(f->name))
		return false;
	memcpy(f->name, d + start, name_len);
	f->name[name_len] = '\0';

	if (has(d, type_len, "__data_loc") && has(d, type_len, "char"))
		f->kind = IVF_STR_LOC;
	else if (has(d, type_len, "__rel_loc") && has(d, type_len, "char"))
		f->kind = IVF_STR_RELLOC;
	else if (array && has(d, type_len, "char"))
		f->kind = IVF_STR_STATIC;
	else if (array || is_type(d, type_len, "char *") ||
		 is_type(d, type_len, "const char *"))
		f->kind = IVF_UNSUPPORTED;
	else
		f->kind = IVF_INT;
	return true;
}

/* One line, from "field:" to its end; false if it does not parse. */
static bool field_line(const char *s, const char *end, struct ivf_field *f)
{
	const char *semi = memchr(s, ';', end - s);
	unsigned int offset, size, sign;

	if (!semi || !decl(s, semi - s, f))
		return false;
	s = semi + 1;
	if (!take_key(&s, end, "offset:") || !take_num(&s, end, &offset) ||
	    !take_key(&s, end, ";") || !take_key(&s, end, "size:") ||
	    !take_num(&s, end, &size) || !take_key(&s, end, ";") ||
	    !take_key(&s, end, "signed:") || !take_num(&s, end, &sign) ||
	    sign > 1 || offset > 0xffff || size > 0xffff)
		return false;
	f->offset = offset;
	f->size = size;
	f->is_signed = sign;
	if (f->kind == IVF_INT && size != 1 && size != 2 && size != 4 &&
	    size != 8)
		f->kind = IVF_UNSUPPORTED;
	if ((f->kind == IVF_STR_LOC || f->kind == IVF_STR_RELLOC) && size != 4)
		f->kind = IVF_UNSUPPORTED;
	return true;
}

unsigned int ivf_fields_parse(const char *text, size_t len,
			      struct ivf_fields *out)
{
	const char *s = text, *end = text + len;

	out->nr = 0;
	while (s < end && out->nr < IVF_FIELDS_MAX) {
		const char *nl = memchr(s, '\n', end - s);
		const char *eol = nl ? nl : end;

		if (take_key(&s, eol, "field:") &&
		    field_line(s, eol, &out->f[out->nr]))
			out->nr++;
		s = nl ? nl + 1 : end;
	}
	return out->nr;
}
