// SPDX-License-Identifier: GPL-2.0 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * Formats that the guest appends after a reader attached, as the generic
 * lane does when an event is first enabled:
 *
 *   - ivring__snprint() and ivring__event() decode their events, fields by
 *     name, and what was returned before (the tep handle, tep_events, the
 *     strings of ivring__format()) stays valid and unchanged;
 *   - a recording opened before gets them: trace-cmd report decodes them
 *     from a trace.dat v6 and v7, spooled and in place, and babeltrace2
 *     from a CTF trace, written to files or streamed to lttng-relayd
 *     (each format appended goes out as a new "CTF 1.8" metadata piece);
 *     CTF events transcoded before their format joined stay there as
 *     ivring:unknown, never lost;
 *   - a hostile guest: ids that never get a format, nr_events that goes
 *     back and forth, a count with no records behind it, one new format
 *     per event: the reader looks at the area only when nr_events grew
 *     past what it took (ivring_format_stats.refreshes), and the good
 *     events decode all along.
 */
#include <arpa/inet.h>
#include <glob.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <traceevent/event-parse.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "fmt_util.h"

#define NEW_ID		600
#define NEW_PRINT	"\"a=%u b=%u\", REC->a, REC->b"

static int write_ab(struct seg *s, u16 id, u32 a, u32 b)
{
	struct fu_ab e = { .c.common_type = id, .c.common_pid = 42,
			   .a = a, .b = b };

	return ivw_write(&s->w, 0, &e, sizeof(e));
}

/* The next event's line, or "" when there is none; @ev gets the event. */
static int next_line(struct ivring *r, struct ivring_event *ev, char *line,
		     size_t len)
{
	int ret = ivring__next(r, ev);

	line[0] = '\0';
	if (ret <= 0)
		return ret;
	ret = ivring__snprint(r, ev, line, len);
	return ret < 0 ? ret : 1;
}

static struct ivring_format_stats stats(struct ivring *r)
{
	struct ivring_format_stats st = { .sz = sizeof(st) };

	ivring__format_stats(r, &st);
	return st;
}

TEST(text_decodes_appended)
{
	struct ivring_format_info fi = { .sz = sizeof(fi) };
	struct tep_event *seq_ev, *tev;
	struct tep_format_field *fa;
	struct tep_handle *tep;
	const char *sys0, *text0;
	struct ivring_event ev;
	unsigned long long a;
	char line[512], copy[64];
	struct ivring *r;
	struct seg s;

	ASSERT_EQ(0, seg_create(&s, 1 << 20, 1, 4096, 0, IVRING_MODE_DISCARD,
				NULL));
	ASSERT_EQ(0, seg_write_seq(&s, 0, 1, 0));
	ASSERT_EQ(0, seg_open(&s, 0, &r));
	ASSERT_EQ(1, next_line(r, &ev, line, sizeof(line)));
	ASSERT_NE(NULL, strstr(line, FU_SEQ_LINE));
	tep = ivring__tep(r);
	seq_ev = ivring__event(r, ev.type);
	ASSERT_NE(NULL, seq_ev);
	ASSERT_EQ(0, ivring__format(r, 0, &fi));
	sys0 = fi.system;
	text0 = fi.text;
	snprintf(copy, sizeof(copy), "%s", text0);
	ASSERT_EQ(0, stats(r).refreshes);

	/* Before its format: unknown, and nothing to frame. */
	ASSERT_EQ(0, write_ab(&s, NEW_ID, 1, 2));
	ASSERT_EQ(1, next_line(r, &ev, line, sizeof(line)));
	ASSERT_NE(NULL, strstr(line, "UNKNOWN TYPE 600"));
	ASSERT_EQ(0, stats(r).refreshes);

	/* The guest enables the event: its format, then its events. */
	ASSERT_EQ(0, fu_add_ab(&s, NEW_ID, NEW_PRINT));
	ASSERT_EQ(0, write_ab(&s, NEW_ID, 10, 7));
	ASSERT_EQ(0, seg_write_seq(&s, 0, 1, 0));
	ASSERT_EQ(1, next_line(r, &ev, line, sizeof(line)));
	TH_LOG("%s", line);
	ASSERT_NE(NULL, strstr(line, "h600:"));
	ASSERT_NE(NULL, strstr(line, "a=10 b=7"));
	tev = ivring__event(r, NEW_ID);
	ASSERT_NE(NULL, tev);
	fa = tep_find_field(tev, "a");
	ASSERT_NE(NULL, fa);
	ASSERT_EQ(0, tep_read_number_field(fa, ev.data, &a));
	ASSERT_EQ(10, a);
	ASSERT_EQ(1, stats(r).refreshes);
	ASSERT_EQ(stats(r).records, stats(r).listed);

	/* What was handed out before is still what it was. */
	ASSERT_EQ(tep, ivring__tep(r));
	ASSERT_EQ(seq_ev, ivring__event(r, SYNTH_ID_SEQ));
	ASSERT_EQ(0, ivring__format(r, 0, &fi));
	ASSERT_EQ(sys0, fi.system);
	ASSERT_EQ(text0, fi.text);
	ASSERT_EQ(0, strncmp(copy, fi.text, strlen(copy)));
	ASSERT_EQ(1, next_line(r, &ev, line, sizeof(line)));
	ASSERT_NE(NULL, strstr(line, FU_SEQ_LINE));

	/* A name the filter asks for is matched once its format is in. */
	ASSERT_EQ(0, fu_add_ab(&s, NEW_ID + 1, NEW_PRINT));
	ASSERT_EQ(1, ivring__match_events(r, "hostile:h601", NULL, 0));
	ASSERT_EQ(2, stats(r).refreshes);

	ivring__close(r);
	seg_destroy(&s);
}

/* Ids that never get a format: each costs a load, never a framing. */
TEST(unknown_ids_cost_no_framing)
{
	struct ivring_event ev;
	char line[512];
	struct ivring *r;
	struct seg s;
	int i, unknown = 0, good = 0;

	ASSERT_EQ(0, seg_create(&s, 4 << 20, 1, 4096, 0, IVRING_MODE_DISCARD,
				NULL));
	ASSERT_EQ(0, seg_open(&s, 0, &r));
	for (i = 0; i < 5000; i++) {
		ASSERT_EQ(0, write_ab(&s, 700 + i % 50, i, i));
		if (!(i % 10))
			ASSERT_EQ(0, seg_write_seq(&s, 0, 1, 0));
		while (next_line(r, &ev, line, sizeof(line)) > 0) {
			unknown += !!strstr(line, "UNKNOWN TYPE");
			good += !!strstr(line, FU_SEQ_LINE);
		}
	}
	ASSERT_EQ(5000, unknown);
	ASSERT_EQ(500, good);
	ASSERT_EQ(0, stats(r).refreshes);
	ivring__close(r);
	seg_destroy(&s);
}

/*
 * A guest that moves nr_events back and forth takes nothing new: the
 * reader looks only past what it took.  A count with no record behind it
 * closes the area: one look, then none; the good events still decode.
 */
TEST(hostile_count)
{
	struct ivring_format_area *a;
	struct ivring_event ev;
	char line[512];
	struct ivring *r;
	struct seg s;
	u32 nr;
	int i, good = 0;

	ASSERT_EQ(0, seg_create(&s, 1 << 20, 1, 4096, 0, IVRING_MODE_DISCARD,
				NULL));
	a = s.w.fmt;
	nr = a->nr_events;
	ASSERT_EQ(0, seg_open(&s, 0, &r));
	for (i = 0; i < 3000; i++) {
		__atomic_store_n(&a->nr_events, nr - 1 + i % 2, __ATOMIC_RELEASE);
		ASSERT_EQ(0, write_ab(&s, 800, i, i));
		ASSERT_EQ(0, seg_write_seq(&s, 0, 1, 0));
		while (next_line(r, &ev, line, sizeof(line)) > 0)
			good += !!strstr(line, FU_SEQ_LINE);
	}
	ASSERT_EQ(3000, good);
	ASSERT_EQ(0, stats(r).refreshes);

	/* Records claimed that are not there. */
	for (i = 0; i < 3000; i++) {
		__atomic_store_n(&a->nr_events, nr + 1 + i, __ATOMIC_RELEASE);
		ASSERT_EQ(0, write_ab(&s, 800, i, i));
		ASSERT_EQ(0, seg_write_seq(&s, 0, 1, 0));
		while (next_line(r, &ev, line, sizeof(line)) > 0)
			good += !!strstr(line, FU_SEQ_LINE);
	}
	ASSERT_EQ(6000, good);
	ASSERT_EQ(1, stats(r).refreshes);
	ASSERT_NE(NULL, stats(r).first_reason);
	ASSERT_NE(NULL, strstr(stats(r).first_reason, "is missing"));
	ivring__close(r);
	seg_destroy(&s);
}

/*
 * One new format before each event: every one decodes, each framing takes
 * only what is new, and there are no more framings than appends.
 */
TEST(append_per_event)
{
	struct ivring_event ev;
	char line[512], want[32];
	struct ivring *r;
	struct seg s;
	int i, n = 1000, decoded = 0;

	ASSERT_EQ(0, seg_format(&s, 4 << 20, 1, 4096, 0, IVRING_MODE_DISCARD,
				NULL, 1 << 20));
	ASSERT_EQ(0, synth_add_formats(&s.w));
	ivw_set_state(&s.w, IVRING_STATE_LIVE);
	ASSERT_EQ(0, seg_open(&s, 0, &r));
	for (i = 0; i < n; i++) {
		ASSERT_EQ(0, fu_add_ab(&s, 1000 + i, NEW_PRINT));
		ASSERT_EQ(0, write_ab(&s, 1000 + i, i, 1));
		ASSERT_EQ(1, next_line(r, &ev, line, sizeof(line)));
		snprintf(want, sizeof(want), "h%d:", 1000 + i);
		decoded += strstr(line, want) != NULL;
	}
	ASSERT_EQ(n, decoded);
	ASSERT_EQ(n, stats(r).refreshes);
	ASSERT_EQ(stats(r).records, stats(r).listed);
	ivring__close(r);
	seg_destroy(&s);
}

/* Lines of @cmd's output that hold @needle, or -1 when it failed. */
static int count_lines(const char *cmd, const char *needle)
{
	char line[4096];
	int n = 0;
	FILE *p = popen(cmd, "r");

	if (!p)
		return -1;
	while (fgets(line, sizeof(line), p))
		n += !!strstr(line, needle);
	return pclose(p) ? -1 : n;
}

/* Every page there is, through the recording. */
static int record_all(struct ivring_rec *w, struct ivring *r)
{
	struct ivring_page pg = { .sz = sizeof(pg) };
	int ret, pages = 0;

	while ((ret = ivring__rec_read(w, r, 0, IVRING_PAGE_PARTIAL, &pg)) > 0)
		pages++;
	return ret < 0 ? ret : pages;
}

FIXTURE(rec)
{
	struct seg s;
	struct ivring *r;
	char dir[64];
	char path[PATH_MAX];
	char cmd[PATH_MAX + 64];
	pid_t relayd;
};

/* Whether something listens on 127.0.0.1:@port. */
static bool port_open(unsigned int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons(port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	bool up = fd >= 0 && !connect(fd, (struct sockaddr *)&a, sizeof(a));

	if (fd >= 0)
		close(fd);
	return up;
}

/*
 * A private lttng-relayd on free ports of 127.0.0.1 (control @ctl, data
 * @ctl + 1, live @ctl + 2), writing into @dir/out with its own
 * LTTNG_HOME: its pid, or -1.  One whose ports were taken exits, and the
 * next try takes others.
 */
static pid_t relayd_up(const char *dir, unsigned int *ctl)
{
	char c[32], d[32], l[32], out[PATH_MAX];
	unsigned int base, i;
	int tries, st;
	pid_t pid;

	snprintf(out, sizeof(out), "%s/out", dir);
	for (tries = 0; tries < 8; tries++) {
		if (getrandom(&base, sizeof(base), 0) != sizeof(base))
			return -1;
		base = 20000 + base % 40000;
		if (port_open(base) || port_open(base + 1) || port_open(base + 2))
			continue;
		snprintf(c, sizeof(c), "tcp://127.0.0.1:%u", base);
		snprintf(d, sizeof(d), "tcp://127.0.0.1:%u", base + 1);
		snprintf(l, sizeof(l), "tcp://127.0.0.1:%u", base + 2);
		pid = fork();
		if (pid < 0)
			return -1;
		if (!pid) {
			setenv("LTTNG_HOME", dir, 1);
			if (!freopen("/dev/null", "w", stdout) ||
			    !freopen("/dev/null", "w", stderr))
				_exit(127);
			execlp("lttng-relayd", "lttng-relayd", "-C", c, "-D", d,
			       "-L", l, "-o", out, (char *)NULL);
			_exit(127);
		}
		for (i = 0; i < 600; i++) {
			if (port_open(base) && port_open(base + 1) &&
			    port_open(base + 2)) {
				*ctl = base;
				return pid;
			}
			if (waitpid(pid, &st, WNOHANG) == pid)
				break;
			usleep(50000);
		}
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	return -1;
}

FIXTURE_SETUP(rec)
{
	ASSERT_EQ(0, seg_create(&self->s, 1 << 20, 1, 4096, 0,
				IVRING_MODE_DISCARD, NULL));
	ASSERT_EQ(0, seg_write_seq(&self->s, 0, 1, 0));
	ASSERT_EQ(0, seg_open(&self->s, 0, &self->r));
	strcpy(self->dir, "/tmp/ivfmt-rec.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
}

FIXTURE_TEARDOWN(rec)
{
	if (self->relayd > 0) {
		kill(self->relayd, SIGTERM);
		waitpid(self->relayd, NULL, 0);
	}
	ivring__close(self->r);
	seg_destroy(&self->s);
	if (seg_rm_dir(self->dir))
		TH_LOG("could not remove %s", self->dir);
}

/*
 * Open a recording, record what is there, then the guest appends h600
 * and writes 3 events of it, recorded and flushed; h601 is appended
 * after the last flush, its one event read at close.
 */
static void record_appended(struct __test_metadata *_metadata,
			    FIXTURE_DATA(rec) *self, unsigned int format,
			    unsigned int version, unsigned int flags)
{
	struct ivring_rec_opts o = { .sz = sizeof(o), .format = format,
				     .version = version, .flags = flags,
				     .name = "fa", .hostname = "fahost" };
	char err[256];
	struct ivring_rec *w;
	int i;

	/* A relay daemon's URL is in path already. */
	if (format != IVRING_REC_CTF_RELAYD)
		snprintf(self->path, sizeof(self->path), "%s/t.%s", self->dir,
			 format == IVRING_REC_CTF ? "ctf" : "dat");
	ASSERT_EQ(0, ivring__rec_open(self->r, self->path, &o, &w));
	ASSERT_LE(1, record_all(w, self->r));
	ASSERT_EQ(0, ivring__rec_flush(w));
	ASSERT_EQ(0, fu_add_ab(&self->s, NEW_ID, NEW_PRINT));
	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, write_ab(&self->s, NEW_ID, 10, 7));
	ASSERT_LE(1, record_all(w, self->r));
	ASSERT_EQ(0, ivring__rec_flush(w));
	ASSERT_EQ(0, fu_add_ab(&self->s, NEW_ID + 1, NEW_PRINT));
	ASSERT_EQ(0, write_ab(&self->s, NEW_ID + 1, 11, 8));
	ASSERT_LE(1, record_all(w, self->r));
	ASSERT_EQ(0, ivring__rec_close(w, err, sizeof(err))) TH_LOG("%s", err);
}

static void check_report(struct __test_metadata *_metadata,
			 FIXTURE_DATA(rec) *self)
{
	snprintf(self->cmd, sizeof(self->cmd), "trace-cmd report -i %s 2>&1",
		 self->path);
	if (system("command -v trace-cmd >/dev/null"))
		SKIP(return, "no trace-cmd (Debian package trace-cmd)");
	ASSERT_EQ(3, count_lines(self->cmd, "a=10 b=7"))
		TH_LOG("%s", self->cmd);
	ASSERT_EQ(3, count_lines(self->cmd, "h600:"));
	ASSERT_EQ(1, count_lines(self->cmd, "a=11 b=8"));
	ASSERT_EQ(1, count_lines(self->cmd, FU_SEQ_LINE));
}

TEST_F(rec, tracedat_v6)
{
	record_appended(_metadata, self, IVRING_REC_TRACE_DAT, 6, 0);
	check_report(_metadata, self);
}

TEST_F(rec, tracedat_v7)
{
	record_appended(_metadata, self, IVRING_REC_TRACE_DAT, 7, 0);
	check_report(_metadata, self);
}

TEST_F(rec, tracedat_v7_in_place)
{
	record_appended(_metadata, self, IVRING_REC_TRACE_DAT, 7,
			IVRING_REC_SNAPSHOT);
	check_report(_metadata, self);
}

/*
 * The in-place file is a whole trace.dat after each flush: the formats
 * appended before a flush are in it, before the recording ends.
 */
TEST_F(rec, tracedat_v7_in_place_flushed)
{
	struct ivring_rec_opts o = { .sz = sizeof(o),
				     .format = IVRING_REC_TRACE_DAT,
				     .version = 7,
				     .flags = IVRING_REC_SNAPSHOT };
	struct ivring_rec *w;

	if (system("command -v trace-cmd >/dev/null"))
		SKIP(return, "no trace-cmd (Debian package trace-cmd)");
	snprintf(self->path, sizeof(self->path), "%s/t.dat", self->dir);
	ASSERT_EQ(0, ivring__rec_open(self->r, self->path, &o, &w));
	ASSERT_EQ(0, fu_add_ab(&self->s, NEW_ID, NEW_PRINT));
	ASSERT_EQ(0, write_ab(&self->s, NEW_ID, 10, 7));
	ASSERT_LE(1, record_all(w, self->r));
	ASSERT_EQ(0, ivring__rec_flush(w));
	snprintf(self->cmd, sizeof(self->cmd),
		 "trace-cmd report -i %s.tmp 2>&1", self->path);
	ASSERT_EQ(1, count_lines(self->cmd, "a=10 b=7"));
	ivring__rec_close(w, NULL, 0);
}

static void check_ctf(struct __test_metadata *_metadata,
		      FIXTURE_DATA(rec) *self, int unknown)
{
	if (system("command -v babeltrace2 >/dev/null"))
		SKIP(return, "no babeltrace2 (Debian package babeltrace2)");
	snprintf(self->cmd, sizeof(self->cmd), "babeltrace2 %s 2>&1",
		 self->path);
	ASSERT_EQ(3 - unknown, count_lines(self->cmd, "a = 10, b = 7"))
		TH_LOG("%s", self->cmd);
	ASSERT_EQ(3 - unknown, count_lines(self->cmd, "hostile:h600:"));
	ASSERT_EQ(1, count_lines(self->cmd, "a = 11, b = 8"));
	ASSERT_EQ(unknown, count_lines(self->cmd, "ivring:unknown"));
	if (unknown)
		ASSERT_EQ(unknown, count_lines(self->cmd,
					       "common_type = 600, data_length"));
}

TEST_F(rec, ctf)
{
	record_appended(_metadata, self, IVRING_REC_CTF, 0, 0);
	check_ctf(_metadata, self, 0);
}

/*
 * The same streamed to lttng-relayd: the daemon only appends metadata, so
 * each format appended goes out as a piece of its own, which babeltrace2
 * reads from the daemon's output as from a file.
 */
TEST_F(rec, ctf_relayd)
{
	unsigned int ctl = 0;
	glob_t g;

	if (system("command -v lttng-relayd >/dev/null && command -v babeltrace2 >/dev/null"))
		SKIP(return, "no lttng-relayd or babeltrace2 (Debian packages lttng-tools, babeltrace2)");
	self->relayd = relayd_up(self->dir, &ctl);
	ASSERT_LT(0, self->relayd);
	snprintf(self->path, sizeof(self->path), "net://127.0.0.1:%u:%u",
		 ctl, ctl + 1);
	record_appended(_metadata, self, IVRING_REC_CTF_RELAYD, 0, 0);
	snprintf(self->path, sizeof(self->path), "%s/out/fahost/fa-*",
		 self->dir);
	ASSERT_EQ(0, glob(self->path, 0, NULL, &g));
	ASSERT_EQ(1, g.gl_pathc);
	snprintf(self->path, sizeof(self->path), "%s", g.gl_pathv[0]);
	globfree(&g);
	snprintf(self->cmd, sizeof(self->cmd), "cat %s/kernel/metadata",
		 self->path);
	/* The first metadata, and a piece for each of the two formats. */
	ASSERT_EQ(3, count_lines(self->cmd, "/* CTF 1.8 */"));
	check_ctf(_metadata, self, 0);
}

/*
 * Pages passed to ivring__rec_page() before ivring__rec_formats() was
 * called: their h600 events stay, as ivring:unknown with their type.
 */
TEST_F(rec, ctf_rec_page_before_formats)
{
	struct ivring_rec_opts o = { .sz = sizeof(o), .format = IVRING_REC_CTF };
	struct ivring_page pg = { .sz = sizeof(pg) };
	char err[256];
	struct ivring_rec *w;

	snprintf(self->path, sizeof(self->path), "%s/t.ctf", self->dir);
	ASSERT_EQ(0, ivring__rec_open(self->r, self->path, &o, &w));
	ASSERT_EQ(0, fu_add_ab(&self->s, NEW_ID, NEW_PRINT));
	ASSERT_EQ(0, write_ab(&self->s, NEW_ID, 10, 7));
	ASSERT_EQ(1, ivring__read_page(self->r, 0, &pg, IVRING_PAGE_PARTIAL));
	ASSERT_EQ(0, ivring__rec_page(w, 0, &pg));
	ASSERT_EQ(0, ivring__rec_formats(w, self->r));
	ASSERT_EQ(0, write_ab(&self->s, NEW_ID, 10, 7));
	ASSERT_EQ(0, write_ab(&self->s, NEW_ID, 10, 7));
	ASSERT_EQ(1, ivring__read_page(self->r, 0, &pg, IVRING_PAGE_PARTIAL));
	ASSERT_EQ(0, ivring__rec_page(w, 0, &pg));
	ASSERT_EQ(0, fu_add_ab(&self->s, NEW_ID + 1, NEW_PRINT));
	ASSERT_EQ(0, write_ab(&self->s, NEW_ID + 1, 11, 8));
	ASSERT_LE(1, record_all(w, self->r));
	ASSERT_EQ(0, ivring__rec_close(w, err, sizeof(err))) TH_LOG("%s", err);
	check_ctf(_metadata, self, 1);
}

TEST_HARNESS_MAIN
