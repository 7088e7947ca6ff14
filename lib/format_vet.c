// SPDX-License-Identifier: LGPL-2.1 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * Let libtraceevent parse the guest's format texts in a child process
 * before it parses them in ours.
 *
 * The texts are hostile, and libtraceevent 1.7.1's parser was not written
 * for hostile input: the hostile-segment fuzzer made it dereference NULL
 * and divide by zero inside tep_parse_format() with one-byte changes, and
 * each fix of one such path leaves the next one open.  A child that dies
 * costs us one format; a reader that dies costs the user the trace.  The
 * parse is deterministic, so a text that the child parsed and survived is
 * safe to parse again here.
 *
 * For the same reason the verdicts on the last format area vetted are
 * kept: a reader that opens the same segment again, or a new generation
 * of the same module, costs no child process.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <traceevent/event-parse.h>

#include "internal.h"

#define VET_MAX_CHILDREN	16	/* texts that kill the parser, at most */
#define VET_TIMEOUT_MS		5000	/* per text: a parser that loops is dead */

static void vet_child(const struct ivr_vet_item *items, u32 from, u32 n,
		      int fd)
{
	int null = open("/dev/null", O_WRONLY);
	u32 i;

	/* The parent's crash handlers and sanitizer reports are not ours. */
	if (null >= 0)
		dup2(null, STDERR_FILENO);
	signal(SIGSEGV, SIG_DFL);
	signal(SIGBUS, SIG_DFL);
	signal(SIGFPE, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);

	for (i = from; i < n; i++) {
		struct tep_handle *tep = tep_alloc();
		struct tep_event *ev = NULL;
		u8 ok = 0;

		if (tep) {
			tep_set_long_size(tep, 8);
			tep_set_file_bigendian(tep, TEP_LITTLE_ENDIAN);
			tep_set_local_bigendian(tep, TEP_LITTLE_ENDIAN);
			ok = !tep_parse_format(tep, &ev, items[i].text,
					       items[i].len, items[i].sys) && ev;
			tep_free(tep);
		}
		if (write(fd, &ok, 1) != 1)
			break;
	}
}

/* Verdicts from the child until it ends, dies or stalls: how many came. */
static u32 read_verdicts(int fd, u8 *ok, u32 n)
{
	u32 got = 0;

	while (got < n) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t len;

		if (poll(&p, 1, VET_TIMEOUT_MS) <= 0)
			break;
		len = read(fd, ok + got, n - got);
		if (len <= 0) {
			if (len < 0 && errno == EINTR)
				continue;
			break;
		}
		got += len;
	}
	return got;
}

/* The last area vetted, byte for byte, and its verdicts. */
static struct {
	pthread_mutex_t lock;
	u8 *area;
	u32 len;
	u32 n;
	u8 *ok;
} memo = { .lock = PTHREAD_MUTEX_INITIALIZER };

static bool memo_get(const u8 *area, u32 len, u32 n, u8 *ok)
{
	bool hit;

	pthread_mutex_lock(&memo.lock);
	hit = memo.area && memo.len == len && memo.n == n &&
	      !memcmp(memo.area, area, len);
	if (hit)
		memcpy(ok, memo.ok, n);
	pthread_mutex_unlock(&memo.lock);
	return hit;
}

static void memo_put(const u8 *area, u32 len, u32 n, const u8 *ok)
{
	u8 *a = malloc(len ? len : 1), *v = malloc(n ? n : 1);

	if (!a || !v) {
		free(a);
		free(v);
		return;
	}
	memcpy(a, area, len);
	memcpy(v, ok, n);
	pthread_mutex_lock(&memo.lock);
	free(memo.area);
	free(memo.ok);
	memo.area = a;
	memo.len = len;
	memo.n = n;
	memo.ok = v;
	pthread_mutex_unlock(&memo.lock);
}

/**
 * ivr_vet_formats() - which format texts libtraceevent survives parsing
 * @area:	the format area's records the texts come from, as the memo key
 * @area_len:	bytes of @area
 * @items:	the texts, with their system names
 * @n:		how many
 * @ok:		receives 1 for each text that parsed, 0 for the others
 *
 * Return: 0, or -errno when no child process could be made.
 */
int ivr_vet_formats(const u8 *area, u32 area_len,
		    const struct ivr_vet_item *items, u32 n, u8 *ok)
{
	u32 from = 0, children = 0;

	if (memo_get(area, area_len, n, ok))
		return 0;
	memset(ok, 0, n);
	while (from < n && children++ < VET_MAX_CHILDREN) {
		int fds[2], status;
		pid_t pid;
		u32 got;

		if (pipe2(fds, O_CLOEXEC))
			return -errno;
		pid = fork();
		if (pid < 0) {
			close(fds[0]);
			close(fds[1]);
			return -errno;
		}
		if (!pid) {
			close(fds[0]);
			vet_child(items, from, n, fds[1]);
			_exit(0);
		}
		close(fds[1]);
		got = read_verdicts(fds[0], ok + from, n - from);
		close(fds[0]);
		kill(pid, SIGKILL);
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		/* The text it stopped at killed it or hung it: it stays 0. */
		from += got + 1;
	}
	memo_put(area, area_len, n, ok);
	return 0;
}
