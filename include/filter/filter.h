/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * Event filters in ftrace's language (Documentation/trace/events.rst,
 * "Event filtering"), compiled once and run on each filled record: the
 * same source in ivring.ko and in userspace, where the tests and a fuzzer
 * run it (include/filter/LAYERS).
 *
 * The language: predicates FIELD OP VALUE joined by && (binding tighter)
 * and ||, ! before a predicate or a parenthesis, parentheses.  Numbers
 * take == != < <= > >= and & (some bit in common); strings == != and ~
 * (a glob).  The fields are an event's, from its format text
 * (ivf_fields_parse()), and ftrace's special CPU and COMM.
 *
 * A program is a flat array of predicates, each with where to go when it
 * holds and when it does not; every jump goes forward, so a record costs
 * at most one test per predicate.  Nothing is allocated: the caller gives
 * the memory, a struct ivf_prog of fixed size, and the limits below bound
 * the text, the nesting, the predicates and the string bytes.
 */
#ifndef IVRING_FILTER_H
#define IVRING_FILTER_H

#include "filter_prim.h"

/* The limits: a sysfs write is a page; ftrace's string values are < 256. */
#define IVF_TEXT_MAX	4096	/* bytes of filter text: less than this */
#define IVF_PREDS_MAX	128	/* predicates in a program */
#define IVF_DEPTH_MAX	32	/* nested parentheses and ! */
#define IVF_STR_MAX	255	/* bytes of one string value */
#define IVF_POOL_MAX	2048	/* bytes of every string value together */
#define IVF_FIELDS_MAX	128	/* fields of an event */
#define IVF_NAME_MAX	64	/* bytes of a field's name, NUL included */
#define IVF_COMM_LEN	16	/* a task's comm, as TASK_COMM_LEN */

/* How a field's bytes are read. */
enum ivf_kind {
	IVF_INT,		/* 1, 2, 4 or 8 bytes, signed or not */
	IVF_STR_STATIC,		/* char name[N] */
	IVF_STR_LOC,		/* __data_loc char[]: u32 len << 16 | offset */
	IVF_STR_RELLOC,		/* __rel_loc char[]: offset from after it */
	IVF_CPU,		/* the CPU that writes the record */
	IVF_COMM,		/* the writing task's comm */
	IVF_UNSUPPORTED,	/* arrays, string pointers: no predicate */
};

struct ivf_field {
	char name[IVF_NAME_MAX];
	u16 offset;
	u16 size;
	u8 kind;		/* enum ivf_kind */
	bool is_signed;
};

/* An event's fields, as its format text lists them. */
struct ivf_fields {
	struct ivf_field f[IVF_FIELDS_MAX];
	unsigned int nr;
};

enum ivf_op {
	IVF_OP_EQ, IVF_OP_NE, IVF_OP_LT, IVF_OP_LE, IVF_OP_GT, IVF_OP_GE,
	IVF_OP_BAND, IVF_OP_GLOB,
};

/* How a string value matches (ftrace's filter_parse_regex()). */
enum ivf_match {
	IVF_MATCH_FULL,		/* the whole string */
	IVF_MATCH_FRONT,	/* "abc*" */
	IVF_MATCH_MIDDLE,	/* "*abc*" */
	IVF_MATCH_END,		/* "*abc" */
	IVF_MATCH_GLOB,		/* anything else with * ? or [ */
};

struct ivf_pred {
	u8 op;			/* enum ivf_op */
	u8 kind;		/* the field's enum ivf_kind */
	u8 size;		/* IVF_INT: 1, 2, 4, 8; IVF_STR_STATIC: up to 255 */
	u8 match;		/* strings: enum ivf_match */
	bool is_signed;
	bool negate;		/* strings: != */
	u16 offset;
	u16 str;		/* strings: the value's offset in the pool */
	u16 str_len;		/* and its length */
	/* The next predicate when this one holds, and when not: */
	u16 on_true, on_false;	/* IVF_ACCEPT, IVF_REJECT or an index */
	u64 val;		/* numbers */
	u16 static_size;	/* IVF_STR_STATIC: the field's bytes */
};

/* Where a program ends: past every index. */
#define IVF_ACCEPT	(IVF_PREDS_MAX + 1)
#define IVF_REJECT	(IVF_PREDS_MAX + 2)

struct ivf_prog {
	struct ivf_pred p[IVF_PREDS_MAX];
	unsigned int nr;
	char pool[IVF_POOL_MAX];
	unsigned int pool_len;
};

/*
 * ivf_compile()'s working memory, which the caller gives as it gives the
 * program (the kernel's stack is too small for it): the parsed tree, and
 * the stack that lays it out.
 */
enum { IVF_NODE_PRED, IVF_NODE_AND, IVF_NODE_OR };
#define IVF_NONE	0xffff
/* Each predicate is a node; each && or || has two children or more. */
#define IVF_NODES_MAX	(2 * IVF_PREDS_MAX)

struct ivf_node {
	u8 type;		/* IVF_NODE_* */
	bool neg;		/* under an odd number of ! */
	u16 pred;		/* a predicate: its index */
	u16 first_pred;		/* the first predicate below */
	u16 first, last;	/* && and ||: the children */
	u16 next;		/* the next sibling, or IVF_NONE */
};

struct ivf_emit {
	u16 node, t, f;
	bool neg;
};

struct ivf_work {
	struct ivf_node node[IVF_NODES_MAX];
	struct ivf_emit stack[IVF_NODES_MAX];
};

/* Why a text was refused, and where, as tracefs reports it. */
struct ivf_error {
	const char *msg;	/* one of ftrace's parse errors, or ours */
	unsigned int pos;	/* the byte of the text it points at */
};

/* What a record is checked against besides its own bytes. */
struct ivf_ctx {
	unsigned int cpu;
	const char *comm;	/* IVF_COMM_LEN bytes, NUL-padded */
};

/*
 * The fields of a format text (tracefs's "format" file): each
 * "field:TYPE NAME;\toffset:N;\tsize:N;\tsigned:N;" line, the common
 * ones included.  A line that does not parse is skipped.  Returns the
 * number of fields, at most IVF_FIELDS_MAX (those past it are dropped).
 */
unsigned int ivf_fields_parse(const char *text, size_t len,
			      struct ivf_fields *out);

/*
 * Compile @text (@len bytes; a NUL ends it sooner) against @fields into
 * @prog, with @work to work in.  The caller strips the blanks at the end,
 * as ftrace does before it keeps the text.  Returns 0; -EINVAL with @err
 * set (the message, and the byte that the caret goes under) when the text
 * is not a filter of these fields or passes one of the limits above.  "0", with blanks before it, clears: 0
 * with prog->nr == 0, with which ivf_match() passes everything.
 */
int ivf_compile(const char *text, size_t len, const struct ivf_fields *fields,
		struct ivf_prog *prog, struct ivf_work *work,
		struct ivf_error *err);

/*
 * Whether the record of @len bytes at @rec passes @prog.  Reads only
 * within the record: a field that does not fit, or a string whose
 * location points outside it, makes its predicate false.
 */
bool ivf_match(const struct ivf_prog *prog, const void *rec, u32 len,
	       const struct ivf_ctx *ctx);

#endif /* IVRING_FILTER_H */
