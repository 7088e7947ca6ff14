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
 *   batch (the driver's seg_serve(): at most a few thousand events, or 64
 *   pages per CPU), then lets it go and moves to the next: a guest that floods
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
#include <time.h>
#include <unistd.h>

#include "libivring.h"
#include "guest_registry.h"
#include "follow.h"
#include "seg_open.h"
#include "read_common.h"
#include "read_many.h"
#include "tool_msg.h"
#include "tool_time.h"

/* How often the files are looked at, inotify or not. */
#define RESCAN_MS	1000
/* Guests served at once, unless --max-guests says otherwise. */
#define MAX_GUESTS	1024
/* What a scan passed over is said at most this often. */
#define SKIPPED_EVERY_NS 60000000000ULL
/* How long a reader naps after a pass that found no work, at most. */
#define NAP_MAX_NS	20000000ULL
/* How often a claimant refreshes the lag it publishes. */
#define LAG_EVERY_NS	500000000ULL
/* How long a parked reader sleeps, at most, before a pass of its own. */
#define PARK_MAX_NS	1000000000ULL

struct many {
	struct many_opts *o;
	struct guest_reg *reg;
	int worst;		/* exit code: the worst of the guests' */
	int quit;		/* the output went away (| head): stop, no error */
	int ending;		/* discovery ended: readers finish and stop */
	bool *told_missing;	/* per named segment: said it is not there */
	/* Files of the last scan passed over: another's, or beyond the cap. */
	unsigned long not_ours, over_cap;
	unsigned long said_not_ours, said_over_cap;
	uint64_t said_ns;
	int readers_done;
	uint64_t start_ns;
	/*
	 * While no guest has work, one reader (the first) looks at them all
	 * and the others park: each look at an idle guest costs cache and
	 * TLB misses on its segment, which one poller pays once.  The first
	 * wakes them (park_gen) when it finds work, and the end wakes them.
	 */
	pthread_mutex_t park_lock;
	pthread_cond_t park_cond;
	unsigned int park_gen;	/* under park_lock; read atomically too */
	int first_idle;		/* the first reader's last pass found nothing */
};

struct reader_arg {
	struct many *m;
	unsigned int index;
};

static volatile sig_atomic_t stats_requested;

static void on_stats(int sig)
{
	(void)sig;
	__atomic_store_n(&stats_requested, 1, __ATOMIC_RELAXED);
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

/* A guest's reading state (g->priv): the driver's, and what was told. */
struct mseg {
	struct seg s;
	struct guest *g;
	struct seg_counts told;	/* the counts already published */
	uint64_t lag_ns;	/* when to look at its writer's counters */
};

static void mseg_free(void *priv)
{
	struct mseg *ms = priv;

	seg_release(&ms->s);
	free(ms);
}

/* What the driver counted since the last time, to the guest's counters. */
static void publish(struct mseg *ms)
{
	const struct seg_counts *n = &ms->s.n;

	guest_count(ms->g, n->events - ms->told.events, n->lost - ms->told.lost,
		    n->bytes - ms->told.bytes);
	ms->told = *n;
}

/* @ms is skipped: what it wrote completed, nothing more consumed. */
static void fail(struct many *m, struct mseg *ms, int code)
{
	set_worst(m, seg_drop(&ms->s, code));
	publish(ms);
	guest_set_state(ms->g, GUEST_FAILED);
}

/* Done with @ms: its output complete, its segment let go. */
static void finish(struct many *m, struct mseg *ms)
{
	if (seg_finish(&ms->s, guest_is_gone(ms->g) ? "gone" : "done"))
		set_worst(m, EXIT_RUNTIME);
	publish(ms);
	guest_set_state(ms->g, GUEST_DONE);
}

/* Events published and not yet read, over every CPU: the reader's lag. */
static void publish_lag(struct mseg *ms)
{
	struct ivring_info info = { .sz = sizeof(info) };
	struct ivring_clock_info ci = { .sz = sizeof(ci) };
	uint64_t unread = 0, now = now_ns();
	struct ivring *r = ms->s.r;
	unsigned int cpu;

	if (now < ms->lag_ns)
		return;
	ms->lag_ns = now + LAG_EVERY_NS;
	ivring__info(r, &info);
	for (cpu = 0; cpu < info.nr_cpus; cpu++) {
		struct ivring_cpu_stats st = { .sz = sizeof(st) };

		if (!ivring__cpu_stats(r, cpu, &st))
			unread += st.unread;
	}
	__atomic_store_n(&ms->g->unread, unread, __ATOMIC_RELAXED);
	if (!ivring__clock_info(r, &ci) && ci.samples) {
		__atomic_store_n(&ms->g->clock_offset_ns, ci.offset_ns,
				 __ATOMIC_RELAXED);
		__atomic_store_n(&ms->g->have_clock, 1, __ATOMIC_RELAXED);
	}
}

static int try_open(struct many *m, struct mseg *ms)
{
	switch (seg_open(&ms->s, m->o->seg->follow && !guest_is_gone(ms->g))) {
	case SEG_WORK:
		guest_set_state(ms->g, GUEST_READING);
		return 1;
	case SEG_GONE:
		guest_gone(ms->g);
		return 0;
	case SEG_WAIT:
		return 0;
	default:
		fail(m, ms, ms->s.err);
		return 0;
	}
}

/* One batch of @ms; returns whether there was work. */
static int serve_reading(struct many *m, struct mseg *ms)
{
	bool drain = guest_is_gone(ms->g) || !m->o->seg->follow ||
		     drain_is_requested();
	int st;

	/* Ctrl-C: what was taken out goes out; the rest waits in the segment. */
	if (stopping(m)) {
		finish(m, ms);
		return 0;
	}
	st = seg_serve(&ms->s, drain);
	publish(ms);
	switch (st) {
	case SEG_WORK:
		publish_lag(ms);
		return 1;
	case SEG_RENEWED:
		return 1;
	case SEG_WAIT:
		/* Its new generation is opened again later (seg_open()). */
		guest_set_state(ms->g, GUEST_NEW);
		return 0;
	case SEG_IDLE:
		publish_lag(ms);
		if (drain)
			finish(m, ms);
		return 0;
	case SEG_QUIT:
		__atomic_store_n(&m->quit, 1, __ATOMIC_RELAXED);
		finish(m, ms);
		return 0;
	default:
		fail(m, ms, ms->s.err);
		return 0;
	}
}

/* Whether @path was named on the command line, not found by --watch. */
static bool is_named(const struct many_opts *o, const char *path)
{
	unsigned int i;

	for (i = 0; i < o->nr_paths; i++)
		if (!strcmp(o->paths[i], path))
			return true;
	return false;
}

/* Serve @g, claimed, for one batch.  True if @g was retired. */
static int serve_guest(struct many *m, struct guest *g, bool *retired)
{
	struct mseg *ms = g->priv;

	if (!ms) {
		ms = calloc(1, sizeof(*ms));
		if (!ms) {
			tool_warn("%s: out of memory", g->name);
			set_worst(m, EXIT_RUNTIME);
			return 0;
		}
		seg_init(&ms->s, m->o->seg, g->path, g->name);
		ms->s.dev = g->dev;
		ms->s.ino = g->ino;
		ms->s.nofollow = !is_named(m->o, g->path);
		ms->g = g;
		g->priv = ms;
	}
	switch (guest_state(g)) {
	case GUEST_NEW:
		/*
		 * Went (or Ctrl-C, or SIGUSR1) before it was ever opened:
		 * nothing to read.  One whose output could not begin (out of
		 * files or memory) had events that nobody recorded: skipped.
		 */
		if (guest_is_gone(g) || stopping(m) || drain_is_requested()) {
			if (!ms->s.start_err) {
				guest_set_state(g, GUEST_DONE);
				return 0;
			}
			seg_say_why(&ms->s, "its recording could not begin before the end (out of files or memory)");
			fail(m, ms, EXIT_RUNTIME);
			return 0;
		}
		return try_open(m, ms);
	case GUEST_READING:
		return serve_reading(m, ms);
	default:
		if (guest_is_gone(g)) {
			guest_retire(m->reg, g);
			*retired = true;
		}
		return 0;
	}
}

/*
 * The other readers, parked or about to park, to work.  It runs only when
 * the first reader goes from idle to busy, so it always takes the lock.
 */
static void wake_readers(struct many *m)
{
	pthread_mutex_lock(&m->park_lock);
	__atomic_store_n(&m->park_gen, m->park_gen + 1, __ATOMIC_RELEASE);
	pthread_cond_broadcast(&m->park_cond);
	pthread_mutex_unlock(&m->park_lock);
}

/*
 * A reader other than the first, idle: park until the first finds work,
 * the end comes, or PARK_MAX_NS passed (a first reader held up by one
 * guest's output must not keep the others from theirs for longer).
 * @gen is park_gen as the reader's last pass began: a wake-up since, while
 * that pass found nothing, is not slept through.
 */
static void park(struct many *m, unsigned int gen)
{
	struct timespec until;

	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_sec += PARK_MAX_NS / 1000000000ULL;
	pthread_mutex_lock(&m->park_lock);
	while (gen == m->park_gen &&
	       !__atomic_load_n(&m->ending, __ATOMIC_ACQUIRE) &&
	       !stopping(m) &&
	       pthread_cond_timedwait(&m->park_cond, &m->park_lock,
				      &until) != ETIMEDOUT)
		;
	pthread_mutex_unlock(&m->park_lock);
}

static void *reader(void *arg)
{
	struct reader_arg *ra = arg;
	struct many *m = ra->m;
	struct cds_lfht_iter iter;
	uint64_t nap = 0;
	struct guest *g;
	int work, busy;

	guest_reg_thread_online();
	for (;;) {
		bool ending = __atomic_load_n(&m->ending, __ATOMIC_ACQUIRE);
		unsigned int gen = __atomic_load_n(&m->park_gen,
						   __ATOMIC_ACQUIRE);

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
		if (!ra->index)
			__atomic_store_n(&m->first_idle, !work, __ATOMIC_RELEASE);
		if (work) {
			if (nap && !ra->index)
				wake_readers(m);
			nap = 0;
			continue;
		}
		/*
		 * Park only while the first reader finds nothing too: a pass
		 * that found nothing because the first holds the busy guests
		 * is no reason to stop helping.
		 */
		if (ra->index && nap == NAP_MAX_NS && !ending &&
		    __atomic_load_n(&m->first_idle, __ATOMIC_ACQUIRE)) {
			park(m, gen);
			nap = 0;
			continue;
		}
		nap = nap ? nap * 2 : 100000;
		if (nap > NAP_MAX_NS)
			nap = NAP_MAX_NS;
		sleep_ns(nap);
	}
	guest_reg_thread_offline();
	return NULL;
}

/*
 * Host times: a burst of clock requests to @ms, due once a second.  It
 * sleeps until the guest answers, up to 150 ms (1.5 s for the first, while
 * the guest's poller may look only once a second), so it runs in a clock
 * thread, never in a reader: a guest that is paused or slow holds its own
 * claim that long, and no other guest waits for it.
 */
static void clock_guest(struct many *m, struct mseg *ms)
{
	if (guest_state(ms->g) != GUEST_READING || stopping(m))
		return;
	if (seg_clock(&ms->s) == SEG_FAIL)
		fail(m, ms, ms->s.err);
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

static bool ours(const struct many_opts *o, uid_t uid)
{
	return !uid || uid == geteuid() || (o->has_owner && uid == o->owner);
}

static bool full(const struct many *m)
{
	uint64_t live = __atomic_load_n(&m->reg->nr_added, __ATOMIC_RELAXED) -
			__atomic_load_n(&m->reg->nr_retired, __ATOMIC_RELAXED);

	return live >= (m->o->max_guests ? m->o->max_guests : MAX_GUESTS);
}

/*
 * @named: the index of a segment named on the command line, or -1.  Of the
 * files found in the watched directory, which others may write to, a
 * symlink is not followed (it could point at any file), a file of another
 * user's is not read, and no more than --max-guests are served (the
 * named ones count, but are never left out).
 */
static void add_file(struct many *m, const char *path, int named)
{
	struct stat st;

	if (named < 0 ? lstat(path, &st) : stat(path, &st)) {
		/* A named segment that is not there is waited for, with -f. */
		if (named < 0 || m->told_missing[named])
			return;
		m->told_missing[named] = true;
		if (m->o->seg->follow) {
			tool_warn("%s: %s; waiting for it", path, strerror(errno));
		} else {
			tool_warn("%s: %s", path, strerror(errno));
			set_worst(m, EXIT_RUNTIME);
		}
		return;
	}
	if (!S_ISREG(st.st_mode))
		return;
	if (named < 0 && !ours(m->o, st.st_uid)) {
		m->not_ours++;
		return;
	}
	if (guest_reg_find(m->reg, st.st_dev, st.st_ino))
		return;
	/* Those named are served whatever the cap; those found count. */
	if (named < 0 && full(m)) {
		m->over_cap++;
		return;
	}
	if (!guest_reg_add(m->reg, path, st.st_dev, st.st_ino) &&
	    errno == ENOMEM) {
		tool_warn("%s: out of memory", path);
		set_worst(m, EXIT_RUNTIME);
	}
}

/* What the scan passed over, when it changed, once a minute at most. */
static void say_skipped(struct many *m)
{
	uint64_t now = now_ns();

	if ((m->not_ours == m->said_not_ours &&
	     m->over_cap == m->said_over_cap) ||
	    (m->said_ns && now - m->said_ns < SKIPPED_EVERY_NS))
		return;
	m->said_ns = now;
	if (m->not_ours != m->said_not_ours && m->not_ours)
		tool_warn("%s: %lu files of other users not read (--owner USER reads a user's)",
			  m->o->watch, m->not_ours);
	if (m->over_cap != m->said_over_cap && m->over_cap)
		tool_warn("%s: %lu segments not read: %u guests are served already (--max-guests)",
			  m->o->watch, m->over_cap,
			  m->o->max_guests ? m->o->max_guests : MAX_GUESTS);
	m->said_not_ours = m->not_ours;
	m->said_over_cap = m->over_cap;
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
	m->not_ours = m->over_cap = 0;
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
	if (m->o->watch)
		say_skipped(m);
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
		if (!m->o->seg->follow && all_done(m))
			break;
		/* No watch: poll() on -1 is a plain nap. */
		if (poll(&pfd, 1, m->o->seg->follow ? 200 : 20) > 0) {
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
	struct reader_arg *ras;
	pthread_condattr_t ca;
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
	m.reg = guest_reg_new(mseg_free);
	readers = calloc(o->threads, sizeof(*readers));
	ras = calloc(o->threads, sizeof(*ras));
	m.told_missing = calloc(o->nr_paths + 1, sizeof(*m.told_missing));
	if (!m.reg || !readers || !ras || !m.told_missing) {
		tool_warn("out of memory");
		free(m.told_missing);
		free(ras);
		free(readers);
		guest_reg_free(m.reg);
		return EXIT_RUNTIME;
	}
	sigaction(SIGUSR2, &sa, NULL);
	guest_reg_thread_online();
	scan(&m);
	m.start_ns = now_ns();
	pthread_mutex_init(&m.park_lock, NULL);
	/* park()'s deadline is in CLOCK_MONOTONIC, which no one sets. */
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&m.park_cond, &ca);
	pthread_condattr_destroy(&ca);
	for (n = 0; n < o->threads; n++) {
		ras[n] = (struct reader_arg){ .m = &m, .index = n };
		ret = pthread_create(&readers[n], NULL, reader, &ras[n]);
		if (ret) {
			tool_warn("cannot start a reader thread: %s", strerror(ret));
			set_worst(&m, EXIT_RUNTIME);
			break;
		}
	}
	for (nc = 0; n && o->seg->clock && nc < CLOCK_THREADS; nc++) {
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
	pthread_mutex_lock(&m.park_lock);
	pthread_cond_broadcast(&m.park_cond);
	pthread_mutex_unlock(&m.park_lock);
	for (i = 0; i < nc; i++)
		pthread_join(clockers[i], NULL);
	for (i = 0; i < n; i++)
		pthread_join(readers[i], NULL);
	__atomic_store_n(&m.readers_done, 1, __ATOMIC_RELEASE);
	if (!ret)
		pthread_join(rep, NULL);
	report(&rp, true);
	seg_said_end();
	guest_reg_free(m.reg);
	guest_reg_thread_offline();
	free(m.told_missing);
	free(ras);
	free(readers);
	pthread_cond_destroy(&m.park_cond);
	pthread_mutex_destroy(&m.park_lock);
	if (ifd >= 0)
		close(ifd);
	return m.worst;
}
