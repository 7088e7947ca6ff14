/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * Helpers for the hostile-segment test: a reference segment built with the
 * real writer, a log of what was written, a map of where every record
 * header lies, and a guard around the reader's mapping of the file.
 *
 * Header-only on purpose: the Makefile builds each selftests/test_*.c as one
 * program, and only test_hostile.c and test_format_fuzz.c include this.
 */
#ifndef IVRING_SELFTESTS_HOSTILE_H
#define IVRING_SELFTESTS_HOSTILE_H

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>

#include "ring_writer.h"
#include "libivring.h"
#include "synth_events.h"

#define HS_PAGE		4096UL

/* ---------------------------------------------------------------------
 * A guard around the reader's mapping.
 *
 * The reader maps the segment file itself, and ASan does not watch mmapped
 * memory, so a read a few bytes past the end of the reader's mapping would go
 * unnoticed if another mapping happened to follow it (the kernel packs
 * mappings top-down, so one usually does).  The test therefore provides
 * mmap() and munmap(): while the guard is armed, the first file mapping is
 * placed at the top of a PROT_NONE reservation, so that any byte below it
 * (4 GiB) or above it (8 GiB) faults.  A hostile offset or length that the
 * reader fails to check then shows as SIGSEGV, which fails the test.
 * ------------------------------------------------------------------- */
struct hs_guard {
	bool armed;
	u8 *base;		/* the reservation */
	size_t lo, cap, hi;	/* guard below, room for the file, guard above */
	void *in_use;		/* the reader's mapping, inside the room */
	size_t in_use_len;
	unsigned long guarded, unguarded;
};

static struct hs_guard hs_guard;

static void *hs_raw_mmap(void *a, size_t l, int p, int f, int fd, off_t o)
{
	return (void *)syscall(SYS_mmap, a, l, p, f, fd, o);
}

/* Interposes on libc's mmap for the whole program, libivring.a included. */
void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	struct hs_guard *g = &hs_guard;

	if (g->armed && !addr && fd >= 0 && !(flags & MAP_FIXED) &&
	    !g->in_use && len && len <= g->cap) {
		size_t rl = (len + HS_PAGE - 1) & ~(HS_PAGE - 1);
		void *want = g->base + g->lo + g->cap - rl;
		void *p = hs_raw_mmap(want, len, prot, flags | MAP_FIXED, fd,
				      off);

		if (p != MAP_FAILED) {
			g->in_use = p;
			g->in_use_len = rl;
			g->guarded++;
		}
		return p;
	}
	if (g->armed && fd >= 0)
		g->unguarded++;
	return hs_raw_mmap(addr, len, prot, flags, fd, off);
}

int munmap(void *addr, size_t len)
{
	struct hs_guard *g = &hs_guard;

	if (g->in_use && addr == g->in_use) {
		/* Put the reservation back, so nothing else lands there. */
		void *p = hs_raw_mmap(addr, g->in_use_len, PROT_NONE,
				      MAP_PRIVATE | MAP_ANONYMOUS |
				      MAP_NORESERVE | MAP_FIXED, -1, 0);

		g->in_use = NULL;
		return p == MAP_FAILED ? -1 : 0;
	}
	return syscall(SYS_munmap, addr, len);
}

static __attribute__((unused)) int hs_guard_arm(size_t cap)
{
	struct hs_guard *g = &hs_guard;

	g->lo = 4UL << 30;
	g->hi = 8UL << 30;
	g->cap = (cap + HS_PAGE - 1) & ~(HS_PAGE - 1);
	g->base = hs_raw_mmap(NULL, g->lo + g->cap + g->hi, PROT_NONE,
			      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
			      -1, 0);
	if (g->base == MAP_FAILED)
		return -errno;
	g->in_use = NULL;
	g->armed = true;
	return 0;
}

static __attribute__((unused)) void hs_guard_disarm(void)
{
	struct hs_guard *g = &hs_guard;

	if (!g->armed)
		return;
	g->armed = false;
	syscall(SYS_munmap, g->base, g->lo + g->cap + g->hi);
	g->in_use = NULL;
}

/* Is @addr in a mapping without any access, per /proc/self/maps? */
static __attribute__((unused)) bool hs_no_access(const void *addr)
{
	unsigned long a = (unsigned long)addr, lo, hi;
	char line[512], perms[8];
	bool none = false;
	FILE *f = fopen("/proc/self/maps", "r");

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) != 3)
			continue;
		if (a >= lo && a < hi) {
			none = !strncmp(perms, "---", 3);
			break;
		}
	}
	fclose(f);
	return none;
}

/* ---------------------------------------------------------------------
 * Failure context: what was mutated, printed by the crash and hang
 * handlers so that every failure comes with its reproducer.
 * ------------------------------------------------------------------- */
static char hs_ctx[1024];
static volatile unsigned long hs_progress;
static struct sigaction hs_old_segv, hs_old_bus, hs_old_fpe;
static int hs_hang_secs = 20;
/* With IVRING_FUZZ_DUMP=path, a crash also writes the segment there. */
static const u8 *hs_dump_base;
static size_t hs_dump_size;

static void hs_dump(void)
{
	const char *path = getenv("IVRING_FUZZ_DUMP");
	int fd;
	ssize_t r;

	if (!path || !hs_dump_base)
		return;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return;
	r = write(fd, hs_dump_base, hs_dump_size);
	(void)r;
	close(fd);
}

static void hs_ctx_set(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(hs_ctx, sizeof(hs_ctx), fmt, ap);
	va_end(ap);
}

static __attribute__((unused)) void hs_ctx_add(const char *fmt, ...)
{
	size_t n = strlen(hs_ctx);
	va_list ap;

	if (n >= sizeof(hs_ctx) - 1)
		return;
	va_start(ap, fmt);
	vsnprintf(hs_ctx + n, sizeof(hs_ctx) - n, fmt, ap);
	va_end(ap);
}

static void hs_say(const char *a, const char *b)
{
	ssize_t r;

	r = write(2, a, strlen(a));
	r = write(2, b, strlen(b));
	r = write(2, "\n", 1);
	(void)r;
}

static void hs_fault(int sig, siginfo_t *si, void *uc)
{
	char buf[96];

	snprintf(buf, sizeof(buf), "# hostile: signal %d at address %p while: ",
		 sig, si->si_addr);
	hs_say(buf, hs_ctx);
	hs_dump();
	/* Hand over to ASan's handler (or the default) on the re-executed fault. */
	sigaction(SIGSEGV, &hs_old_segv, NULL);
	sigaction(SIGBUS, &hs_old_bus, NULL);
	sigaction(SIGFPE, &hs_old_fpe, NULL);
	(void)uc;
}

static void hs_tick(int sig)
{
	static unsigned long last, still;

	(void)sig;
	if (hs_progress != last) {
		last = hs_progress;
		still = 0;
		return;
	}
	if (++still < (unsigned long)hs_hang_secs)
		return;
	hs_say("# hostile: no progress (reader hang?) while: ", hs_ctx);
	hs_dump();
	abort();
}

/* SIGSEGV/SIGBUS/SIGFPE report the mutation; a 1 s tick catches a hung reader. */
static void hs_watchdog_start(void)
{
	struct sigaction sa = { .sa_sigaction = hs_fault,
				.sa_flags = SA_SIGINFO | SA_NODEFER };
	struct itimerval it = { { 1, 0 }, { 1, 0 } };
	const char *e = getenv("IVRING_HANG_SECS");

	if (e && atoi(e) > 0)
		hs_hang_secs = atoi(e);
	sigaction(SIGSEGV, &sa, &hs_old_segv);
	sigaction(SIGBUS, &sa, &hs_old_bus);
	sigaction(SIGFPE, &sa, &hs_old_fpe);
	signal(SIGALRM, hs_tick);
	setitimer(ITIMER_REAL, &it, NULL);
}

static void hs_watchdog_stop(void)
{
	struct itimerval it = { { 0, 0 }, { 0, 0 } };

	setitimer(ITIMER_REAL, &it, NULL);
	signal(SIGALRM, SIG_DFL);
}

/* ---------------------------------------------------------------------
 * Random numbers: xorshift64*, so a seed reproduces a run anywhere.
 * ------------------------------------------------------------------- */
static inline u64 hs_rand(u64 *s)
{
	u64 x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545f4914f6cdd1dULL;
}

static inline u32 hs_below(u64 *s, u32 n)
{
	return (u32)((hs_rand(s) >> 32) * n >> 32);
}

static u64 hs_env_u64(const char *name, u64 def)
{
	const char *e = getenv(name);

	return e && *e ? strtoull(e, NULL, 0) : def;
}

#endif /* IVRING_SELFTESTS_HOSTILE_H */
