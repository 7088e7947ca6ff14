// SPDX-License-Identifier: GPL-2.0 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * busy_loop CPU SECONDS: a child that spins on host CPU @CPU for @SECONDS
 * of wall time, then "PID NS" on stdout: the child's pid and the CPU time
 * it ran, to the nanosecond, from its schedstat once it exited.  A zombie
 * keeps its sum_exec_runtime until it is reaped; its own read, while it
 * runs, could be a tick stale and miss its exit.  The known answer that
 * test_host_cli.sh holds ivring-vcpus to.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	unsigned long long ns;
	char path[64];
	siginfo_t si;
	cpu_set_t set;
	double end;
	pid_t pid;
	FILE *f;

	if (argc != 3) {
		fprintf(stderr, "usage: busy_loop CPU SECONDS\n");
		return 2;
	}
	CPU_ZERO(&set);
	CPU_SET(atoi(argv[1]), &set);
	pid = fork();
	if (pid < 0) {
		perror("fork");
		return 1;
	}
	if (!pid) {
		if (sched_setaffinity(0, sizeof(set), &set))
			_exit(1);
		for (end = now() + atof(argv[2]); now() < end;)
			;
		_exit(0);
	}
	/* Exited, not reaped: its schedstat is whole and still there. */
	while (waitid(P_PID, pid, &si, WEXITED | WNOWAIT))
		if (errno != EINTR) {
			perror("waitid");
			return 1;
		}
	snprintf(path, sizeof(path), "/proc/%d/schedstat", (int)pid);
	f = fopen(path, "r");
	if (!f || fscanf(f, "%llu", &ns) != 1) {
		perror(path);
		return 1;
	}
	fclose(f);
	waitpid(pid, NULL, 0);
	if (si.si_code != CLD_EXITED || si.si_status) {
		fprintf(stderr, "busy_loop: the child failed\n");
		return 1;
	}
	printf("%d %llu\n", (int)pid, ns);
	return 0;
}
