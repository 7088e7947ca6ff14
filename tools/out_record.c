// SPDX-License-Identifier: GPL-2.0 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * The recording output: whole pages copied out of the segment into a
 * trace.dat or a CTF directory, as trace-cmd record copies the kernel's
 * ring buffer, decoding nothing.
 *
 * A batch is one pass over every CPU, at most CPU_BURST pages of each, so
 * that a busy CPU cannot starve the others.  A page is copied from the
 * segment into the library's copy, which is verified against tearing, and
 * from there into the writer's batch (ivring__rec_read()); a batch goes to
 * the file in one write().  Pages are consumed only once the batch that
 * holds them is written, so a recorder that is killed loses nothing: what
 * it consumed is in the files, and the next one starts after it.
 *
 * Without --follow it takes a snapshot (IVRING_REC_SNAPSHOT): at most the
 * segment's sub-buffers per CPU, so that a guest that writes faster than
 * the recorder cannot keep it going, and a trace.dat v7 is written in
 * place, each byte once.  --follow spools per CPU and puts the file
 * together at the end.  Each generation of the segment goes to a file of
 * its own: FILE, then FILE-1 after a guest reboot.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "libivring.h"
#include "out_record.h"
#include "read_common.h"
#include "tool_msg.h"
#include "tool_time.h"

/* Pages written and consumed at a time; 1 MiB of 4 KiB pages. */
#define COMMIT_PAGES	256
/* Pages of one CPU in a row, so that a busy CPU cannot starve the others. */
#define CPU_BURST	64
/* How long what an idle CPU has published may wait for its page to fill. */
#define PARTIAL_NS	200000000ULL
/* How often a relay daemon out of reach is tried again (the library's back-off decides). */
#define RETRY_NS	PARTIAL_NS
/* How often a relay daemon's live viewers hear of idle CPUs. */
#define BEACON_NS	PARTIAL_NS
/* The progress line's refresh interval. */
#define PROGRESS_NS	500000000ULL

/* A segment's recording: one file (or CTF directory) per generation. */
struct rec_out {
	struct ivring_rec *w;	/* this generation's */
	const char *base;	/* the first generation's file or directory */
	char dir_path[PATH_MAX];	/* many: DIR/NAME.dat, or DIR/NAME */
	char out[PATH_MAX];	/* this generation's: base, base-1... */
	unsigned int part;	/* of @out */
	unsigned int nr_cpus, nr_subbufs;
	unsigned int pending;	/* pages recorded since the last commit */
	uint64_t last_partial;	/* the last pass that took part-filled pages */
	uint64_t files_bytes;	/* of the files completed */
	uint64_t start_ns, last_ns;	/* the progress line's */
	uint64_t last_beacon;	/* to a relay daemon's live viewers */
	bool down;		/* the relay daemon is out of reach */
};

/* A message about @s: naming its segment, when many are recorded. */
static void rec_warn(const struct seg *s, const char *msg)
{
	const struct rec_conf *rc = seg_arg(s);

	if (rc->dir && strncmp(msg, s->path, strlen(s->path)))
		tool_warn("%s: %s", s->path, msg);
	else
		tool_warn("%s", msg);
}

/* FILE, then FILE-1.dat for FILE.dat (or FILE-1) after a guest reboot. */
static int name_part(const struct rec_conf *rc, struct rec_out *ro)
{
	const char *dot = strrchr(ro->base, '.');
	int n;

	if (dot && strchr(dot, '/'))
		dot = NULL;
	if (!ro->part)
		n = snprintf(ro->out, sizeof(ro->out), "%s", ro->base);
	else if (dot && !rc->ctf)
		n = snprintf(ro->out, sizeof(ro->out), "%.*s-%u%s",
			     (int)(dot - ro->base), ro->base, ro->part, dot);
	else
		n = snprintf(ro->out, sizeof(ro->out), "%s-%u", ro->base,
			     ro->part);
	if (n < 0 || (size_t)n >= sizeof(ro->out)) {
		tool_warn("%s: name too long", ro->base);
		return EXIT_USAGE;
	}
	return 0;
}

/*
 * --host: the host's file names this recording, and the host threads that
 * run its vCPUs, found from the QEMU process that maps the segment.
 * Without them the files are linked all the same, and it is said why.
 */
static void link_guest(struct seg *s, struct rec_out *ro, uint64_t trace_id)
{
	const struct rec_conf *rc = seg_arg(s);
	struct vcpu_threads v = { 0 };
	char why[512], msg[PATH_MAX + 640];
	struct ivring_info info = { .sz = sizeof(info) };
	const char *name = rc->name ? rc->name : s->name;
	int ret;

	/*
	 * The file the reader opened, whatever the path names by now; its
	 * owner's processes (or root's) may be its QEMU.
	 */
	ret = ivring__info(s->r, &info);
	if (ret)
		snprintf(why, sizeof(why), "%s", ivring__errmsg(s->r));
	else
		ret = vcpu_threads_find("/proc", (dev_t)info.file_dev,
					(ino_t)info.file_ino,
					(uid_t)info.file_uid, &v, why,
					sizeof(why));
	if (ret) {
		snprintf(msg, sizeof(msg),
			 "%s: its vCPUs' host threads are not named in the host's trace: %s",
			 ro->out, why);
		rec_warn(s, msg);
	}
	host_trace_guest(rc->host, name, trace_id, ret ? NULL : &v);
	vcpu_threads_free(&v);
}

/* Open the file or directory of ro->part. */
static int start_file(struct seg *s, struct rec_out *ro)
{
	const struct rec_conf *rc = seg_arg(s);
	struct ivring_rec_opts opts = {
		.sz = sizeof(opts),
		.format = rc->relayd ? IVRING_REC_CTF_RELAYD :
			  rc->ctf ? IVRING_REC_CTF : IVRING_REC_TRACE_DAT,
		.version = rc->version,
		.compression = rc->compression,
		.name = rc->name,
		.hostname = rc->hostname,
		.timeout_ms = rc->relayd_timeout_ms,
		/* Without --follow, what the segment holds now, and no spools. */
		.flags = (rc->follow ? 0 : IVRING_REC_SNAPSHOT) |
			 (rc->any_dir ? IVRING_REC_ANY_DIR : 0),
	};
	struct ivring_info info = { .sz = sizeof(info) };
	int ret;

	if (rc->host) {
		opts.trace_id = host_trace_new_id();
		opts.peer_trace_id = host_trace_id(rc->host);
	}
	ret = name_part(rc, ro);
	if (ret)
		return ret;
	ivring__info(s->r, &info);
	ro->nr_cpus = info.nr_cpus;
	ro->nr_subbufs = info.nr_subbufs;
	/* A relay session is named as a file would be: NAME, NAME-1... */
	if (rc->relayd)
		opts.name = ro->out;
	ret = ivring__rec_open(s->r, rc->relayd ? rc->relayd : ro->out, &opts,
			       &ro->w);
	if (ret == -EPERM && !rc->any_dir) {
		char msg[1024];

		snprintf(msg, sizeof(msg), "%s (or --any-dir)",
			 ivring__errmsg(s->r));
		rec_warn(s, msg);
		return EXIT_RUNTIME;
	}
	/* Others' recordings may let go of files or memory. */
	if (s->c->one_of_many &&
	    (ret == -EMFILE || ret == -ENFILE || ret == -ENOMEM))
		return ret;
	if (ret) {
		rec_warn(s, ivring__errmsg(s->r));
		return ret == -EINVAL || ret == -EEXIST ? EXIT_USAGE : EXIT_RUNTIME;
	}
	/*
	 * The clock samples taken before the first page: a CTF trace maps
	 * each event with those of the last call (ivring__rec_clock()).
	 */
	if (s->clk.clock && ivring__rec_clock(ro->w, s->r) < 0)
		rec_warn(s, ivring__rec_errmsg(ro->w));
	if (rc->host)
		link_guest(s, ro, opts.trace_id);
	return 0;
}

/*
 * Guests are named after their segment files, and two may have the same
 * name: one removed and made again, or the same name in two directories.
 * Each recording gets a name that no other has, finished or not: the next
 * free NAME-N, chosen and taken (start_file() creates the files) under
 * one lock, as reader threads start recordings at the same time.
 */
static pthread_mutex_t naming = PTHREAD_MUTEX_INITIALIZER;

static bool exists(const char *path, const char *suffix)
{
	char p[PATH_MAX + 16];
	struct stat st;

	snprintf(p, sizeof(p), "%s%s", path, suffix);
	return !lstat(p, &st);
}

static bool taken(const struct rec_out *ro)
{
	return exists(ro->out, "") || exists(ro->out, ".tmp") ||
	       exists(ro->out, ".cpu0");
}

static int start_unique(struct seg *s, struct rec_out *ro)
{
	int err;

	pthread_mutex_lock(&naming);
	for (;;) {
		err = name_part(seg_arg(s), ro);
		if (err || !taken(ro))
			break;
		ro->part++;
	}
	if (!err)
		err = start_file(s, ro);
	pthread_mutex_unlock(&naming);
	return err;
}

static void progress_clear(const struct seg *s, const struct rec_out *ro)
{
	const struct rec_conf *rc = seg_arg(s);

	if (rc->progress && ro->last_ns)
		fputs("\r\033[K", stderr);
}

static void progress(struct seg *s, struct rec_out *ro, bool force)
{
	const struct rec_conf *rc = seg_arg(s);
	struct ivring_rec_stats st = { .sz = sizeof(st) };
	uint64_t now = now_ns();
	double secs, mb;

	if (!rc->progress || (!force && now - ro->last_ns < PROGRESS_NS))
		return;
	ro->last_ns = now;
	ivring__rec_stats(ro->w, &st);
	secs = (now - ro->start_ns) / 1e9;
	mb = (ro->files_bytes + st.bytes) / 1e6;
	fprintf(stderr, "\r\033[K  %s: %" PRIu64 " events, %.1f MB, %" PRIu64
		" lost, %.1f MB/s", ro->out, s->n.events, mb, s->n.lost,
		secs > 0 ? mb / secs : 0.0);
}

/*
 * A relay daemon out of reach (-ENOTCONN): following, the recording holds
 * what it took, reads nothing more and commits nothing, so that the
 * guest's ring holds its events (and, full in discard mode, counts what
 * it drops) until the library has connected again; said once.  A
 * snapshot fails instead.
 */
static bool held(struct seg *s, struct rec_out *ro)
{
	const struct rec_conf *rc = seg_arg(s);
	char msg[1024];

	if (!rc->follow)
		return false;
	if (!ro->down) {
		snprintf(msg, sizeof(msg), "%s; holding the guest's events until it is back",
			 ivring__rec_errmsg(ro->w));
		rec_warn(s, msg);
	}
	ro->down = true;
	return true;
}

static void back(struct seg *s, struct rec_out *ro)
{
	char msg[PATH_MAX + 64];

	if (!ro->down)
		return;
	ro->down = false;
	snprintf(msg, sizeof(msg), "%s: the relay daemon is back; the trace goes on in a new session",
		 ro->out);
	rec_warn(s, msg);
}

/* Write out what was recorded, then consume it: never the other way round. */
static int flush_and_commit(struct seg *s, struct rec_out *ro)
{
	int ret;

	if (!ro->pending && !ro->down)
		return 0;
	/* The clock samples so far go into the file's metadata with the flush. */
	if (s->clk.clock && ivring__rec_clock(ro->w, s->r) < 0)
		rec_warn(s, ivring__rec_errmsg(ro->w));
	ret = ivring__rec_flush(ro->w);
	if (ret == -ENOTCONN && held(s, ro))
		return 0;
	if (ret) {
		rec_warn(s, ivring__rec_errmsg(ro->w));
		return EXIT_RUNTIME;
	}
	back(s, ro);
	/* A segment found broken keeps what was not consumed for the next. */
	ret = s->failed ? 0 : ivring__commit(s->r);
	if (ret) {
		rec_warn(s, ivring__errmsg(s->r));
		return exit_code(ret);
	}
	ro->pending = 0;
	if (!s->failed)
		s->n.committed = s->n.events;
	return 0;
}

/*
 * Complete the file, with a line on stderr of what it holds, and of the
 * @lost_after events lost after its last pages that it cannot hold.
 */
static int end_file(struct seg *s, struct rec_out *ro, uint64_t lost_after)
{
	struct ivring_rec_stats st = { .sz = sizeof(st) };
	char err[PATH_MAX + 512];
	int ret;

	if (!ro->w)
		return 0;
	ret = flush_and_commit(s, ro);
	ivring__rec_stats(ro->w, &st);
	progress_clear(s, ro);
	if (!ret && ivring__rec_close(ro->w, err, sizeof(err))) {
		/* A relay daemon still out of reach: the guest keeps them. */
		if (ro->down)
			snprintf(err + strlen(err), sizeof(err) - strlen(err),
				 "; what it did not take stays in the segment");
		rec_warn(s, err);
		ret = EXIT_RUNTIME;
	} else if (ret) {
		ivring__rec_close(ro->w, NULL, 0);
	} else if (ro->down && !s->failed) {
		/* The close reached the daemon again and delivered the rest. */
		ret = ivring__commit(s->r);
		if (ret) {
			rec_warn(s, ivring__errmsg(s->r));
			ret = exit_code(ret);
		}
		ro->down = false;
	}
	ro->w = NULL;
	ro->files_bytes += st.bytes;
	if (!ret)
		fprintf(stderr, "ivring-read: %s: %" PRIu64 " events, %" PRIu64
			" pages, %" PRIu64 " lost, %" PRIu64 " bytes\n", ro->out,
			st.events, st.pages, st.lost, st.bytes);
	if (!ret && lost_after)
		fprintf(stderr, "ivring-read: %s: and %" PRIu64
			" lost after the last events, which no page of the file carries\n",
			ro->out, lost_after);
	return ret;
}

/*
 * Up to CPU_BURST pages of @cpu.  Returns the pages recorded, or a
 * negative errno of the library (-ESTALE, -EPIPE, ...), or, with the exit
 * code in *err, -1 when reading or writing failed.
 */
static int record_cpu(struct seg *s, struct rec_out *ro, unsigned int cpu,
		      unsigned int flags, int *err)
{
	struct ivring_page pg = { .sz = sizeof(pg) };
	int n, ret;

	for (n = 0; n < CPU_BURST; n++) {
		ret = ivring__rec_read(ro->w, s->r, cpu, flags, &pg);
		/* A snapshot that holds all it may of this CPU: done with it. */
		if (ret == -ENOBUFS)
			return n;
		if (ret == -ESTALE || ret == -EPIPE || !ret)
			return n ? n : ret;
		if (ret < 0) {
			rec_warn(s, ivring__rec_errmsg(ro->w));
			*err = exit_code(ret);
			return -1;
		}
		s->n.events += pg.events;
		s->n.lost += pg.lost;
		s->n.bytes += pg.len;
		if (++ro->pending >= COMMIT_PAGES) {
			*err = flush_and_commit(s, ro);
			if (*err)
				return -1;
			if (ro->down)
				return n + 1;
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
static int pass(struct seg *s, struct rec_out *ro, bool partial, int *err)
{
	unsigned int cpu, flags = partial ? IVRING_PAGE_PARTIAL : 0;
	int total = 0, ret, stopped = 0;

	for (cpu = 0; cpu < ro->nr_cpus && !ro->down; cpu++) {
		ret = record_cpu(s, ro, cpu, flags, err);
		if (ret == -EPIPE) {
			stopped++;
			continue;
		}
		if (ret < 0)
			return ret;
		total += ret;
	}
	return !total && stopped == (int)ro->nr_cpus ? -EPIPE : total;
}

/*
 * A relay daemon's live viewers: what was recorded goes out, and the CPUs
 * that had nothing since the last time are said to be idle, so that the
 * viewers need not wait for them.
 */
static int beacon(struct seg *s, struct rec_out *ro, uint64_t now)
{
	int err = flush_and_commit(s, ro);

	if (err)
		return err;
	ro->last_beacon = now;
	err = ivring__rec_beacon(ro->w);
	if (err == -ENOTCONN && held(s, ro))
		return 0;
	if (err) {
		rec_warn(s, ivring__rec_errmsg(ro->w));
		return EXIT_RUNTIME;
	}
	return 0;
}

static int rec_start(struct seg *s)
{
	const struct rec_conf *rc = seg_arg(s);
	const char *dir = rc->ctf ? rc->ctf : rc->output;
	struct rec_out *ro = s->out;
	int n;

	if (!ro) {
		ro = calloc(1, sizeof(*ro));
		if (!ro) {
			tool_warn("%s: out of memory", s->name);
			return EXIT_RUNTIME;
		}
		ro->base = dir;
		if (rc->relayd) {
			ro->base = rc->name ? rc->name : s->name;
		} else if (rc->dir) {
			n = snprintf(ro->dir_path, sizeof(ro->dir_path),
				     "%s/%s%s", dir, s->name, rc->ctf ? "" : ".dat");
			if (n < 0 || (size_t)n >= sizeof(ro->dir_path)) {
				tool_warn("%s/%s: name too long", dir, s->name);
				free(ro);
				return EXIT_USAGE;
			}
			ro->base = ro->dir_path;
		}
		ro->start_ns = now_ns();
		s->out = ro;
	}
	ro->part = s->part;
	if (rc->relayd) {
		int err = name_part(rc, ro);

		return err ? err : start_file(s, ro);
	}
	return rc->dir ? start_unique(s, ro) : start_file(s, ro);
}

static int rec_batch(struct seg *s, bool drain, int *err)
{
	const struct rec_conf *rc = seg_arg(s);
	struct rec_out *ro = s->out;
	uint64_t now = now_ns();
	bool partial;
	int ret;

	/*
	 * Following, a sub-buffer comes once it is full, in one page; but
	 * what an idle CPU has published comes within PARTIAL_NS all the
	 * same, so that a guest that goes quiet, or dies before it can stop
	 * its writer, loses nothing to the recorder that a text reader would
	 * have printed.
	 */
	/* Nothing more is read while the relay daemon is out of reach. */
	if (ro->down) {
		*err = flush_and_commit(s, ro);
		if (*err)
			return -ECANCELED;
		if (ro->down) {
			s->wake_ns = now + RETRY_NS;
			return 0;
		}
	}
	partial = drain || !rc->follow || now - ro->last_partial >= PARTIAL_NS;
	if (partial)
		ro->last_partial = now;
	*err = 0;
	ret = pass(s, ro, partial, err);
	if (*err)
		return -ECANCELED;
	progress(s, ro, false);
	if (rc->relayd && now - ro->last_beacon >= BEACON_NS) {
		*err = beacon(s, ro, now);
		if (*err)
			return -ECANCELED;
	}
	if (ret > 0)
		return ret;
	/* Idle, a new generation or an end: what was recorded goes out. */
	*err = flush_and_commit(s, ro);
	if (*err)
		return -ECANCELED;
	/* Events but no whole sub-buffer: at the next partial pass. */
	s->wake_ns = ro->last_partial + PARTIAL_NS;
	return ret;
}

static int rec_end(struct seg *s)
{
	struct rec_out *ro = s->out;
	unsigned int passes = ro->nr_subbufs / CPU_BURST + 1, cpu;
	uint64_t lost_after = 0;
	int ret, err = 0;

	/*
	 * What the sub-buffers being filled hold now goes in too: passes
	 * until one records nothing, at most as many as the segment's pages
	 * take, so that a writer faster than the recorder cannot keep it
	 * from ending.
	 */
	while (!s->failed && !ro->down && passes--) {
		ret = pass(s, ro, true, &err);
		if (ret <= 0 || err)
			break;
	}
	/*
	 * Drops after a CPU's last page that no event will carry: a page
	 * tells of the loss before it.  A CTF trace carries them (an empty
	 * packet); a trace.dat cannot, so they are said beside it, as text
	 * and --stats say them.
	 */
	for (cpu = 0; !s->failed && !err && cpu < ro->nr_cpus; cpu++) {
		uint64_t n = lost_after_last_page(s->r, cpu, s->c->peek);

		ret = ro->w && n ? ivring__rec_lost(ro->w, cpu, n) : 1;
		if (ret < 0) {
			rec_warn(s, ivring__rec_errmsg(ro->w));
			err = exit_code(ret);
			break;
		}
		s->n.lost += n;
		if (!ret)
			lost_after += n;
	}
	ret = end_file(s, ro, lost_after);
	return err ? err : ret;
}

static void rec_put(struct seg *s)
{
	struct rec_out *ro = s->out;

	if (ro->w)
		ivring__rec_close(ro->w, NULL, 0);
	free(ro);
}

static const char *rec_where(const struct seg *s)
{
	const struct rec_out *ro = s->out;

	return ro->out;
}

static void rec_hush(struct seg *s)
{
	progress_clear(s, s->out);
}

const struct seg_ops rec_ops = {
	.start = rec_start,
	.batch = rec_batch,
	.end = rec_end,
	.put = rec_put,
	.where = rec_where,
	.hush = rec_hush,
};
