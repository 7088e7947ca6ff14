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
#include "read_clock.h"
#include "read_common.h"
#include "read_many.h"
#include "read_many_text.h"
#include "read_record.h"
#include "tool_msg.h"
#include "tool_time.h"

#define PROG		"ivring-read"

/*
 * Events printed between two commits.  Every commit follows a flush, so
 * whatever stops the reader, nothing it consumed is left unwritten.
 */
#define COMMIT_EVERY	1024

#define MAX_PATTERNS	64


#define NR_TYPES	65536

struct read_opts {
	const char *path;
	const char *output;
	const char *patterns[MAX_PATTERNS];
	unsigned int nr_patterns;
	unsigned long *cpus;	/* bitmap of --cpu, NULL: all */
	unsigned int max_cpu;	/* highest CPU named in --cpu */
	struct handover handover;
	struct read_clock clk;
	struct many_opts many;	/* path NULL: many segments */
	bool follow;
	bool peek;
	bool stats;
};

struct read_counts {
	uint64_t events;	/* returned by the library */
	uint64_t printed;
	uint64_t lost;
	uint64_t bytes;		/* payload bytes of the events returned */
	uint64_t committed;	/* events whose output was flushed and consumed */
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

static bool cpu_isset(const struct read_opts *o, unsigned int cpu)
{
	const unsigned int bits = 8 * sizeof(*o->cpus);

	return !o->cpus || (cpu < IVRING_NR_CPUS_MAX &&
			    (o->cpus[cpu / bits] >> (cpu % bits)) & 1);
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
			if (!read_clock_parse(optarg, &o->clk)) {
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

/* Every guest's lines in one stream (read_many_text.c). */
static int many_text(struct read_opts *o)
{
	struct many_text mt = {
		.out = stdout,
		.name = o->output ? o->output : "stdout",
		.lock = PTHREAD_MUTEX_INITIALIZER,
	};
	int err;

	if (o->nr_patterns || o->cpus || o->handover.checkpoint ||
	    o->handover.resume || o->stats) {
		tool_warn("-e, --cpu, --stats, --checkpoint and --resume are for one segment (--stats-interval: a line per guest)");
		return EXIT_USAGE;
	}
	if (o->output && !(mt.out = fopen(o->output, "w"))) {
		tool_warn("%s: %s", o->output, strerror(errno));
		return EXIT_RUNTIME;
	}
	o->many.follow = o->many.follow || o->follow;
	o->many.peek = o->peek;
	o->many.clock = o->clk.clock;
	o->many.ops = &many_text_ops;
	o->many.arg = &mt;
	err = many_main(&o->many);
	if (mt.out != stdout && fclose(mt.out) && !err) {
		tool_warn("%s: %s", o->output, strerror(errno));
		err = EXIT_RUNTIME;
	}
	return err;
}





/*
 * The event ids that -e selects, in this generation's formats.  Returns
 * false when a pattern matches nothing, naming it.
 */
static bool build_filter(struct ivring *r, const struct read_opts *o,
			 uint8_t *want, bool quiet)
{
	uint16_t *ids = malloc(NR_TYPES * sizeof(*ids));
	bool ok = true;
	unsigned int i;
	int n, j;

	if (!ids) {
		tool_warn("out of memory");
		return false;
	}
	memset(want, 0, NR_TYPES / 8);
	for (i = 0; i < o->nr_patterns; i++) {
		n = ivring__match_events(r, o->patterns[i], ids, NR_TYPES);
		if (n <= 0) {
			if (!quiet)
				tool_warn("-e '%s' matches no event format in the segment (%d formats); try -e '*'",
				     o->patterns[i], ivring__match_events(r, "*", NULL, 0));
			ok = false;
		}
		for (j = 0; j < n && j < NR_TYPES; j++)
			want[ids[j] / 8] |= 1U << (ids[j] % 8);
	}
	free(ids);
	return ok;
}


static int select_cpus(struct ivring *r, const struct read_opts *o)
{
	struct ivring_info info = { .sz = sizeof(info) };
	unsigned int cpu;

	ivring__info(r, &info);
	if (o->cpus && o->max_cpu >= info.nr_cpus) {
		tool_warn("--cpu %u: out of range, the segment has %u CPU%s (0-%u)",
		     o->max_cpu, info.nr_cpus, info.nr_cpus == 1 ? "" : "s",
		     info.nr_cpus - 1);
		return EXIT_USAGE;
	}
	for (cpu = 0; cpu < info.nr_cpus; cpu++)
		ivring__select_cpu(r, cpu, cpu_isset(o, cpu));
	return 0;
}

/* One event: its loss line, then its line unless -e filters it out. */
static int print_event(struct ivring *r, const struct ivring_event *ev,
		       const uint8_t *want, FILE *out, char **line,
		       size_t *line_len, struct read_counts *n,
		       struct read_clock *clk)
{
	struct ivring_event at;
	int len;

	n->events++;
	n->bytes += ev->size;
	if (ev->lost) {
		n->lost += ev->lost;
		fprintf(out, "CPU:%u [LOST %" PRIu64 " EVENTS]\n", ev->cpu,
			ev->lost);
	}
	if (want && !(want[ev->type / 8] & (1U << (ev->type % 8)))) {
		/* Rendered all the same: it may name a pid's comm. */
		ivring__snprint(r, ev, NULL, 0);
		return 0;
	}
	ev = read_clock_event(r, clk, ev, &at);
	len = ivring__snprint(r, ev, *line, *line_len);
	if (len < 0) {
		tool_warn("CPU %u: cannot render an event of type %u: %s", ev->cpu,
		     ev->type, ivring__errmsg(r));
		return EXIT_RUNTIME;
	}
	if ((size_t)len >= *line_len) {
		char *p = realloc(*line, len + 1);

		if (!p) {
			tool_warn("out of memory for a %d-byte line", len);
			return EXIT_RUNTIME;
		}
		*line = p;
		*line_len = len + 1;
		ivring__snprint(r, ev, *line, *line_len);
	}
	fputs(*line, out);
	putc('\n', out);
	n->printed++;
	return 0;
}

/*
 * Write out what was printed, then consume it: never the other way round.
 * Returns 0; -1 when the output was closed (| head), which ends the
 * reader without an error; or EXIT_RUNTIME when the output failed.  After
 * a failure nothing more is consumed: the next reader prints those events.
 */
static int flush_and_commit(struct ivring *r, FILE *out, const char *name,
			    struct read_counts *n)
{
	int ret;

	if (fflush(out) || ferror(out)) {
		/* A reader that went away is not an error of ours. */
		if (errno == EPIPE)
			return -1;
		tool_warn("%s: write error: %s", name, strerror(errno));
		return EXIT_RUNTIME;
	}
	ret = ivring__commit(r);
	if (ret) {
		tool_warn("%s", ivring__errmsg(r));
		return exit_code(ret);
	}
	n->committed = n->events;
	return 0;
}

/*
 * An event that -e leaves out may be of a format the guest appended since
 * the filter was built (ivring__event() looks for it): build it again
 * then, so that "-e 'sys:*'" takes the new event too.
 */
static void refilter(struct ivring *r, const struct read_opts *o,
		     uint8_t *want, uint16_t type, uint32_t *listed)
{
	struct ivring_format_stats st = { .sz = sizeof(st) };

	if (want[type / 8] & (1U << (type % 8)))
		return;
	ivring__event(r, type);
	if (ivring__format_stats(r, &st) || st.listed == *listed)
		return;
	*listed = st.listed;
	build_filter(r, o, want, true);
}

static int read_loop(struct ivring *r, struct read_opts *o, FILE *out,
		     uint8_t *want, struct read_counts *n)
{
	struct ivring_format_stats fst = { .sz = sizeof(fst) };
	const char *name = o->output ? o->output : "stdout";
	struct ivring_info info = { .sz = sizeof(info) };
	size_t line_len = 4096;
	char *line = malloc(line_len);
	bool told_stopped = false;
	struct ivring_event ev;
	unsigned int batch = 0, stale_run = 0;
	uint64_t gen;
	int ret, err = 0;

	if (!line) {
		tool_warn("out of memory");
		return EXIT_RUNTIME;
	}
	ivring__info(r, &info);
	gen = info.generation;
	ivring__format_stats(r, &fst);
	while (!stop_requested) {
		ret = ivring__next(r, &ev);
		if (ret > 0) {
			told_stopped = false;
			stale_run = 0;
			if (want)
				refilter(r, o, want, ev.type, &fst.listed);
			err = print_event(r, &ev, want, out, &line, &line_len, n,
					  &o->clk);
			if (!err && ++batch == COMMIT_EVERY) {
				batch = 0;
				err = flush_and_commit(r, out, name, n);
				read_clock_tick(r, &o->clk);
			}
			if (err)
				break;
			continue;
		}
		/* Idle, a new generation or an end: what was printed goes out. */
		batch = 0;
		err = flush_and_commit(r, out, name, n);
		if (err)
			break;
		if (ret == 0 || ret == -EPIPE) {
			if (!o->follow || drain_requested)
				break;
			if (ret == -EPIPE && !told_stopped)
				tool_warn("the guest's writer stopped; waiting for a new generation (Ctrl-C to quit)");
			told_stopped = ret == -EPIPE;
			if (ret == 0)
				read_clock_tick(r, &o->clk);
			ret = ivring__poll(r, POLL_MS);
			if (ret == -EPIPE)
				sleep_ns(BACKOFF_MAX_NS);
			if (ret >= 0 || ret == -EINTR || ret == -EPIPE)
				continue;
		}
		if (ret == -ESTALE) {
			/*
			 * A guest that re-formats again and again, with no
			 * event in between, must not keep us busy: back off.
			 */
			if (stale_run++)
				sleep_ns(BACKOFF_MAX_NS);
			ivring__info(r, &info);
			tool_warn("segment re-formatted (generation %" PRIu64 " -> %" PRIu64 "), following the new generation",
			     gen, info.generation);
			gen = info.generation;
			told_stopped = false;
			warn_skipped_formats(r, o->path);
			if (select_cpus(r, o)) {
				err = EXIT_USAGE;
				break;
			}
			if (want)
				build_filter(r, o, want, false);
			ivring__format_stats(r, &fst);
			err = read_clock_start(r, &o->clk, o->peek);
			if (err)
				break;
			continue;
		}
		tool_warn("%s", ivring__errmsg(r));
		err = exit_code(ret);
		break;
	}
	if (!err)
		err = flush_and_commit(r, out, name, n);
	free(line);
	return err < 0 ? 0 : err;
}

int main(int argc, char **argv)
{
	struct read_opts o = { 0 };
	struct read_counts n = { 0 };
	uint8_t *want = NULL;
	struct ivring *r = NULL;
	FILE *out = stdout;
	int err;

	if (argc > 1 && !strcmp(argv[1], "record"))
		return record_main(argc - 1, argv + 1);
	parse_args(argc, argv, &o);
	read_signals();
	if (!o.path) {
		err = many_text(&o);
		free(o.many.paths);
		return err;
	}

	err = handover_open(o.path, o.peek, o.follow, &o.handover, &r);
	if (err || !r)
		goto out;
	o.clk.sync = o.clk.clock || o.stats;
	err = read_clock_start(r, &o.clk, o.peek);
	if (err)
		goto out;
	warn_skipped_formats(r, o.path);
	err = select_cpus(r, &o);
	if (err)
		goto out;
	if (o.nr_patterns) {
		want = malloc(NR_TYPES / 8);
		if (!want) {
			tool_warn("out of memory");
			err = EXIT_RUNTIME;
			goto out;
		}
		if (!build_filter(r, &o, want, false)) {
			err = EXIT_USAGE;
			goto out;
		}
	}
	if (o.output) {
		out = fopen(o.output, "w");
		if (!out) {
			tool_warn("%s: %s", o.output, strerror(errno));
			out = stdout;
			err = EXIT_RUNTIME;
			goto out;
		}
	}

	err = read_loop(r, &o, out, want, &n);
	err = handover_end(r, &o.handover, err);
	if (o.stats) {
		print_stats(r, o.cpus);
		read_clock_stats(r);
	}
	fprintf(stderr, PROG ": %" PRIu64 " events read", n.events);
	if (want)
		fprintf(stderr, " (%" PRIu64 " printed)", n.printed);
	fprintf(stderr, ", %" PRIu64 " lost, %" PRIu64 " bytes\n", n.lost,
		n.bytes);
	if (!o.peek && n.events > n.committed)
		fprintf(stderr, PROG ": the last %" PRIu64 " events were not consumed: the next reader gets them again\n",
			n.events - n.committed);
out:
	if (out != stdout && fclose(out) && !err) {
		tool_warn("%s: %s", o.output, strerror(errno));
		err = EXIT_RUNTIME;
	}
	ivring__close(r);
	free(want);
	free(o.cpus);
	return err;
}
