// SPDX-License-Identifier: LGPL-2.1 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * Events by id and by name, through libtraceevent and the formats that
 * the segment carries (format/): what a caller decodes with.
 */
#include <errno.h>
#include <string.h>
#include <traceevent/event-parse.h>

#include "decode/decode.h"

struct tep_handle *ivring__tep(struct ivring *r)
{
	return r ? ivr_formats_tep(r) : NULL;
}

/*
 * A type with no format may be one whose format the guest appended after
 * we framed the area: look, then.  Only on a miss, and the look costs a
 * load unless the area grew (format/area.c bounds what growth costs).
 */
static int find_event(struct ivring *r, uint16_t type, struct tep_event **ev)
{
	struct tep_handle *tep;
	int ret;

	*ev = NULL;
	tep = ivr_formats_tep(r);
	if (!tep)
		return -ENOMEM;
	*ev = tep_find_event(tep, type);
	if (!*ev) {
		ret = ivr_formats_refresh(r);
		if (ret > 0)
			ret = ivr_formats_parse(r);
		if (ret < 0)
			return ret;
		*ev = tep_find_event(tep, type);
	}
	if (*ev && !ivr_formats_hidden(r, type))
		return 0;
	*ev = NULL;
	return -ENOENT;
}

int ivring__find_event(struct ivring *r, uint16_t type, struct tep_event **ev)
{
	int ret;

	if (!r || !ev)
		return -EINVAL;
	ret = find_event(r, type, ev);
	if (ret == -ENOENT)
		return ivr_err(r, ret,
			       "%s: no format of this generation has event id %u",
			       r->path, type);
	return ret;
}

/* A miss is no failure here: an unknown type renders as unknown. */
struct tep_event *ivring__event(struct ivring *r, uint16_t type)
{
	struct tep_event *ev;

	return r && !find_event(r, type, &ev) ? ev : NULL;
}

static bool name_match(const char *pat, size_t len, const char *name)
{
	return (len == 1 && pat[0] == '*') ||
	       (strlen(name) == len && !strncmp(pat, name, len));
}

/*
 * "sys:name", "sys:*", "name" and "*", as trace-cmd's -e takes them (a
 * bare name matches a system of that name too, as "sched" does there).
 */
int ivring__match_events(struct ivring *r, const char *pattern, uint16_t *ids,
			 size_t max)
{
	struct tep_handle *tep;
	const char *colon;
	int i, n, found = 0;

	if (!r || !pattern || (!ids && max))
		return -EINVAL;
	/*
	 * Names, not types: a format appended since may have the one asked
	 * for.  If the look fails, what was listed before is matched.
	 */
	ivr_formats_refresh(r);
	tep = ivring__tep(r);
	if (!tep)
		return -ENOMEM;
	colon = strchr(pattern, ':');
	n = tep_get_events_count(tep);
	for (i = 0; i < n; i++) {
		struct tep_event *ev = tep_get_event(tep, i);
		bool hit;

		if (!ev || ivr_formats_hidden(r, ev->id))
			continue;
		if (colon)
			hit = name_match(pattern, colon - pattern, ev->system) &&
			      name_match(colon + 1, strlen(colon + 1), ev->name);
		else
			hit = name_match(pattern, strlen(pattern), ev->name) ||
			      name_match(pattern, strlen(pattern), ev->system);
		if (!hit)
			continue;
		if ((size_t)found < max)
			ids[found] = ev->id;
		found++;
	}
	return found;
}

int ivring__get_tep(struct ivring *r, struct tep_handle **tep)
{
	if (!r || !tep)
		return -EINVAL;
	*tep = ivr_formats_tep(r);
	return *tep ? 0 : -ENOMEM;
}


