// SPDX-License-Identifier: GPL-2.0 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * One parser for ivring-read and ivring-read record.  Every option is
 * declared once, with the modes that take it; getopt sees only the
 * current mode's, so that an option of the other mode is refused as any
 * unknown one is, and the rules that follow the options (one segment or
 * many, which options need which) are checked in one place for both.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <pwd.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/ivring.h>
#include "libivring.h"
#include "read_clock.h"
#include "read_common.h"
#include "read_opts.h"
#include "read_usage.h"
#include "tool_msg.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* Long-only options. */
enum {
	OPT_CHECKPOINT = 256, OPT_RESUME, OPT_CLOCK, OPT_CTF, OPT_WATCH,
	OPT_MATCH, OPT_THREADS, OPT_STATS_INTERVAL, OPT_ANY_DIR, OPT_OWNER,
	OPT_RELAYD, OPT_HOSTNAME, OPT_RELAYD_TIMEOUT,
	OPT_COMPRESSION,
	OPT_MAX_GUESTS, OPT_CLOCK_BOUND, OPT_HOST,
};

#define M_TEXT		1U
#define M_RECORD	2U
#define M_BOTH		(M_TEXT | M_RECORD)

/*
 * Where an option that needs no parsing goes, checked at build time: a
 * flag (no_argument) sets a bool, an argument is kept as a string.  0:
 * take() parses it.
 */
#define IS_A(f, type) \
	__builtin_types_compatible_p(__typeof__(((struct read_opts *)0)->f), \
				     type)
#define AT(f, type) \
	(offsetof(struct read_opts, f) + 1 + \
	 0 * sizeof(char[IS_A(f, type) ? 1 : -1]))
#define FLAG(f)		AT(f, bool)
#define ARG(f)		AT(f, const char *)

/*
 * In the order in which getopt names the candidates of an ambiguous
 * abbreviation (--c: --cpu or --ctf, --checkpoint, --clock and, in text,
 * --clock-bound), as each mode's own table had them.
 */
static const struct read_option {
	struct option lo;	/* a val below 256 is its short option too */
	unsigned int modes;
	size_t at;		/* FLAG(), ARG(), or 0 */
} options[] = {
	{ { "output", required_argument, NULL, 'o' }, M_BOTH, ARG(output) },
	{ { "file-version", required_argument, NULL, 'V' }, M_RECORD, 0 },
	{ { "compression", required_argument, NULL, OPT_COMPRESSION },
	  M_RECORD, 0 },
	{ { "ctf", required_argument, NULL, OPT_CTF }, M_RECORD, ARG(ctf) },
	{ { "relayd", required_argument, NULL, OPT_RELAYD }, M_RECORD,
	  ARG(relayd) },
	{ { "hostname", required_argument, NULL, OPT_HOSTNAME }, M_RECORD,
	  ARG(hostname) },
	{ { "relayd-timeout", required_argument, NULL, OPT_RELAYD_TIMEOUT },
	  M_RECORD, 0 },
	{ { "name", required_argument, NULL, 'N' }, M_RECORD, ARG(name) },
	{ { "host", required_argument, NULL, OPT_HOST }, M_RECORD, ARG(host) },
	{ { "any-dir", no_argument, NULL, OPT_ANY_DIR }, M_RECORD,
	  FLAG(any_dir) },
	{ { "follow", no_argument, NULL, 'f' }, M_BOTH, FLAG(follow) },
	{ { "event", required_argument, NULL, 'e' }, M_TEXT, 0 },
	{ { "cpu", required_argument, NULL, 'C' }, M_TEXT, 0 },
	{ { "peek", no_argument, NULL, 'p' }, M_BOTH, FLAG(peek) },
	{ { "quiet", no_argument, NULL, 'q' }, M_RECORD, FLAG(quiet) },
	{ { "stats", no_argument, NULL, 's' }, M_BOTH, FLAG(stats) },
	{ { "checkpoint", required_argument, NULL, OPT_CHECKPOINT }, M_BOTH,
	  ARG(handover.checkpoint) },
	{ { "resume", required_argument, NULL, OPT_RESUME }, M_BOTH,
	  ARG(handover.resume) },
	{ { "watch", required_argument, NULL, OPT_WATCH }, M_BOTH,
	  ARG(many.watch) },
	{ { "match", required_argument, NULL, OPT_MATCH }, M_BOTH,
	  ARG(many.match) },
	{ { "owner", required_argument, NULL, OPT_OWNER }, M_BOTH, 0 },
	{ { "max-guests", required_argument, NULL, OPT_MAX_GUESTS }, M_BOTH,
	  0 },
	{ { "threads", required_argument, NULL, OPT_THREADS }, M_BOTH, 0 },
	{ { "stats-interval", required_argument, NULL, OPT_STATS_INTERVAL },
	  M_BOTH, 0 },
	{ { "clock", required_argument, NULL, OPT_CLOCK }, M_BOTH, 0 },
	{ { "clock-bound", no_argument, NULL, OPT_CLOCK_BOUND }, M_TEXT,
	  FLAG(clock_bound) },
	{ { "help", no_argument, NULL, 'h' }, M_BOTH, 0 },
};

/* getopt_long()'s tables of the options of @modes. */
struct getopt_tables {
	struct option lo[ARRAY_SIZE(options) + 1];
	char so[2 * ARRAY_SIZE(options) + 1];
};

static void getopt_tables(unsigned int modes, struct getopt_tables *t)
{
	unsigned int i, n = 0, k = 0;

	for (i = 0; i < ARRAY_SIZE(options); i++) {
		const struct option *lo = &options[i].lo;

		if (!(options[i].modes & modes))
			continue;
		t->lo[n++] = *lo;
		if (lo->val >= 256)
			continue;
		t->so[k++] = lo->val;
		if (lo->has_arg == required_argument)
			t->so[k++] = ':';
	}
	memset(&t->lo[n], 0, sizeof(t->lo[n]));
	t->so[k] = '\0';
}

static void __attribute__((noreturn)) try_help(const struct read_opts *o)
{
	fprintf(stderr, "Try '%s --help' for more information.\n", o->prog);
	exit(EXIT_USAGE);
}

/* A usage error: exit code 2, having said why. */
#define usage_error(...) \
	do { \
		tool_warn(__VA_ARGS__); \
		exit(EXIT_USAGE); \
	} while (0)

/*
 * "record" is the subcommand only as the first argument: after an option
 * it would be taken for a segment (/dev/shm/record) and the rest read as
 * text.  Wherever else it stands as an operand (not as an option's
 * argument: -o record is a file), refuse it, saying where it goes.  The
 * operands are found by a silent parse of a copy of @argv with every
 * mode's options, so that one of the other mode's does not hide it.
 */
static void refuse_late_record(int argc, char **argv, bool sub)
{
	int first = sub ? 1 : 0, n = argc - first, i, j;
	struct getopt_tables t;
	char **args, *hint = NULL;
	size_t len = 0;
	bool late = false;
	FILE *f;

	args = calloc(n + 1, sizeof(*args));
	if (!args)
		tool_die("out of memory");
	memcpy(args, argv + first, n * sizeof(*args));
	getopt_tables(M_BOTH, &t);
	opterr = 0;
	optind = 0;
	while (getopt_long(n, args, t.so, t.lo, NULL) != -1)
		;
	for (i = optind; i < n; i++)
		late |= !strcmp(args[i], "record");
	opterr = 1;
	optind = 0;
	if (!late) {
		free(args);
		return;
	}
	/* The same command, with "record" where it goes. */
	f = open_memstream(&hint, &len);
	if (!f)
		tool_die("out of memory");
	fputs("ivring-read record", f);
	for (i = 1; i < argc; i++) {
		bool operand = false;

		for (j = optind; j < n; j++)
			operand |= args[j] == argv[i];
		if ((sub && i == 1) || (operand && !strcmp(argv[i], "record")))
			continue;
		fprintf(f, " %s", argv[i]);
	}
	if (fclose(f))
		tool_die("out of memory");
	tool_warn("'record' is a subcommand: put it first, as in '%s'", hint);
	free(hint);
	free(args);
	exit(EXIT_USAGE);
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

static void parse_clock(struct read_opts *o, const char *arg)
{
	bool ok = read_clock_parse(arg, &o->clock);

	o->clock_set = true;
	/* A trace.dat's times are in one clock: the guest's, or the host's. */
	if (o->record && (!ok || o->clock == IVRING_HOST_REALTIME))
		usage_error("--clock '%s': guest or host (a trace.dat's times are its clock's)",
			    arg);
	if (!ok)
		usage_error("--clock '%s': guest, host or realtime", arg);
}

static unsigned int parse_count(const char *name, const char *arg,
				unsigned long min, unsigned long max)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(arg, &end, 10);
	if (errno || *end || end == arg || v > max || v < min)
		usage_error("--%s '%s': expected a number, %lu to %lu", name,
			    arg, min, max);
	return v;
}

static unsigned int parse_number(const char *name, const char *arg,
				 unsigned long min)
{
	return parse_count(name, arg, min, 1024);
}

/* --owner USER: a user name or a uid. */
static void parse_owner(struct read_opts *o, const char *arg)
{
	struct passwd *pw = getpwnam(arg);
	unsigned long v;
	char *end;

	if (pw) {
		o->many.owner = pw->pw_uid;
	} else {
		errno = 0;
		v = strtoul(arg, &end, 10);
		if (errno || *end || end == arg || v > (uid_t)-2)
			usage_error("--owner '%s': no such user, and not a uid",
				    arg);
		o->many.owner = v;
	}
	o->many.has_owner = true;
}

/* Option @c: kept where the table says, or parsed. */
static void take(struct read_opts *o, int c, const char *arg)
{
	unsigned int i;
	char *at;

	for (i = 0; i < ARRAY_SIZE(options); i++) {
		if (options[i].lo.val != c || !options[i].at)
			continue;
		at = (char *)o + options[i].at - 1;
		if (options[i].lo.has_arg == no_argument)
			*(bool *)at = true;
		else
			*(const char **)at = arg;
		return;
	}
	switch (c) {
	case OPT_CLOCK:
		parse_clock(o, arg);
		break;
	case OPT_THREADS:
		o->many.threads = parse_number("threads", arg, 1);
		break;
	case OPT_STATS_INTERVAL:
		o->many.stats_interval = parse_number("stats-interval", arg, 0);
		break;
	case OPT_OWNER:
		parse_owner(o, arg);
		break;
	case OPT_RELAYD_TIMEOUT:
		o->relayd_timeout_ms = parse_count("relayd-timeout", arg, 1,
						   3600000);
		break;
	case OPT_MAX_GUESTS:
		o->many.max_guests = parse_count("max-guests", arg, 1, 1 << 20);
		break;
	case 'e':
		if (o->nr_patterns == MAX_PATTERNS)
			usage_error("more than %d -e options", MAX_PATTERNS);
		o->patterns[o->nr_patterns++] = arg;
		break;
	case 'C':
		if (!parse_cpu_list(o, arg))
			usage_error("--cpu '%s': expected N, N-M or a comma-separated list of them, below %d",
				    arg, IVRING_NR_CPUS_MAX);
		break;
	case 'V':
		if (strcmp(arg, "6") && strcmp(arg, "7"))
			usage_error("--file-version '%s': 6 or 7", arg);
		o->version = arg[0] - '0';
		break;
	case OPT_COMPRESSION:
		if (!strcmp(arg, "zstd"))
			o->compression = IVRING_REC_ZSTD;
		else if (!strcmp(arg, "none"))
			o->compression = IVRING_REC_NO_COMPRESSION;
		else
			usage_error("--compression '%s': zstd or none", arg);
		break;
	case 'h':
		read_usage(o->record, stdout);
		exit(0);
	default:
		try_help(o);
	}
}

/* The segments after the options: more than one, or --watch, are many. */
static void segments(int argc, char **argv, struct read_opts *o)
{
	struct many_opts *m = &o->many;
	int i, n = argc - optind;

	if (!m->watch && n <= 1) {
		if (m->match || m->threads || m->stats_interval ||
		    m->has_owner || m->max_guests)
			usage_error("--match, --owner, --max-guests, --threads and --stats-interval are for many segments (--watch, or several named)");
		if (!n) {
			tool_warn("no segment given");
			try_help(o);
		}
		o->path = argv[optind];
		return;
	}
	m->paths = calloc(n + 1, sizeof(*m->paths));
	if (!m->paths)
		tool_die("out of memory");
	for (i = 0; i < n; i++) {
		const char *a = argv[optind + i];

		/* A bare NAME is /dev/shm/NAME, as ivring__open() takes it. */
		if (strchr(a, '/'))
			m->paths[i] = strdup(a);
		else if (asprintf(&m->paths[i], "/dev/shm/%s", a) < 0)
			m->paths[i] = NULL;
		if (!m->paths[i])
			tool_die("out of memory");
	}
	m->nr_paths = n;
	/* A watch is for the segments to come: it follows. */
	if (m->watch)
		o->follow = true;
}

/* What each mode takes for one segment only, or needs for many. */
static void check_modes(const struct read_opts *o)
{
	if (o->path) {
		return;
	} else if (!o->record) {
		if (o->nr_patterns || o->cpus || o->handover.checkpoint ||
		    o->handover.resume || o->stats)
			usage_error("-e, --cpu, --stats, --checkpoint and --resume are for one segment (--stats-interval: a line per guest)");
	} else {
		if (o->handover.checkpoint || o->handover.resume || o->name ||
		    o->stats)
			usage_error("--checkpoint, --resume, --name and --stats are for one segment (--stats-interval: a line per guest)");
		if (!o->ctf && !o->output && !o->relayd)
			usage_error("many segments: -o DIR, --ctf DIR or --relayd URL, where each guest's recording goes");
	}
}

/*
 * --host: the host's trace is recorded while the guests are, into a
 * trace.dat that trace-cmd merges with theirs (or, with --ctf, a CTF
 * directory that babeltrace2 merges with theirs), so their times are the
 * host's (--clock host, which --host implies).
 */
static void check_host(struct read_opts *o)
{
	if (!o->host)
		return;
	if (!o->follow && !o->many.watch)
		usage_error("--host records the host while the guests are followed: add -f (or --watch)");
	if (o->clock_set && !o->clock)
		usage_error("--host: the guests' times must be the host's (--clock host), to go with the host's trace");
	o->clock = IVRING_HOST_MONOTONIC;
}

/*
 * @path made absolute, its links resolved as far as it exists, and the
 * parts that do not exist yet (files or directories still to be made, as
 * -o DIR of many segments may be) appended as they are.  0, or -1.
 */
static int canon(const char *path, char out[PATH_MAX])
{
	char head[PATH_MAX], rest[PATH_MAX] = "", tmp[PATH_MAX], dir[PATH_MAX];
	size_t len = snprintf(head, sizeof(head), "%s", path);
	char *slash;

	if (!len || len >= sizeof(head))
		return -1;
	while (!realpath(head, dir)) {
		/* "DIR/" is DIR; the last part goes to @rest. */
		while (len > 1 && head[len - 1] == '/')
			head[--len] = '\0';
		slash = strrchr(head, '/');
		if (snprintf(tmp, sizeof(tmp), "%s%s%s", slash ? slash + 1 : head,
			     *rest ? "/" : "", rest) >= (int)sizeof(tmp))
			return -1;
		memcpy(rest, tmp, sizeof(rest));
		if (!slash)
			strcpy(head, ".");
		else if (slash == head)
			strcpy(head, "/");
		else
			*slash = '\0';
		len = strlen(head);
		if (!strcmp(head, ".") && !realpath(head, dir))
			return -1;
	}
	if (!*rest)
		return snprintf(out, PATH_MAX, "%s", dir) < PATH_MAX ? 0 : -1;
	return snprintf(out, PATH_MAX, "%s%s%s", dir, strcmp(dir, "/") ? "/" : "",
			rest) < PATH_MAX ? 0 : -1;
}

/* Whether the path @in lies inside the directory @dir (both canon()). */
static bool within(const char *in, const char *dir)
{
	size_t len = strlen(dir);

	return !strncmp(in, dir, len) && (in[len] == '/' || !strcmp(dir, "/"));
}

/*
 * The host's file is not where a guest's recording goes: the two would
 * share their spools and the final rename.  With many segments, -o names
 * the guests' directory, which --host keeps out of.
 */
static void check_host_path(const struct read_opts *o)
{
	char host[PATH_MAX], out[PATH_MAX];
	const char *guests = o->ctf ? o->ctf : o->output;

	if (!o->host || !guests)
		return;
	if (o->path) {
		if (canon(o->host, host) || canon(guests, out))
			return;
		if (!strcmp(host, out))
			usage_error("--host %s: that is the guest's recording (%s)",
				    o->host, o->ctf ? "--ctf" : "-o");
		/* A CTF reader of one directory would take the other too. */
		if (within(host, out) || within(out, host))
			usage_error("--host %s and %s %s: one inside the other; keep them apart",
				    o->host, o->ctf ? "--ctf" : "-o", guests);
		return;
	}
	/* Many: -o or --ctf is the guests' directory, the host's stays out. */
	if (canon(o->host, host) || canon(guests, out))
		return;
	if (!strcmp(host, out) || within(host, out))
		usage_error("--host %s: inside the guests' directory %s; put the host's trace elsewhere",
			    o->host, guests);
	if (within(out, host))
		usage_error("--host %s: it would hold the guests' directory %s; put the host's trace elsewhere",
			    o->host, guests);
}

void read_parse(int argc, char **argv, struct read_opts *o)
{
	struct getopt_tables t;
	int c;

	memset(o, 0, sizeof(*o));
	o->record = argc > 1 && !strcmp(argv[1], "record");
	o->prog = o->record ? "ivring-read record" : "ivring-read";
	refuse_late_record(argc, argv, o->record);
	/* getopt names the subcommand in its messages, as it always did. */
	if (o->record) {
		argc--;
		argv++;
	}
	getopt_tables(o->record ? M_RECORD : M_TEXT, &t);
	while ((c = getopt_long(argc, argv, t.so, t.lo, NULL)) != -1)
		take(o, c, optarg);
	if (o->ctf && (o->output || o->version))
		usage_error("--ctf writes a CTF directory: -o and --file-version are for trace.dat");
	if (o->relayd && (o->ctf || o->output || o->version || o->compression))
		usage_error("--relayd streams CTF to a relay daemon: -o, --ctf, --file-version and --compression are for files");
	if ((o->hostname || o->relayd_timeout_ms) && !o->relayd)
		usage_error("--hostname and --relayd-timeout are for a relay daemon: add --relayd URL");
	if (o->ctf && o->compression)
		usage_error("--compression: CTF 1.8 has no compression; it is for trace.dat");
	if (o->compression && o->version == 6)
		usage_error("--compression: trace.dat version 6 has no compression; use -V 7");
	if (o->clock_bound && !o->clock)
		usage_error("--clock-bound: the bound is of host times; add --clock host or --clock realtime");
	check_host(o);
	segments(argc, argv, o);
	check_modes(o);
	if (o->record && o->path && !o->ctf && !o->output && !o->relayd)
		o->output = "trace.dat";
	check_host_path(o);
}

void read_opts_free(struct read_opts *o)
{
	unsigned int i;

	for (i = 0; i < o->many.nr_paths; i++)
		free(o->many.paths[i]);
	free(o->many.paths);
	free(o->cpus);
}
