// SPDX-License-Identifier: GPL-2.0 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * guest-workload: a CPU-bound guest workload that makes sched, timer and kmem
 * events fire, for the tracing-overhead part of selftests/kbench/run.sh.
 *
 * Two processes, pinned (by the caller's taskset) to one CPU, play
 * ping-pong over two pipes, ITERATIONS times:
 *  - every exchange is two wake-ups and two context switches (sched);
 *  - each side waits in poll() with a timeout, which arms and cancels an
 *    hrtimer whenever it sleeps (timer), next to the scheduler tick;
 *  - every 16th exchange the responder maps, touches and unmaps 16 fresh
 *    pages (kmem: page allocations and frees, slab for the VMA);
 *  - every 64th exchange the initiator forks a child that exits at once
 *    (sched_process_*, and a burst of kmem).
 * The CPU never idles: one of the two is always runnable.
 *
 * Usage: guest-workload [ITERATIONS]	(default 2000)
 * Prints the elapsed nanoseconds, then the events that ivring and ftrace
 * took meanwhile, and those each lost (guest_stats.h).
 */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "guest_stats.h"
#include "guest_util.h"

#define PAGES		16
#define PAGE		4096
#define TOUCH_EVERY	16
#define FORK_EVERY	64

static void recv_byte(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	char c;

	/* A timeout, never reached: it makes a sleeping poll() arm a timer. */
	if (poll(&p, 1, 10000) != 1)
		die("poll");
	if (read(fd, &c, 1) != 1)
		die("read");
}

static void send_byte(int fd)
{
	if (write(fd, "x", 1) != 1)
		die("write");
}

static void touch_pages(void)
{
	char *p = mmap(NULL, PAGES * PAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int i;

	if (p == MAP_FAILED)
		die("mmap");
	for (i = 0; i < PAGES; i++)
		p[i * PAGE] = 1;
	if (munmap(p, PAGES * PAGE))
		die("munmap");
}

static void fork_exit(void)
{
	pid_t pid = fork();

	if (pid < 0)
		die("fork");
	if (!pid)
		_exit(0);
	if (waitpid(pid, NULL, 0) != pid)
		die("waitpid");
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 2000;
	int ping[2], pong[2], status;
	struct ring_counts c0, c1;
	long long t0, t1;
	pid_t peer;
	long i;

	if (n <= 0) {
		fprintf(stderr, "usage: guest-workload [ITERATIONS]\n");
		return 2;
	}
	if (pipe(ping) || pipe(pong))
		die("pipe");
	peer = fork();
	if (peer < 0)
		die("fork");
	if (!peer) {
		for (i = 0; i < n; i++) {
			recv_byte(ping[0]);
			if (i % TOUCH_EVERY == 0)
				touch_pages();
			send_byte(pong[1]);
		}
		_exit(0);
	}

	ring_counts(&c0);
	t0 = now_ns();
	for (i = 0; i < n; i++) {
		send_byte(ping[1]);
		if (i % FORK_EVERY == 0)
			fork_exit();
		recv_byte(pong[0]);
	}
	t1 = now_ns();
	ring_counts(&c1);
	if (waitpid(peer, &status, 0) != peer || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		die("the responder failed");
	printf("%lld", t1 - t0);
	ring_counts_print(&c0, &c1);
	return 0;
}
