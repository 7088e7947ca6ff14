// SPDX-License-Identifier: GPL-2.0 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * libivring starts no process: opening a segment, parsing its formats and
 * printing its events fork nothing (the application's atfork handlers and
 * SIGCHLD handler never run), and work where no process may be made, as a
 * user with no processes left to start (RLIMIT_NPROC).
 */
#include <grp.h>
#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "kselftest_harness.h"
#include "fmt_util.h"

#define NOBODY	65534

static volatile sig_atomic_t forks, sigchlds;

static void count_fork(void)
{
	forks++;
}

static void count_sigchld(int sig)
{
	(void)sig;
	sigchlds++;
}

/* Open, parse and print everything: 0, or -errno with the message in @why. */
static int read_all(const char *path, unsigned int flags, char *why, size_t len)
{
	struct ivring_open_opts o = {
		.sz = sizeof(o), .flags = flags, .errbuf = why, .errbuf_len = len,
	};
	static char out[FU_OUT_MAX];
	struct ivring *r;
	int ret;

	why[0] = '\0';
	ret = ivring__open(path, &o, &r);
	if (ret)
		return ret;
	if (!ivring__tep(r)) {
		snprintf(why, len, "%s", ivring__errmsg(r));
		ret = -ENOMEM;
	} else if (fu_render_all(r, out) != 2 || !strstr(out, FU_SEQ_LINE)) {
		snprintf(why, len, "the events did not decode:\n%.300s", out);
		ret = -EINVAL;
	}
	ivring__close(r);
	return ret;
}

TEST(no_child_process)
{
	struct sigaction sa = { .sa_handler = count_sigchld };
	char why[512];
	struct seg s;

	ASSERT_EQ(0, pthread_atfork(count_fork, NULL, NULL));
	ASSERT_EQ(0, sigaction(SIGCHLD, &sa, NULL));
	ASSERT_EQ(0, fu_seg(&s, 0));
	ASSERT_EQ(0, fu_events(&s, NULL, 0));
	EXPECT_EQ(0, read_all(s.path, IVRING_OPEN_PEEK, why, sizeof(why)))
		TH_LOG("%s", why);
	EXPECT_EQ(0, read_all(s.path, 0, why, sizeof(why))) TH_LOG("%s", why);
	EXPECT_EQ(0, forks);
	EXPECT_EQ(0, sigchlds);
	seg_destroy(&s);
}

/*
 * As the issue showed it: nobody, with RLIMIT_NPROC below the processes it
 * has.  The segment is a file that nobody may read (the memfd's
 * /proc/self/fd link is not nobody's to follow).
 */
TEST(no_process_allowed)
{
	char dir[] = "/tmp/ivring-nofork.XXXXXX", path[64], why[512];
	struct seg s;
	pid_t pid;
	int fd, status;

	ASSERT_EQ(0, fu_seg(&s, 0));
	ASSERT_EQ(0, fu_events(&s, NULL, 0));
	ASSERT_NE(NULL, mkdtemp(dir));
	ASSERT_EQ(0, chmod(dir, 0755));
	snprintf(path, sizeof(path), "%s/seg", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
	ASSERT_LE(0, fd);
	ASSERT_EQ((ssize_t)s.size, write(fd, s.base, s.size));
	close(fd);

	fflush(stderr);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct rlimit rl = { 0, 0 };
		pid_t p;

		if (!getuid()) {
			/* root may start processes past any RLIMIT_NPROC */
			ASSERT_EQ(0, setgroups(0, NULL));
			ASSERT_EQ(0, setgid(NOBODY));
			ASSERT_EQ(0, setuid(NOBODY));
		}
		ASSERT_EQ(0, setrlimit(RLIMIT_NPROC, &rl));
		p = fork();
		if (!p)
			_exit(0);
		if (p > 0) {
			waitpid(p, NULL, 0);
			SKIP(_exit(KSFT_SKIP), "RLIMIT_NPROC does not stop fork() here");
		}
		TH_LOG("fork(): %s, as the issue's \"ulimit -u\"", strerror(errno));
		EXPECT_EQ(0, read_all(path, IVRING_OPEN_RDONLY, why, sizeof(why)))
			TH_LOG("%s", why);
		_exit(!_metadata->passed);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	unlink(path);
	rmdir(dir);
	seg_destroy(&s);
	ASSERT_TRUE(WIFEXITED(status));
	if (WEXITSTATUS(status) == KSFT_SKIP)
		SKIP(return, "RLIMIT_NPROC does not stop fork() here");
	EXPECT_EQ(0, WEXITSTATUS(status));
}

TEST_HARNESS_MAIN
