// SPDX-License-Identifier: GPL-2.0 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * guest-hackbench: the scheduler load of "hackbench -g GROUPS -l LOOPS"
 * (process mode, sockets), written for selftests/kbench/record.sh, which
 * runs it with every sched, timer and kmem event on.
 *
 * Each group has 20 receiver and 20 sender processes.  Every receiver
 * owns one end of a Unix stream socketpair; each sender of its group
 * writes LOOPS messages of 100 bytes to every receiver of the group, so
 * a receiver reads 20 x LOOPS messages.  Senders block when a socket's
 * buffer is full and receivers when it is empty: the load is wake-ups and
 * context switches, with slab allocations for every skb.  Every process
 * says it is ready, then waits for one start signal, so that the timed
 * section holds no fork.
 *
 * Usage: guest-hackbench [GROUPS [LOOPS]]	(default 4 200)
 * Prints the elapsed nanoseconds, then over the timed section: events
 * ivring committed, ivring dropped, ftrace written (held + overwritten),
 * and the events ftrace holds at the end (its buffer is cleared just
 * before the timed section, so that they are the section's).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "guest_stats.h"
#include "guest_util.h"

#define PER_GROUP	20
#define MSG_SIZE	100

/* Tell the parent we exist, then wait until it closes the start pipe. */
static void ready_then_wait(int ready, int start)
{
	char c = 0;

	if (write(ready, &c, 1) != 1)
		die("ready");
	while (read(start, &c, 1) < 0 && errno == EINTR)
		;
}

static void io_all(int fd, char *buf, size_t len, int out)
{
	while (len) {
		ssize_t n = out ? write(fd, buf, len) : read(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			die(out ? "sender write" : "receiver read");
		buf += n;
		len -= n;
	}
}

static void receiver(int fd, long loops, int ready, int start)
{
	char buf[MSG_SIZE];
	long i;

	ready_then_wait(ready, start);
	for (i = 0; i < PER_GROUP * loops; i++)
		io_all(fd, buf, MSG_SIZE, 0);
	_exit(0);
}

static void sender(const int *fds, long loops, int ready, int start)
{
	char buf[MSG_SIZE];
	long i;
	int j;

	memset(buf, 'h', sizeof(buf));
	ready_then_wait(ready, start);
	for (i = 0; i < loops; i++)
		for (j = 0; j < PER_GROUP; j++)
			io_all(fds[j], buf, MSG_SIZE, 1);
	_exit(0);
}

static int ready[2], start[2];

/* A worker keeps no end that would hold off its own start signal. */
static pid_t spawn(void)
{
	pid_t pid = fork();

	if (pid < 0)
		die("fork");
	if (!pid) {
		close(start[1]);
		close(ready[0]);
	}
	return pid;
}

int main(int argc, char **argv)
{
	long groups = argc > 1 ? atol(argv[1]) : 4;
	long loops = argc > 2 ? atol(argv[2]) : 200;
	long long t0, t1, iv0, ivd0, ft0, iv1, ivd1, ft1, kept;
	int sv[PER_GROUP][2], send_fds[PER_GROUP];
	long g, i, nproc = 0, bad = 0;
	int status;
	char c;

	if (groups <= 0 || loops <= 0) {
		fprintf(stderr, "usage: guest-hackbench [GROUPS [LOOPS]]\n");
		return 2;
	}
	if (pipe(ready) || pipe(start))
		die("pipe");
	for (g = 0; g < groups; g++) {
		for (i = 0; i < PER_GROUP; i++) {
			if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv[i]))
				die("socketpair");
			if (!spawn())
				receiver(sv[i][0], loops, ready[1], start[0]);
			close(sv[i][0]);
			send_fds[i] = sv[i][1];
		}
		for (i = 0; i < PER_GROUP; i++)
			if (!spawn())
				sender(send_fds, loops, ready[1], start[0]);
		/* This group's sockets now live only in its processes. */
		for (i = 0; i < PER_GROUP; i++)
			close(send_fds[i]);
		nproc += 2 * PER_GROUP;
	}
	for (i = 0; i < nproc; i++)
		if (read(ready[0], &c, 1) != 1)
			die("waiting for the workers");

	/* An O_TRUNC open of trace empties ftrace's buffer. */
	close(open(FTRACE_TRACEFS "/trace", O_WRONLY | O_TRUNC));
	iv0 = ring_sum(IVRING_SYSFS, "entries: ");
	ivd0 = ring_sum(IVRING_SYSFS, "dropped events: ");
	ft0 = ring_events(FTRACE_TRACEFS, 1);
	t0 = now_ns();
	close(start[1]);		/* every worker's read returns 0 */
	for (i = 0; i < nproc; i++) {
		if (wait(&status) < 0)
			die("wait");
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			bad++;
	}
	t1 = now_ns();
	iv1 = ring_sum(IVRING_SYSFS, "entries: ");
	ivd1 = ring_sum(IVRING_SYSFS, "dropped events: ");
	ft1 = ring_events(FTRACE_TRACEFS, 1);
	kept = ring_sum(FTRACE_TRACEFS, "entries: ");
	if (bad) {
		fprintf(stderr, "guest-hackbench: %ld workers failed\n", bad);
		return 1;
	}
	printf("%lld %lld %lld %lld %lld\n", t1 - t0, iv1 - iv0, ivd1 - ivd0,
	       ft1 - ft0, kept);
	return 0;
}
