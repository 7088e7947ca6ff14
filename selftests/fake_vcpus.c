// SPDX-License-Identifier: GPL-2.0 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * fake_vcpus PATH N [spin]: a stand-in for the QEMU that runs a guest, for tests
 * of the host's side without a guest: it maps the segment file PATH, as
 * QEMU's ivshmem does, and runs N threads named as QEMU's
 * "-name NAME,debug-threads=on" names its vCPU threads ("CPU 0/TCG", ...).
 * Each prints "vcpu I TID" once it runs, then sleeps and wakes every
 * millisecond, so that the host's scheduler events show it, until stdin
 * reaches its end or the process is killed; with "spin", vCPU 0 spins
 * instead, always runnable, as a vCPU that runs a busy guest task.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAX_VCPUS	64

static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;
static int spin;

static void *vcpu(void *arg)
{
	const struct timespec ms = { 0, 1000000 };
	long i = (long)arg;
	char name[16];

	snprintf(name, sizeof(name), "CPU %ld/TCG", i);
	pthread_setname_np(pthread_self(), name);
	pthread_mutex_lock(&out_lock);
	printf("vcpu %ld %d\n", i, (int)gettid());
	fflush(stdout);
	pthread_mutex_unlock(&out_lock);
	for (;;)
		if (!(spin && i == 0))
			nanosleep(&ms, NULL);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[MAX_VCPUS];
	struct stat st;
	char buf[64];
	long i, n;
	void *map;
	int fd;

	if (argc < 3 || argc > 4 || (n = atol(argv[2])) < 1 || n > MAX_VCPUS ||
	    (argc == 4 && strcmp(argv[3], "spin"))) {
		fprintf(stderr, "usage: fake_vcpus PATH N (1..%d) [spin]\n",
			MAX_VCPUS);
		return 2;
	}
	spin = argc == 4;
	fd = open(argv[1], O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) || !st.st_size) {
		perror(argv[1]);
		return 1;
	}
	map = mmap(NULL, st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	for (i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, vcpu, (void *)i)) {
			fprintf(stderr, "fake_vcpus: pthread_create failed\n");
			return 1;
		}
	while (read(STDIN_FILENO, buf, sizeof(buf)) > 0)
		;
	return 0;
}
