// SPDX-License-Identifier: GPL-2.0 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/* What ivring-read's printing and recording modes share. */
#include <errno.h>
#include <inttypes.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libivring.h"
#include "read_common.h"
#include "tool_msg.h"
#include "tool_time.h"

/* How long open waits for a guest that is formatting the segment. */
#define OPEN_RETRY_NS	2000000000ULL

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

int open_segment(const char *path, bool peek, bool follow, struct ivring **r)
{
	char err[PATH_MAX + 512] = "";
	struct ivring_open_opts oo = {
		.sz = sizeof(oo),
		.flags = peek ? IVRING_OPEN_PEEK : IVRING_OPEN_EXPLICIT_COMMIT,
		.errbuf = err,
		.errbuf_len = sizeof(err),
	};
	uint64_t deadline = now_ns() + OPEN_RETRY_NS;
	bool told = false;
	int ret;

	for (;;) {
		ret = ivring__open(path, &oo, r);
		if (!ret || stop_requested)
			break;
		/* A guest that is formatting the segment is done within moments. */
		if (ret == -EAGAIN && now_ns() < deadline) {
			sleep_ns(BACKOFF_MAX_NS);
			continue;
		}
		/*
		 * Following, a segment that does not exist yet or that the
		 * guest has not formatted yet (QEMU starts before the module
		 * loads) is one to wait for, not an error.
		 */
		if (!follow || (ret != -ENOENT && ret != -ENOTTY &&
				   ret != -EAGAIN))
			break;
		if (!told)
			tool_warn("%s; waiting for the guest", err);
		told = true;
		sleep_ns(BACKOFF_MAX_NS);
	}
	if (ret && told && stop_requested) {
		*r = NULL;	/* Ctrl-C while waiting: nothing to read, no error */
		return 0;
	}
	if (ret) {
		tool_warn("%s", err[0] ? err : strerror(-ret));
		return exit_code(ret);
	}
	return 0;
}

bool handover_opt(int c, const char *arg, struct handover *h)
{
	if (c == OPT_CHECKPOINT)
		h->checkpoint = arg;
	else if (c == OPT_RESUME)
		h->resume = arg;
	return c == OPT_CHECKPOINT || c == OPT_RESUME;
}

/* 0 once @ckpt exists; *stop if Ctrl-C came first; or an exit code. */
static int wait_checkpoint(const char *ckpt, bool follow, bool *stop)
{
	bool told = false;

	*stop = false;
	while (access(ckpt, F_OK)) {
		if (errno != ENOENT || !follow) {
			tool_warn("--resume %s: %s", ckpt, strerror(errno));
			return EXIT_RUNTIME;
		}
		if (!told)
			tool_warn("waiting for the checkpoint %s (Ctrl-C to quit)", ckpt);
		told = true;
		if (stop_requested) {
			*stop = true;
			return 0;
		}
		sleep_ns(BACKOFF_MAX_NS);
	}
	return 0;
}

static int start_at(struct ivring *r, const char *ckpt)
{
	struct ivring_info info = { .sz = sizeof(info) };
	int ret;

	if (ckpt) {
		ret = ivring__checkpoint_load(r, ckpt);
		if (ret == -ESTALE) {
			/* Nobody read the new generation: its start is right. */
			tool_warn("%s; reading the new generation from its start",
				  ivring__errmsg(r));
		} else if (ret) {
			tool_warn("%s", ivring__errmsg(r));
			return ret == -EINVAL || ret == -ERANGE ? EXIT_USAGE :
								  EXIT_RUNTIME;
		}
	}
	if (ivring__info(r, &info))
		return 0;
	if (info.resumed == IVRING_RESUMED_CHECKPOINT)
		tool_warn("resuming from the checkpoint %s (generation %" PRIu64 ")",
			  ckpt, info.generation);
	else if (info.resumed == IVRING_RESUMED_COPIED)
		tool_warn("resuming from positions that came with a copy of the segment (a live migration without a checkpoint?): they may be older than what the reader before delivered; up to %" PRIu64 " events may be repeated",
			  info.may_repeat);
	return 0;
}

int handover_open(const char *path, bool peek, bool follow,
		  const struct handover *h, struct ivring **r)
{
	bool stop;
	int err;

	*r = NULL;
	if (peek && h->checkpoint) {
		tool_warn("--checkpoint: a --peek reader consumes nothing, so it has nothing to hand over");
		return EXIT_USAGE;
	}
	if (h->resume) {
		err = wait_checkpoint(h->resume, follow, &stop);
		if (err || stop)
			return err;
	}
	err = open_segment(path, peek, follow, r);
	if (err || !*r)
		return err;
	err = start_at(*r, h->resume);
	if (err) {
		ivring__close(*r);
		*r = NULL;
	}
	return err;
}

int handover_end(struct ivring *r, const struct handover *h, int err)
{
	struct ivring_info info = { .sz = sizeof(info) };

	if (!r || !h->checkpoint)
		return err;
	if (ivring__checkpoint_save(r, h->checkpoint)) {
		tool_warn("%s", ivring__errmsg(r));
		return err ? err : EXIT_RUNTIME;
	}
	ivring__info(r, &info);
	tool_warn("checkpoint saved to %s (generation %" PRIu64 ")",
		  h->checkpoint, info.generation);
	return err;
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

const char *segment_arg(int argc, char **argv, const char *prog)
{
	/* Two or more are many_args()'s. */
	if (optind == argc - 1)
		return argv[optind];
	tool_warn("no segment given");
	fprintf(stderr, "Try '%s --help' for more information.\n", prog);
	exit(EXIT_USAGE);
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
	const unsigned int bits = 8 * sizeof(*cpus);
	struct ivring_info info = { .sz = sizeof(info) };
	unsigned int cpu;

	if (ivring__info(r, &info)) {
		tool_warn("no statistics: %s", ivring__errmsg(r));
		return;
	}
	for (cpu = 0; cpu < info.nr_cpus; cpu++) {
		struct ivring_cpu_stats st = { .sz = sizeof(st) };

		if ((cpus && !((cpus[cpu / bits] >> (cpu % bits)) & 1)) ||
		    ivring__cpu_stats(r, cpu, &st))
			continue;
		fprintf(stderr, "CPU %u:\n", cpu);
		fprintf(stderr, "entries: %" PRIu64 "\n", st.entries);
		fprintf(stderr, "overrun: %" PRIu64 "\n", st.overrun);
		fprintf(stderr, "bytes: %" PRIu64 "\n", st.bytes);
		print_ts(stderr, "oldest event ts:", st.oldest_ts);
		print_ts(stderr, "now ts:", st.last_ts);
		fprintf(stderr, "dropped events: %" PRIu64 "\n", st.dropped);
		fprintf(stderr, "rejected events: %" PRIu64 "\n", st.rejected);
		fprintf(stderr, "read events: %" PRIu64 "\n", st.read);
		fprintf(stderr, "unread events: %" PRIu64 "\n", st.unread);
		fprintf(stderr, "lost events: %" PRIu64 "\n", st.lost);
		fprintf(stderr, "bad pages: %" PRIu64 "\n", st.bad_pages);
		fprintf(stderr, "torn pages: %" PRIu64 "\n", st.torn_pages);
	}
}
