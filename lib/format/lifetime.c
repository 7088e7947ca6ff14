// SPDX-License-Identifier: LGPL-2.1 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * A generation's formats: framed at attach (area.c), parsed at the first
 * call that decodes (parse.c), dropped whole at detach, freed at close.
 */
#include <stdlib.h>

#include "format/format.h"

void ivr_formats_unframe(struct ivring *r)
{
	if (!r->fmts)
		return;
	ivr_formats_unparse(r->fmts);
	ivr_formats_unlist(r->fmts);
}

void ivr_formats_free(struct ivring *r)
{
	ivr_formats_unframe(r);
	free(r->fmts);
	r->fmts = NULL;
}
