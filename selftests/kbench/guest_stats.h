/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * How many events the guest's two rings have taken so far, over all CPUs,
 * from their per-CPU stats files.  The guest programs read it just before
 * and just after their timed section, so that the difference is that
 * section's events: a dozen open, read and close calls and no fork, where a
 * count in the shell around the program would also hold the events of
 * starting it and of switching the events on and off.
 */
#ifndef IVRING_KBENCH_GUEST_STATS_H
#define IVRING_KBENCH_GUEST_STATS_H

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define IVRING_SYSFS	"/sys/kernel/ivring"
#define FTRACE_TRACEFS	"/sys/kernel/tracing"

/* The number after @key at the start of a line of @buf, or 0. */
static long long stats_field(const char *buf, const char *key)
{
	size_t len = strlen(key);
	const char *p;

	for (p = buf; p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, key, len))
			return atoll(p + len);
	return 0;
}

/*
 * The sum over every CPU of the number after @key in the stats of the ring
 * under @root (0 for a ring that is absent).
 */
static long long ring_sum(const char *root, const char *key)
{
	char path[128], buf[1024];
	long long n = 0;
	ssize_t len;
	int cpu, fd;

	for (cpu = 0;; cpu++) {
		snprintf(path, sizeof(path), "%s/per_cpu/cpu%d/stats", root,
			 cpu);
		fd = open(path, O_RDONLY);
		if (fd < 0)
			break;
		len = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (len <= 0)
			continue;
		buf[len] = '\0';
		n += stats_field(buf, key);
	}
	return n;
}

/*
 * Events in the ring under @root: ivring's "entries" count every event
 * committed, ftrace's only those still held, so @add_overrun adds what
 * ftrace overwrote.
 */
static long long ring_events(const char *root, int add_overrun)
{
	return ring_sum(root, "entries: ") +
	       (add_overrun ? ring_sum(root, "overrun: ") : 0);
}

/*
 * Events a ring lost: ivring's "dropped events" (discard mode, a full ring)
 * and "overrun" (overwrite mode), ftrace's the same two.
 */
static long long ring_lost(const char *root)
{
	return ring_sum(root, "dropped events: ") + ring_sum(root, "overrun: ");
}

struct ring_counts {
	long long ivring, ftrace;
	long long ivring_lost, ftrace_lost;
};

static inline void ring_counts(struct ring_counts *c)
{
	c->ivring = ring_events(IVRING_SYSFS, 0);
	c->ftrace = ring_events(FTRACE_TRACEFS, 1);
	c->ivring_lost = ring_lost(IVRING_SYSFS);
	c->ftrace_lost = ring_lost(FTRACE_TRACEFS);
}

/* The events each ring took and lost from @c0 to @c1, after a figure. */
static inline void ring_counts_print(const struct ring_counts *c0,
				     const struct ring_counts *c1)
{
	printf(" %lld %lld %lld %lld\n", c1->ivring - c0->ivring,
	       c1->ftrace - c0->ftrace, c1->ivring_lost - c0->ivring_lost,
	       c1->ftrace_lost - c0->ftrace_lost);
}

#endif /* IVRING_KBENCH_GUEST_STATS_H */
