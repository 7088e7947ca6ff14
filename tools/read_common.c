// SPDX-License-Identifier: GPL-2.0 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/* What ivring-read's printing and recording modes share. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libivring.h"
#include "read_common.h"
#include "tool_msg.h"

volatile sig_atomic_t stop_requested;
volatile sig_atomic_t drain_requested;

/*
 * Atomic stores: the reader of many segments looks at the flags from
 * threads other than the one the signal interrupts.
 */
static void on_signal(int sig)
{
	(void)sig;
	__atomic_store_n(&stop_requested, 1, __ATOMIC_RELAXED);
}

static void on_drain(int sig)
{
	(void)sig;
	__atomic_store_n(&drain_requested, 1, __ATOMIC_RELAXED);
}

void read_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal,
				.sa_flags = SA_RESTART | SA_RESETHAND };

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sa.sa_handler = on_drain;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGUSR1, &sa, NULL);
	/* A closed pipe ends the output, but not before we flush and count. */
	signal(SIGPIPE, SIG_IGN);
}

int exit_code(int err)
{
	switch (err) {
	case -ENOTTY:
	case -EPROTONOSUPPORT:
	case -EFBIG:
	case -EINVAL:
		return EXIT_SEGMENT;
	default:
		return EXIT_RUNTIME;
	}
}

uint64_t lost_after_last_page(struct ivring *r, unsigned int cpu, bool peek)
{
	struct ivring_info info = { .sz = sizeof(info) };
	struct ivring_cpu_stats st = { .sz = sizeof(st) };

	if (ivring__info(r, &info) ||
	    (info.state != IVRING_STATE_STOPPED && !peek) ||
	    ivring__cpu_stats(r, cpu, &st))
		return 0;
	return st.lost_unreported;
}

/*
 * One line per generation when some event formats were skipped: their
 * events print as [UNKNOWN TYPE N].  Parses the formats now, so that the
 * count includes those that libtraceevent refused.
 */
void warn_skipped_formats(struct ivring *r, const char *path)
{
	struct ivring_format_stats st = { .sz = sizeof(st) };
	char first[32] = "";

	ivring__tep(r);
	if (ivring__format_stats(r, &st) || !st.skipped || !st.first_reason)
		return;
	if (st.first_id >= 0)
		snprintf(first, sizeof(first), " (id %d)", st.first_id);
	tool_warn("%s%s: %u of %u event formats skipped; the first%s: %s",
		  strchr(path, '/') ? "" : "/dev/shm/", path, st.skipped,
		  st.records, first, st.first_reason);
}

static void print_ts(FILE *f, const char *label, uint64_t ns)
{
	uint64_t us = (ns + 500) / 1000;

	fprintf(f, "%s %5" PRIu64 ".%06" PRIu64 "\n", label, us / 1000000,
		us % 1000000);
}

/* tracefs per_cpu/cpuN/stats wording, plus what only a reader knows. */
void print_stats(struct ivring *r, const unsigned long *cpus)
{
	struct ivring_info info = { .sz = sizeof(info) };
	unsigned int cpu;

	if (ivring__info(r, &info)) {
		tool_warn("no statistics: %s", ivring__errmsg(r));
		return;
	}
	for (cpu = 0; cpu < info.nr_cpus; cpu++) {
		struct ivring_cpu_stats st = { .sz = sizeof(st) };

		if (!cpu_in(cpus, cpu) || ivring__cpu_stats(r, cpu, &st))
			continue;
		fprintf(stderr, "CPU %u:\n", cpu);
		fprintf(stderr, "entries: %" PRIu64 "\n", st.entries);
		fprintf(stderr, "overrun: %" PRIu64 "\n", st.overrun);
		fprintf(stderr, "bytes: %" PRIu64 "\n", st.bytes);
		print_ts(stderr, "oldest event ts:", st.oldest_ts);
		print_ts(stderr, "now ts:", st.last_ts);
		fprintf(stderr, "dropped events: %" PRIu64 "\n", st.dropped);
		fprintf(stderr, "rejected events: %" PRIu64 "\n", st.rejected);
		fprintf(stderr, "filtered events: %" PRIu64 "\n", st.filtered);
		fprintf(stderr, "read events: %" PRIu64 "\n", st.read);
		fprintf(stderr, "unread events: %" PRIu64 "\n", st.unread);
		fprintf(stderr, "lost events: %" PRIu64 "\n", st.lost);
		fprintf(stderr, "bad pages: %" PRIu64 "\n", st.bad_pages);
		fprintf(stderr, "torn pages: %" PRIu64 "\n", st.torn_pages);
	}
}
