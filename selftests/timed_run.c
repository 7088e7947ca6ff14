// SPDX-License-Identifier: GPL-2.0 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * Timing another program: wait4() gives the child's own CPU time, which
 * getrusage(RUSAGE_CHILDREN) would give summed over every child so far.
 */
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "timed_run.h"
#include "bench_util.h"

static double tv_secs(const struct timeval *tv)
{
	return tv->tv_sec + tv->tv_usec / 1e6;
}

int bench_run(char *const argv[], const char *out, struct bench_time *t)
{
	struct rusage ru;
	u64 t0, t1;
	pid_t pid;
	int status;

	t0 = now_ns();
	pid = fork();
	if (pid < 0) {
		perror("bench: fork");
		return -1;
	}
	if (!pid) {
		int fd = out ? open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644) :
			       STDOUT_FILENO;
		int null = open("/dev/null", O_WRONLY);
		int err = dup(STDERR_FILENO);

		if (fd < 0 || null < 0 || err < 0 ||
		    dup2(fd, STDOUT_FILENO) < 0 || dup2(null, STDERR_FILENO) < 0)
			_exit(126);
		execvp(argv[0], argv);
		dprintf(err, "bench: %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	while (wait4(pid, &status, 0, &ru) < 0) {
		if (errno != EINTR) {
			perror("bench: wait4");
			return -1;
		}
	}
	t1 = now_ns();
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "bench: %s %s failed (status 0x%x)\n", argv[0],
			argv[1] ? argv[1] : "", status);
		return -1;
	}
	t->wall = (t1 - t0) / 1e9;
	t->cpu = tv_secs(&ru.ru_utime) + tv_secs(&ru.ru_stime);
	return 0;
}

double bench_median(double *v, int n)
{
	if (n < 1)
		return 0;
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* build/plain/selftests/bench_x -> build/tools */
const char *bench_tools_dir(const char *argv0)
{
	static char dir[PATH_MAX];
	const char *env = getenv("IVRING_TOOLS");
	char *p;
	int i;

	if (env && *env)
		return env;
	if (!realpath(argv0, dir))
		snprintf(dir, sizeof(dir), "%s", argv0);
	for (i = 0; i < 3; i++) {
		p = strrchr(dir, '/');
		if (!p)
			return "build/tools";
		*p = '\0';
	}
	strncat(dir, "/tools", sizeof(dir) - strlen(dir) - 1);
	return dir;
}

static char tmpdir[64];

const char *bench_tmpdir(void)
{
	if (tmpdir[0])
		return tmpdir;
	snprintf(tmpdir, sizeof(tmpdir), BENCH_TMPFS "/bench.XXXXXX");
	if (!mkdtemp(tmpdir)) {
		perror("bench: mkdtemp in " BENCH_TMPFS);
		tmpdir[0] = '\0';
		return NULL;
	}
	return tmpdir;
}

void bench_tmpdir_remove(void)
{
	char path[PATH_MAX];
	struct dirent *e;
	DIR *d;

	if (!tmpdir[0])
		return;
	d = opendir(tmpdir);
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", tmpdir, e->d_name);
		unlink(path);
	}
	if (d)
		closedir(d);
	rmdir(tmpdir);
	tmpdir[0] = '\0';
}

int bench_start(int argc, char **argv, int max_rounds,
		unsigned long long def_events, int *rounds,
		unsigned long long *events, char *tools, size_t tools_len)
{
	*rounds = argc > 1 ? atoi(argv[1]) : 7;
	*events = argc > 2 ? strtoull(argv[2], NULL, 0) : def_events;
	if (*rounds < 1 || *rounds > max_rounds || !*events) {
		fprintf(stderr, "usage: %s [rounds (1-%d) [events per CPU]]\n",
			argv[0], max_rounds);
		return 2;
	}
	snprintf(tools, tools_len, "%s", bench_tools_dir(argv[0]));
	if (!bench_tmpdir())
		return 1;
	atexit(bench_tmpdir_remove);
	return 0;
}
