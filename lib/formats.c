// SPDX-License-Identifier: LGPL-2.1 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * The segment's format area -> a libtraceevent handle.  The guest wrote the
 * area, so it is hostile (DESIGN.md, invariant 4): it is copied to private
 * memory before anything in it is looked at, every record is checked
 * against the copy's bounds, and every event that libtraceevent accepts is
 * checked again so that printing it can only read memory that rendering
 * owns (the payload copy and the IVR_PAGE_SLACK zeros after it).
 *
 * A bad record costs only its own event: it is skipped and counted, and
 * events of that type render as unknown.  An event whose print format could
 * make libtraceevent read or print without bound keeps its fields but is
 * printed raw (field=value), never through that format.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>

#include "internal.h"

/* Arguments that print more than this per conversion are not trusted. */
#define IVR_WIDTH_MAX		999
#define IVR_UNBOUNDED		(~0ULL)

/* Copy of the live format area: its header, then @used bytes of records. */
struct fmt_copy {
	u32 nr_events;
	u32 used;
	u8 *rec;
};

static int copy_area(struct ivring *r, struct fmt_copy *c)
{
	const struct ivring_format_area *live =
		(const void *)(r->map + r->hdr.format_offset);
	u64 cap = r->hdr.format_size - sizeof(*live);

	/* Paired with the writer's store-release of nr_events. */
	c->nr_events = __atomic_load_n(&live->nr_events, __ATOMIC_ACQUIRE);
	c->used = __atomic_load_n(&live->used, __ATOMIC_RELAXED);
	if (c->used > cap)
		return ivr_err(r, -EINVAL,
			       "%s: format area claims %u bytes of records, it has room for %llu",
			       r->path, c->used, (unsigned long long)cap);
	c->rec = malloc(c->used ? c->used : 1);
	if (!c->rec)
		return ivr_err(r, -ENOMEM, "%s: no memory for %u bytes of formats",
			       r->path, c->used);
	memcpy(c->rec, live + 1, c->used);
	return 0;
}

static bool ident_char(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
	       (ch >= '0' && ch <= '9') || ch == '_';
}

/*
 * Text that libtraceevent's recursive-descent parser may see: printable
 * ASCII, tabs and newlines, and no deeper nesting than IVR_NEST_MAX, so a
 * hostile "((((...))))" cannot exhaust the stack.
 */
static const char *check_text(const char *t, u32 len)
{
	int depth = 0;
	u32 i;

	for (i = 0; i < len; i++) {
		unsigned char ch = t[i];

		if (ch == '(' || ch == '[' || ch == '{') {
			if (++depth > IVR_NEST_MAX)
				return "nested too deeply";
		} else if (ch == ')' || ch == ']' || ch == '}') {
			depth--;
		} else if ((ch < ' ' && ch != '\t' && ch != '\n') || ch >= 0x7f) {
			return "has a non-printable byte";
		}
	}
	return NULL;
}

static const char *check_fields(struct tep_format_field *f, int *count)
{
	for (; f; f = f->next) {
		if (++*count > 4096)
			return "has too many fields";
		if (f->offset < 0 || f->size < 0 ||
		    f->offset + (long)f->size > IVR_FIELD_END_MAX)
			return "has a field beyond 64 KiB";
		/*
		 * libtraceevent takes a 2-byte __data_loc's length as "the
		 * rest of the record", which underflows for an offset past
		 * the record's end; the kernel only writes 4-byte ones.
		 */
		if ((f->flags & TEP_FIELD_IS_DYNAMIC) && f->size != 4)
			return "has a __data_loc field that is not 4 bytes";
	}
	return NULL;
}

static bool common_at(struct tep_event *ev, const char *name, int off, int size)
{
	struct tep_format_field *f = tep_find_common_field(ev, name);

	return f && f->offset == off && f->size == size;
}

/*
 * Fields and common fields in bounds, and the common fields where ftrace
 * puts them: libtraceevent finds every record's type and pid through the
 * first event's common fields, so all events must agree on them.
 */
static const char *check_event(struct tep_event *ev, u16 id)
{
	const char *why;
	int count = 0;

	if (ev->id != id)
		return "has an ID: line that differs from its record's id";
	if (!ev->name || !ev->name[0])
		return "has no name";
	if (ev->flags & TEP_EVENT_FL_FAILED)
		return "was not understood by libtraceevent";
	if (!common_at(ev, "common_type", 0, 2) ||
	    !common_at(ev, "common_pid", 4, 4))
		return "does not start with ftrace's common fields";
	why = check_fields(ev->format.common_fields, &count);
	if (!why)
		why = check_fields(ev->format.fields, &count);
	return why;
}

static u64 sat_add(u64 a, u64 b)
{
	return a > IVR_UNBOUNDED - b ? IVR_UNBOUNDED : a + b;
}

static u64 sat_mul(u64 a, u64 b)
{
	return a && b > IVR_UNBOUNDED / a ? IVR_UNBOUNDED : a * b;
}

/*
 * The value of a number atom, as libtraceevent takes it: strtoull() of the
 * atom, which stops at a suffix the kernel's formats write ("1000L" in
 * itimer_state), so a suffix does not make the number unknown.
 */
static bool atom_value(const struct tep_print_arg *a, u64 *val)
{
	return a->type == TEP_PRINT_ATOM && a->atom.atom &&
	       ivr_int_literal(a->atom.atom, val);
}

static struct tep_format_field *arg_field(struct tep_event *ev,
					  const struct tep_print_arg *a)
{
	if (a->field.field)
		return a->field.field;
	return a->field.name ? tep_find_any_field(ev, a->field.name) : NULL;
}

/*
 * Largest value @a can evaluate to, whatever the record holds, or
 * IVR_UNBOUNDED.  Used for lengths, counts and indexes that libtraceevent
 * trusts when it prints.
 */
static u64 arg_bound(struct tep_event *ev, const struct tep_print_arg *a,
		     int depth)
{
	struct tep_format_field *f;
	u64 v, l, rt;

	if (!a || depth > IVR_NEST_MAX)
		return IVR_UNBOUNDED;
	switch (a->type) {
	case TEP_PRINT_ATOM:
		return atom_value(a, &v) ? v : IVR_UNBOUNDED;
	case TEP_PRINT_FIELD:
		f = arg_field(ev, a);
		if (f && !(f->flags & TEP_FIELD_IS_ARRAY) && f->size == 1)
			return 0xff;
		if (f && !(f->flags & TEP_FIELD_IS_ARRAY) && f->size == 2)
			return 0xffff;
		return IVR_UNBOUNDED;
	case TEP_PRINT_DYNAMIC_ARRAY_LEN:
		return 0xffff;
	case TEP_PRINT_TYPE:
		/* A cast to a narrower signed type can make it negative. */
		v = arg_bound(ev, a->typecast.item, depth + 1);
		return v < 0x80 ? v : IVR_UNBOUNDED;
	case TEP_PRINT_OP:
		if (!a->op.op || !a->op.left || !a->op.right)
			return IVR_UNBOUNDED;
		l = arg_bound(ev, a->op.left, depth + 1);
		rt = arg_bound(ev, a->op.right, depth + 1);
		if (!strcmp(a->op.op, "+"))
			return sat_add(l, rt);
		if (!strcmp(a->op.op, "*"))
			return sat_mul(l, rt);
		if (!strcmp(a->op.op, "/") || !strcmp(a->op.op, ">>"))
			return l;
		if (!strcmp(a->op.op, "&"))
			return l < rt ? l : rt;
		return IVR_UNBOUNDED;
	default:
		return IVR_UNBOUNDED;
	}
}

/* A divisor that no record can make zero: a non-zero constant. */
static bool nonzero_const(const struct tep_print_arg *a)
{
	u64 v;

	if (a && a->type == TEP_PRINT_TYPE) {
		/* Survives any cast: 1..127. */
		a = a->typecast.item;
		return a && atom_value(a, &v) && v && v < 0x80;
	}
	return a && atom_value(a, &v) && v;
}

/* The array operand of __print_hex/__print_array: a field or __get_dynamic_array. */
static bool array_operand(struct tep_event *ev, const struct tep_print_arg *a)
{
	if (!a)
		return false;
	if (a->type == TEP_PRINT_DYNAMIC_ARRAY)
		return a->dynarray.field;
	return a->type == TEP_PRINT_FIELD && arg_field(ev, a);
}

/*
 * Can printing @a (and the list after it) only read the payload copy and its
 * slack, only print a bounded amount, and never divide by zero?  The checks
 * follow what libtraceevent 1.7's eval_num_arg() and print_str_arg() trust.
 */
static bool args_safe(struct tep_event *ev, const struct tep_print_arg *a,
		      int depth)
{
	const struct tep_print_arg *l;
	u64 v;

	if (depth > IVR_NEST_MAX)
		return false;
	for (; a; a = a->next) {
		switch (a->type) {
		case TEP_PRINT_NULL:
		case TEP_PRINT_ATOM:
		case TEP_PRINT_FIELD:
		case TEP_PRINT_BSTRING:
		case TEP_PRINT_STRING:
		case TEP_PRINT_BITMASK:
			break;
		case TEP_PRINT_CPUMASK:
			/* 1.7 dereferences the field before checking it exists. */
			if (!a->bitmask.bitmask ||
			    !tep_find_any_field(ev, a->bitmask.bitmask))
				return false;
			break;
		case TEP_PRINT_DYNAMIC_ARRAY:
		case TEP_PRINT_DYNAMIC_ARRAY_LEN:
			if (!a->dynarray.field)
				return false;
			break;
		case TEP_PRINT_TYPE:
			if (!a->typecast.item ||
			    !args_safe(ev, a->typecast.item, depth + 1))
				return false;
			break;
		case TEP_PRINT_FLAGS:
			if (!a->flags.field ||
			    !args_safe(ev, a->flags.field, depth + 1))
				return false;
			break;
		case TEP_PRINT_SYMBOL:
			if (!a->symbol.field ||
			    !args_safe(ev, a->symbol.field, depth + 1))
				return false;
			break;
		case TEP_PRINT_HEX:
		case TEP_PRINT_HEX_STR:
			/* The length is trusted: at most a payload's worth. */
			if (!array_operand(ev, a->hex.field) ||
			    arg_bound(ev, a->hex.size, 0) > IVR_FIELD_END_MAX ||
			    !args_safe(ev, a->hex.size, depth + 1))
				return false;
			break;
		case TEP_PRINT_INT_ARRAY:
			if (!array_operand(ev, a->int_array.field) ||
			    !atom_value(a->int_array.el_size, &v) || !v || v > 8 ||
			    sat_mul(arg_bound(ev, a->int_array.count, 0), v) >
				    IVR_FIELD_END_MAX ||
			    !args_safe(ev, a->int_array.count, depth + 1))
				return false;
			break;
		case TEP_PRINT_OP:
			if (!a->op.op || !a->op.left || !a->op.right)
				return false;
			if (!strcmp(a->op.op, "[")) {
				/* An index is trusted: keep offsets far from int overflow. */
				l = a->op.left;
				while (l && l->type == TEP_PRINT_TYPE)
					l = l->typecast.item;
				if (!array_operand(ev, l) ||
				    arg_bound(ev, a->op.right, 0) > IVR_FIELD_END_MAX)
					return false;
			} else if (!strcmp(a->op.op, "/") || !strcmp(a->op.op, "%")) {
				if (!nonzero_const(a->op.right))
					return false;
			} else if (!strcmp(a->op.op, "?")) {
				if (a->op.right->type != TEP_PRINT_OP ||
				    !a->op.right->op.op ||
				    strcmp(a->op.right->op.op, ":"))
					return false;
			}
			if (!args_safe(ev, a->op.left, depth + 1) ||
			    !args_safe(ev, a->op.right, depth + 1))
				return false;
			break;
		default:
			/* TEP_PRINT_FUNC (no plugins are loaded) and the unknown. */
			return false;
		}
		if (depth == 0)
			continue;
		/* Nested arguments are single: their ->next is not theirs to walk. */
		break;
	}
	return true;
}

/* No conversion with a width or precision from the record, or a huge one. */
static bool format_safe(const char *fmt)
{
	const char *p;
	int digits;

	if (!fmt)
		return true;
	for (p = strchr(fmt, '%'); p; p = strchr(p, '%')) {
		p++;
		if (*p == '%') {
			p++;
			continue;
		}
		digits = 0;
		for (; *p && strchr("#-+ 0123456789.hlLzZjt*", *p); p++) {
			if (*p == '*')
				return false;
			digits = (*p >= '0' && *p <= '9') ? digits + 1 : 0;
			if (digits > 3)
				return false;
		}
	}
	return true;
}

/* A record that passed the checks that need no parser. */
struct candidate {
	u16 id;
	char sys[65];
	char *text;
	u32 len;
};

/*
 * Walk the records of the copy and keep those whose framing, names and text
 * are sane.  Returns how many candidates went into @cand.
 */
static u32 frame_records(struct ivring *r, struct fmt_copy *c,
			 struct candidate *cand, const char **first_why)
{
	u32 off = 0, i, n = 0, nr = c->nr_events;

	/* Each record holds at least its header and one byte of each string. */
	if (nr > c->used / (sizeof(struct ivring_format) + 8))
		nr = c->used / (sizeof(struct ivring_format) + 8);
	r->bad_formats = c->nr_events - nr;

	for (i = 0; i < nr; i++) {
		struct candidate *k = &cand[n];
		struct ivring_format f;
		const char *why = NULL;
		u32 j;

		if (c->used - off < sizeof(f)) {
			r->bad_formats += nr - i;
			*first_why = *first_why ?: "records end before nr_events of them";
			break;
		}
		memcpy(&f, c->rec + off, sizeof(f));
		if (f.rec_size % 8 ||
		    f.rec_size < sizeof(f) + (u64)f.sys_len + f.text_len ||
		    f.rec_size > c->used - off) {
			/* The chain is broken: nothing after this can be found. */
			r->bad_formats += nr - i;
			*first_why = *first_why ?: "a record's size is out of bounds";
			break;
		}
		if (!f.sys_len || f.sys_len > 64)
			why = "has a system name of bad length";
		else if (!f.text_len || f.text_len > IVRING_FORMAT_TEXT_MAX)
			why = "has a format text of bad length";
		for (j = 0; !why && j < f.sys_len; j++) {
			k->sys[j] = c->rec[off + sizeof(f) + j];
			if (!ident_char(k->sys[j]))
				why = "has a system name that is not an identifier";
		}
		if (!why) {
			k->sys[f.sys_len] = '\0';
			/* Texts are not NUL-terminated in the segment. */
			k->text = malloc(f.text_len + 1);
			if (k->text) {
				memcpy(k->text, c->rec + off + sizeof(f) +
				       f.sys_len, f.text_len);
				k->text[f.text_len] = '\0';
			} else {
				r->bad_formats += nr - i;
				*first_why = *first_why ?: "could not be copied";
				break;
			}
			k->len = f.text_len;
			k->id = f.id;
			why = check_text(k->text, f.text_len);
		}
		if (!why && !strcmp(k->sys, "ftrace"))
			/* libtraceevent special-cases ftrace's own events. */
			why = "claims the ftrace system";
		off += f.rec_size;
		if (why) {
			free(k->text);
			k->text = NULL;
			r->bad_formats++;
			*first_why = *first_why ?: why;
			continue;
		}
		n++;
	}
	return n;
}

/*
 * Parse one vetted candidate into a throw-away handle and check the event
 * there: libtraceevent adds an event it could only partly parse and cannot
 * remove one, so only what passes may enter @tep.
 */
static const char *admit(struct tep_handle *tep, const struct candidate *k,
			 struct tep_event **out)
{
	struct tep_handle *vet = tep_alloc();
	struct tep_event *ev = NULL;
	const char *why;

	if (!vet)
		return NULL;
	tep_set_long_size(vet, 8);
	tep_set_file_bigendian(vet, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(vet, TEP_LITTLE_ENDIAN);
	if (tep_parse_format(vet, &ev, k->text, k->len, k->sys) || !ev)
		why = "was not understood by libtraceevent";
	else
		why = check_event(ev, k->id);
	tep_free(vet);
	if (why)
		return why;
	*out = NULL;
	if (tep_parse_format(tep, out, k->text, k->len, k->sys) || !*out)
		return "was not understood by libtraceevent";
	return NULL;
}

/* The records of one copy, checked one by one; the good ones into @tep. */
static int load_records(struct ivring *r, struct fmt_copy *c,
			struct tep_handle *tep, const char **first_why)
{
	u32 max = c->used / (sizeof(struct ivring_format) + 8) + 1;
	struct candidate *cand = calloc(max, sizeof(*cand));
	struct ivr_vet_item *items = calloc(max, sizeof(*items));
	u8 *ok = malloc(max), seen[65536 / 8] = { 0 };
	u32 n = 0, i;
	int ret = -ENOMEM;

	if (!cand || !items || !ok)
		goto out;
	n = frame_records(r, c, cand, first_why);
	for (i = 0; i < n; i++)
		items[i] = (struct ivr_vet_item){ cand[i].sys, cand[i].text,
						  cand[i].len };
	ret = ivr_vet_formats(c->rec, c->used, items, n, ok);
	if (ret)
		goto out;

	for (i = 0; i < n; i++) {
		struct candidate *k = &cand[i];
		struct tep_event *ev;
		const char *why;

		if (!ok[i])
			why = "made libtraceevent's parser crash";
		else if (seen[k->id / 8] & (1U << (k->id % 8)))
			why = "repeats an event id";
		else
			why = admit(tep, k, &ev);
		if (why) {
			r->bad_formats++;
			*first_why = *first_why ?: why;
			continue;
		}
		seen[k->id / 8] |= 1U << (k->id % 8);
		r->nr_formats++;
		if (!args_safe(ev, ev->print_fmt.args, 0) ||
		    !format_safe(ev->print_fmt.format)) {
			ev->flags |= TEP_EVENT_FL_PRINTRAW;
			r->raw_formats++;
		}
	}
out:
	for (i = 0; cand && i < max; i++)
		free(cand[i].text);
	free(cand);
	free(items);
	free(ok);
	return ret;
}

/**
 * ivr_formats_load() - build r->tep from the segment's format area
 * @r:	handle whose header (r->hdr) is validated and whose area bounds
 *	were checked against the mapping
 *
 * Bad records are skipped and counted in r->bad_formats; r->err then says
 * how many and why the first one was refused.  No format at all is not an
 * error: every event then renders as unknown.
 *
 * Return: 0, -EINVAL when the area's own header is impossible, -ENOMEM.
 */
int ivr_formats_load(struct ivring *r)
{
	struct fmt_copy c = { 0 };
	const char *why = NULL;
	struct tep_handle *tep;
	int ret;

	ivr_formats_free(r);
	ret = copy_area(r, &c);
	if (ret)
		return ret;

	ret = -ENOMEM;
	tep = tep_alloc();
	if (!tep)
		goto out;
	/*
	 * The guest is x86-64 or another 64-bit little-endian machine
	 * (ABI 1.x); pages are its sub-buffers.  No plugins: their handlers
	 * would read hostile records with less care than the core.
	 */
	tep_set_long_size(tep, 8);
	tep_set_file_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_page_size(tep, r->hdr.subbuf_size);
	tep_set_cpus(tep, r->hdr.nr_cpus);

	ret = load_records(r, &c, tep, &why);
	if (ret)
		goto out;
	r->tep = tep;
	tep = NULL;
	if (r->bad_formats)
		ivr_err(r, 0, "%s: %u of %u event formats skipped; the first %s",
			r->path, r->bad_formats, c.nr_events, why);
out:
	if (tep)
		tep_free(tep);
	if (ret) {
		r->nr_formats = r->bad_formats = r->raw_formats = 0;
		ivr_err(r, ret, "%s: cannot parse %u event formats: %s",
			r->path, c.nr_events, strerror(-ret));
	}
	free(c.rec);
	return ret;
}

void ivr_formats_free(struct ivring *r)
{
	if (r->tep)
		tep_free(r->tep);
	r->tep = NULL;
	r->nr_formats = 0;
	r->bad_formats = 0;
	r->raw_formats = 0;
	r->nr_comms = 0;
}
