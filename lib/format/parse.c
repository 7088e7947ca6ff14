// SPDX-License-Identifier: LGPL-2.1 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * The listed format texts (format/area.c) -> a libtraceevent handle, at the
 * first call that decodes.  Every text passed the grammar, which makes its
 * parse safe; every event that libtraceevent accepts is checked again here
 * so that printing it can only read memory that rendering owns (the payload
 * copy and the IVR_PAGE_SLACK zeros after it).
 *
 * A text that libtraceevent or these checks refuse costs only its own
 * event: it is counted as skipped, and events of that type render as
 * unknown.  An event whose print format could make libtraceevent read or
 * print without bound keeps its fields but is printed raw (field=value),
 * never through that format.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>

#include "format/format.h"

/* Arguments that print more than this per conversion are not trusted. */
#define IVR_WIDTH_MAX		999
#define IVR_UNBOUNDED		(~0ULL)
/* count_refs() stops counting there: far above any bound it is held to. */
#define IVR_REFS_MAX		(1U << 20)

/* A field's bytes in the record, for overlaps(). */
struct span {
	int offset;
	int size;
};

static int by_offset(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	return (x->offset > y->offset) - (x->offset < y->offset);
}

/*
 * Do two fields of @ev share a byte?  No kernel's format has such fields
 * (the 2,323 of a 6.18 host's tracefs and the 68 in selftests/data/formats
 * were checked), and a hostile one would have one record's bytes printed and
 * recorded once per field that names them: 256 fields of 64 KiB over the
 * same bytes.  -ENOMEM when there is no memory to tell.
 */
static int overlaps(struct tep_event *ev, int count)
{
	struct tep_format_field *lists[2] = { ev->format.common_fields,
					      ev->format.fields };
	struct tep_format_field *f;
	struct span *sp = malloc(sizeof(*sp) * (count ? count : 1));
	int n = 0, i, ret = 0;

	if (!sp)
		return -ENOMEM;
	for (i = 0; i < 2; i++)
		for (f = lists[i]; f && n < count; f = f->next)
			if (f->size)
				sp[n++] = (struct span){ f->offset, f->size };
	qsort(sp, n, sizeof(*sp), by_offset);
	for (i = 1; i < n && !ret; i++)
		ret = sp[i - 1].offset + sp[i - 1].size > sp[i].offset;
	free(sp);
	return ret;
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
	int count = 0, ret;

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
	if (!why) {
		ret = overlaps(ev, count);
		if (ret)
			why = ret < 0 ? "could not be checked: out of memory" :
					"has fields that share bytes";
	}
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

/* Is @name a __data_loc field of @ev? */
static bool is_dynamic(struct tep_event *ev, const char *name)
{
	struct tep_format_field *f = name ? tep_find_any_field(ev, name) : NULL;

	return f && (f->flags & TEP_FIELD_IS_DYNAMIC);
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
			break;
		/*
		 * These read a __data_loc word wherever the field lies; only
		 * a __data_loc field's is bounded by render.c's cap_dynamic().
		 */
		case TEP_PRINT_STRING:
			if (!is_dynamic(ev, a->string.string))
				return false;
			break;
		case TEP_PRINT_BITMASK:
		case TEP_PRINT_CPUMASK:
			/* 1.7 dereferences a cpumask's field before checking it. */
			if (!is_dynamic(ev, a->bitmask.bitmask))
				return false;
			break;
		case TEP_PRINT_DYNAMIC_ARRAY:
		case TEP_PRINT_DYNAMIC_ARRAY_LEN:
			if (!a->dynarray.field ||
			    !(a->dynarray.field->flags & TEP_FIELD_IS_DYNAMIC))
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


static struct tep_handle *new_tep(const struct ivring *r)
{
	struct tep_handle *tep = tep_alloc();

	if (!tep)
		return NULL;
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
	return tep;
}

static int by_id_down(const void *a, const void *b, void *list)
{
	const struct ivr_format *l = list;

	return (int)l[*(const u32 *)b].id - (int)l[*(const u32 *)a].id;
}

/*
 * The listed texts by descending id: libtraceevent keeps its events sorted
 * by id, and inserts each new one after a linear scan from the lowest, so
 * ascending ids would make thousands of formats cost a quadratic number of
 * cache misses; descending ones stop the scan at once.
 */
static u32 *parse_order(const struct ivr_formats *fs)
{
	u32 *order = malloc((fs->nr ? fs->nr : 1) * sizeof(*order)), i;

	if (!order)
		return NULL;
	for (i = 0; i < fs->nr; i++)
		order[i] = i;
	qsort_r(order, fs->nr, sizeof(*order), by_id_down, fs->list);
	return order;
}

/*
 * How many times the print args of @a (and the list after it) read the
 * record: each reference to a field, saturating at IVR_REFS_MAX.
 */
static unsigned int count_refs(const struct tep_print_arg *a, int depth)
{
	unsigned int n = 0;

	for (; a && depth <= IVR_NEST_MAX && n < IVR_REFS_MAX; a = a->next) {
		switch (a->type) {
		case TEP_PRINT_FIELD:
		case TEP_PRINT_STRING:
		case TEP_PRINT_BITMASK:
		case TEP_PRINT_CPUMASK:
		case TEP_PRINT_DYNAMIC_ARRAY:
		case TEP_PRINT_DYNAMIC_ARRAY_LEN:
			n++;
			break;
		case TEP_PRINT_TYPE:
			n += count_refs(a->typecast.item, depth + 1);
			break;
		case TEP_PRINT_FLAGS:
			n += count_refs(a->flags.field, depth + 1);
			break;
		case TEP_PRINT_SYMBOL:
			n += count_refs(a->symbol.field, depth + 1);
			break;
		case TEP_PRINT_HEX:
		case TEP_PRINT_HEX_STR:
			n += count_refs(a->hex.field, depth + 1) +
			     count_refs(a->hex.size, depth + 1);
			break;
		case TEP_PRINT_INT_ARRAY:
			n += count_refs(a->int_array.field, depth + 1) +
			     count_refs(a->int_array.count, depth + 1);
			break;
		case TEP_PRINT_OP:
			n += count_refs(a->op.left, depth + 1) +
			     count_refs(a->op.right, depth + 1);
			break;
		default:
			break;
		}
		if (depth)
			break;
	}
	return n < IVR_REFS_MAX ? n : IVR_REFS_MAX;
}

/*
 * Does the print fmt read the record more often than a kernel's would?
 * The kernel's formats name at most 1.4 fields per field they have (the
 * same 2,391 texts); a hostile one that prints one string a thousand
 * times would make each record a thousand copies of it.  Raw prints each
 * field once.
 */
static bool refs_bounded(struct tep_event *ev)
{
	struct tep_format_field *f;
	unsigned int fields = 0;

	for (f = ev->format.common_fields; f; f = f->next)
		fields++;
	for (f = ev->format.fields; f; f = f->next)
		fields++;
	return count_refs(ev->print_fmt.args, 0) <= 2 * fields + 8;
}

/* Mark @ev to print raw if its print fmt is not provably safe. */
static void mark_raw(struct ivr_format *f, struct tep_event *ev)
{
	if (args_safe(ev, ev->print_fmt.args, 0) &&
	    format_safe(ev->print_fmt.format) && refs_bounded(ev))
		return;
	/*
	 * PRINTRAW alone is not raw: 1.7 prints a field that a conversion
	 * takes through that conversion, with its width and its "*" length
	 * evaluated.  FAILED makes print_field() skip the print fmt for good.
	 */
	ev->flags |= TEP_EVENT_FL_PRINTRAW | TEP_EVENT_FL_FAILED;
	f->flags |= IVRING_FORMAT_RAW;
}

/*
 * Parse the listed texts in @order that are not refused yet into @tep, and
 * refuse those that libtraceevent or check_event() refuses.  Returns how
 * many it refused, or -ENOMEM.
 */
static int parse_pass(struct ivr_formats *fs, const u32 *order,
		      struct tep_handle *tep, u32 *first, const char **first_why)
{
	int refused = 0, ret;
	u32 i;

	ret = ivr_tep_parse_begin();
	if (ret)
		return ret;
	for (i = 0; i < fs->nr; i++) {
		struct ivr_format *f = &fs->list[order[i]];
		const char *why;
		struct tep_event *ev;

		if (f->flags & IVRING_FORMAT_REFUSED)
			continue;
		ret = ivr_tep_parse(tep, &ev, ivr_fmt_str(fs, f, f->text),
				    f->len, ivr_fmt_str(fs, f, f->sys));
		if (ret < 0)
			break;
		why = ret ? "was not understood by libtraceevent" :
			    check_event(ev, f->id);
		if (why) {
			f->flags = IVRING_FORMAT_REFUSED;
			refused++;
			/* The reason given is the first refused in the area. */
			if (order[i] < *first) {
				*first = order[i];
				*first_why = why;
			}
			continue;
		}
		f->flags = IVRING_FORMAT_PARSED;
		mark_raw(f, ev);
	}
	ivr_tep_parse_end();
	return ret < 0 ? ret : refused;
}

/*
 * Why libtraceevent or check_event() refuses @f, parsed into a handle of
 * its own and freed; NULL when it takes it.  1 when there was no memory.
 * Call between ivr_tep_parse_begin() and ivr_tep_parse_end().
 */
static const char *trial(struct ivring *r, const struct ivr_format *f,
			 int *err)
{
	struct tep_handle *tep = new_tep(r);
	const struct ivr_formats *fs = r->fmts;
	const char *why;
	struct tep_event *ev;
	int ret;

	*err = 0;
	if (!tep) {
		*err = -ENOMEM;
		return NULL;
	}
	ret = ivr_tep_parse(tep, &ev, ivr_fmt_str(fs, f, f->text), f->len,
			    ivr_fmt_str(fs, f, f->sys));
	if (ret < 0)
		*err = ret;
	why = ret ? "was not understood by libtraceevent" :
		    check_event(ev, f->id);
	tep_free(tep);
	return why;
}

/*
 * The texts listed since the tep was made (appended by the guest after
 * attach) join it, and nothing already in it changes: every tep_event a
 * caller holds stays valid.  libtraceevent cannot take an event back, so
 * each text is first parsed into a handle of its own; only one that
 * passes there joins the tep.  A refused text costs its own parse, never a
 * parse of all the others again.
 */
static int parse_new(struct ivring *r)
{
	struct ivr_formats *fs = r->fmts;
	u32 i, skipped = 0, first = UINT32_MAX;
	const char *first_why = NULL;
	int ret;

	ret = ivr_tep_parse_begin();
	if (ret)
		return ret;
	for (i = fs->nr_parsed; i < fs->nr; i++) {
		struct ivr_format *f = &fs->list[i];
		struct tep_event *ev;
		const char *why;

		why = trial(r, f, &ret);
		if (ret < 0)
			break;
		if (!why) {
			ret = ivr_tep_parse(fs->tep, &ev,
					    ivr_fmt_str(fs, f, f->text), f->len,
					    ivr_fmt_str(fs, f, f->sys));
			why = ret ? "was not understood by libtraceevent" :
				    check_event(ev, f->id);
			/*
			 * Parsing is deterministic (format/tep_lock.c), so this
			 * only happens when the parser could not be left
			 * clean (-ENOMEM); the event may be in the tep then,
			 * and stays there, hidden by ivring__event().
			 */
			if (why)
				fs->hidden[f->id / 8] |= 1U << (f->id % 8);
		}
		if (ret < 0) {
			f->flags = IVRING_FORMAT_REFUSED;
			if (first == UINT32_MAX) {
				first = i;
				first_why = "could not be parsed for want of memory";
			}
			skipped++;
			i++;
			break;
		}
		if (why) {
			f->flags = IVRING_FORMAT_REFUSED;
			skipped++;
			if (first == UINT32_MAX) {
				first = i;
				first_why = why;
			}
			continue;
		}
		f->flags = IVRING_FORMAT_PARSED;
		mark_raw(f, ev);
		fs->raw += !!(f->flags & IVRING_FORMAT_RAW);
	}
	ivr_tep_parse_end();
	fs->nr_parsed = i;
	if (skipped)
		ivr_formats_skip(fs, skipped, fs->list[first].id, "%s", first_why);
	if (ret < 0)
		return ivr_err(r, -ENOMEM, "%s: no memory to parse %u event formats",
			       r->path, fs->nr - i);
	return 0;
}

/**
 * ivr_formats_parse() - parse the listed format texts into the tep
 * @r:	attached handle
 *
 * Texts that libtraceevent or the checks above refuse are counted as
 * skipped in the formats; events whose print fmt is not provably safe are
 * marked to print raw.
 *
 * libtraceevent keeps an event it could only partly parse, and cannot
 * remove one; so when a pass refuses some, the handle is dropped and the
 * others are parsed again into a new one.  The grammar leaves few to
 * refuse, and every parse starts from the same clean state (format/tep_lock.c),
 * so the next pass refuses none.  Texts listed once the tep exists join it
 * (parse_new()).
 *
 * Return: 0 (also when it was done before), or -ENOMEM: then nothing more
 * is parsed and the next call tries again.
 */
int ivr_formats_parse(struct ivring *r)
{
	struct ivr_formats *fs = r->fmts;
	u32 i, raw = 0, first = UINT32_MAX, *order;
	const char *first_why = NULL;
	int refused, skipped = 0;

	if (fs->parsed)
		return fs->nr_parsed == fs->nr ? 0 : parse_new(r);
	order = parse_order(fs);
	if (!order)
		goto nomem;
	do {
		ivr_formats_unparse(fs);
		fs->tep = new_tep(r);
		if (!fs->tep)
			goto nomem;
		fs->teps++;
		refused = parse_pass(fs, order, fs->tep, &first, &first_why);
		if (refused < 0)
			goto nomem;
		skipped += refused;
	} while (refused);
	free(order);
	for (i = 0; i < fs->nr; i++)
		raw += !!(fs->list[i].flags & IVRING_FORMAT_RAW);
	if (skipped)
		ivr_formats_skip(fs, skipped, fs->list[first].id, "%s", first_why);
	fs->raw = raw;
	fs->parsed = true;
	fs->nr_parsed = fs->nr;
	return 0;
nomem:
	free(order);
	for (i = 0; i < fs->nr; i++)
		fs->list[i].flags = 0;
	ivr_formats_unparse(fs);
	return ivr_err(r, -ENOMEM, "%s: no memory to parse %u event formats",
		       r->path, fs->nr);
}

void ivr_formats_unparse(struct ivr_formats *fs)
{
	if (fs->tep)
		tep_free(fs->tep);
	fs->tep = NULL;
	fs->parsed = false;
	fs->nr_parsed = 0;
	fs->raw = 0;
	memset(fs->hidden, 0, sizeof(fs->hidden));
}

struct tep_handle *ivr_formats_tep(struct ivring *r)
{
	return r->fmts && !ivr_formats_parse(r) ? r->fmts->tep : NULL;
}

bool ivr_formats_hidden(const struct ivring *r, int id)
{
	return id < 0 || id > 0xffff || !r->fmts ||
	       (r->fmts->hidden[id / 8] & (1U << (id % 8)));
}
