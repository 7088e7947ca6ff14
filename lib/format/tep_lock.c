// SPDX-License-Identifier: LGPL-2.1 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * The only way libivring has libtraceevent parse a format text.
 *
 * libtraceevent 1.7 keeps parser state in process globals: is_flag_field
 * and is_symbolic_field, which __print_flags() and __print_symbolic() set
 * and the next REC->name clears, in whatever text and whatever thread that
 * comes; show_warning; and the buffer that arg_eval() returns.  So:
 *
 *  - one mutex serialises every parse that libivring makes, for every handle
 *    in every thread: two handles opened at once cannot hand each other a
 *    flag, or share that buffer;
 *  - a batch of parses starts, and every parse in it ends, with a parse of
 *    a fixed text of ours whose two REC->name references consume whatever
 *    flags are left (process_entry() clears one of them per reference).
 *
 * Each guest text therefore meets the parser as a fresh process would,
 * whatever texts, ours or the application's, came before it, and we leave
 * the parser so for the application.  format/grammar.c is what keeps a
 * guest text from leaving a flag behind in the first place.  An application
 * that parses with libtraceevent itself, in another thread, while libivring
 * parses, still races with us on those globals: only libivring's own
 * parses can take this lock.
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <traceevent/event-parse.h>

#include "format/format.h"

static pthread_mutex_t parse_lock = PTHREAD_MUTEX_INITIALIZER;

static const char reset_text[] =
	"name: ivring_reset\n"
	"ID: 1\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\n"
	"\tfield:int a;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:int b;\toffset:12;\tsize:4;\tsigned:1;\n"
	"\n"
	"print fmt: \"%d %d\", REC->a, REC->b\n";

/* Consume any flag a parse left: a handle of its own, freed at once. */
static int reset(void)
{
	struct tep_handle *tep = tep_alloc();
	struct tep_event *ev = NULL;
	int ret;

	if (!tep)
		return -ENOMEM;
	ret = tep_parse_format(tep, &ev, reset_text, strlen(reset_text),
			       "ivring") ? -ENOMEM : 0;
	tep_free(tep);
	return ret;
}

/**
 * ivr_tep_parse_begin() - take the parser for a batch of parses
 *
 * Return: 0 with the lock held, or -ENOMEM (not held).
 */
int ivr_tep_parse_begin(void)
{
	int ret;

	pthread_mutex_lock(&parse_lock);
	ret = reset();
	if (ret)
		pthread_mutex_unlock(&parse_lock);
	return ret;
}

/**
 * ivr_tep_parse() - tep_parse_format(), then leave the parser clean
 * @tep:	handle that the event joins, as with tep_parse_format()
 * @ev:		receives the event, or NULL
 * @text:	the format text, which passed the grammar
 * @len:	its bytes
 * @sys:	its system
 *
 * Call between ivr_tep_parse_begin() and ivr_tep_parse_end().
 *
 * Return: 0 when libtraceevent parsed it into *@ev, 1 when it did not,
 * -ENOMEM when the parser could not be left clean: end the batch then.
 */
int ivr_tep_parse(struct tep_handle *tep, struct tep_event **ev,
		  const char *text, u32 len, const char *sys)
{
	int ret;

	*ev = NULL;
	ret = tep_parse_format(tep, ev, text, len, sys) || !*ev;
	return reset() ?: ret;
}

void ivr_tep_parse_end(void)
{
	pthread_mutex_unlock(&parse_lock);
}
