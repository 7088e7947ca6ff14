// SPDX-License-Identifier: GPL-2.0 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * ivring_scribble: a hostile host.  Keeps writing random and adversarial
 * values over every byte of an ivshmem segment file while a guest uses it,
 * until SIGTERM or SIGINT (selftests/vm/scribble.sh).
 *
 *   ivring_scribble [-s SEED] [-b BATCH] [-p PAUSE_US] PATH
 *
 * Waits for PATH to appear with a non-zero size (QEMU creates it), maps
 * all of it shared, and then, BATCH stores at a time with PAUSE_US
 * microseconds between batches (default 256 and 100: about a million stores a
 * second without taking a whole host CPU from a TCG guest), stores what
 * scribble.h picks.  Where the areas are comes from the segment's own
 * header, re-read before each batch and believed only when it is whole
 * (the first 256 KiB are taken as metadata until it has been).
 *
 * Prints the number of stores and the seed on exit; exits 0, or 1 if PATH
 * never appeared or could not be mapped.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "scribble.h"

#define WAIT_SECS	300	/* for QEMU to create the file */
#define META_DEFAULT	(256 * 1024)

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/*
 * The layout as the guest last wrote it.  We scribble over the header too,
 * so believe it only when it is whole: the magic, and areas in order inside
 * the file, as right after a format.  Otherwise keep what we knew.
 */
static void learn_layout(struct scribble_target *t)
{
	const struct ivring_header *h = (const void *)t->base;
	struct ivring_header c;

	memcpy(&c, h, sizeof(c));
	if (c.magic != IVRING_MAGIC || c.cpu_offset < sizeof(c) ||
	    c.desc_offset <= c.cpu_offset || c.format_offset <= c.desc_offset ||
	    c.host_offset <= c.format_offset || c.data_offset <= c.host_offset ||
	    c.data_offset > t->size || c.format_size > IVRING_FORMAT_AREA_MAX ||
	    c.subbuf_size < IVRING_SUBBUF_MIN ||
	    c.subbuf_size > IVRING_SUBBUF_MAX || !c.nr_cpus ||
	    c.nr_cpus > IVRING_NR_CPUS_MAX) {
		if (!t->meta_end)
			t->meta_end = META_DEFAULT < t->size ? META_DEFAULT :
							      t->size;
		if (!t->subbuf)
			t->subbuf = 4096;
		return;
	}
	t->meta_end = c.data_offset & ~7ULL;
	t->subbuf = c.subbuf_size;
	t->format_size = c.format_size;
	t->generation = c.generation;
	t->cpu_offset = c.cpu_offset;
	t->format_offset = c.format_offset;
	t->host_offset = c.host_offset;
	t->nr_cpus = c.nr_cpus;
}

static int open_when_there(const char *path, struct scribble_target *t)
{
	struct timespec ts = { 0, 20 * 1000 * 1000 };
	struct stat st;
	int i, fd = -1;

	for (i = 0; i < WAIT_SECS * 50 && !stop; i++) {
		fd = open(path, O_RDWR);
		if (fd >= 0 && !fstat(fd, &st) && st.st_size >= 4096)
			break;
		if (fd >= 0)
			close(fd);
		fd = -1;
		nanosleep(&ts, NULL);
	}
	if (fd < 0) {
		fprintf(stderr, "ivring_scribble: %s: did not appear within %d s\n",
			path, WAIT_SECS);
		return -1;
	}
	t->size = (__u64)st.st_size & ~7ULL;
	t->base = mmap(NULL, t->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (t->base == MAP_FAILED) {
		fprintf(stderr, "ivring_scribble: %s: mmap of %llu bytes: %s\n",
			path, (unsigned long long)t->size, strerror(errno));
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	unsigned long batch = 256, pause_us = 100, i;
	struct scribble_target t = { 0 };
	struct timespec ts;
	__u64 seed = 0, r, stores = 0;
	int opt;

	while ((opt = getopt(argc, argv, "s:b:p:")) != -1) {
		switch (opt) {
		case 's': seed = strtoull(optarg, NULL, 0); break;
		case 'b': batch = strtoul(optarg, NULL, 0); break;
		case 'p': pause_us = strtoul(optarg, NULL, 0); break;
		default:
			fprintf(stderr, "usage: ivring_scribble [-s SEED] [-b BATCH] [-p PAUSE_US] PATH\n");
			return 2;
		}
	}
	if (optind + 1 != argc) {
		fprintf(stderr, "usage: ivring_scribble [-s SEED] [-b BATCH] [-p PAUSE_US] PATH\n");
		return 2;
	}
	if (!seed) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		seed = ((__u64)ts.tv_sec << 30) ^ (__u64)ts.tv_nsec ^
		       ((__u64)getpid() << 16);
	}
	r = seed;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);

	if (open_when_there(argv[optind], &t))
		return stop ? 0 : 1;
	ts.tv_sec = pause_us / 1000000;
	ts.tv_nsec = (long)(pause_us % 1000000) * 1000;
	while (!stop) {
		learn_layout(&t);
		for (i = 0; i < batch; i++)
			scribble_one(&t, &r);
		stores += batch;
		if (pause_us)
			nanosleep(&ts, NULL);
	}
	printf("ivring_scribble: %llu stores, seed %#llx\n",
	       (unsigned long long)stores, (unsigned long long)seed);
	return 0;
}
