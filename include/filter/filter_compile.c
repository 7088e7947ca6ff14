// SPDX-License-Identifier: GPL-2.0 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * A filter's text parsed, checked against an event's fields, and compiled
 * to a program of forward jumps.
 *
 * What the text may be, and which error each mistake gets, at which byte,
 * is ftrace's (kernel/trace/trace_events_filter.c of Linux 6.1: calc_stack(),
 * predicate_parse() and parse_pred()), so that a filter means the same in
 * /sys/kernel/ivring as in tracefs and fails the same way.  Two passes, as
 * there: the parentheses and quotes are checked over the whole text first,
 * then the terms are read left to right.  Where ftrace accepts something
 * that can never match, or that it silently changes, this refuses it
 * instead (include/filter/filter.h lists the limits; kmod/sysfs-kernel-ivring
 * the differences):
 *   - a number that does not fit the field (ftrace truncates it);
 *   - a numeric field of a size other than 1, 2, 4 or 8 bytes, an array,
 *     a char pointer, and & on the CPU (ftrace's predicate is always false);
 *   - more than IVF_PREDS_MAX predicates, nesting deeper than
 *     IVF_DEPTH_MAX, string values of more than IVF_POOL_MAX bytes in all.
 *
 * The text becomes a tree of nodes: predicates, and && and || nodes with
 * any number of children, so that the tree is only as deep as the
 * parentheses.  ! is a bit on a node.  The tree is then laid out as a
 * flat array of predicates, each with where to go when it holds and when
 * it does not: an && goes on to its next child when one holds and to its
 * own "false" when one does not; an || the other way round; a negated
 * node swaps its targets (De Morgan).  Every target is a later predicate
 * or the end, so ivf_match() runs at most one test per predicate.
 */
#include "filter_prim.h"
#include "filter.h"

/* ftrace's parse errors (err_text[] of trace_events_filter.c). */
#define E_INVALID_OP		"Invalid operator"
#define E_TOO_MANY_OPEN		"Too many '('"
#define E_TOO_MANY_CLOSE	"Too few '('"
#define E_MISSING_QUOTE		"Missing matching quote"
#define E_OPERAND_TOO_LONG	"Operand too long"
#define E_EXPECT_STRING		"Expecting string field"
#define E_EXPECT_DIGIT		"Expecting numeric field"
#define E_ILLEGAL_FIELD_OP	"Illegal operation for field type"
#define E_FIELD_NOT_FOUND	"Field not found"
#define E_ILLEGAL_INTVAL	"Illegal integer value"
#define E_TOO_MANY_PREDS	"Too many terms in predicate expression"
#define E_INVALID_FILTER	"Meaningless filter expression"
#define E_INVALID_VALUE		"Invalid value (did you forget quotes)?"
#define E_NO_FILTER		"No filter found"
/* Where ftrace says nothing ("Error: (0)"), ours. */
#define E_EXPECT_FIELD		"Expecting a field name"
#define E_TOO_LONG		"Filter too long"
#define E_TOO_MANY_STRINGS	"Too many string bytes"

/* The numeric token ftrace reads is shorter than its 24-byte buffer. */
#define NUM_MAX		23

enum { N_PRED = IVF_NODE_PRED, N_AND = IVF_NODE_AND, N_OR = IVF_NODE_OR };

#define NONE		IVF_NONE
#define NODES_MAX	IVF_NODES_MAX

struct parser {
	const char *s;
	unsigned int len, at;
	const struct ivf_fields *fields;
	struct ivf_prog *prog;
	struct ivf_error *err;
	struct ivf_node *n;	/* work->node */
	struct ivf_emit *stack;	/* work->stack */
	unsigned int nr_nodes;
	unsigned int nr_preds;	/* parsed so far: ftrace's N */
};

/* ftrace's isspace() and isalnum(): the kernel's Latin-1 ctype. */
static bool is_space(unsigned char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r') || c == 0xa0;
}

static bool is_alnum(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
	       (c >= 'A' && c <= 'Z') ||
	       (c >= 0xc0 && c != 0xd7 && c != 0xf7);
}

static bool is_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

static int fail(struct parser *p, int ret, const char *msg, unsigned int pos)
{
	p->err->msg = msg;
	p->err->pos = pos;
	return ret;
}

/* The byte at @i, NUL past the end, as ftrace reads its string. */
static unsigned char at(const struct parser *p, unsigned int i)
{
	return i < p->len ? (unsigned char)p->s[i] : 0;
}

/*
 * The parentheses and quotes over the whole text, as calc_stack() does
 * before anything else: a ')' too many, a quote not closed, a '(' not
 * closed (the rightmost, looking back from the end to the second byte;
 * else the first), in that order.  Also whether there is anything but
 * blanks and parentheses.
 */
static int check_balance(struct parser *p, bool *any)
{
	unsigned int i, depth = 0, quote_at = 0;
	unsigned char quote = 0;
	bool word = false;

	*any = false;
	for (i = 0; i < p->len; i++) {
		unsigned char c = at(p, i);

		if (quote) {
			if (c == quote)
				quote = 0;
			continue;
		}
		if (is_space(c)) {
			word = false;
			continue;
		}
		if (c == '(' || c == ')') {
			word = false;
			if (c == ')' && !depth)
				return fail(p, -EINVAL, E_TOO_MANY_CLOSE, i);
			if (c == '(' && ++depth > IVF_DEPTH_MAX)
				return fail(p, -EINVAL, E_TOO_MANY_OPEN, i);
			if (c == ')')
				depth--;
			continue;
		}
		if (!word)
			*any = true;
		word = true;
		if (c == '\'' || c == '"') {
			quote = c;
			quote_at = i;
		}
	}
	if (quote)
		return fail(p, -EINVAL, E_MISSING_QUOTE, quote_at);
	if (depth) {
		unsigned int pos = 0, open = 0;

		/* Back from the end: the first '(' that nothing closes. */
		for (i = p->len - 1; i >= 1; i--) {
			unsigned char c = at(p, i);

			if (quote) {
				if (c == quote)
					quote = 0;
				continue;
			}
			if (c == '\'' || c == '"') {
				quote = c;
			} else if (c == ')') {
				open++;
			} else if (c == '(') {
				if (!open) {
					pos = i;
					break;
				}
				open--;
			}
		}
		return fail(p, -EINVAL, E_TOO_MANY_OPEN, pos);
	}
	return 0;
}

static void skip_space(struct parser *p)
{
	while (p->at < p->len && is_space(at(p, p->at)))
		p->at++;
}

static int new_node(struct parser *p, u8 type, unsigned int *out)
{
	struct ivf_node *n;

	if (p->nr_nodes == NODES_MAX)
		return fail(p, -EINVAL, E_TOO_MANY_PREDS, p->at);
	n = &p->n[p->nr_nodes];
	n->type = type;
	n->neg = false;
	n->first = n->last = n->next = NONE;
	n->first_pred = 0;
	*out = p->nr_nodes++;
	return 0;
}

/*
 * The field named @name: the event's own fields first, then ftrace's
 * special CPU and COMM, then the common fields (trace_find_event_field()).
 */
static bool find_field(const struct parser *p, const char *name, size_t len,
		       struct ivf_field *out)
{
	static const char *const cpu[] = { "CPU", "cpu", "common_cpu" };
	static const char *const comm[] = { "COMM", "comm" };
	const struct ivf_fields *fs = p->fields;
	unsigned int i, pass;

	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < fs->nr; i++) {
			const struct ivf_field *f = &fs->f[i];
			bool common = !strncmp(f->name, "common_", 7);

			if (common != (pass == 1) || strlen(f->name) != len ||
			    memcmp(f->name, name, len))
				continue;
			*out = *f;
			return true;
		}
		if (pass)
			break;
		for (i = 0; i < 3; i++) {
			if (strlen(cpu[i]) == len && !memcmp(cpu[i], name, len)) {
				memset(out, 0, sizeof(*out));
				out->kind = IVF_CPU;
				out->size = 4;
				out->is_signed = true;
				return true;
			}
		}
		for (i = 0; i < 2; i++) {
			if (strlen(comm[i]) == len &&
			    !memcmp(comm[i], name, len)) {
				memset(out, 0, sizeof(*out));
				out->kind = IVF_COMM;
				out->size = IVF_COMM_LEN;
				return true;
			}
		}
	}
	return false;
}

static bool is_string(const struct ivf_field *f)
{
	return f->kind == IVF_STR_STATIC || f->kind == IVF_STR_LOC ||
	       f->kind == IVF_STR_RELLOC || f->kind == IVF_COMM;
}

/*
 * kstrtoull()/kstrtoll() with base 0: 0x for hex, a leading 0 for octal,
 * every byte a digit of the base, no overflow.
 */
static bool parse_u64(const char *s, unsigned int len, u64 *out)
{
	unsigned int base = 10, i = 0, d;
	u64 v = 0;

	if (len >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		i = 2;
	} else if (len >= 1 && s[0] == '0') {
		base = 8;
	}
	if (i == len)
		return false;
	for (; i < len; i++) {
		unsigned char c = s[i];

		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			return false;
		if (d >= base || v > (~0ULL - d) / base)
			return false;
		v = v * base + d;
	}
	*out = v;
	return true;
}

/*
 * A number for @f: kstrtoll() for a signed field, kstrtoull() for an
 * unsigned one, and then it must fit the field's bytes, as a value of its
 * type or as a bit pattern.
 */
static bool parse_num(const char *s, unsigned int len,
		      const struct ivf_field *f, u64 *out)
{
	unsigned int bits = f->size * 8;
	bool neg = len && s[0] == '-';
	u64 mag;

	if (neg && !f->is_signed)
		return false;
	if (!parse_u64(s + neg, len - neg, &mag))
		return false;
	if (neg) {
		/* Down to -2^(bits-1). */
		if (mag > (1ULL << (bits - 1)))
			return false;
		*out = -mag;
		return true;
	}
	if (f->is_signed && mag > (u64)S64_MAX)
		return false;
	if (bits < 64 && mag >> bits)
		return false;
	*out = mag;
	return true;
}

static const struct {
	const char *text;
	u8 op;
} ops[] = {
	/* Matched by prefix, in ftrace's order: "<=" before "<". */
	{ "~", IVF_OP_GLOB }, { "!=", IVF_OP_NE }, { "==", IVF_OP_EQ },
	{ "<=", IVF_OP_LE }, { "<", IVF_OP_LT }, { ">=", IVF_OP_GE },
	{ ">", IVF_OP_GT }, { "&", IVF_OP_BAND },
};

/*
 * A string value for @pr: a ~ pattern goes through filter_parse_regex()'s
 * rules (a leading ! negates; a leading digit is literal; one * at
 * either end or both is a prefix, suffix or substring; any other *, ?, [
 * or \ makes a glob of the whole).
 */
static int take_string(struct parser *p, struct ivf_pred *pr, const char *v,
		       unsigned int len, unsigned int pos)
{
	struct ivf_prog *prog = p->prog;
	unsigned int i;
	u8 match = IVF_MATCH_FULL;
	bool lead = false;

	if (pr->op == IVF_OP_GLOB && len && v[0] == '!') {
		pr->negate = true;
		v++;
		len--;
	}
	if (pr->op == IVF_OP_GLOB && !(len && is_digit(v[0]))) {
		for (i = 0; i < len; i++) {
			if (v[i] == '*' && i == 0) {
				match = IVF_MATCH_END;
				lead = true;
			} else if (v[i] == '*' && i == len - 1) {
				match = match == IVF_MATCH_END ?
					IVF_MATCH_MIDDLE : IVF_MATCH_FRONT;
				len--;
				break;
			} else if (v[i] == '*' || v[i] == '?' || v[i] == '[' ||
				   v[i] == '\\') {
				match = IVF_MATCH_GLOB;
				lead = false;
				break;
			}
		}
		if (match != IVF_MATCH_GLOB && lead) {
			v++;
			len--;
		}
	}
	if (len > IVF_POOL_MAX - prog->pool_len)
		return fail(p, -EINVAL, E_TOO_MANY_STRINGS, pos);
	memcpy(prog->pool + prog->pool_len, v, len);
	pr->str = prog->pool_len;
	pr->str_len = len;
	pr->match = match;
	prog->pool_len += len;
	return 0;
}

/*
 * FIELD OP VALUE at p->at, as parse_pred() reads it; its errors point one
 * byte further than the index they name, as ftrace's do.
 */
static int parse_pred(struct parser *p, bool neg, u16 *out)
{
	unsigned int start = p->at, name, name_len, i, op, v, vlen, idx;
	struct ivf_field f;
	struct ivf_pred *pr;
	unsigned char c;
	int ret;

	name = p->at;
	while (p->at < p->len && (is_alnum(at(p, p->at)) || at(p, p->at) == '_'))
		p->at++;
	name_len = p->at - name;
	if (!name_len)
		return fail(p, -EINVAL, E_EXPECT_FIELD, start);
	if (!find_field(p, p->s + name, name_len, &f))
		return fail(p, -EINVAL, E_FIELD_NOT_FOUND, p->at + 1);
	if (p->len - p->at >= 8 && !memcmp(p->s + p->at, ".ustring", 8))
		p->at += 8;
	skip_space(p);
	for (op = 0; op < sizeof(ops) / sizeof(ops[0]); op++) {
		size_t n = strlen(ops[op].text);

		if (p->len - p->at >= n && !memcmp(p->s + p->at, ops[op].text, n))
			break;
	}
	if (op == sizeof(ops) / sizeof(ops[0]))
		return fail(p, -EINVAL, E_INVALID_OP, p->at + 1);
	p->at += strlen(ops[op].text);
	skip_space(p);
	if (p->nr_preds == IVF_PREDS_MAX)
		return fail(p, -EINVAL, E_TOO_MANY_PREDS, start);
	idx = p->nr_preds;
	pr = &p->prog->p[idx];
	memset(pr, 0, sizeof(*pr));
	pr->op = ops[op].op;
	pr->kind = f.kind;
	pr->offset = f.offset;
	pr->is_signed = f.is_signed;
	v = p->at;
	c = at(p, v);
	if (c == '\'' || c == '"') {
		if (pr->op != IVF_OP_EQ && pr->op != IVF_OP_NE &&
		    pr->op != IVF_OP_GLOB)
			return fail(p, -EINVAL, E_ILLEGAL_FIELD_OP, v + 1);
		if (!is_string(&f))
			return fail(p, -EINVAL, E_EXPECT_DIGIT, v + 1);
		/* check_balance() saw it closed. */
		for (i = v + 1; at(p, i) != c; i++)
			;
		vlen = i - v - 1;
		if (vlen > IVF_STR_MAX)
			return fail(p, -EINVAL, E_OPERAND_TOO_LONG, i + 1);
		pr->negate = pr->op == IVF_OP_NE;
		pr->static_size = f.size;
		ret = take_string(p, pr, p->s + v + 1, vlen, v + 1);
		if (ret)
			return ret;
		p->at = i + 1;
	} else if (is_digit(c) || c == '-') {
		if (is_string(&f))
			return fail(p, -EINVAL, E_EXPECT_STRING, v + 1);
		if (pr->op == IVF_OP_GLOB)
			return fail(p, -EINVAL, E_ILLEGAL_FIELD_OP, v + 1);
		i = v + (c == '-');
		while (i < p->len && is_alnum(at(p, i)))
			i++;
		vlen = i - v;
		if (vlen > NUM_MAX)
			return fail(p, -EINVAL, E_OPERAND_TOO_LONG, i + 1);
		if (f.kind == IVF_UNSUPPORTED ||
		    (f.kind == IVF_CPU && pr->op == IVF_OP_BAND))
			return fail(p, -EINVAL, E_ILLEGAL_FIELD_OP, v + 1);
		if (!parse_num(p->s + v, vlen, &f, &pr->val))
			return fail(p, -EINVAL, E_ILLEGAL_INTVAL, v + 1);
		pr->size = f.size;
		p->at = i;
	} else {
		return fail(p, -EINVAL, E_INVALID_VALUE, v + 1);
	}
	ret = new_node(p, N_PRED, &i);
	if (ret)
		return ret;
	p->n[i].neg = neg;
	p->n[i].pred = idx;
	p->n[i].first_pred = idx;
	*out = i;
	p->nr_preds++;
	p->prog->nr = p->nr_preds;
	return 0;
}

/* @x, a predicate or a closed group, joined to @list (an && or ||). */
static int join(struct parser *p, u16 *single, u16 *list, u8 type, u16 x)
{
	unsigned int n;
	int ret;

	if (*single == NONE) {
		*single = x;
		return 0;
	}
	if (*list == NONE) {
		ret = new_node(p, type, &n);
		if (ret)
			return ret;
		p->n[n].first = p->n[n].last = *single;
		p->n[n].first_pred = p->n[*single].first_pred;
		*list = n;
	}
	p->n[p->n[*list].last].next = x;
	p->n[*list].last = x;
	return 0;
}

/* A group's terms: those joined by && so far, and the ||'s terms. */
struct group {
	bool neg;
	u16 and1, and, or1, or;
};

static void group_init(struct group *g, bool neg)
{
	g->neg = neg;
	g->and1 = g->and = g->or1 = g->or = NONE;
}

/* The && run so far becomes one term of the ||. */
static int close_and(struct parser *p, struct group *g)
{
	u16 x = g->and != NONE ? g->and : g->and1;

	g->and1 = g->and = NONE;
	return join(p, &g->or1, &g->or, N_OR, x);
}

/* The group as one node, its ! on it. */
static int close_group(struct parser *p, struct group *g, u16 *out)
{
	int ret = close_and(p, g);

	if (ret)
		return ret;
	*out = g->or != NONE ? g->or : g->or1;
	p->n[*out].neg ^= g->neg;
	return 0;
}

/*
 * The terms, left to right, as predicate_parse() reads them: where a
 * term is expected, blanks, '(' (a group, with the ! before it), '!'
 * (unless '=' or '~' follows: a predicate then, with no field name) or a
 * predicate; after a term, blanks, then ')', the end, "&&" or "||", and
 * anything else is a term too many, at its own byte.  No recursion: the
 * open groups are a stack, as deep as check_balance() allowed.
 */
static int parse(struct parser *p, u16 *root)
{
	struct group g[IVF_DEPTH_MAX + 1];
	unsigned int depth = 0;
	bool neg = false;
	unsigned char c, d;
	u16 x;
	int ret;

	group_init(&g[0], false);
	for (;;) {
		skip_space(p);
		if (p->at >= p->len)
			return fail(p, -EINVAL, p->nr_preds ? E_INVALID_FILTER :
						     E_NO_FILTER, p->len);
		c = at(p, p->at);
		d = at(p, p->at + 1);
		if (c == '(') {
			group_init(&g[++depth], neg);
			neg = false;
			p->at++;
			continue;
		}
		if (c == '!' && d != '=' && d != '~') {
			neg = !neg;
			p->at++;
			continue;
		}
		ret = parse_pred(p, neg, &x);
		if (!ret)
			ret = join(p, &g[depth].and1, &g[depth].and, N_AND, x);
		if (ret)
			return ret;
		neg = false;
		for (;;) {
			skip_space(p);
			c = at(p, p->at);
			d = at(p, p->at + 1);
			if (p->at >= p->len)
				return close_group(p, &g[0], root);
			if (c == ')') {
				/* check_balance() saw its '(': depth > 0. */
				ret = close_group(p, &g[depth--], &x);
				if (!ret)
					ret = join(p, &g[depth].and1,
						   &g[depth].and, N_AND, x);
				if (ret)
					return ret;
				p->at++;
				continue;
			}
			if (c == '&' && d == '&') {
				p->at += 2;
				break;
			}
			if (c == '|' && d == '|') {
				ret = close_and(p, &g[depth]);
				if (ret)
					return ret;
				p->at += 2;
				break;
			}
			return fail(p, -EINVAL, E_TOO_MANY_PREDS, p->at);
		}
	}
}

/*
 * Each predicate's targets, from the tree, with a stack rather than
 * recursion: a node's targets are its parent's, or the first predicate
 * of its next sibling; a negated node swaps them, and turns an && into
 * an || (De Morgan).  Every target is past the node's own predicates.
 */
static int emit(struct parser *p, u16 root)
{
	struct ivf_prog *prog = p->prog;
	struct ivf_emit *st = p->stack;
	unsigned int sp = 0, i;

	st[sp++] = (struct ivf_emit){ root, IVF_ACCEPT, IVF_REJECT, false };
	while (sp) {
		struct ivf_emit e = st[--sp];
		const struct ivf_node *n = &p->n[e.node];
		bool neg = e.neg ^ n->neg, and;
		u16 c;

		if (n->type == N_PRED) {
			prog->p[n->pred].on_true = neg ? e.f : e.t;
			prog->p[n->pred].on_false = neg ? e.t : e.f;
			continue;
		}
		and = (n->type == N_AND) != neg;
		for (c = n->first; c != NONE; c = p->n[c].next) {
			u16 next = p->n[c].next;
			u16 after = next == NONE ? 0 : p->n[next].first_pred;
			struct ivf_emit ce = { c, e.t, e.f, neg };

			if (next != NONE && and)
				ce.t = after;
			else if (next != NONE)
				ce.f = after;
			if (sp == NODES_MAX)
				return fail(p, -EINVAL, E_TOO_MANY_PREDS, 0);
			st[sp++] = ce;
		}
	}
	for (i = 0; i < prog->nr; i++)
		if (prog->p[i].on_true <= i || prog->p[i].on_false <= i)
			return fail(p, -EINVAL, E_INVALID_FILTER, 0);
	return 0;
}

/* "0", after the blanks before it: no filter (event_filter_write()). */
static bool is_clear(const char *s, size_t len)
{
	size_t i = 0;

	while (i < len && is_space(s[i]))
		i++;
	return len - i == 1 && s[i] == '0';
}

int ivf_compile(const char *text, size_t len, const struct ivf_fields *fields,
		struct ivf_prog *prog, struct ivf_work *work,
		struct ivf_error *err)
{
	struct parser p = {
		.s = text, .fields = fields, .prog = prog, .err = err,
		.n = work->node, .stack = work->stack,
	};
	bool any;
	u16 root;
	int ret;

	prog->nr = 0;
	prog->pool_len = 0;
	err->msg = NULL;
	err->pos = 0;
	/* An embedded NUL ends the text, as memdup_user_nul() makes it. */
	if (len >= IVF_TEXT_MAX)
		return fail(&p, -EINVAL, E_TOO_LONG, 0);
	p.len = strnlen(text, len);
	if (is_clear(text, p.len))
		return 0;
	ret = check_balance(&p, &any);
	if (ret)
		return ret;
	if (!any)
		return fail(&p, -EINVAL, E_NO_FILTER, 0);
	ret = parse(&p, &root);
	if (!ret)
		ret = emit(&p, root);
	if (ret)
		prog->nr = 0;
	return ret;
}
