// SPDX-License-Identifier: GPL-2.0 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * ivring-read: print the trace events of an ivring segment as trace-cmd
 * report prints a trace.dat, from the host, while the guest runs or after
 * it died.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <linux/ivring.h>
#include "libivring.h"
#include "follow.h"
#include "out_text.h"
#include "read_clock.h"
#include "read_common.h"
#include "read_many.h"
#include "read_record.h"
#include "tool_msg.h"

#define PROG		"ivring-read"

/*
 * Events printed between two commits.  Every commit follows a flush, so
 * whatever stops the reader, nothing it consumed is left unwritten.
 */
#define COMMIT_EVERY	1024
/* ... per batch of one of many guests, which then lets the next one in. */
#define MANY_BATCH	2048

#define MAX_PATTERNS	64

struct read_opts {
	const char *path;
	const char *output;
	const char *patterns[MAX_PATTERNS];
	unsigned int nr_patterns;
	unsigned long *cpus;	/* bitmap of --cpu, NULL: all */
	unsigned int max_cpu;	/* highest CPU named in --cpu */
	struct handover handover;
	unsigned int clock;	/* --clock: IVRING_HOST_*; 0: the guest's */
	struct many_opts many;	/* path NULL: many segments */
	bool follow;
	bool peek;
	bool stats;
};

static void usage(FILE *f)
{
	fprintf(f,
"usage: " PROG " [options] /dev/shm/NAME | NAME\n"
"       " PROG " -f [options] SEGMENT... | --watch DIR\n"
"       " PROG " record [-o FILE.dat | --ctf DIR] [options] /dev/shm/NAME\n"
"Print the trace events of an ivring segment, as trace-cmd report does.\n"
"By default the events read are consumed: the guest may reuse their space.\n"
"\n"
"  -f, --follow          keep reading new events until Ctrl-C or SIGTERM;\n"
"                        follows the segment across guest reboots\n"
"  -e, --event SYS:EVENT print only these events; SYS:*, EVENT, SYS or *\n"
"                        also match; repeatable\n"
"  -C, --cpu LIST        read only these CPUs: N, N-M, comma-separated;\n"
"                        repeatable\n"
"  -o, --output FILE     write the events to FILE instead of stdout\n"
"  -p, --peek            snapshot: consume nothing, write nothing to the\n"
"                        segment (implied when the file is read-only)\n"
"  -s, --stats           at the end, print per-CPU statistics to stderr in\n"
"                        the wording of tracefs per_cpu/cpuN/stats, and\n"
"                        the host/guest clock offset, drift and bound\n"
"      --clock CLOCK     print times of this clock: guest (default), host\n"
"                        (the host's CLOCK_MONOTONIC) or realtime (its\n"
"                        CLOCK_REALTIME), asking the guest for its clock\n"
"                        through the segment every second\n"
HANDOVER_USAGE
MANY_USAGE
"  -h, --help            this text\n"
"\n"
HANDOVER_HELP
"\n"
"Many segments (several named, or --watch): one process serves every\n"
"guest, each line prefixed with its guest's name (the segment's file\n"
"name); a guest's lines are in time order, different guests' are not\n"
"merged.  A segment that fails a check, or whose file is truncated, is\n"
"reported and skipped; the others read on.  -e, -C and the hand-over\n"
"options are for one segment.  See README, \"Tracing every guest of a\n"
"host\".\n"
"\n"
"ivring-read record writes a trace.dat or a CTF trace instead of text,\n"
"copying pages and decoding nothing: see ivring-read record --help.\n"
"\n"
"A line \"CPU:N [LOST K EVENTS]\" precedes the first event read after K\n"
"events of CPU N were lost.  At the end, a summary goes to stderr.\n"
"Events are consumed only once their lines are written out, so a reader\n"
"that is stopped or killed loses none: the next one prints from there.\n"
"One consuming reader per segment; a second one fails (use --peek).\n"
"A first Ctrl-C ends the reader cleanly; a second one, while output is\n"
"stalled, kills it.\n"
"\n"
"Exit status:\n"
"  0  success\n"
"  1  runtime error (missing file, permission, I/O, out of memory)\n"
"  2  usage error (bad option, CPU or event that the segment does not have)\n"
"  3  not a usable ivring segment: no magic, unsupported ABI, truncated or\n"
"     inconsistent layout\n");
}

static void cpu_set(struct read_opts *o, unsigned long cpu)
{
	const unsigned int bits = 8 * sizeof(*o->cpus);

	o->cpus[cpu / bits] |= 1UL << (cpu % bits);
	if (cpu > o->max_cpu)
		o->max_cpu = cpu;
}

static bool parse_cpu(const char *s, unsigned long *v, char **end)
{
	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	*v = strtoul(s, end, 10);
	return !errno && *v < IVRING_NR_CPUS_MAX;
}

/* "0,2-3": false on a malformed list or a CPU beyond the ABI's limit. */
static bool parse_cpu_list(struct read_opts *o, const char *arg)
{
	const char *s = arg;
	unsigned long a, b;
	char *end;

	if (!o->cpus) {
		o->cpus = calloc(IVRING_NR_CPUS_MAX / 8, 1);
		if (!o->cpus)
			return false;
	}
	for (;;) {
		if (!parse_cpu(s, &a, &end))
			return false;
		b = a;
		if (*end == '-' && (!parse_cpu(end + 1, &b, &end) || b < a))
			return false;
		for (; a <= b; a++)
			cpu_set(o, a);
		if (!*end)
			return true;
		if (*end != ',')
			return false;
		s = end + 1;
	}
}

static void parse_args(int argc, char **argv, struct read_opts *o)
{
	static const struct option longopts[] = {
		{ "follow", no_argument, NULL, 'f' },
		{ "event", required_argument, NULL, 'e' },
		{ "cpu", required_argument, NULL, 'C' },
		{ "output", required_argument, NULL, 'o' },
		{ "peek", no_argument, NULL, 'p' },
		{ "stats", no_argument, NULL, 's' },
		HANDOVER_LONGOPTS,
		MANY_LONGOPTS,
		{ "clock", required_argument, NULL, OPT_CLOCK },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "fe:C:o:psh", longopts, NULL)) != -1) {
		if (handover_opt(c, optarg, &o->handover) ||
		    many_opt(c, optarg, &o->many))
			continue;
		switch (c) {
		case OPT_CLOCK:
			if (!read_clock_parse(optarg, &o->clock)) {
				tool_warn("--clock '%s': guest, host or realtime", optarg);
				exit(EXIT_USAGE);
			}
			break;
		case 'f':
			o->follow = true;
			break;
		case 'e':
			if (o->nr_patterns == MAX_PATTERNS) {
				tool_warn("more than %d -e options", MAX_PATTERNS);
				exit(EXIT_USAGE);
			}
			o->patterns[o->nr_patterns++] = optarg;
			break;
		case 'C':
			if (!parse_cpu_list(o, optarg)) {
				tool_warn("--cpu '%s': expected N, N-M or a comma-separated list of them, below %d",
				     optarg, IVRING_NR_CPUS_MAX);
				exit(EXIT_USAGE);
			}
			break;
		case 'o':
			o->output = optarg;
			break;
		case 'p':
			o->peek = true;
			break;
		case 's':
			o->stats = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			fprintf(stderr, "Try '" PROG " --help' for more information.\n");
			exit(EXIT_USAGE);
		}
	}
	if (many_args(argc, argv, &o->many))
		return;
	o->path = segment_arg(argc, argv, PROG);
}

/* The reader of one segment, or of many: the same driver, for text. */
static int read_text(struct read_opts *o)
{
	struct text_conf tc = {
		.path = o->output,
		.lock = PTHREAD_MUTEX_INITIALIZER,
		.batch = COMMIT_EVERY,
		.patterns = o->patterns,
		.nr_patterns = o->nr_patterns,
		.cpus = o->cpus,
		.max_cpu = o->max_cpu,
	};
	struct seg_conf c = {
		.ops = &text_ops,
		.arg = &tc,
		.follow = o->follow,
		.peek = o->peek,
		.clock = o->clock,
		.stats = o->stats,
		.stats_clock = o->stats,
		.stats_cpus = o->cpus,
		.handover = o->handover,
	};
	struct seg s;
	int err;

	if (o->path) {
		seg_init(&s, &c, o->path, NULL);
		return text_close(&tc, seg_follow(&s));
	}
	if (o->nr_patterns || o->cpus || o->handover.checkpoint ||
	    o->handover.resume || o->stats) {
		tool_warn("-e, --cpu, --stats, --checkpoint and --resume are for one segment (--stats-interval: a line per guest)");
		return EXIT_USAGE;
	}
	err = text_open(&tc);
	if (err)
		return err;
	/* Every guest's lines in one stream, each with its guest's name. */
	tc.tag = true;
	tc.batch = MANY_BATCH;
	c.one_of_many = true;
	c.follow = o->follow || o->many.follow;
	o->many.seg = &c;
	return text_close(&tc, many_main(&o->many));
}

int main(int argc, char **argv)
{
	struct read_opts o = { 0 };
	int err;

	if (argc > 1 && !strcmp(argv[1], "record"))
		return record_main(argc - 1, argv + 1);
	parse_args(argc, argv, &o);
	read_signals();
	err = read_text(&o);
	free(o.many.paths);
	free(o.cpus);
	return err;
}
