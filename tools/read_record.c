// SPDX-License-Identifier: GPL-2.0 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * ivring-read record: the options of a recording (out_record.c) of one
 * segment or of every guest of a host.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/ivring.h>
#include "libivring.h"
#include "follow.h"
#include "out_record.h"
#include "read_common.h"
#include "read_many.h"
#include "read_record.h"
#include "tool_msg.h"

#define PROG		"ivring-read record"


static void usage(FILE *f)
{
	fprintf(f,
"usage: ivring-read record [options] /dev/shm/NAME | NAME\n"
"       ivring-read record -o DIR | --ctf DIR [options] SEGMENT... | --watch DIR\n"
"Record the guest's events into a file that trace-cmd report, KernelShark,\n"
"babeltrace2 or Trace Compass opens, copying whole pages and decoding\n"
"nothing.  The pages recorded are consumed, as ivring-read's are.\n"
"\n"
"  -o, --output FILE     write trace-cmd's trace.dat to FILE (default\n"
"                        trace.dat); until the end, FILE.tmp holds it, or\n"
"                        with --follow or -V 6 FILE.cpuN hold its data\n"
"  -V, --file-version N  trace.dat version 6 or 7 (default 7; Trace Compass\n"
"                        reads only 6)\n"
"      --ctf DIR         write a CTF 1.8 trace into DIR instead\n"
"  -N, --name NAME       the guest's name in the file (default: the\n"
"                        segment's)\n"
"  -f, --follow          keep recording until Ctrl-C or SIGTERM; a guest\n"
"                        reboot starts a new file (FILE-1, FILE-2...)\n"
"  -p, --peek            snapshot: consume nothing\n"
"  -q, --quiet           no progress line\n"
"  -s, --stats           at the end, per-CPU statistics on stderr, as\n"
"                        ivring-read --stats prints them\n"
"      --clock host      put host times in the trace.dat: the guest's clock\n"
"                        samples go in trace-cmd's TIME_SHIFT option, and\n"
"                        trace-cmd report shows the host's CLOCK_MONOTONIC\n"
"                        (and merges the file with a host trace recorded\n"
"                        with trace-cmd record -C mono); in a CTF trace,\n"
"                        the clock becomes the host's CLOCK_REALTIME, so\n"
"                        that babeltrace2 merges guests and host traces\n"
HANDOVER_USAGE
MANY_USAGE
"  -h, --help            this text\n"
"\n"
HANDOVER_HELP
"\n"
"Many segments (several named, or --watch): one process records every\n"
"guest, each into DIR/NAME.dat (or the CTF directory DIR/NAME), NAME its\n"
"segment's file name.  A segment that fails a check, or whose file is\n"
"truncated, is reported and skipped; the others record on.\n"
"\n"
"Without --follow, it records what the segment holds now (at most as\n"
"many pages per CPU as the segment has sub-buffers) and stops.\n"
"On a terminal, a progress line shows events, megabytes, lost events and\n"
"the rate.  Events lost in the guest are marked in the pages as the\n"
"kernel marks them: trace-cmd report shows them as [N EVENTS DROPPED].\n"
"Exit status as ivring-read's.\n");
}

/*
 * ivring-read record of many segments: one recording per guest in the
 * directory of -o or --ctf, named after its segment.
 */
static int record_many(const struct rec_opts *o, struct many_opts *m,
		       struct rec_conf *rc, struct seg_conf *c)
{
	const char *dir = o->ctf ? o->ctf : o->output;

	if (o->handover.checkpoint || o->handover.resume || o->name ||
	    o->stats) {
		tool_warn("--checkpoint, --resume, --name and --stats are for one segment (--stats-interval: a line per guest)");
		return EXIT_USAGE;
	}
	if (!dir) {
		tool_warn("many segments: -o DIR or --ctf DIR, where each guest's recording goes");
		return EXIT_USAGE;
	}
	if (mkdir(dir, 0777) && errno != EEXIST) {
		tool_warn("%s: %s", dir, strerror(errno));
		return EXIT_RUNTIME;
	}
	rc->dir = true;
	rc->follow = c->follow = m->follow || o->follow;
	c->one_of_many = true;
	m->seg = c;
	return many_main(m);
}

static unsigned int parse_version(const char *s)
{
	if (!strcmp(s, "6"))
		return 6;
	if (!strcmp(s, "7"))
		return 7;
	tool_warn("--file-version '%s': 6 or 7", s);
	exit(EXIT_USAGE);
}

static void parse_args(int argc, char **argv, struct rec_opts *o,
		       struct many_opts *m)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "file-version", required_argument, NULL, 'V' },
		{ "ctf", required_argument, NULL, 'c' },
		{ "name", required_argument, NULL, 'N' },
		{ "follow", no_argument, NULL, 'f' },
		{ "peek", no_argument, NULL, 'p' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "stats", no_argument, NULL, 's' },
		HANDOVER_LONGOPTS,
		MANY_LONGOPTS,
		{ "clock", required_argument, NULL, OPT_CLOCK },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "o:V:N:fpqsh", longopts, NULL)) != -1) {
		if (handover_opt(c, optarg, &o->handover) ||
		    many_opt(c, optarg, m))
			continue;
		switch (c) {
		case OPT_CLOCK:
			if (strcmp(optarg, "guest") && strcmp(optarg, "host")) {
				tool_warn("--clock '%s': guest or host (a trace.dat's times are its clock's)",
					  optarg);
				exit(EXIT_USAGE);
			}
			o->host_time = !strcmp(optarg, "host");
			break;
		case 'o':
			o->output = optarg;
			break;
		case 'V':
			o->version = parse_version(optarg);
			break;
		case 'c':
			o->ctf = optarg;
			break;
		case 'N':
			o->name = optarg;
			break;
		case 'f':
			o->follow = true;
			break;
		case 'p':
			o->peek = true;
			break;
		case 'q':
			o->quiet = true;
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
	if (o->ctf && (o->output || o->version)) {
		tool_warn("--ctf writes a CTF directory: -o and --file-version are for trace.dat");
		exit(EXIT_USAGE);
	}
	if (many_args(argc, argv, m))
		return;
	o->path = segment_arg(argc, argv, PROG);
	if (!o->ctf && !o->output)
		o->output = "trace.dat";
}

/* One recording of one segment, or one per guest of many. */
int record_main(int argc, char **argv)
{
	struct rec_opts o = { 0 };
	struct many_opts m = { 0 };
	struct rec_conf rc = { 0 };
	struct seg_conf c = {
		.ops = &rec_ops,
		.arg = &rc,
	};
	struct seg s;
	int err;

	parse_args(argc, argv, &o, &m);
	read_signals();
	rc.output = o.output;
	rc.ctf = o.ctf;
	rc.name = o.name;
	rc.version = o.version;
	c.peek = o.peek;
	c.clock = o.host_time ? IVRING_HOST_MONOTONIC : 0;
	if (o.path) {
		rc.follow = c.follow = o.follow;
		rc.progress = !o.quiet && isatty(STDERR_FILENO);
		c.stats = o.stats;
		c.handover = o.handover;
		seg_init(&s, &c, o.path, NULL);
		return seg_follow(&s);
	}
	err = record_many(&o, &m, &rc, &c);
	free(m.paths);
	return err;
}
