// SPDX-License-Identifier: GPL-2.0 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * A recorder, often root, writes into a directory that another user may
 * own.  That user plants symlinks under the names the recorder uses, to
 * files that are not theirs (here: "victim" files in a directory of their
 * own), before the recording and while it runs, and swaps the directory.
 * No victim may change; the recording either completes or fails with a
 * message that names what was in its way.  A CTF trace's directory is the
 * recorder's own: made 0755, or taken only if nobody else owns it or may
 * write to it.
 */
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/inotify.h>
#include <sys/stat.h>

#include "kselftest_harness.h"
#include "seg_util.h"
#include "fmt_util.h"

#define VICTIM_TEXT	"root's own file\n"

FIXTURE(files)
{
	struct seg s;
	struct ivring *r;
	char dir[64];		/* the recording's, the other user's */
	char vdir[64];		/* where the victims are */
	char path[128];		/* dir/t.dat */
};

FIXTURE_SETUP(files)
{
	struct ivring_open_opts o = { .sz = sizeof(o) };
	unsigned int cpu;
	u64 i;

	ASSERT_EQ(0, fu_seg(&self->s, 1 << 16));
	ivw_set_state(&self->s.w, IVRING_STATE_LIVE);
	for (i = 0; i < 300; i++)
		for (cpu = 0; cpu < 1; cpu++)
			ASSERT_EQ(0, seg_write_seq(&self->s, cpu, i, 0));
	ASSERT_EQ(0, ivring__open(self->s.path, &o, &self->r));
	strcpy(self->dir, "/tmp/ivring-rec-files.XXXXXX");
	strcpy(self->vdir, "/tmp/ivring-rec-victims.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	ASSERT_NE(NULL, mkdtemp(self->vdir));
	snprintf(self->path, sizeof(self->path), "%s/t.dat", self->dir);
}

FIXTURE_TEARDOWN(files)
{
	ivring__close(self->r);
	seg_destroy(&self->s);
	if (seg_rm_dir(self->dir) || seg_rm_dir(self->vdir))
		TH_LOG("could not remove %s or %s", self->dir, self->vdir);
}

/* A victim file @name in vdir, and a symlink to it at @link. */
static int plant(const char *vdir, const char *name, const char *link)
{
	char victim[PATH_MAX];
	int fd;

	snprintf(victim, sizeof(victim), "%s/%s", vdir, name);
	fd = open(victim, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || write(fd, VICTIM_TEXT, strlen(VICTIM_TEXT)) < 0)
		return -1;
	close(fd);
	return symlink(victim, link);
}

/* The victim @name still holds exactly what plant() wrote. */
static bool intact(const char *vdir, const char *name)
{
	char victim[PATH_MAX], buf[256];
	ssize_t n;
	int fd;

	snprintf(victim, sizeof(victim), "%s/%s", vdir, name);
	fd = open(victim, O_RDONLY);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	return n == (ssize_t)strlen(VICTIM_TEXT) &&
	       !memcmp(buf, VICTIM_TEXT, n);
}

static bool is_symlink(const char *dir, const char *name)
{
	char p[PATH_MAX];
	struct stat st;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return !lstat(p, &st) && S_ISLNK(st.st_mode);
}

static bool is_file(const char *dir, const char *name)
{
	char p[PATH_MAX];
	struct stat st;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return !lstat(p, &st) && S_ISREG(st.st_mode);
}

static int rec_open(struct ivring *r, const char *path, unsigned int format,
		    unsigned int flags, struct ivring_rec **w, char *err,
		    size_t len)
{
	struct ivring_rec_opts o = {
		.sz = sizeof(o), .format = format, .flags = flags,
		.errbuf = err, .errbuf_len = len,
	};

	err[0] = '\0';
	return ivring__rec_open(r, path, &o, w);
}

/* Every page of CPU 0 into @w: the pages read, or -errno. */
static int record_cpu0(struct ivring_rec *w, struct ivring *r)
{
	struct ivring_page pg = { .sz = sizeof(pg) };
	int ret, pages = 0;

	while ((ret = ivring__rec_read(w, r, 0, IVRING_PAGE_PARTIAL, &pg)) > 0)
		pages++;
	return ret < 0 ? ret : pages;
}

/*
 * Nothing in @dir but @n names of @names and hidden files: a temporary
 * file that a reader of the directory would take for a stream or a trace
 * (babeltrace2 reads every file of a CTF trace but "metadata") must not
 * stay, nor be seen while it is written.
 */
static bool only(const char *dir, const char *const *names, int n)
{
	struct dirent *de;
	bool ok = true;
	DIR *d = opendir(dir);
	int i;

	if (!d)
		return false;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		for (i = 0; i < n && strcmp(de->d_name, names[i]); i++)
			;
		if (i == n) {
			fprintf(stderr, "# %s/%s: not expected\n", dir,
				de->d_name);
			ok = false;
		}
	}
	closedir(d);
	return ok;
}

/*
 * Every name made in @dir since inotify descriptor @in began watching it
 * is one of @names or hidden (a dotfile): a reader that lists the
 * directory while the recorder writes must never meet a temporary file.
 */
static bool made_only(int in, const char *const *names, int n)
{
	char buf[8192] __attribute__((aligned(8)));
	ssize_t len = read(in, buf, sizeof(buf));
	bool ok = len > 0;
	ssize_t at;
	int i;

	for (at = 0; len > 0 && at < len;) {
		struct inotify_event *e = (void *)(buf + at);

		at += sizeof(*e) + e->len;
		if (!e->len || e->name[0] == '.')
			continue;
		for (i = 0; i < n && strcmp(e->name, names[i]); i++)
			;
		if (i == n) {
			fprintf(stderr, "# %s: made, and not hidden\n", e->name);
			ok = false;
		}
	}
	return ok;
}

/*
 * t.dat.head.tmp was the fixed name t.dat.head was written under, at the
 * start and whenever new cmdlines came: a symlink there was written
 * through.  Now no name the planter can know is written to.
 */
TEST_F(files, head_tmp_not_followed)
{
	char link[256], err[512];
	struct ivring_rec *w;

	static const char *const made[] = { "t.dat", "t.dat.cpu0",
					    "t.dat.head", "t.dat.tmp" };
	int in = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);

	ASSERT_LE(0, in);
	snprintf(link, sizeof(link), "%s.head.tmp", self->path);
	ASSERT_EQ(0, plant(self->vdir, "head", link));
	ASSERT_LE(0, inotify_add_watch(in, self->dir, IN_CREATE | IN_MOVED_TO));
	ASSERT_EQ(0, rec_open(self->r, self->path, IVRING_REC_TRACE_DAT, 0,
			      &w, err, sizeof(err)));
	EXPECT_TRUE(made_only(in, made, 4));
	close(in);
	ASSERT_LT(0, record_cpu0(w, self->r));
	ASSERT_EQ(0, ivring__rec_flush(w));
	ASSERT_EQ(0, ivring__rec_close(w, err, sizeof(err)));
	ASSERT_TRUE(intact(self->vdir, "head"));
	ASSERT_TRUE(is_symlink(self->dir, "t.dat.head.tmp"));
	ASSERT_TRUE(is_file(self->dir, "t.dat"));
	{
		static const char *const left[] = { "t.dat", "t.dat.head.tmp" };

		ASSERT_TRUE(only(self->dir, left, 2));
	}
}

/*
 * t.dat.tmp, where the spools are put together at the end, planted while
 * the recording runs: refused by name, the spools kept for trace-cmd
 * restore, the victim untouched.
 */
TEST_F(files, end_tmp_planted_mid_run)
{
	char link[256], err[512];
	struct ivring_rec *w;

	ASSERT_EQ(0, rec_open(self->r, self->path, IVRING_REC_TRACE_DAT, 0,
			      &w, err, sizeof(err)));
	ASSERT_LT(0, record_cpu0(w, self->r));
	snprintf(link, sizeof(link), "%s.tmp", self->path);
	ASSERT_EQ(0, plant(self->vdir, "tmp", link));
	ASSERT_EQ(-EEXIST, ivring__rec_close(w, err, sizeof(err)));
	ASSERT_TRUE(intact(self->vdir, "tmp"));
	ASSERT_TRUE(is_symlink(self->dir, "t.dat.tmp"));
	ASSERT_TRUE(is_file(self->dir, "t.dat.cpu0"));
	ASSERT_FALSE(is_file(self->dir, "t.dat"));
}

/* The file itself a symlink: replaced by the trace, never written through. */
TEST_F(files, target_symlink_replaced)
{
	char err[512];
	struct ivring_rec *w;
	unsigned int snap;

	for (snap = 0; snap <= IVRING_REC_SNAPSHOT; snap += IVRING_REC_SNAPSHOT) {
		unlink(self->path);
		ASSERT_EQ(0, plant(self->vdir, "target", self->path));
		ASSERT_EQ(0, rec_open(self->r, self->path,
				      IVRING_REC_TRACE_DAT, snap, &w, err,
				      sizeof(err)));
		ASSERT_LE(0, record_cpu0(w, self->r));
		ASSERT_EQ(0, ivring__rec_close(w, err, sizeof(err)));
		ASSERT_TRUE(intact(self->vdir, "target"));
		ASSERT_TRUE(is_file(self->dir, "t.dat"));
	}
}

/* A spool's name planted before the start: refused, nothing written. */
TEST_F(files, spool_planted_refused)
{
	char link[256], err[512];
	struct ivring_rec *w;

	snprintf(link, sizeof(link), "%s.cpu0", self->path);
	ASSERT_EQ(0, plant(self->vdir, "spool", link));
	ASSERT_EQ(-EEXIST, rec_open(self->r, self->path, IVRING_REC_TRACE_DAT,
				    0, &w, err, sizeof(err)));
	ASSERT_NE(NULL, strstr(err, "t.dat.cpu0 exists"));
	ASSERT_TRUE(intact(self->vdir, "spool"));
}

/*
 * The directory swapped for a symlink to the victims' while a recording
 * runs: the files go on into the directory that was opened.
 */
TEST_F(files, dir_swapped_mid_run)
{
	char moved[256], err[512];
	struct ivring_rec *w;

	ASSERT_EQ(0, rec_open(self->r, self->path, IVRING_REC_TRACE_DAT, 0,
			      &w, err, sizeof(err)));
	ASSERT_LT(0, record_cpu0(w, self->r));
	snprintf(moved, sizeof(moved), "%s.moved", self->dir);
	ASSERT_EQ(0, rename(self->dir, moved));
	ASSERT_EQ(0, symlink(self->vdir, self->dir));
	ASSERT_EQ(0, ivring__rec_close(w, err, sizeof(err)));
	ASSERT_FALSE(is_file(self->vdir, "t.dat"));
	ASSERT_TRUE(is_file(moved, "t.dat"));
	ASSERT_FALSE(is_file(moved, "t.dat.head"));
	unlink(self->dir);
	ASSERT_EQ(0, rename(moved, self->dir));
}

/*
 * A CTF trace's metadata is replaced whole when the guest appends a
 * format; it used to go through the fixed DIR/.metadata.tmp, which the
 * directory's owner could plant, and a hostile guest could time.
 */
TEST_F(files, ctf_metadata_tmp_not_followed)
{
	char trace[256], link[300], err[512];
	struct ivring_rec *w;

	static const char *const made[] = { "metadata", "channel0_0" };
	int in = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);

	ASSERT_LE(0, in);
	snprintf(trace, sizeof(trace), "%s/ctf", self->dir);
	ASSERT_EQ(0, rec_open(self->r, trace, IVRING_REC_CTF, 0, &w, err,
			      sizeof(err)));
	snprintf(link, sizeof(link), "%s/.metadata.tmp", trace);
	ASSERT_EQ(0, plant(self->vdir, "meta", link));
	ASSERT_LE(0, inotify_add_watch(in, trace, IN_CREATE | IN_MOVED_TO));
	ASSERT_EQ(0, fu_add_ab(&self->s, 200, "\"a=%d\", REC->a"));
	ASSERT_EQ(0, ivring__rec_formats(w, self->r));
	/* The rewrite made its copy, and renamed it to metadata. */
	EXPECT_TRUE(made_only(in, made, 2));
	close(in);
	ASSERT_EQ(0, ivring__rec_close(w, err, sizeof(err)));
	ASSERT_TRUE(intact(self->vdir, "meta"));
	ASSERT_TRUE(is_file(trace, "metadata"));
	{
		static const char *const left[] = { "metadata", "channel0_0" };

		ASSERT_TRUE(only(trace, left, 2));
	}
}

/*
 * The trace.dat's own name taken by a FIFO or a device: a recording
 * replaces only a file (as root it renamed a file over /dev/null).
 */
TEST_F(files, target_not_a_file_refused)
{
	char err[512];
	struct ivring_rec *w;
	struct stat st;

	ASSERT_EQ(0, mkfifo(self->path, 0600));
	ASSERT_EQ(-EEXIST, rec_open(self->r, self->path, IVRING_REC_TRACE_DAT,
				    0, &w, err, sizeof(err)));
	ASSERT_NE(NULL, strstr(err, "is not a regular file"));
	ASSERT_EQ(0, lstat(self->path, &st));
	ASSERT_TRUE(S_ISFIFO(st.st_mode));
}

/* A CTF trace into ".", an empty working directory. */
TEST_F(files, ctf_into_dot)
{
	char cwd[PATH_MAX], trace[256], err[512];
	struct ivring_rec *w;

	snprintf(trace, sizeof(trace), "%s/ctf", self->dir);
	ASSERT_EQ(0, mkdir(trace, 0755));
	ASSERT_NE(NULL, getcwd(cwd, sizeof(cwd)));
	ASSERT_EQ(0, chdir(trace));
	EXPECT_EQ(0, rec_open(self->r, ".", IVRING_REC_CTF, 0, &w, err,
			      sizeof(err))) {
		TH_LOG("%s", err);
	}
	ASSERT_EQ(0, chdir(cwd));
	ASSERT_EQ(0, ivring__rec_close(w, err, sizeof(err)));
	ASSERT_TRUE(is_file(trace, "metadata"));
}

/* A CTF path that is a symlink to an empty directory is not followed. */
TEST_F(files, ctf_dir_symlink_refused)
{
	char trace[256], err[512];
	struct ivring_rec *w;

	snprintf(trace, sizeof(trace), "%s/ctf", self->dir);
	ASSERT_EQ(0, symlink(self->vdir, trace));
	ASSERT_EQ(-ENOTDIR, rec_open(self->r, trace, IVRING_REC_CTF, 0, &w,
				     err, sizeof(err)));
	ASSERT_NE(NULL, strstr(err, "symlink is not followed"));
	ASSERT_FALSE(is_file(self->vdir, "metadata"));
}

/*
 * An existing CTF directory that others may write to, or that another
 * user owns: refused unless the caller says IVRING_REC_ANY_DIR.  One the
 * recorder makes is 0755 whatever the umask lets through.
 */
TEST_F(files, ctf_dir_owner_and_mode)
{
	char trace[256], err[512];
	struct ivring_rec *w;
	struct stat st;
	mode_t old;

	snprintf(trace, sizeof(trace), "%s/ctf", self->dir);
	old = umask(0);
	ASSERT_EQ(0, rec_open(self->r, trace, IVRING_REC_CTF, 0, &w, err,
			      sizeof(err)));
	umask(old);
	ASSERT_EQ(0, ivring__rec_close(w, err, sizeof(err)));
	ASSERT_EQ(0, stat(trace, &st));
	ASSERT_EQ(0755, st.st_mode & 07777);
	ASSERT_EQ(0, seg_rm_dir(trace));

	ASSERT_EQ(0, mkdir(trace, 0700));
	ASSERT_EQ(0, chmod(trace, 0777));
	ASSERT_EQ(-EPERM, rec_open(self->r, trace, IVRING_REC_CTF, 0, &w,
				   err, sizeof(err)));
	ASSERT_NE(NULL, strstr(err, "others may write to it (mode 0777)"));
	ASSERT_EQ(0, rec_open(self->r, trace, IVRING_REC_CTF,
			      IVRING_REC_ANY_DIR, &w, err, sizeof(err)));
	ASSERT_EQ(0, ivring__rec_close(w, err, sizeof(err)));
	ASSERT_EQ(0, seg_rm_dir(trace));

	if (geteuid()) {
		TH_LOG("not root: the other owner's case needs chown");
		return;
	}
	ASSERT_EQ(0, mkdir(trace, 0755));
	ASSERT_EQ(0, chown(trace, 65534, 65534));
	ASSERT_EQ(-EPERM, rec_open(self->r, trace, IVRING_REC_CTF, 0, &w,
				   err, sizeof(err)));
	ASSERT_NE(NULL, strstr(err, "belongs to uid 65534"));
	ASSERT_EQ(0, rec_open(self->r, trace, IVRING_REC_CTF,
			      IVRING_REC_ANY_DIR, &w, err, sizeof(err)));
	ASSERT_EQ(0, ivring__rec_close(w, err, sizeof(err)));
}

TEST_HARNESS_MAIN
