// SPDX-License-Identifier: LGPL-2.1 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * The grammar that a guest's format text must match before libtraceevent
 * sees it.
 *
 * libtraceevent 1.7's parser trusts the kernel that wrote its texts.  Given
 * a hostile one it dereferences NULL (a REC->name that names no field, after
 * a __print_flags() or __print_symbolic() left its flag set in a process
 * global: that flag outlives the text, so the crash can come in a later,
 * harmless-looking text), divides by zero while folding constants
 * ("1 / (2 - 2)"), and recurses once per operator and bracket.  So libivring
 * recognises the whole tracefs "format" file itself, strictly, as tracefs
 * prints it, with only the C expressions that the kernel's print fmts use,
 * and libtraceevent parses only texts that match.  The rules that make its
 * parse safe whatever state its globals are in:
 *
 *  - every REC->name names a field that the same text declares, so the
 *    flag always lands on a field that exists;
 *  - what __print_flags() and __print_symbolic() print reads a field, so
 *    the flag they set is consumed inside their own text;
 *  - a divisor is a field, or a non-zero integer that ends its chain of
 *    '*', '/' and '%' (libtraceevent groups "a / b * c" as "a / (b * c)");
 *  - nesting, counted as libtraceevent recurses, stays below IVR_NEST_MAX;
 *  - printable ASCII only, and every number reads as libtraceevent reads it;
 *  - every string ends where libtraceevent ends it: no tab inside quotes
 *    (it ends one there and lexes the rest as operators; after a '?' an
 *    '=' so reached makes its process_op() dereference NULL);
 *  - no sizeof() reaches it: 1.7.1's process_sizeof() compares a token it
 *    freed, then frees it again (fixed upstream after 1.7.1, a4b1ba5), for
 *    sizeof(int) and sizeof(REC->x) alike.  ivr_format_prepare() writes
 *    each sizeof() the grammar took as its value, in place, padded with
 *    spaces: "sizeof(unsigned int)" becomes "4" and 19 spaces.
 *
 * What the grammar accepts libtraceevent may still refuse (the event then
 * renders as unknown), and format/parse.c's checks after the parse decide whether
 * an event prints through its print fmt or raw.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/format.h"

#define GR_FIELDS_MAX	512	/* a 16 KiB text holds about 400 field lines */
#define GR_NAME_MAX	128	/* event and field names */
#define GR_TYPE_WORDS	8	/* "unsigned long long", "const struct foo *" */
#define GR_SHOW		40	/* bytes of a name or token quoted in a reason */
#define GR_SIZEOF_MAX	64	/* sizeof()s in a print fmt: kernels have 1 or 2 */

enum tk { TK_END, TK_INT, TK_IDENT, TK_STR, TK_CHR, TK_OP };

struct tok {
	enum tk kind;
	u32 pos;
	u32 len;
};

enum fkind { F_PLAIN, F_ARRAY, F_DATA_LOC, F_REL_LOC };

struct field {
	u32 pos;		/* the name, in the text */
	u32 len;
	u32 size;
	enum fkind kind;
};

/* A sizeof() in the text, from "sizeof" to its ')', and its value. */
struct size_of {
	u32 at, end;
	u32 val;
};

struct gr {
	const char *t;
	u32 len;
	u32 pos;		/* next byte to read */
	u32 end;		/* print fmt: the newline that ends it */
	struct tok tk;		/* print fmt: the current token */
	u32 tokens;		/* what libtraceevent will allocate for */
	int depth;
	struct field fields[GR_FIELDS_MAX];
	u32 nr_fields;
	struct size_of sizes[GR_SIZEOF_MAX];
	u32 nr_sizes;
	char *why;
	size_t why_len;
};

/* What an expression is, as far as libtraceevent's parse of it cares. */
struct ex {
	bool nonzero;	/* a non-zero integer, in brackets or a cast at most */
	bool field;	/* a field, in brackets or a cast at most: never folded */
	bool entry;	/* has a REC->name: that is where a flag is consumed */
	bool printer;	/* has a __print_flags() or __print_symbolic() */
	bool pure;	/* reads no field and calls nothing but sizeof */
};

static bool fail(struct gr *g, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static bool fail(struct gr *g, const char *fmt, ...)
{
	va_list ap;

	if (g->why[0])
		return false;	/* keep the first, innermost reason */
	va_start(ap, fmt);
	vsnprintf(g->why, g->why_len, fmt, ap);
	va_end(ap);
	return false;
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_ident_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool is_ident_char(char c)
{
	return is_ident_start(c) || is_digit(c);
}

static int show(u32 len)
{
	return len < GR_SHOW ? (int)len : GR_SHOW;
}

/* A C integer suffix: at most one u and two l, either case ("UL", "LL"). */
static bool int_suffix(const char *s)
{
	int u = 0, l = 0;

	for (; *s; s++) {
		if (*s == 'u' || *s == 'U')
			u++;
		else if (*s == 'l' || *s == 'L')
			l++;
		else
			return false;
	}
	return u <= 1 && l <= 2;
}

/**
 * ivr_int_literal() - read an integer as libtraceevent reads it
 * @s:		NUL-terminated
 * @val:	receives the value
 *
 * libtraceevent takes a number as strtoull(s, NULL, 0), which stops at a
 * suffix ("1000L") but also at a bad digit ("08" is 0).  Only a number that
 * strtoull() reads whole, but for a C integer suffix, is one.
 */
bool ivr_int_literal(const char *s, u64 *val)
{
	char *end;

	if (!is_digit(*s))
		return false;
	errno = 0;
	*val = strtoull(s, &end, 0);
	return !errno && end != s && int_suffix(end);
}

/* --- the lines of the file ---------------------------------------------- */

static bool lit(struct gr *g, const char *s)
{
	size_t n = strlen(s);

	if (g->len - g->pos < n || memcmp(g->t + g->pos, s, n))
		return false;
	g->pos += n;
	return true;
}

/* A decimal number up to @max, written as tracefs writes it: no 0 prefix. */
static bool decimal(struct gr *g, u32 max, u32 *val)
{
	u64 v = 0;
	u32 p = g->pos;

	if (p >= g->len || !is_digit(g->t[p]))
		return false;
	if (g->t[p] == '0' && p + 1 < g->len && is_digit(g->t[p + 1]))
		return false;
	for (; p < g->len && is_digit(g->t[p]); p++) {
		v = v * 10 + (g->t[p] - '0');
		if (v > max)
			return false;
	}
	g->pos = p;
	*val = v;
	return true;
}

static u32 ident_len(const char *s, u32 n)
{
	u32 i = 0;

	if (!n || !is_ident_start(s[0]))
		return 0;
	while (i < n && is_ident_char(s[i]))
		i++;
	return i;
}

static bool word_is(const char *s, u32 n, const char *w)
{
	return strlen(w) == n && !memcmp(s, w, n);
}

static const struct field *find_field(const struct gr *g, const char *s, u32 n)
{
	u32 i;

	for (i = 0; i < g->nr_fields; i++) {
		const struct field *f = &g->fields[i];

		if (f->len == n && !memcmp(g->t + f->pos, s, n))
			return f;
	}
	return NULL;
}

/* The rest of the line from @p, for a reason: up to GR_SHOW bytes. */
static int line_len(const struct gr *g, u32 p)
{
	u32 e = p;

	while (e < g->len && g->t[e] != '\n')
		e++;
	return show(e - p);
}

/*
 * The declaration of a field line, as tracefs prints it: "TYPE NAME",
 * "TYPE NAME[N]" or "__data_loc TYPE[] NAME" (__rel_loc likewise), words
 * separated by one space, TYPE words identifiers or "*".
 */
static bool declare(struct gr *g, u32 d, u32 e, u32 off, u32 size, bool common)
{
	const char *t = g->t;
	u32 w[GR_TYPE_WORDS + 2][2], nw = 0, p = d, i, n, nlen, alen = 0;
	enum fkind kind = F_PLAIN;
	struct field *f;
	bool dyn;

	/* Split at single spaces. */
	while (p < e) {
		u32 s = p;

		while (p < e && t[p] != ' ')
			p++;
		if (p == s || nw == GR_TYPE_WORDS + 2)
			goto bad;
		w[nw][0] = s;
		w[nw][1] = p - s;
		nw++;
		if (p < e && ++p == e)
			goto bad;	/* a trailing space */
	}
	if (nw < 2)
		goto bad;
	if (word_is(t + w[0][0], w[0][1], "__data_loc"))
		kind = F_DATA_LOC;
	else if (word_is(t + w[0][0], w[0][1], "__rel_loc"))
		kind = F_REL_LOC;
	dyn = kind != F_PLAIN;
	/* Type words: identifiers or "*", the last one of a dynamic "X[]". */
	for (i = dyn; i < nw - 1; i++) {
		const char *s = t + w[i][0];

		n = w[i][1];
		if (dyn && i == nw - 2) {
			if (n < 3 || memcmp(s + n - 2, "[]", 2))
				goto bad;
			n -= 2;
		}
		if (!word_is(s, n, "*") && ident_len(s, n) != n)
			goto bad;
	}
	if (!ident_len(t + w[dyn][0], w[dyn][1]) || nw - dyn < 2)
		goto bad;

	/* The name, with "[N]" after it for an array. */
	p = w[nw - 1][0];
	n = w[nw - 1][1];
	nlen = ident_len(t + p, n);
	if (!nlen || nlen > GR_NAME_MAX)
		goto bad;
	if (nlen < n) {
		struct gr sub = { .t = t, .len = p + n - 1, .pos = p + nlen + 1 };

		if (dyn || t[p + nlen] != '[' || t[p + n - 1] != ']' ||
		    !decimal(&sub, 65536, &alen) || sub.pos != p + n - 1 ||
		    !alen)
			goto bad;
	}

	if ((u64)off + size > IVR_FIELD_END_MAX)
		return fail(g, "has a field beyond 64 KiB (%.*s: offset %u, size %u)",
			    show(nlen), t + p, off, size);
	if (!size)
		return fail(g, "has a field of no size (%.*s)", show(nlen), t + p);
	if (dyn && size != 4)
		/*
		 * libtraceevent takes a 2-byte __data_loc's length as "the rest
		 * of the record"; the kernel only writes 4-byte ones.
		 */
		return fail(g, "has a %.*s field that is not 4 bytes (%.*s: size %u)",
			    (int)w[0][1], t + w[0][0], show(nlen), t + p, size);
	if (alen && size % alen)
		return fail(g, "has an array whose size is not a multiple of its length (%.*s: size %u)",
			    show(n), t + p, size);
	if (common != (nlen > 7 && !memcmp(t + p, "common_", 7)))
		return fail(g, common ? "has a common field not named common_* (%.*s)" :
				"has an event field named like a common one (%.*s)",
			    show(nlen), t + p);
	if (find_field(g, t + p, nlen))
		return fail(g, "declares field %.*s twice", show(nlen), t + p);
	if (g->nr_fields == GR_FIELDS_MAX)
		return fail(g, "has more than %d fields", GR_FIELDS_MAX);
	f = &g->fields[g->nr_fields++];
	f->pos = p;
	f->len = nlen;
	f->size = size;
	f->kind = alen ? F_ARRAY : kind;
	return true;
bad:
	return fail(g, "has a malformed field declaration (%.*s)", show(e - d), t + d);
}

/* "\tfield:DECL;\toffset:N;\tsize:N;\tsigned:0;\n" */
static bool field_line(struct gr *g, bool common)
{
	u32 start = g->pos, d, e, off, size, sign;

	if (!lit(g, "\tfield:"))
		goto bad;
	d = g->pos;
	while (g->pos < g->len && g->t[g->pos] != ';' && g->t[g->pos] != '\n')
		g->pos++;
	e = g->pos;
	if (!lit(g, ";\toffset:") || !decimal(g, UINT32_MAX, &off) ||
	    !lit(g, ";\tsize:") || !decimal(g, UINT32_MAX, &size) ||
	    !lit(g, ";\tsigned:") || !decimal(g, 1, &sign) || !lit(g, ";\n"))
		goto bad;
	/* libtraceevent keeps a field as about as much as four tokens. */
	g->tokens += 4;
	return declare(g, d, e, off, size, common);
bad:
	/* A text may end where a field line should begin: t[len] is not ours. */
	if (start < g->len && g->t[start] == '\t')
		start++;
	return fail(g, "has a malformed field line (%.*s)", line_len(g, start),
		    g->t + start);
}

/* --- print fmt: tokens ---------------------------------------------------- */

/* An operator's length, cut as libtraceevent's tokenizer cuts it. */
static u32 op_len(const char *s, u32 n)
{
	char c = s[0], d = n > 1 ? s[1] : 0;
	u32 len = 1;

	switch (c) {
	case '-':
		if (d == '>')
			return 2;
		/* fall through */
	case '+':
	case '|':
	case '&':
	case '>':
	case '<':
		if (d == c) {
			len = 2;
			if (c != '>' && c != '<')
				return len;
			d = n > 2 ? s[2] : 0;
		}
		return d == '=' ? len + 1 : len;
	case '!':
	case '=':
		return d == '=' ? 2 : 1;
	default:
		return 1;
	}
}

static void next(struct gr *g)
{
	const char *t = g->t;
	u32 p = g->pos, q;
	char c;

	while (p < g->end && (t[p] == ' ' || t[p] == '\t'))
		p++;
	g->tk.pos = p;
	g->tk.len = 0;
	g->tk.kind = TK_END;
	if (p >= g->end) {
		g->pos = p;
		return;
	}
	c = t[p];
	q = p + 1;
	if (is_ident_char(c)) {
		while (q < g->end && is_ident_char(t[q]))
			q++;
		g->tk.kind = is_digit(c) ? TK_INT : TK_IDENT;
	} else if (c == '"' || c == '\'') {
		/*
		 * A string ends where libtraceevent 1.7's __read_token() ends
		 * it, or the two would read different tokens from here on:
		 * at the first quote that no backslash precedes (its "\\"
		 * that cancels itself does not: "a\\" runs on), or at a
		 * byte that is not isprint() and that no backslash precedes,
		 * after which it lexes the rest as operators ('=' among
		 * them, which its process_op() then follows into a NULL
		 * after a '?').  A tab is the one such byte the text may
		 * hold; the line ends a string too.
		 */
		while (q < g->end &&
		       ((t[q] != c && t[q] != '\t') || t[q - 1] == '\\'))
			q++;
		if (q < g->end && t[q] == '\t')
			fail(g, "has a tab inside a quoted string in its print fmt (byte %u)",
			     q);
		if (q >= g->end || t[q] != c) {
			/* Unterminated: a token no rule accepts. */
			g->tk.kind = TK_OP;
			q = p + 1;
		} else {
			g->tk.kind = c == '"' ? TK_STR : TK_CHR;
			q++;
		}
	} else {
		g->tk.kind = TK_OP;
		q = p + op_len(t + p, g->end - p);
	}
	g->tk.len = q - p;
	g->pos = q;
	g->tokens++;
}

static bool is(const struct gr *g, const char *s)
{
	return (g->tk.kind == TK_OP || g->tk.kind == TK_IDENT) &&
	       word_is(g->t + g->tk.pos, g->tk.len, s);
}

static bool syntax(struct gr *g)
{
	if (g->tk.kind == TK_END)
		return fail(g, "has a print fmt that ends too early");
	return fail(g, "has a syntax error in its print fmt at byte %u (%.*s)",
		    g->tk.pos, show(g->tk.len), g->t + g->tk.pos);
}

static bool expect(struct gr *g, const char *s)
{
	if (!is(g, s))
		return syntax(g);
	next(g);
	return true;
}

struct mark {
	u32 pos;
	struct tok tk;
};

static struct mark mark(const struct gr *g)
{
	return (struct mark){ g->pos, g->tk };
}

static void back(struct gr *g, struct mark m)
{
	g->pos = m.pos;
	g->tk = m.tk;
}

/* --- print fmt: expressions ------------------------------------------------ */

static bool expr(struct gr *g, struct ex *e);
static bool unary(struct gr *g, struct ex *e);

static bool enter(struct gr *g)
{
	if (++g->depth <= IVR_NEST_MAX)
		return true;
	return fail(g, "nests its print fmt more than %d deep", IVR_NEST_MAX);
}

static struct ex constant(bool nonzero)
{
	return (struct ex){ .nonzero = nonzero, .pure = true };
}

/* @e op @r */
static void combine(struct ex *e, const struct ex *r)
{
	e->nonzero = false;
	e->field = false;
	e->entry |= r->entry;
	e->printer |= r->printer;
	e->pure &= r->pure;
}

static int binop_prec(const struct gr *g)
{
	static const struct {
		const char *op;
		int prec;
	} ops[] = {
		{ "*", 10 }, { "/", 10 }, { "%", 10 }, { "+", 9 }, { "-", 9 },
		{ "<<", 8 }, { ">>", 8 }, { "<", 7 }, { ">", 7 }, { "<=", 7 },
		{ ">=", 7 }, { "==", 6 }, { "!=", 6 }, { "&", 5 }, { "^", 4 },
		{ "|", 3 }, { "&&", 2 }, { "||", 1 },
	};
	size_t i;

	if (g->tk.kind != TK_OP)
		return 0;
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (is(g, ops[i].op))
			return ops[i].prec;
	return 0;
}

/*
 * libtraceevent folds an operator of two constants while it parses, and
 * takes as divisor everything up to the next operator that binds less than
 * '/': a divisor is safe if it is a field (never folded) or a non-zero
 * integer that no '*', '/' or '%' follows.
 */
static bool divisor(struct gr *g, const struct ex *r, u32 at)
{
	if (r->field || (r->nonzero && binop_prec(g) != 10))
		return true;
	return fail(g, "divides by something that is neither a field nor a non-zero constant (byte %u of its print fmt)",
		    at);
}

/* Binary operators at or above @min, by precedence climbing. */
static bool binary(struct gr *g, int min, struct ex *e)
{
	int depth = g->depth, prec;

	if (!unary(g, e))
		return false;
	while ((prec = binop_prec(g)) >= min) {
		bool div = is(g, "/") || is(g, "%");
		u32 at = g->tk.pos;
		struct ex r;

		next(g);
		/* libtraceevent recurses once for each operator of a chain. */
		if (!enter(g) || !binary(g, prec + 1, &r))
			return false;
		if (div && !divisor(g, &r, at))
			return false;
		combine(e, &r);
	}
	g->depth = depth;
	return true;
}

static bool expr(struct gr *g, struct ex *e)
{
	struct ex a, b;

	if (!binary(g, 1, e))
		return false;
	if (!is(g, "?"))
		return true;
	next(g);
	if (!enter(g) || !expr(g, &a) || !expect(g, ":") || !expr(g, &b))
		return false;
	g->depth--;
	combine(e, &a);
	combine(e, &b);
	return true;
}

static const struct field *field_named(struct gr *g, const struct tok *tk)
{
	const struct field *f = NULL;

	if (tk->kind == TK_IDENT)
		f = find_field(g, g->t + tk->pos, tk->len);
	if (!f && tk->kind == TK_IDENT)
		fail(g, "names a field it does not declare (REC->%.*s)",
		     show(tk->len), g->t + tk->pos);
	else if (!f)
		syntax(g);
	return f;
}

/*
 * "->name" after REC, and an index after it.  An index is a number, a field
 * or an expression in brackets: libtraceevent takes a single operand there.
 * It dereferences NULL when a token it does not rank as an operator ('['
 * ']' '{' '}') follows an index or a conditional ("REC->a[0][1]"); in this
 * grammar only ',' ')' ':' and operators can follow either.
 */
static bool rec_field(struct gr *g, struct ex *e)
{
	const struct field *f;
	struct ex i;

	if (!expect(g, "->"))
		return false;
	f = field_named(g, &g->tk);
	if (!f)
		return false;
	next(g);
	*e = (struct ex){ .field = true, .entry = true };
	if (!is(g, "["))
		return true;
	if (f->kind != F_ARRAY)
		return fail(g, "indexes a field that is not an array (REC->%.*s)",
			    show(f->len), g->t + f->pos);
	next(g);
	if (is(g, "REC")) {
		next(g);
		if (!expect(g, "->") || !field_named(g, &g->tk))
			return false;
		next(g);
		i.entry = true;
	} else if (is(g, "(")) {
		if (!unary(g, &i))
			return false;
	} else if (g->tk.kind == TK_INT) {
		if (!unary(g, &i))
			return false;
	} else {
		return syntax(g);
	}
	e->field = false;
	e->entry = true;
	return expect(g, "]");
}

/* The sizeof() from @at to the ')' at @close is @val: noted for prepare. */
static bool sized(struct gr *g, u32 at, u32 close, u32 val)
{
	if (!expect(g, ")"))
		return false;
	if (g->nr_sizes == GR_SIZEOF_MAX)
		return fail(g, "has more than %d sizeof()s", GR_SIZEOF_MAX);
	g->sizes[g->nr_sizes++] = (struct size_of){ at, close + 1, val };
	return true;
}

/*
 * sizeof(int), sizeof(unsigned long), ..., sizeof(REC->name), from @at:
 * the size of a scalar field, or 4 or 8 (a long is 8: format/parse.c
 * makes the tep's long size 8).
 */
static bool size_of(struct gr *g, struct ex *e, u32 at)
{
	static const struct {
		const char *words;
		u32 size;
	} types[] = {
		{ "int", 4 }, { "unsigned", 4 }, { "unsigned int", 4 },
		{ "long", 8 }, { "unsigned long", 8 }, { "long long", 8 },
		{ "unsigned long long", 8 },
	};
	char words[32] = "";
	size_t i, used = 0;
	u32 start;

	if (!expect(g, "("))
		return false;
	*e = constant(false);
	if (is(g, "REC")) {
		const struct field *f;

		next(g);
		if (!expect(g, "->"))
			return false;
		f = field_named(g, &g->tk);
		if (!f)
			return false;
		if (f->kind != F_PLAIN)
			return fail(g, "takes sizeof() of a field that is not a scalar (%.*s)",
				    show(f->len), g->t + f->pos);
		next(g);
		return sized(g, at, g->tk.pos, f->size);
	}
	/* At most three words of under ten letters: they fit. */
	start = g->tk.pos;
	for (i = 0; i < 3 && g->tk.kind == TK_IDENT && g->tk.len < 10; i++) {
		used += snprintf(words + used, sizeof(words) - used, "%s%.*s",
				 i ? " " : "", (int)g->tk.len, g->t + g->tk.pos);
		next(g);
	}
	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (!strcmp(words, types[i].words))
			return sized(g, at, g->tk.pos, types[i].size);
	return fail(g, "takes sizeof() of something libtraceevent does not size (byte %u)",
		    start);
}

/* "{ value, "name" }, ...": libtraceevent evaluates the values now. */
static bool table(struct gr *g, const char *fn)
{
	do {
		struct ex v;

		if (!expect(g, "{") || !expr(g, &v))
			return false;
		if (!v.pure)
			return fail(g, "reads a field or calls a function in a %s() table",
				    fn);
		if (!expect(g, ","))
			return false;
		if (g->tk.kind != TK_STR)
			return syntax(g);
		next(g);
		if (!expect(g, "}"))
			return false;
	} while (is(g, ",") && (next(g), true));
	return true;
}

/* The value that __print_flags() or __print_symbolic() prints. */
static bool printed(struct gr *g, const char *fn, struct ex *e)
{
	if (!expr(g, e))
		return false;
	/*
	 * libtraceevent sets a global flag for the next REC->name it meets,
	 * and dereferences NULL there if that names no field: the flag must
	 * be consumed here, on a field of this text.
	 */
	if (!e->entry)
		return fail(g, "has a %s() whose value reads no field", fn);
	if (e->printer)
		return fail(g, "nests a __print_flags() or __print_symbolic() in the value of a %s()",
			    fn);
	return true;
}

/* "(name)" of a __get_*() helper: a field of the dynamic kind it wants. */
static bool dyn_field(struct gr *g, bool rel, const char *fn)
{
	const struct field *f;

	if (!expect(g, "("))
		return false;
	f = g->tk.kind == TK_IDENT ? find_field(g, g->t + g->tk.pos, g->tk.len) :
				     NULL;
	if (!f && g->tk.kind == TK_IDENT)
		return fail(g, "names a field it does not declare (%s(%.*s))",
			    fn, show(g->tk.len), g->t + g->tk.pos);
	if (!f)
		return syntax(g);
	if (f->kind != (rel ? F_REL_LOC : F_DATA_LOC))
		return fail(g, "passes a field that is not %s to %s() (%.*s)",
			    rel ? "__rel_loc" : "__data_loc", fn, show(f->len),
			    g->t + f->pos);
	next(g);
	return expect(g, ")");
}

/* Arguments after "(": @n expressions separated by commas, then ")". */
static bool call_args(struct gr *g, int n, struct ex *e)
{
	struct ex a;

	while (n--) {
		if (!expr(g, &a))
			return false;
		combine(e, &a);
		if (!expect(g, n ? "," : ")"))
			return false;
	}
	return true;
}

/* The helpers that libtraceevent 1.7's process_function() knows. */
static bool call(struct gr *g, struct ex *e)
{
	static const struct {
		const char *name;
		int kind;	/* 0: flags, 1: symbolic, 2..3: args, 4: field */
		int args;	/* kind 2..3: how many; kind 4: __rel_loc */
	} fns[] = {
		{ "__print_flags", 0, 0 }, { "__print_symbolic", 1, 0 },
		{ "__print_hex", 2, 2 }, { "__print_hex_str", 2, 2 },
		{ "__print_array", 2, 3 }, { "__builtin_expect", 3, 0 },
		{ "__get_str", 4, 0 }, { "__get_rel_str", 4, 1 },
		{ "__get_bitmask", 4, 0 }, { "__get_rel_bitmask", 4, 1 },
		{ "__get_cpumask", 4, 0 }, { "__get_rel_cpumask", 4, 1 },
		{ "__get_sockaddr", 4, 0 }, { "__get_sockaddr_rel", 4, 1 },
		{ "__get_dynamic_array", 4, 0 },
		{ "__get_rel_dynamic_array", 4, 1 },
		{ "__get_dynamic_array_len", 4, 0 },
		{ "__get_rel_dynamic_array_len", 4, 1 },
	};
	const char *name;
	struct ex v;
	size_t i;

	for (i = 0; i < sizeof(fns) / sizeof(fns[0]); i++)
		if (is(g, fns[i].name))
			break;
	if (i == sizeof(fns) / sizeof(fns[0]))
		/* libtraceevent would look for a plugin's function: none. */
		return fail(g, "calls a function libtraceevent does not know (%.*s)",
			    show(g->tk.len), g->t + g->tk.pos);
	name = fns[i].name;
	next(g);
	*e = (struct ex){ 0 };
	switch (fns[i].kind) {
	case 0:
	case 1:
		if (!expect(g, "(") || !printed(g, name, &v) || !expect(g, ","))
			return false;
		if (!fns[i].kind) {
			if (g->tk.kind != TK_STR)
				return syntax(g);
			next(g);
			if (!expect(g, ","))
				return false;
		}
		*e = (struct ex){ .entry = true, .printer = true };
		return table(g, name) && expect(g, ")");
	case 2:
		return expect(g, "(") && call_args(g, fns[i].args, e);
	case 3:
		/* __builtin_expect(x, 1) is x; libtraceevent takes one operand. */
		if (!expect(g, "(") || !unary(g, e) || !expect(g, ","))
			return false;
		if (g->tk.kind != TK_INT)
			return syntax(g);
		next(g);
		return expect(g, ")");
	default:
		if (!dyn_field(g, fns[i].args, name))
			return false;
		/* A length is never folded: a safe divisor. */
		e->field = strstr(name, "_len");
		/*
		 * "__get_dynamic_array(x)[i]" never parses in 1.7 (it tests
		 * for "]" the wrong way round): refuse it here.
		 */
		if (is(g, "["))
			return syntax(g);
		return true;
	}
}

static bool number(struct gr *g, struct ex *e)
{
	char buf[32];
	u64 v;

	if (g->tk.len >= sizeof(buf))
		goto bad;
	memcpy(buf, g->t + g->tk.pos, g->tk.len);
	buf[g->tk.len] = '\0';
	if (!ivr_int_literal(buf, &v))
		goto bad;
	*e = constant(v != 0);
	next(g);
	return true;
bad:
	return fail(g, "has a number libtraceevent would misread (%.*s)",
		    show(g->tk.len), g->t + g->tk.pos);
}

static bool primary(struct gr *g, struct ex *e)
{
	const char *t = g->t + g->tk.pos;
	u32 n = g->tk.len;
	struct mark m;
	bool called;

	switch (g->tk.kind) {
	case TK_INT:
		return number(g, e);
	case TK_STR:
		*e = constant(false);
		next(g);
		return true;
	case TK_CHR:
		/* 'c' or '\c' */
		if (n != 3 && !(n == 4 && t[1] == '\\'))
			return syntax(g);
		*e = constant(false);
		next(g);
		return true;
	case TK_IDENT:
		break;
	default:
		return syntax(g);
	}
	if (is(g, "REC")) {
		next(g);
		return rec_field(g, e);
	}
	if (is(g, "sizeof")) {
		u32 at = g->tk.pos;

		next(g);
		return size_of(g, e, at);
	}
	/* libtraceevent rewrites these three into other text (mac80211). */
	if (is(g, "LOCAL_PR_FMT") || is(g, "STA_PR_FMT") || is(g, "VIF_PR_FMT"))
		return syntax(g);
	m = mark(g);
	next(g);
	called = is(g, "(");
	back(g, m);
	if (called)
		return call(g, e);
	/* An identifier the kernel left unexpanded (an enum): a constant. */
	*e = constant(false);
	next(g);
	/* libtraceevent would glue "a b" into one atom: not C. */
	if (g->tk.kind == TK_IDENT)
		return syntax(g);
	return true;
}

static bool type_word(const struct gr *g)
{
	return g->tk.kind == TK_IDENT && !is(g, "REC") && !is(g, "sizeof");
}

/*
 * After "(": "(REC)->name", a cast "(type)operand", or "(expression)".
 * libtraceevent takes "(words)" as a cast when an operand follows, and an
 * operand after anything else in brackets is an error; so does this.
 */
static bool paren(struct gr *g, struct ex *e)
{
	struct mark m = mark(g);
	int words = 0;

	next(g);
	if (is(g, "REC")) {
		next(g);
		if (is(g, ")")) {
			next(g);
			return rec_field(g, e);
		}
		back(g, m);
		next(g);
	}
	while (type_word(g) && words <= GR_TYPE_WORDS) {
		next(g);
		words++;
	}
	if (words && words <= GR_TYPE_WORDS) {
		if (is(g, "*"))
			next(g);
		if (is(g, ")")) {
			next(g);
			if (g->tk.kind == TK_IDENT || g->tk.kind == TK_INT ||
			    g->tk.kind == TK_STR || g->tk.kind == TK_CHR ||
			    is(g, "(")) {
				return unary(g, e);
			}
		}
	}
	back(g, m);
	next(g);
	if (!expr(g, e))
		return false;
	return expect(g, ")");
}

static bool unary(struct gr *g, struct ex *e)
{
	bool ok;

	if (!enter(g))
		return false;
	if (is(g, "-") || is(g, "+") || is(g, "!") || is(g, "~")) {
		next(g);
		ok = unary(g, e);
		e->nonzero = e->field = false;
	} else if (is(g, "(")) {
		ok = paren(g, e);
	} else {
		ok = primary(g, e);
	}
	g->depth--;
	return ok;
}

/* "print fmt: "format", arg, ...\n", the text's last line. */
static bool print_fmt(struct gr *g)
{
	const char *nl;
	struct ex e;

	if (!lit(g, "print fmt: "))
		return fail(g, "has no \"print fmt: \" line after its fields");
	nl = memchr(g->t + g->pos, '\n', g->len - g->pos);
	if (!nl)
		return fail(g, "does not end with a newline");
	g->end = nl - g->t;
	if (g->end != g->len - 1)
		return fail(g, "has text after its print fmt line");
	next(g);
	if (g->tk.kind != TK_STR)
		return fail(g, "has a print fmt that does not start with a string");
	next(g);
	while (is(g, ",")) {
		next(g);
		if (!expr(g, &e))
			return false;
	}
	if (g->tk.kind != TK_END)
		return syntax(g);
	return true;
}

/* "name: NAME\nID: N\nformat:\n" */
static bool head(struct gr *g, u16 id)
{
	u32 n, v;

	if (!lit(g, "name: "))
		return fail(g, "does not start with \"name: \"");
	n = ident_len(g->t + g->pos, g->len - g->pos);
	if (!n || n > GR_NAME_MAX)
		return fail(g, "has a name that is not an identifier of up to %d bytes",
			    GR_NAME_MAX);
	g->pos += n;
	if (!lit(g, "\nID: ") || !decimal(g, 65535, &v) || !lit(g, "\n"))
		return fail(g, "has no \"ID: N\" line after its name");
	if (v != id)
		return fail(g, "has ID %u, but its record says %u", v, id);
	if (!lit(g, "format:\n"))
		return fail(g, "has no \"format:\" line after its ID");
	return true;
}

/* The grammar, and with @out (@text itself) the sizeof()s rewritten. */
static int grammar(const char *text, u32 len, u16 id, char *why,
		   size_t why_len, u32 *tokens, char *out)
{
	struct gr *g = calloc(1, sizeof(*g));
	int ret = -EINVAL;
	u32 i;

	if (!g)
		return -ENOMEM;
	g->t = text;
	g->len = len;
	g->why = why;
	g->why_len = why_len;
	why[0] = '\0';
	for (i = 0; i < len; i++) {
		unsigned char c = text[i];

		if ((c < ' ' && c != '\t' && c != '\n') || c >= 0x7f) {
			fail(g, "has a non-printable byte (%#x at byte %u)", c, i);
			goto out;
		}
	}
	if (!head(g, id))
		goto out;
	/* The common fields, a blank line, the event's fields, a blank line. */
	do {
		if (!field_line(g, true))
			goto out;
	} while (!lit(g, "\n"));
	while (!lit(g, "\n"))
		if (!field_line(g, false))
			goto out;
	if (print_fmt(g))
		ret = 0;
	if (tokens)
		*tokens = g->tokens;
	for (i = 0; !ret && out && i < g->nr_sizes; i++) {
		const struct size_of *z = &g->sizes[i];
		char val[16];
		int n = snprintf(val, sizeof(val), "%u", z->val);

		/* "sizeof(int)" is 11 bytes, and no value has 6 digits. */
		memset(out + z->at, ' ', z->end - z->at);
		memcpy(out + z->at, val, n);
	}
out:
	free(g);
	return ret;
}

/**
 * ivr_format_grammar() - does a format text match the strict grammar?
 * @text:	the text, copied out of the segment
 * @len:	its bytes
 * @id:		the id its record claims, which its "ID:" line must repeat
 * @why:	receives the reason when it does not, as "has ..." or "names ..."
 * @why_len:	bytes of @why
 * @tokens:	receives what libtraceevent will allocate for @text, in
 *		tokens of its print fmt (a field counts four), or NULL
 *
 * Return: 0 when @text matches, or -EINVAL.  libtraceevent may parse it
 * once ivr_format_prepare() has made it.
 */
int ivr_format_grammar(const char *text, u32 len, u16 id, char *why,
		       size_t why_len, u32 *tokens)
{
	return grammar(text, len, id, why, why_len, tokens, NULL);
}

/**
 * ivr_format_prepare() - ivr_format_grammar(), then make @text one that
 * libtraceevent 1.7.1 may parse: each sizeof() written as its value
 * @text:	the text, copied out of the segment: rewritten in place
 *
 * The other arguments and the return are ivr_format_grammar()'s; @text is
 * left as it was unless it matches.
 */
int ivr_format_prepare(char *text, u32 len, u16 id, char *why,
		       size_t why_len, u32 *tokens)
{
	return grammar(text, len, id, why, why_len, tokens, text);
}
