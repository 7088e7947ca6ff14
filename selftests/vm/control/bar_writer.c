// SPDX-License-Identifier: GPL-2.0 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * bar_writer: in a test guest, write the ivshmem device's BAR2 from
 * userspace, word after word, for ever, through the mmap() of its sysfs
 * resource2 file: memory traffic into the shared segment like ivring's
 * writer makes, with no ivring code in the guest.  migrate_bare.sh's
 * "bar" mode runs it through a live migration, as a control.  Built
 * static by that script, for the guest's initramfs.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define PCI	"/sys/bus/pci/devices"

/* The first device of vendor 0x1af4, device 0x1110 (ivshmem). */
static int find(char *path, size_t len)
{
	char p[512], id[16];
	struct dirent *de;
	DIR *d = opendir(PCI);
	FILE *f;

	while (d && (de = readdir(d))) {
		snprintf(p, sizeof(p), PCI "/%s/device", de->d_name);
		f = fopen(p, "r");
		if (!f)
			continue;
		if (fgets(id, sizeof(id), f) && !strncmp(id, "0x1110", 6)) {
			fclose(f);
			snprintf(path, len, PCI "/%s/resource2", de->d_name);
			closedir(d);
			return 0;
		}
		fclose(f);
	}
	if (d)
		closedir(d);
	return -1;
}

int main(int argc, char **argv)
{
	/* Each writer its own half of the BAR: argv[1] is 0 or 1. */
	int half = argc > 1 ? atoi(argv[1]) & 1 : 0;
	volatile uint64_t *p;
	char path[600];
	struct stat st;
	uint64_t n, i, v = 0;
	int fd;

	if (find(path, sizeof(path)) || (fd = open(path, O_RDWR)) < 0 ||
	    fstat(fd, &st)) {
		fprintf(stderr, "bar_writer: no ivshmem BAR2\n");
		return 1;
	}
	p = mmap(NULL, st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		perror("bar_writer: mmap");
		return 1;
	}
	n = st.st_size / 16;
	p += half * n;
	for (;;)
		for (i = 0; i < n; i++)
			p[i] = v++;
}
