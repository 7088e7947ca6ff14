// SPDX-License-Identifier: GPL-2.0 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * One reader for every guest of a host.
 *
 * Threads, and what each does with the registry (guest_registry.h):
 * - the main thread discovers: it scans the directory of --watch (or the
 *   segments named) at start, at each inotify event and once a second,
 *   adds the files that appear and marks gone those that went;
 * - --threads reader threads walk the registry round-robin.  A reader
 *   serves a guest only while it holds the guest's claim, for one bounded
 *   batch (a mode's serve(): at most a few thousand events, or 64 pages
 *   per CPU), then lets it go and moves to the next: a guest that floods
 *   gets one batch per pass like every other, and cannot starve them.  A
 *   guest whose file went is drained, its output completed, and retired
 *   by the reader that holds it;
 * - a reporter prints per-guest lines every --stats-interval and at
 *   SIGUSR2, from the counters that the claimants publish.
 * No thread waits for another: discovery never blocks a reader, and the
 *   memory of a retired guest is freed by call_rcu() after every walk that
 *   may have seen it.
 *
 * One segment cannot take down the others: libivring turns a SIGBUS in a
 * segment whose file was truncated into an error on that handle (guard.c),
 * and a segment that fails any check is reported and skipped until its
 * file is replaced.  libivring starts no process, so that a reader thread
 * may open a segment while others hold locks (test_open_nofork).
 */
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libivring.h"
#include "guest_registry.h"
#include "read_common.h"
#include "read_many.h"
#include "tool_msg.h"
#include "tool_time.h"

/* How often a segment that is not there or not formatted is tried again. */
#define RETRY_NS	200000000ULL
/* How often the files are looked at, inotify or not. */
#define RESCAN_MS	1000
/* How long a reader naps after a pass that found no work, at most. */
#define NAP_MAX_NS	20000000ULL
/* How often a claimant refreshes the lag it publishes. */
#define LAG_EVERY_NS	500000000ULL

struct many {
	struct many_opts *o;
	struct guest_reg *reg;
	int worst;		/* exit code: the worst of the guests' */
	int quit;		/* the output went away (| head): stop, no error */
	int ending;		/* discovery ended: readers finish and stop */
	bool *told_missing;	/* per named segment: said it is not there */
	int readers_done;
	uint64_t start_ns;
};

static volatile sig_atomic_t stats_requested;

static void on_stats(int sig)
{
	(void)sig;
	__atomic_store_n(&stats_requested, 1, __ATOMIC_RELAXED);
}

bool many_opt(int c, const char *arg, struct many_opts *m)
{
	char *end;
	unsigned long v;

	switch (c) {
	case OPT_WATCH:
		m->watch = arg;
		return true;
	case OPT_MATCH:
		m->match = arg;
		return true;
	case OPT_THREADS:
	case OPT_STATS_INTERVAL:
		errno = 0;
		v = strtoul(arg, &end, 10);
		if (errno || *end || end == arg || v > 1024 ||
		    (c == OPT_THREADS && !v)) {
			tool_warn("--%s '%s': expected a number, 1 to 1024",
				  c == OPT_THREADS ? "threads" : "stats-interval",
				  arg);
			exit(EXIT_USAGE);
		}
		if (c == OPT_THREADS)
			m->threads = v;
		else
			m->stats_interval = v;
		return true;
	}
	return false;
}

bool many_args(int argc, char **argv, struct many_opts *m)
{
	int i, n = argc - optind;

	if (!m->watch && n <= 1) {
		if (m->match || m->threads || m->stats_interval) {
			tool_warn("--match, --threads and --stats-interval are for many segments (--watch, or several named)");
			exit(EXIT_USAGE);
		}
		return false;
	}
	/* A watch is for the segments to come: it follows. */
	m->follow = m->watch != NULL;
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
	return true;
}

static void set_worst(struct many *m, int code)
{
	int cur = __atomic_load_n(&m->worst, __ATOMIC_RELAXED);

	/* A runtime failure of ours outranks a guest's bad segment. */
	while (code && (!cur || (code == EXIT_RUNTIME && cur != EXIT_RUNTIME)) &&
	       !__atomic_compare_exchange_n(&m->worst, &cur, code, false,
					    __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

static bool stopping(struct many *m)
{
	return stop_is_requested() || __atomic_load_n(&m->quit, __ATOMIC_RELAXED);
}

static void seg_free(void *priv)
{
	struct seg *s = priv;

	ivring__close(s->r);
	free(s);
}

/* Say why @g is skipped, complete what it wrote, and let its segment go. */
static void fail(struct many *m, struct seg *s, int code)
{
	s->failed = true;
	if (s->started && m->o->ops->end(s, m->o->arg) && !code)
		code = EXIT_RUNTIME;
	s->started = false;
	ivring__close(s->r);
	s->r = NULL;
	set_worst(m, code);
	guest_set_state(s->g, GUEST_FAILED);
}

/* Why @s is skipped, naming its file if the library's message does not. */
static void skip_msg(struct seg *s, const char *why)
{
	size_t len = strlen(s->g->path);

	if (!strncmp(why, s->g->path, len))
		tool_warn("%s; skipping this guest", why);
	else
		tool_warn("%s: %s; skipping this guest", s->g->path, why);
}

static int start(struct many *m, struct seg *s)
{
	int err;

	warn_skipped_formats(s->r, s->name);
	/* A clock thread asks the guest (clock_guest()); a reader never waits. */
	s->clk.clock = m->o->clock;
	s->clk.sync = false;
	s->clock_ok = false;
	s->clock_ns = 0;
	err = m->o->ops->start(s, m->o->arg);
	s->started = !err;
	return err;
}

/* Whether @g's path still names @g's file. */
static bool same_file(const struct guest *g)
{
	struct stat st;

	return !stat(g->path, &st) && st.st_dev == g->dev && st.st_ino == g->ino;
}

static int try_open(struct many *m, struct seg *s)
{
	char err[PATH_MAX + 512] = "";
	struct ivring_open_opts oo = {
		.sz = sizeof(oo),
		.flags = m->o->peek ? IVRING_OPEN_PEEK :
				      IVRING_OPEN_EXPLICIT_COMMIT,
		.errbuf = err,
		.errbuf_len = sizeof(err),
	};
	uint64_t now = now_ns();
	int ret;

	if (now < s->retry_ns)
		return 0;
	ret = ivring__open(s->g->path, &oo, &s->r);
	/*
	 * The file at the path may be another by now (QEMU restarted): that
	 * one is a guest of its own, which the next scan adds.
	 */
	if (!ret && !same_file(s->g)) {
		ivring__close(s->r);
		s->r = NULL;
		guest_gone(s->g);
		return 0;
	}
	if (ret) {
		/*
		 * QEMU makes the file before the guest loads the module: a
		 * segment not formatted yet is one to wait for, as -f does;
		 * so is one that another reader consumes (it may stop).
		 */
		if (m->o->follow && !guest_is_gone(s->g) &&
		    (ret == -ENOENT || ret == -ENOTTY || ret == -EAGAIN ||
		     ret == -EBUSY)) {
			if (!s->told)
				tool_warn("%s; waiting for the guest", err);
			s->told = true;
			s->retry_ns = now + RETRY_NS;
			return 0;
		}
		skip_msg(s, err[0] ? err : strerror(-ret));
		fail(m, s, exit_code(ret));
		return 0;
	}
	ret = start(m, s);
	if (ret) {
		fail(m, s, ret);
		return 0;
	}
	guest_set_state(s->g, GUEST_READING);
	return 1;
}

/* Events published and not yet read, over every CPU: the reader's lag. */
static void publish_lag(struct seg *s)
{
	struct ivring_info info = { .sz = sizeof(info) };
	struct ivring_clock_info ci = { .sz = sizeof(ci) };
	uint64_t unread = 0, now = now_ns();
	unsigned int cpu;

	if (now < s->stats_ns)
		return;
	s->stats_ns = now + LAG_EVERY_NS;
	ivring__info(s->r, &info);
	for (cpu = 0; cpu < info.nr_cpus; cpu++) {
		struct ivring_cpu_stats st = { .sz = sizeof(st) };

		if (!ivring__cpu_stats(s->r, cpu, &st))
			unread += st.unread;
	}
	__atomic_store_n(&s->g->unread, unread, __ATOMIC_RELAXED);
	if (!ivring__clock_info(s->r, &ci) && ci.samples) {
		__atomic_store_n(&s->g->clock_offset_ns, ci.offset_ns,
				 __ATOMIC_RELAXED);
		__atomic_store_n(&s->g->have_clock, 1, __ATOMIC_RELAXED);
	}
}

/* Done with @s: its output complete, its segment let go. */
static void finish(struct many *m, struct seg *s)
{
	struct guest_counts c;

	if (s->started && m->o->ops->end(s, m->o->arg))
		set_worst(m, EXIT_RUNTIME);
	guest_read_counts(s->g, &c);
	fprintf(stderr, "ivring-read: %s: %s, %" PRIu64 " events read, %"
		PRIu64 " lost, %" PRIu64 " bytes\n", s->name,
		guest_is_gone(s->g) ? "gone" : "done", c.events, c.lost,
		c.bytes);
	s->started = false;
	ivring__close(s->r);
	s->r = NULL;
	guest_set_state(s->g, GUEST_DONE);
}

/* One batch of @s; returns whether there was work. */
static int serve_reading(struct many *m, struct seg *s)
{
	bool drain = guest_is_gone(s->g) || !m->o->follow || drain_is_requested();
	int ret, err = 0;

	/* Ctrl-C: what was taken out goes out; the rest waits in the segment. */
	if (stopping(m)) {
		finish(m, s);
		return 0;
	}

	/*
	 * Text waits for host times; its events wait in the segment.  One
	 * that goes away is read all the same, in the guest's times, which
	 * read_clock_event() then says.
	 */
	if (m->o->clock && m->o->ops->wait_clock && !s->clock_ok && !drain) {
		publish_lag(s);
		return 0;
	}
	ret = m->o->ops->serve(s, m->o->arg, drain, &err);
	if (ret > 0) {
		publish_lag(s);
		return 1;
	}
	if (ret == -ECANCELED && err < 0) {
		__atomic_store_n(&m->quit, 1, __ATOMIC_RELAXED);
		finish(m, s);
		return 0;
	}
	if (ret == -ECANCELED) {
		/* The mode said why. */
		tool_warn("%s: skipping this guest", s->g->path);
		fail(m, s, err);
		return 0;
	}
	if (ret == -ESTALE) {
		if (s->started && m->o->ops->end(s, m->o->arg))
			set_worst(m, EXIT_RUNTIME);
		s->started = false;
		s->part++;
		tool_warn("%s: the guest re-formatted the segment; following the new generation",
			  s->name);
		err = start(m, s);
		if (err)
			fail(m, s, err);
		return 1;
	}
	if (ret == 0 || ret == -EPIPE) {
		publish_lag(s);
		if (drain)
			finish(m, s);
		return 0;
	}
	skip_msg(s, ivring__errmsg(s->r));
	fail(m, s, exit_code(ret));
	return 0;
}

/* Serve @g, claimed, for one batch.  True if @g was retired. */
static int serve_guest(struct many *m, struct guest *g, bool *retired)
{
	struct seg *s = g->priv;

	if (!s) {
		s = calloc(1, sizeof(*s));
		if (!s) {
			tool_warn("%s: out of memory", g->name);
			set_worst(m, EXIT_RUNTIME);
			return 0;
		}
		s->g = g;
		s->name = g->name;
		g->priv = s;
	}
	switch (guest_state(g)) {
	case GUEST_NEW:
		/*
		 * Went (or Ctrl-C, or SIGUSR1) before it was ever opened:
		 * nothing to read.
		 */
		if (guest_is_gone(g) || stopping(m) || drain_is_requested()) {
			guest_set_state(g, GUEST_DONE);
			return 0;
		}
		return try_open(m, s);
	case GUEST_READING:
		return serve_reading(m, s);
	default:
		if (guest_is_gone(g)) {
			guest_retire(m->reg, g);
			*retired = true;
		}
		return 0;
	}
}

static void *reader(void *arg)
{
	struct many *m = arg;
	struct cds_lfht_iter iter;
	uint64_t nap = 0;
	struct guest *g;
	int work, busy;

	guest_reg_thread_online();
	for (;;) {
		bool ending = __atomic_load_n(&m->ending, __ATOMIC_ACQUIRE);

		work = busy = 0;
		guest_reg_lock();
		guest_reg_for_each(m->reg, &iter, g) {
			bool retired = false;
			enum guest_state st = guest_state(g);

			if (st == GUEST_READING || st == GUEST_NEW)
				busy++;
			if (!guest_claim(g))
				continue;
			work += serve_guest(m, g, &retired);
			if (!retired)
				guest_unclaim(g);
		}
		guest_reg_unlock();
		/* Ending: every guest drained and done (claims may hide some). */
		if (ending && !work && !busy)
			break;
		if (work) {
			nap = 0;
			continue;
		}
		/* Adaptive: a guest that just went quiet is looked at soon. */
		nap = nap ? nap * 2 : 100000;
		if (nap > NAP_MAX_NS)
			nap = NAP_MAX_NS;
		sleep_ns(nap);
	}
	guest_reg_thread_offline();
	return NULL;
}

/*
 * Host times: a burst of clock requests to @s, due once a second.  It
 * sleeps until the guest answers, up to 150 ms (1.5 s for the first, while
 * the guest's poller may look only once a second), so it runs in a clock
 * thread, never in a reader: a guest that is paused or slow holds its own
 * claim that long, and no other guest waits for it.
 */
static void clock_guest(struct many *m, struct seg *s)
{
	uint64_t now = now_ns();
	int ret;

	if (guest_state(s->g) != GUEST_READING || now < s->clock_ns ||
	    stopping(m))
		return;
	s->clock_ns = now + 1000000000ULL;
	ret = read_clock_burst(s->r, !s->clock_ok);
	if (ret > 0) {
		if (s->clock_told)
			tool_warn("%s: the guest answers clock requests again",
				  s->g->path);
		s->clock_ok = true;
		s->clock_told = false;
		return;
	}
	/* The writer stopped: until a new generation, nothing to ask. */
	if (ret == -EPIPE)
		return;
	/* No host times ever (an older module, a dead handle): as one reader. */
	if (ret < 0 && m->o->ops->wait_clock) {
		skip_msg(s, ivring__errmsg(s->r));
		fail(m, s, exit_code(ret));
		return;
	}
	if (s->clock_told)
		return;
	s->clock_told = true;
	if (ret < 0)
		tool_warn("%s; recording the guest's times", ivring__errmsg(s->r));
	else if (!s->clock_ok)
		tool_warn("%s: the guest does not answer clock requests (paused? /sys/module/ivring/parameters/sync_poll_ms 0?)%s",
			  s->g->path, m->o->ops->wait_clock ?
			  "; its events wait for it" : "");
}

/* How many guests' bursts may wait for an answer at once. */
#define CLOCK_THREADS	4

static void *clocker(void *arg)
{
	struct many *m = arg;
	struct cds_lfht_iter iter;
	struct guest *g;

	guest_reg_thread_online();
	while (!__atomic_load_n(&m->ending, __ATOMIC_ACQUIRE)) {
		guest_reg_lock();
		guest_reg_for_each(m->reg, &iter, g) {
			if (!guest_claim(g))
				continue;
			if (g->priv)
				clock_guest(m, g->priv);
			guest_unclaim(g);
		}
		guest_reg_unlock();
		sleep_ns(50000000ULL);
	}
	guest_reg_thread_offline();
	return NULL;
}

static bool wanted(const struct many_opts *o, const char *name)
{
	if (name[0] == '.')
		return false;
	return !fnmatch(o->match ? o->match : "ivring*", name, 0);
}

/* @named: the index of a segment named on the command line, or -1. */
static void add_file(struct many *m, const char *path, int named)
{
	struct stat st;

	if (stat(path, &st)) {
		/* A named segment that is not there is waited for, with -f. */
		if (named < 0 || m->told_missing[named])
			return;
		m->told_missing[named] = true;
		if (m->o->follow) {
			tool_warn("%s: %s; waiting for it", path, strerror(errno));
		} else {
			tool_warn("%s: %s", path, strerror(errno));
			set_worst(m, EXIT_RUNTIME);
		}
		return;
	}
	if (!S_ISREG(st.st_mode))
		return;
	if (!guest_reg_add(m->reg, path, st.st_dev, st.st_ino) &&
	    errno == ENOMEM) {
		tool_warn("%s: out of memory", path);
		set_worst(m, EXIT_RUNTIME);
	}
}

/* Every file that is there now is in the registry, every one gone marked. */
static void scan(struct many *m)
{
	struct cds_lfht_iter iter;
	char path[PATH_MAX];
	struct guest *g;
	struct dirent *de;
	struct stat st;
	unsigned int i;
	DIR *d;

	guest_reg_lock();
	if (m->o->watch) {
		d = opendir(m->o->watch);
		while (d && (de = readdir(d))) {
			if (!wanted(m->o, de->d_name))
				continue;
			if (snprintf(path, sizeof(path), "%s/%s", m->o->watch,
				     de->d_name) >= (int)sizeof(path))
				continue;
			add_file(m, path, -1);
		}
		if (d)
			closedir(d);
	}
	for (i = 0; i < m->o->nr_paths; i++)
		add_file(m, m->o->paths[i], i);
	guest_reg_for_each(m->reg, &iter, g) {
		if (guest_is_gone(g))
			continue;
		if (stat(g->path, &st) || st.st_ino != g->ino ||
		    st.st_dev != g->dev)
			guest_gone(g);
	}
	guest_reg_unlock();
}

static const char *state_name(enum guest_state st)
{
	static const char *const names[] = {
		[GUEST_NEW] = "waiting",
		[GUEST_READING] = "reading",
		[GUEST_FAILED] = "skipped",
		[GUEST_DONE] = "done",
	};

	return names[st];
}

struct reporter {
	struct many *m;
	uint64_t last_ns;
	struct guest_counts last_total;
};

/*
 * One line per guest: its rates since the last report, its totals, the
 * events its writer published that are not read yet, its clock offset;
 * then the totals.  @final: the totals only (each guest said its own as
 * it ended).
 */
static void report(struct reporter *rp, bool final)
{
	struct many *m = rp->m;
	struct cds_lfht_iter iter;
	struct guest_counts c, tot = { 0 }, ret;
	uint64_t now = now_ns(), nr = 0, skipped = 0;
	uint64_t nr_added = __atomic_load_n(&m->reg->nr_added, __ATOMIC_RELAXED);
	double secs = (now - (rp->last_ns ? rp->last_ns : m->start_ns)) / 1e9;
	struct guest *g;

	guest_reg_lock();
	guest_reg_for_each(m->reg, &iter, g) {
		guest_read_counts(g, &c);
		tot.events += c.events;
		tot.lost += c.lost;
		tot.bytes += c.bytes;
		nr++;
		skipped += guest_state(g) == GUEST_FAILED;
		if (!final && secs > 0) {
			/* rep_last: the reporter's alone; 0 for a new guest. */
			fprintf(stderr, "ivring-read: %s: %s, %.0f events/s, %.2f MB/s, %"
				PRIu64 " events, %" PRIu64 " lost, %" PRIu64
				" unread", g->name, state_name(guest_state(g)),
				(c.events - g->rep_last.events) / secs,
				(c.bytes - g->rep_last.bytes) / secs / 1e6,
				c.events, c.lost,
				__atomic_load_n(&g->unread, __ATOMIC_RELAXED));
			if (__atomic_load_n(&g->have_clock, __ATOMIC_RELAXED))
				fprintf(stderr, ", clock offset %" PRId64 " ns",
					__atomic_load_n(&g->clock_offset_ns,
							__ATOMIC_RELAXED));
			fputc('\n', stderr);
		}
		g->rep_last = c;
	}
	guest_reg_unlock();
	guest_reg_read_retired(m->reg, &ret);
	tot.events += ret.events;
	tot.lost += ret.lost;
	tot.bytes += ret.bytes;
	if (!final && secs > 0)
		fprintf(stderr, "ivring-read: %" PRIu64 " guest%s, %.0f events/s, %.2f MB/s, %"
			PRIu64 " events, %" PRIu64 " lost\n", nr,
			nr == 1 ? "" : "s",
			(tot.events - rp->last_total.events) / secs,
			(tot.bytes - rp->last_total.bytes) / secs / 1e6,
			tot.events, tot.lost);
	rp->last_ns = now;
	rp->last_total = tot;
	if (final)
		fprintf(stderr, "ivring-read: %" PRIu64 " guest%s (%" PRIu64
			" skipped), %" PRIu64 " events read, %" PRIu64
			" lost, %" PRIu64 " bytes\n", nr_added,
			nr_added == 1 ? "" : "s",
			__atomic_load_n(&m->reg->nr_failed, __ATOMIC_RELAXED) +
			skipped, tot.events, tot.lost, tot.bytes);
}

static void *reporter(void *arg)
{
	struct reporter *rp = arg;
	struct many *m = rp->m;
	uint64_t every = m->o->stats_interval * 1000000000ULL;
	uint64_t next = now_ns() + every;

	guest_reg_thread_online();
	while (!__atomic_load_n(&m->readers_done, __ATOMIC_ACQUIRE)) {
		sleep_ns(100000000ULL);
		if (__atomic_exchange_n(&stats_requested, 0, __ATOMIC_RELAXED) ||
		    (every && now_ns() >= next)) {
			next = now_ns() + every;
			report(rp, false);
		}
	}
	guest_reg_thread_offline();
	return NULL;
}

/* Without --follow: true once every guest was read to its end. */
static bool all_done(struct many *m)
{
	struct cds_lfht_iter iter;
	struct guest *g;
	bool done = true;

	guest_reg_lock();
	guest_reg_for_each(m->reg, &iter, g) {
		enum guest_state st = guest_state(g);

		if (st == GUEST_NEW || st == GUEST_READING)
			done = false;
	}
	guest_reg_unlock();
	return done;
}

static int watch_init(struct many *m)
{
	int fd;

	if (!m->o->watch)
		return -1;
	fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (fd < 0 || inotify_add_watch(fd, m->o->watch,
					IN_CREATE | IN_MOVED_TO | IN_DELETE |
					IN_MOVED_FROM | IN_ATTRIB |
					IN_ONLYDIR) < 0) {
		tool_warn("--watch %s: %s", m->o->watch, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -2;
	}
	return fd;
}

/* The discovery loop, until Ctrl-C or, without follow, every guest read. */
static void discover(struct many *m, int ifd)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	struct pollfd pfd = { .fd = ifd, .events = POLLIN };
	uint64_t next = 0, now;

	while (!stopping(m) && !drain_is_requested()) {
		now = now_ns();
		if (now >= next) {
			scan(m);
			next = now + RESCAN_MS * 1000000ULL;
		}
		/* Not following: done as soon as the last guest is. */
		if (!m->o->follow && all_done(m))
			break;
		/* No watch: poll() on -1 is a plain nap. */
		if (poll(&pfd, 1, m->o->follow ? 200 : 20) > 0) {
			/* What changed does not matter: look at it all. */
			while (read(ifd, buf, sizeof(buf)) > 0)
				;
			next = 0;
		}
	}
}

int many_main(struct many_opts *o)
{
	struct many m = { .o = o };
	struct reporter rp = { .m = &m };
	pthread_t *readers, rep, clockers[CLOCK_THREADS];
	struct sigaction sa = { .sa_handler = on_stats,
				.sa_flags = SA_RESTART };
	unsigned int i, n, nc = 0;
	int ifd, ret;

	if (!o->threads) {
		long cpus = sysconf(_SC_NPROCESSORS_ONLN);

		o->threads = cpus > 0 ? cpus : 1;
	}
	ifd = watch_init(&m);
	if (ifd == -2)
		return EXIT_USAGE;
	m.reg = guest_reg_new(seg_free);
	readers = calloc(o->threads, sizeof(*readers));
	m.told_missing = calloc(o->nr_paths + 1, sizeof(*m.told_missing));
	if (!m.reg || !readers || !m.told_missing) {
		tool_warn("out of memory");
		free(m.told_missing);
		free(readers);
		guest_reg_free(m.reg);
		return EXIT_RUNTIME;
	}
	sigaction(SIGUSR2, &sa, NULL);
	guest_reg_thread_online();
	scan(&m);
	m.start_ns = now_ns();
	for (n = 0; n < o->threads; n++) {
		ret = pthread_create(&readers[n], NULL, reader, &m);
		if (ret) {
			tool_warn("cannot start a reader thread: %s", strerror(ret));
			set_worst(&m, EXIT_RUNTIME);
			break;
		}
	}
	for (nc = 0; n && o->clock && nc < CLOCK_THREADS; nc++) {
		if (pthread_create(&clockers[nc], NULL, clocker, &m)) {
			tool_warn("cannot start a clock thread");
			set_worst(&m, EXIT_RUNTIME);
			break;
		}
	}
	ret = n ? pthread_create(&rep, NULL, reporter, &rp) : -1;
	if (n)
		discover(&m, ifd);
	/* Readers drain every guest they hold, complete its output, and stop. */
	__atomic_store_n(&m.ending, 1, __ATOMIC_RELEASE);
	for (i = 0; i < nc; i++)
		pthread_join(clockers[i], NULL);
	for (i = 0; i < n; i++)
		pthread_join(readers[i], NULL);
	__atomic_store_n(&m.readers_done, 1, __ATOMIC_RELEASE);
	if (!ret)
		pthread_join(rep, NULL);
	report(&rp, true);
	guest_reg_free(m.reg);
	guest_reg_thread_offline();
	free(m.told_missing);
	free(readers);
	if (ifd >= 0)
		close(ifd);
	return m.worst;
}
