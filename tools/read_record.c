// SPDX-License-Identifier: GPL-2.0 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * ivring-read record: copy whole pages out of the segment into a trace.dat
 * or a CTF directory, as trace-cmd record copies the kernel's ring buffer,
 * decoding nothing.
 *
 * One thread reads every CPU in turn.  A page is copied from the segment
 * into the library's copy, which is verified against tearing, and from
 * there into the writer's batch (ivring__rec_read()); a batch goes to the
 * file in one write().  Pages are
 * consumed only once the batch that holds them is written, so a recorder
 * that is killed loses nothing: what it consumed is in the files, and the
 * next one starts after it.
 *
 * Without --follow it takes a snapshot (IVRING_REC_SNAPSHOT): at most the
 * segment's sub-buffers per CPU, so that a guest that writes faster than
 * the recorder cannot keep it going, and a trace.dat v7 is written in
 * place, each byte once.  --follow spools per CPU and puts the file
 * together at the end.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/ivring.h>
#include "libivring.h"
#include "read_clock.h"
#include "read_common.h"
#include "read_many.h"
#include "read_many_record.h"
#include "read_record.h"
#include "tool_msg.h"
#include "tool_time.h"

#define PROG		"ivring-read record"

/* Pages written and consumed at a time; 1 MiB of 4 KiB pages. */
#define COMMIT_PAGES	256
/* Pages of one CPU in a row, so that a busy CPU cannot starve the others. */
#define CPU_BURST	64
/* The progress line's refresh interval. */
#define PROGRESS_NS	500000000ULL

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

/* A message about @s: naming its segment, when many are recorded. */
static void rec_warn(const struct rec_state *s, const char *msg)
{
	if (s->tag && strncmp(msg, s->tag, strlen(s->tag)))
		tool_warn("%s: %s", s->tag, msg);
	else
		tool_warn("%s", msg);
}

/* FILE, then FILE-1.dat for FILE.dat (or FILE-1) after a guest reboot. */
int rec_name_part(struct rec_state *s)
{
	const char *base = s->o->ctf ? s->o->ctf : s->o->output;
	const char *dot = strrchr(base, '.');
	int n;

	if (dot && strchr(dot, '/'))
		dot = NULL;
	if (!s->part)
		n = snprintf(s->out, sizeof(s->out), "%s", base);
	else if (dot && !s->o->ctf)
		n = snprintf(s->out, sizeof(s->out), "%.*s-%u%s",
			     (int)(dot - base), base, s->part, dot);
	else
		n = snprintf(s->out, sizeof(s->out), "%s-%u", base, s->part);
	if (n < 0 || (size_t)n >= sizeof(s->out)) {
		tool_warn("%s: name too long", base);
		return EXIT_USAGE;
	}
	return 0;
}

int rec_start_file(struct rec_state *s)
{
	struct ivring_rec_opts ro = {
		.sz = sizeof(ro),
		.format = s->o->ctf ? IVRING_REC_CTF : IVRING_REC_TRACE_DAT,
		.version = s->o->version,
		.name = s->o->name,
		/* Without --follow, what the segment holds now, and no spools. */
		.flags = s->o->follow ? 0 : IVRING_REC_SNAPSHOT,
	};
	struct ivring_info info = { .sz = sizeof(info) };
	int ret;

	ret = rec_name_part(s);
	if (ret)
		return ret;
	ivring__info(s->r, &info);
	s->nr_cpus = info.nr_cpus;
	ret = ivring__rec_open(s->r, s->out, &ro, &s->w);
	if (ret) {
		rec_warn(s, ivring__errmsg(s->r));
		return ret == -EINVAL || ret == -EEXIST ? EXIT_USAGE : EXIT_RUNTIME;
	}
	return 0;
}

static void progress_clear(struct rec_state *s)
{
	if (s->tty && s->last_ns)
		fputs("\r\033[K", stderr);
}

static void progress(struct rec_state *s, bool force)
{
	struct ivring_rec_stats st = { .sz = sizeof(st) };
	uint64_t now = now_ns();
	double secs, mb;

	if (!s->tty || (!force && now - s->last_ns < PROGRESS_NS))
		return;
	s->last_ns = now;
	ivring__rec_stats(s->w, &st);
	secs = (now - s->start_ns) / 1e9;
	mb = (s->files_bytes + st.bytes) / 1e6;
	fprintf(stderr, "\r\033[K  %s: %" PRIu64 " events, %.1f MB, %" PRIu64
		" lost, %.1f MB/s", s->out, s->events, mb, s->lost,
		secs > 0 ? mb / secs : 0.0);
}

/* Write out what was recorded, then consume it: never the other way round. */
int rec_flush_and_commit(struct rec_state *s)
{
	int ret;

	if (!s->pending)
		return 0;
	/* The clock samples so far go into the file's metadata with the flush. */
	if (s->clk.clock && ivring__rec_clock(s->w, s->r) < 0)
		rec_warn(s, ivring__rec_errmsg(s->w));
	ret = ivring__rec_flush(s->w);
	if (ret) {
		rec_warn(s, ivring__rec_errmsg(s->w));
		return EXIT_RUNTIME;
	}
	/* A segment found broken keeps what was not consumed for the next. */
	ret = s->no_commit ? 0 : ivring__commit(s->r);
	if (ret) {
		rec_warn(s, ivring__errmsg(s->r));
		return exit_code(ret);
	}
	s->pending = 0;
	return 0;
}

int rec_end_file(struct rec_state *s)
{
	struct ivring_rec_stats st = { .sz = sizeof(st) };
	char err[PATH_MAX + 512];
	int ret;

	if (!s->w)
		return 0;
	ret = rec_flush_and_commit(s);
	ivring__rec_stats(s->w, &st);
	progress_clear(s);
	if (!ret && ivring__rec_close(s->w, err, sizeof(err))) {
		rec_warn(s, err);
		ret = EXIT_RUNTIME;
	} else if (ret) {
		ivring__rec_close(s->w, NULL, 0);
	}
	s->w = NULL;
	s->files_bytes += st.bytes;
	if (!ret)
		fprintf(stderr, "ivring-read: %s: %" PRIu64 " events, %" PRIu64
			" pages, %" PRIu64 " lost, %" PRIu64 " bytes\n", s->out,
			st.events, st.pages, st.lost, st.bytes);
	return ret;
}

/*
 * Up to CPU_BURST pages of @cpu.  Returns the pages recorded, or a
 * negative errno of the library (-ESTALE, -EPIPE, ...), or, with the exit
 * code in *err, -1 when reading or writing failed.
 */
static int record_cpu(struct rec_state *s, unsigned int cpu,
		      unsigned int flags, int *err)
{
	struct ivring_page pg = { .sz = sizeof(pg) };
	int n, ret;

	for (n = 0; n < CPU_BURST; n++) {
		ret = ivring__rec_read(s->w, s->r, cpu, flags, &pg);
		/* A snapshot that holds all it may of this CPU: done with it. */
		if (ret == -ENOBUFS)
			return n;
		if (ret == -ESTALE || ret == -EPIPE || !ret)
			return n ? n : ret;
		if (ret < 0) {
			rec_warn(s, ivring__rec_errmsg(s->w));
			*err = exit_code(ret);
			return -1;
		}
		s->events += pg.events;
		s->lost += pg.lost;
		s->bytes += pg.len;
		s->pages++;
		if (++s->pending >= COMMIT_PAGES) {
			*err = rec_flush_and_commit(s);
			if (*err)
				return -1;
		}
	}
	return n;
}

/*
 * One pass over every CPU: whole sub-buffers, and with @partial the ones
 * the writer is still filling, up to what it has published (their later
 * records come in a later page).  Returns the pages recorded, or as
 * record_cpu().
 */
int rec_pass(struct rec_state *s, bool partial, int *err)
{
	unsigned int cpu, flags = partial ? IVRING_PAGE_PARTIAL : 0;
	int total = 0, ret, stopped = 0;

	for (cpu = 0; cpu < s->nr_cpus; cpu++) {
		ret = record_cpu(s, cpu, flags, err);
		if (ret == -EPIPE) {
			stopped++;
			continue;
		}
		if (ret < 0)
			return ret;
		total += ret;
	}
	return !total && stopped == (int)s->nr_cpus ? -EPIPE : total;
}

static int on_new_generation(struct rec_state *s)
{
	int err = rec_end_file(s);

	if (err)
		return err;
	s->part++;
	warn_skipped_formats(s->r, s->o->path);
	err = read_clock_start(s->r, &s->clk, s->o->peek);
	if (!err)
		err = rec_start_file(s);
	if (!err)
		tool_warn("the guest re-formatted the segment; recording into %s",
			  s->out);
	return err;
}

static int record_loop(struct rec_state *s)
{
	bool told_stopped = false, partial;
	uint64_t now, last_partial = 0;
	int ret, err = 0;

	while (!stop_requested) {
		/*
		 * Following, a sub-buffer comes once it is full, in one
		 * page; but what an idle CPU has published comes within
		 * PARTIAL_NS all the same, so that a guest that goes quiet,
		 * or dies before it can stop its writer, loses nothing to
		 * the recorder that a text reader would have printed.
		 */
		now = now_ns();
		partial = !s->o->follow || now - last_partial >= PARTIAL_NS;
		if (partial)
			last_partial = now;
		ret = rec_pass(s, partial, &err);
		if (err)
			return err;
		read_clock_tick(s->r, &s->clk);
		progress(s, false);
		if (ret > 0) {
			told_stopped = false;
			continue;
		}
		err = rec_flush_and_commit(s);
		if (err)
			return err;
		if (ret == -ESTALE) {
			err = on_new_generation(s);
			if (err)
				return err;
			continue;
		}
		if (ret < 0 && ret != -EPIPE) {
			tool_warn("%s", ivring__errmsg(s->r));
			return exit_code(ret);
		}
		if (!s->o->follow || drain_requested)
			break;
		if (ret == -EPIPE && !told_stopped) {
			progress_clear(s);
			tool_warn("the guest's writer stopped; waiting for a new generation (Ctrl-C to quit)");
		}
		told_stopped = ret == -EPIPE;
		ret = ivring__poll(s->r, POLL_MS);
		if (ret == -EPIPE)
			sleep_ns(BACKOFF_MAX_NS);
		/* The handle has moved to the new generation already. */
		if (ret == -ESTALE) {
			err = on_new_generation(s);
			if (err)
				return err;
			told_stopped = false;
			continue;
		}
		/* Events, but no whole sub-buffer: until the next partial pass. */
		if (ret == 1 && now_ns() - last_partial < PARTIAL_NS)
			sleep_ns(PARTIAL_NS - (now_ns() - last_partial));
	}
	/* The sub-buffers still being filled, up to where they are now. */
	if (s->o->follow) {
		do {
			ret = rec_pass(s, true, &err);
		} while (ret > 0 && !err);
	}
	return err;
}

int record_main(int argc, char **argv)
{
	struct rec_opts o = { 0 };
	struct rec_state s = { .o = &o };
	struct many_opts m = { 0 };
	int err;

	parse_args(argc, argv, &o, &m);
	read_signals();
	if (!o.path) {
		err = many_record_main(&m, &o);
		free(m.paths);
		return err;
	}
	s.tty = !o.quiet && isatty(STDERR_FILENO);
	err = handover_open(o.path, o.peek, o.follow, &o.handover, &s.r);
	if (err || !s.r)
		return err;
	if (o.host_time) {
		s.clk.clock = IVRING_HOST_MONOTONIC;
		s.clk.sync = true;
	}
	err = read_clock_start(s.r, &s.clk, o.peek);
	if (err) {
		ivring__close(s.r);
		return err;
	}
	warn_skipped_formats(s.r, o.path);
	err = rec_start_file(&s);
	if (!err) {
		s.start_ns = now_ns();
		err = record_loop(&s);
	}
	if (rec_end_file(&s) && !err)
		err = EXIT_RUNTIME;
	err = handover_end(s.r, &o.handover, err);
	if (o.stats)
		print_stats(s.r, NULL);
	ivring__close(s.r);
	return err;
}
