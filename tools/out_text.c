// SPDX-License-Identifier: GPL-2.0 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * The text output of ivring-read: each event a line, as trace-cmd report
 * prints a trace.dat, preceded by a loss line after events were lost.
 *
 * A batch is rendered into a buffer of its segment's own, then written
 * out in one go under the stream's lock, flushed, and only then consumed:
 * lines of different segments never interleave within a line, and a
 * reader killed at any point has consumed nothing it did not write.  With
 * many segments each line begins with its segment's name; lines are in
 * time order per segment, not across segments.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libivring.h"
#include "out_text.h"
#include "read_clock.h"
#include "read_common.h"
#include "tool_msg.h"

/* Event formats a segment may have: its ids are 16 bits. */
#define NR_TYPES	65536
#define LINE_START	4096
/*
 * A batch's lines, at most (and one line more): a batch is bounded by
 * events (text_conf.batch) and by bytes, so that lines that are long, as
 * a hostile format can make them, still come out and let other guests in.
 */
#define BATCH_BYTES	(1U << 20)

/* A segment's lines: its own, so that no lock is held while rendering. */
struct text_out {
	char *buf;		/* the batch's lines */
	size_t len, cap;
	char *line;		/* one event's */
	size_t line_len;
	uint8_t *want;		/* -e: the event ids to print; NULL: all */
	uint32_t listed;	/* the formats listed when @want was made */
};

/* Messages name the segment when its lines do. */
#define text_warn(tc, s, fmt, ...) \
	tool_warn("%s%s" fmt, (tc)->tag ? (s)->name : "", \
		  (tc)->tag ? ": " : "", ##__VA_ARGS__)

static bool grow(struct text_out *t, size_t more)
{
	size_t cap = t->cap ? t->cap : 65536;
	char *p;

	if (t->len + more <= t->cap)
		return true;
	while (cap < t->len + more)
		cap *= 2;
	p = realloc(t->buf, cap);
	if (!p)
		return false;
	t->buf = p;
	t->cap = cap;
	return true;
}

static bool append(struct text_out *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(t->buf + t->len, t->cap - t->len, fmt, ap);
		va_end(ap);
		if (n < 0)
			return false;
		if ((size_t)n < t->cap - t->len) {
			t->len += n;
			return true;
		}
		if (!grow(t, n + 1))
			return false;
	}
}

static bool is_wanted(const struct text_out *t, uint16_t type)
{
	return !t->want || (t->want[type / 8] & (1U << (type % 8)));
}

/*
 * The event ids that -e selects, in this generation's formats.  Returns
 * false when a pattern matches nothing, naming it unless @quiet.
 */
static bool build_filter(struct seg *s, const struct text_conf *tc,
			 struct text_out *t, bool quiet)
{
	struct ivring_format_stats st = { .sz = sizeof(st) };
	uint16_t *ids = malloc(NR_TYPES * sizeof(*ids));
	bool ok = true;
	unsigned int i;
	int n, j;

	if (!ids) {
		tool_warn("out of memory");
		return false;
	}
	memset(t->want, 0, NR_TYPES / 8);
	for (i = 0; i < tc->nr_patterns; i++) {
		n = ivring__match_events(s->r, tc->patterns[i], ids, NR_TYPES);
		if (n <= 0) {
			if (!quiet)
				tool_warn("-e '%s' matches no event format in the segment (%d formats); try -e '*'",
					  tc->patterns[i],
					  ivring__match_events(s->r, "*", NULL, 0));
			ok = false;
		}
		for (j = 0; j < n && j < NR_TYPES; j++)
			t->want[ids[j] / 8] |= 1U << (ids[j] % 8);
	}
	free(ids);
	if (!ivring__format_stats(s->r, &st))
		t->listed = st.listed;
	return ok;
}

/*
 * An event that -e leaves out may be of a format the guest appended since
 * the filter was built (ivring__event() looks for it): build it again
 * then, so that "-e 'sys:*'" takes the new event too.
 */
static void refilter(struct seg *s, const struct text_conf *tc,
		     struct text_out *t, uint16_t type)
{
	struct ivring_format_stats st = { .sz = sizeof(st) };

	if (is_wanted(t, type))
		return;
	ivring__event(s->r, type);
	if (ivring__format_stats(s->r, &st) || st.listed == t->listed)
		return;
	build_filter(s, tc, t, true);
}

static int select_cpus(struct seg *s, const struct text_conf *tc)
{
	struct ivring_info info = { .sz = sizeof(info) };
	unsigned int cpu;

	ivring__info(s->r, &info);
	if (tc->max_cpu >= info.nr_cpus) {
		tool_warn("--cpu %u: out of range, the segment has %u CPU%s (0-%u)",
			  tc->max_cpu, info.nr_cpus, info.nr_cpus == 1 ? "" : "s",
			  info.nr_cpus - 1);
		return EXIT_USAGE;
	}
	for (cpu = 0; cpu < info.nr_cpus; cpu++)
		ivring__select_cpu(s->r, cpu, cpu_in(tc->cpus, cpu));
	return 0;
}

/*
 * --clock-bound's column, after the segment's name: how far off the host
 * time of the line's event may be, in microseconds, or "-" where the line
 * has the guest's time (no clock sample yet).
 */
static bool append_bound(struct text_out *t, const char *tag,
			 const char *sep, uint64_t bound)
{
	if (bound == UINT64_MAX)
		return append(t, "%s%s%10s ", tag, sep, "-");
	return append(t, "%s%s%6" PRIu64 ".%03u ", tag, sep, bound / 1000,
		      (unsigned int)(bound % 1000));
}

/* One event: its loss line, then its line unless -e leaves it out. */
static int render(struct seg *s, const struct text_conf *tc,
		  struct text_out *t, const struct ivring_event *ev)
{
	const char *tag = tc->tag ? s->name : "", *sep = tc->tag ? ": " : "";
	struct ivring_event at;
	uint64_t bound;
	int len;

	s->n.events++;
	s->n.bytes += ev->size;
	s->n.lost += ev->lost;
	if (ev->lost && !append(t, "%s%sCPU:%u [LOST %" PRIu64 " EVENTS]\n",
				tag, sep, ev->cpu, ev->lost))
		goto oom;
	if (!is_wanted(t, ev->type)) {
		/* Rendered all the same: it may name a pid's comm. */
		ivring__snprint(s->r, ev, NULL, 0);
		return 0;
	}
	ev = read_clock_event(s->r, &s->clk, ev, &at, &bound);
	len = ivring__snprint(s->r, ev, t->line, t->line_len);
	if (len < 0) {
		text_warn(tc, s, "CPU %u: cannot render an event of type %u: %s",
			  ev->cpu, ev->type, ivring__errmsg(s->r));
		return EXIT_RUNTIME;
	}
	if ((size_t)len >= t->line_len) {
		char *p = realloc(t->line, len + 1);

		if (!p) {
			text_warn(tc, s, "out of memory for a %d-byte line", len);
			return EXIT_RUNTIME;
		}
		t->line = p;
		t->line_len = len + 1;
		ivring__snprint(s->r, ev, t->line, t->line_len);
	}
	if (s->c->clock_bound) {
		if (!append_bound(t, tag, sep, bound))
			goto oom;
		tag = sep = "";
	}
	if (!append(t, "%s%s%s\n", tag, sep, t->line))
		goto oom;
	s->n.shown++;
	return 0;
oom:
	text_warn(tc, s, "out of memory");
	return EXIT_RUNTIME;
}

/*
 * The batch goes out whole, then is consumed: never the other way round.
 * Where a write's failure may show only at fsync (NFS...), the batch is
 * synced before it is consumed.
 * Returns 0, an exit code when writing failed (having said why; -1: the
 * reader went away, as with | head, which is no error of ours), or the
 * library's negative errno when the segment refused the commit.  After a
 * failure nothing more is consumed: the next reader prints those events.
 */
static int write_out(struct seg *s, struct text_conf *tc, struct text_out *t)
{
	int ret = 0;

	/* An idle guest's look takes no lock, which the busy ones hold. */
	if (!t->len && !__atomic_load_n(&tc->failed, __ATOMIC_RELAXED))
		goto written;
	pthread_mutex_lock(&tc->lock);
	if (tc->failed) {
		ret = tc->failed;
	} else if (t->len && (fwrite(t->buf, 1, t->len, tc->out) != t->len ||
			      fflush(tc->out) || ferror(tc->out) ||
			      (tc->sync && fdatasync(fileno(tc->out))))) {
		/* Atomic: an idle guest's look reads it without the lock. */
		__atomic_store_n(&tc->failed, errno == EPIPE ? -1 : EXIT_RUNTIME,
				 __ATOMIC_RELAXED);
		if (tc->failed > 0)
			tool_warn("%s: write error: %s",
				  tc->path ? tc->path : "stdout", strerror(errno));
		ret = tc->failed;
	}
	pthread_mutex_unlock(&tc->lock);
written:
	t->len = 0;
	if (ret || s->failed)
		return ret;
	ret = ivring__commit(s->r);
	if (!ret)
		s->n.committed = s->n.events;
	return ret;
}

static int text_start(struct seg *s)
{
	struct text_conf *tc = seg_arg(s);
	struct text_out *t = s->out;
	int err;

	if (!t) {
		t = calloc(1, sizeof(*t));
		if (!t || !grow(t, 1) || !(t->line = malloc(LINE_START)) ||
		    (tc->nr_patterns && !(t->want = malloc(NR_TYPES / 8)))) {
			if (t) {
				free(t->buf);
				free(t->line);
			}
			free(t);
			text_warn(tc, s, "out of memory");
			return EXIT_RUNTIME;
		}
		t->line_len = LINE_START;
		s->out = t;
	}
	if (tc->cpus) {
		err = select_cpus(s, tc);
		if (err)
			return err;
	}
	/*
	 * A pattern that matches nothing is a user's error, at the start;
	 * but a guest that is followed may add the format later (an event
	 * enabled in the generic lane, a kprobe made).
	 */
	if (t->want && !build_filter(s, tc, t, false) && !s->part) {
		if (!s->c->follow)
			return EXIT_USAGE;
		text_warn(tc, s, "following: its events are shown once the guest adds their format");
	}
	return tc->out ? 0 : text_open(tc);
}

static int text_batch(struct seg *s, bool drain, int *err)
{
	struct text_conf *tc = seg_arg(s);
	struct text_out *t = s->out;
	struct ivring_event ev;
	unsigned int n;
	int ret = 0;

	for (n = 0; n < tc->batch && t->len < BATCH_BYTES &&
		    !stop_is_requested(); n++) {
		ret = ivring__next(s->r, &ev);
		if (ret <= 0)
			break;
		if (t->want)
			refilter(s, tc, t, ev.type);
		*err = render(s, tc, t, &ev);
		if (*err)
			return -ECANCELED;
	}
	*err = write_out(s, tc, t);
	if (*err < -1)
		return *err;
	if (*err)
		return -ECANCELED;
	/* A new generation or an error ends a batch: it must be seen. */
	return ret < 0 || !n ? ret : (int)n;
}

/*
 * Drops after a CPU's newest page have no event to carry them: once none
 * will come (lost_after_last_page()), they get their loss line here, so
 * that the lines, the summary and --stats give one account.
 */
static int unreported_losses(struct seg *s, const struct text_conf *tc,
			     struct text_out *t)
{
	const char *tag = tc->tag ? s->name : "", *sep = tc->tag ? ": " : "";
	struct ivring_info info = { .sz = sizeof(info) };
	unsigned int cpu;
	uint64_t n;

	if (s->failed || ivring__info(s->r, &info))
		return 0;
	for (cpu = 0; cpu < info.nr_cpus; cpu++) {
		if (!cpu_in(tc->cpus, cpu))
			continue;
		n = lost_after_last_page(s->r, cpu, s->c->peek);
		if (!n)
			continue;
		s->n.lost += n;
		if (!append(t, "%s%sCPU:%u [LOST %" PRIu64 " EVENTS]\n", tag, sep,
			    cpu, n)) {
			text_warn(tc, s, "out of memory");
			return EXIT_RUNTIME;
		}
	}
	return 0;
}

static int text_end(struct seg *s)
{
	int err = unreported_losses(s, seg_arg(s), s->out);

	if (err)
		return err;
	err = write_out(s, seg_arg(s), s->out);

	if (err < -1)
		tool_warn("%s", ivring__errmsg(s->r));
	return err > 0 ? err : err < -1 ? exit_code(err) : 0;
}

static void text_put(struct seg *s)
{
	struct text_out *t = s->out;

	free(t->buf);
	free(t->line);
	free(t->want);
	free(t);
}

static void text_summary(struct seg *s)
{
	const struct text_conf *tc = seg_arg(s);

	fprintf(stderr, "ivring-read: %" PRIu64 " events read", s->n.events);
	if (tc->nr_patterns)
		fprintf(stderr, " (%" PRIu64 " printed)", s->n.shown);
	fprintf(stderr, ", %" PRIu64 " lost, %" PRIu64 " bytes\n", s->n.lost,
		s->n.bytes);
	if (!s->c->peek && s->n.events > s->n.committed)
		fprintf(stderr, "ivring-read: the last %" PRIu64 " events were not consumed: the next reader gets them again\n",
			s->n.events - s->n.committed);
}

const struct seg_ops text_ops = {
	.wait_clock = true,
	.start = text_start,
	.batch = text_batch,
	.end = text_end,
	.put = text_put,
	.summary = text_summary,
};

/*
 * /dev/stdout, /dev/stderr, /dev/fd/N or /proc/self/fd/N: a descriptor
 * that we hold already, to be duplicated rather than opened again through
 * the symlink (a socket cannot be, and a symlink can be swapped).  -1 if
 * @path names none.
 */
static int held_fd(const char *path)
{
	const char *n = NULL;
	char *end;
	long v;

	if (!strcmp(path, "/dev/stdout"))
		return STDOUT_FILENO;
	if (!strcmp(path, "/dev/stderr"))
		return STDERR_FILENO;
	if (!strncmp(path, "/dev/fd/", 8))
		n = path + 8;
	else if (!strncmp(path, "/proc/self/fd/", 14))
		n = path + 14;
	if (!n || *n < '0' || *n > '9')
		return -1;
	errno = 0;
	v = strtol(n, &end, 10);
	return errno || *end || v > INT_MAX ? -1 : (int)v;
}

/*
 * -o FILE: appended to, so that a reader restarted by a supervisor keeps
 * what the one before it consumed.  Never through a symlink (but the
 * descriptors of held_fd()), not into another user's regular file or one
 * linked elsewhere too (hard-linked into a directory that the reader
 * writes to as root), and not held up by a FIFO that nobody reads.
 */
int text_open(struct text_conf *tc)
{
	struct stat st;
	int fd, held;

	if (!tc->path) {
		tc->out = stdout;
		tc->sync = ivring__fd_defers_errors(STDOUT_FILENO) > 0;
		return 0;
	}
	held = held_fd(tc->path);
	if (held >= 0)
		fd = fcntl(held, F_DUPFD_CLOEXEC, 3);
	else
		fd = open(tc->path, O_WRONLY | O_CREAT | O_APPEND | O_NOCTTY |
			  O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0 && errno == ELOOP) {
		tool_warn("%s: a symlink, not followed; name the file it points to",
			  tc->path);
		return EXIT_RUNTIME;
	}
	if (fd < 0 && errno == ENXIO) {
		tool_warn("%s: a FIFO that nobody reads yet", tc->path);
		return EXIT_RUNTIME;
	}
	if (fd < 0) {
		tool_warn("%s: %s", tc->path, strerror(errno));
		return EXIT_RUNTIME;
	}
	if (held < 0 && (fstat(fd, &st) || fcntl(fd, F_SETFL, O_APPEND) < 0)) {
		tool_warn("%s: %s", tc->path, strerror(errno));
		close(fd);
		return EXIT_RUNTIME;
	}
	if (held < 0 && S_ISREG(st.st_mode) && st.st_uid != geteuid()) {
		tool_warn("%s belongs to uid %u: not appended to by uid %u",
			  tc->path, (unsigned int)st.st_uid,
			  (unsigned int)geteuid());
		close(fd);
		return EXIT_RUNTIME;
	}
	if (held < 0 && S_ISREG(st.st_mode) && st.st_nlink > 1) {
		tool_warn("%s: a file with %lu links; not written to, since it may be another user's",
			  tc->path, (unsigned long)st.st_nlink);
		close(fd);
		return EXIT_RUNTIME;
	}
	tc->sync = ivring__fd_defers_errors(fd) > 0;
	tc->out = fdopen(fd, "a");
	if (!tc->out) {
		tool_warn("%s: %s", tc->path, strerror(errno));
		close(fd);
		return EXIT_RUNTIME;
	}
	return 0;
}

int text_close(struct text_conf *tc, int err)
{
	if (tc->out && tc->out != stdout && fclose(tc->out) && !err) {
		tool_warn("%s: %s", tc->path, strerror(errno));
		err = EXIT_RUNTIME;
	}
	tc->out = NULL;
	return err;
}
