// SPDX-License-Identifier: GPL-2.0 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * The vCPU threads of the QEMU process that maps a segment, from procfs:
 * PROC/PID/maps names each file a process maps by device and inode,
 * PROC/PID/task/TID/comm each thread's name.  The names are another
 * process's, perhaps another user's and hostile: every read is bounded,
 * every number checked, and a process or thread that vanishes on the way,
 * or is not ours to read, is passed over.
 *
 * QEMU creates its vCPU threads before the guest runs, so by the time a
 * guest's module has formatted the segment they are all there; vCPUs
 * hot-plugged later are not seen.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "tool_text.h"
#include "vcpu_threads.h"

/*
 * What is read of a maps line: its fields up to the inode, which the
 * kernel prints in under 100 bytes; the path after them is skipped.
 */
#define MAPS_HEAD	256
/* A comm is at most 15 bytes and a newline: anything longer is no name. */
#define COMM_MAX	32
/* How many pids a refusal names. */
#define NAMED_MAX	4

#define NAMES_HINT	"start QEMU with -name NAME,debug-threads=on"
/* "ALL CPUs/TCG": one thread runs every vCPU, in turns. */
#define SINGLE_HINT	"one thread runs every vCPU (single-threaded TCG): start QEMU with -accel tcg,thread=multi and -name NAME,debug-threads=on"

/* The number in base @base (10 or 16) at @p: the end of it, or NULL. */
static const char *parse_num(const char *p, unsigned int base,
			     unsigned long long *v)
{
	const char *start = p;
	unsigned int d;

	for (*v = 0;; p++) {
		if (*p >= '0' && *p <= '9')
			d = *p - '0';
		else if (base == 16 && *p >= 'a' && *p <= 'f')
			d = *p - 'a' + 10;
		else
			break;
		if (*v > (ULLONG_MAX - d) / base)
			return NULL;
		*v = *v * base + d;
	}
	return p == start ? NULL : p;
}

/*
 * A pid's (or tid's) directory name as its number, 0 if it is none; one
 * with a leading zero is none, so that "%d" names the directory again.
 */
static pid_t id_of(const char *name)
{
	unsigned long long v;
	const char *end = parse_num(name, 10, &v);

	if (!end || *end || name[0] == '0' || v > INT_MAX)
		return 0;
	return v;
}

/*
 * The next line of @f into @buf, cut to @size - 1 bytes with the rest of it
 * skipped, so that the tail of a long line is never taken for a line of its
 * own.  False at the end of the file; *@cut when bytes were skipped.
 */
static bool read_head(FILE *f, char *buf, size_t size, bool *cut)
{
	size_t n = 0;
	int c;

	*cut = false;
	while ((c = getc(f)) != EOF && c != '\n') {
		if (n < size - 1)
			buf[n++] = c;
		else
			*cut = true;
	}
	buf[n] = '\0';
	return c == '\n' || n;
}

/*
 * Whether the maps line @line ("start-end perms offset MAJ:MIN inode
 * path", the device in hex) maps inode @ino of device @maj:@min.
 */
static bool maps_line_is(const char *line, bool cut, unsigned long long maj,
			 unsigned long long min, unsigned long long ino)
{
	unsigned long long a, b;
	const char *p = line;
	int i;

	for (i = 0; i < 3; i++) {	/* past start-end, perms, offset */
		p = strchr(p, ' ');
		if (!p)
			return false;
		p += strspn(p, " ");
	}
	p = parse_num(p, 16, &a);
	if (!p || *p != ':' || a != maj)
		return false;
	p = parse_num(p + 1, 16, &b);
	if (!p || *p != ' ' || b != min)
		return false;
	p = parse_num(p + 1, 10, &a);
	/* Not at the cut: the inode's digits may go on past it. */
	return p && a == ino && (*p == ' ' || (!*p && !cut));
}

/*
 * Whether process @pid maps @dev/@ino: 1, 0, or -errno when its maps
 * cannot be read.  Reading stops at the first match.
 */
static int maps_file(int procfd, pid_t pid, dev_t dev, ino_t ino)
{
	char path[32], line[MAPS_HEAD];
	int fd, ret = 0;
	bool cut;
	FILE *f;

	snprintf(path, sizeof(path), "%d/maps", pid);
	fd = openat(procfd, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	f = fdopen(fd, "r");
	if (!f) {
		ret = -errno;
		close(fd);
		return ret;
	}
	while (!ret && read_head(f, line, sizeof(line), &cut))
		ret = maps_line_is(line, cut, major(dev), minor(dev), ino);
	if (!ret && ferror(f))
		ret = -EIO;
	fclose(f);
	return ret;
}

/*
 * Thread @tid's comm, in @comm (COMM_MAX bytes) without its newline:
 * false when it cannot be read or is no comm the kernel would give (too
 * long, or with a NUL in it).
 */
static bool read_comm(int taskfd, pid_t tid, char *comm)
{
	char path[32];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%d/comm", tid);
	fd = openat(taskfd, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, comm, COMM_MAX - 1);
	close(fd);
	if (n <= 0 || n == COMM_MAX - 1)
		return false;
	if (comm[n - 1] == '\n')
		n--;
	comm[n] = '\0';
	return strlen(comm) == (size_t)n;
}

/*
 * QEMU's name for a vCPU thread, "CPU <n>/<accelerator>" ("CPU 0/KVM"):
 * true with *@vcpu = <n>, saturated at VCPU_MAX, for the caller to refuse.
 * <n> is decimal with no leading zero, as QEMU prints it.
 */
static bool vcpu_of(const char *comm, unsigned int *vcpu)
{
	const char *p = comm + 4;

	if (strncmp(comm, "CPU ", 4) || *p < '0' || *p > '9' ||
	    (*p == '0' && p[1] != '/'))
		return false;
	for (*vcpu = 0; *p >= '0' && *p <= '9'; p++)
		*vcpu = *vcpu < VCPU_MAX ? *vcpu * 10 + (*p - '0') : VCPU_MAX;
	if (*vcpu > VCPU_MAX)
		*vcpu = VCPU_MAX;
	if (*p++ != '/' || !*p)
		return false;
	for (; *p; p++)
		if (!((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
		      (*p >= '0' && *p <= '9') || *p == '_'))
			return false;
	return true;
}

/*
 * The vCPU threads of process @pid, into @v: 1 when it names some, 0 when
 * none (or it vanished), -EINVAL with @why when its names are no set of
 * vCPUs that QEMU would give (one twice, a hole, past VCPU_MAX), other
 * -errno on failure.  *@single when a thread runs every vCPU (single-
 * threaded TCG's "ALL CPUs/TCG").
 */
static int task_vcpus(int procfd, pid_t pid, struct vcpu_threads *v,
		      bool *single, char *why, size_t why_len)
{
	unsigned int vcpu, nr = 0, end = 0;
	char path[32], comm[COMM_MAX];
	struct dirent *de;
	pid_t *tid, t;
	int fd, ret = 0;
	DIR *d;

	snprintf(path, sizeof(path), "%d/task", pid);
	fd = openat(procfd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	d = fdopendir(fd);
	tid = calloc(VCPU_MAX, sizeof(*tid));
	if (!d || !tid) {
		ret = -ENOMEM;
		goto out;
	}
	while ((de = readdir(d))) {
		t = id_of(de->d_name);
		if (!t || !read_comm(dirfd(d), t, comm))
			continue;
		if (!strncmp(comm, "ALL CPUs/", 9))
			*single = true;
		if (!vcpu_of(comm, &vcpu))
			continue;
		if (vcpu >= VCPU_MAX) {
			tool_safe_text(comm);
			snprintf(why, why_len, "pid %d names thread %d \"%s\": more vCPUs than %d, not QEMU's",
				 pid, t, comm, VCPU_MAX);
			ret = -EINVAL;
			goto out;
		}
		if (tid[vcpu]) {
			snprintf(why, why_len, "pid %d names two threads (%d and %d) vCPU %u",
				 pid, tid[vcpu], t, vcpu);
			ret = -EINVAL;
			goto out;
		}
		tid[vcpu] = t;
		nr++;
		if (vcpu >= end)
			end = vcpu + 1;
	}
	if (nr && nr != end) {
		for (vcpu = 0; tid[vcpu]; vcpu++)
			;
		snprintf(why, why_len, "pid %d names vCPU threads up to %u but none for vCPU %u",
			 pid, end - 1, vcpu);
		ret = -EINVAL;
	} else if (nr) {
		v->pid = pid;
		v->nr = nr;
		v->tid = tid;
		tid = NULL;
		ret = 1;
	}
out:
	free(tid);
	if (d)
		closedir(d);
	else
		close(fd);
	return ret;
}

/* "pid A", or "pids A, B and C", or "pids A, B, C, D and N more". */
static void pids_text(char *buf, size_t len, const pid_t *pid, unsigned int n)
{
	size_t at;
	unsigned int i;

	at = snprintf(buf, len, "pid%s %d", n > 1 ? "s" : "", pid[0]);
	for (i = 1; i < n && i < NAMED_MAX && at < len; i++)
		at += snprintf(buf + at, len - at, "%s%d",
			       i + 1 == n ? " and " : ", ", pid[i]);
	if (n > NAMED_MAX && at < len)
		snprintf(buf + at, len - at, " and %u more", n - NAMED_MAX);
}

int vcpu_threads_find(const char *proc, dev_t dev, ino_t ino, uid_t owner,
		      struct vcpu_threads *out, char *why, size_t why_len)
{
	pid_t named[NAMED_MAX], quiet[NAMED_MAX], self = getpid(), pid;
	unsigned int nnamed = 0, nquiet = 0, hidden = 0, foreign = 0;
	struct stat st;
	struct vcpu_threads v = { 0 }, cur;
	char bad[160] = "", pids[64];
	bool single = false;
	int procfd, ret = 0, r;
	struct dirent *de;
	DIR *d;

	memset(out, 0, sizeof(*out));
	procfd = open(proc, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	d = procfd < 0 ? NULL : fdopendir(procfd);
	if (!d) {
		ret = -errno;
		if (procfd >= 0)
			close(procfd);
		snprintf(why, why_len, "%s: %s", proc, strerror(-ret));
		return ret;
	}
	while ((de = readdir(d))) {
		pid = id_of(de->d_name);
		if (!pid || pid == self)
			continue;
		r = maps_file(dirfd(d), pid, dev, ino);
		if (r == -EACCES || r == -EPERM)
			hidden++;
		if (r <= 0)
			continue;
		/*
		 * Whoever may read the file may map it and name threads "CPU
		 * 0/KVM": only the file's owner's processes, or root's, are
		 * taken for its QEMU.
		 */
		if (fstatat(dirfd(d), de->d_name, &st, 0) ||
		    (st.st_uid != owner && st.st_uid != 0)) {
			foreign++;
			continue;
		}
		cur = (struct vcpu_threads){ 0 };
		r = task_vcpus(dirfd(d), pid, &cur, &single,
			       nnamed ? NULL : bad, nnamed ? 0 : sizeof(bad));
		if (r == 0) {
			/* Another reader of the segment, say. */
			if (nquiet < NAMED_MAX)
				quiet[nquiet] = pid;
			nquiet++;
			continue;
		}
		if (r < 0 && r != -EINVAL) {
			snprintf(why, why_len, "pid %d's threads: %s", pid,
				 strerror(-r));
			ret = r;
			goto out;
		}
		/* Refused names still claim the guest: two claims are two. */
		if (nnamed < NAMED_MAX)
			named[nnamed] = pid;
		if (!nnamed++) {
			v = cur;
			ret = r < 0 ? r : 0;
		} else {
			vcpu_threads_free(&cur);
		}
	}
	if (nnamed > 1) {
		pids_text(pids, sizeof(pids), named, nnamed);
		snprintf(why, why_len, "%s map it and name vCPU threads: which runs the guest is ambiguous",
			 pids);
		ret = -EEXIST;
	} else if (nnamed) {
		snprintf(why, why_len, "%s", bad);
	} else if (nquiet) {
		pids_text(pids, sizeof(pids), quiet, nquiet);
		snprintf(why, why_len, "%s map%s it but name%s no vCPU thread: %s",
			 pids, nquiet > 1 ? "" : "s", nquiet > 1 ? "" : "s",
			 single ? SINGLE_HINT : NAMES_HINT);
		ret = -ENOENT;
	} else if (foreign) {
		snprintf(why, why_len, "only processes of users other than the file's owner (uid %u) or root map it: none is taken for its QEMU",
			 (unsigned int)owner);
		ret = -ESRCH;
	} else if (hidden) {
		/* QEMU may be another user's; our own PID 1 may hide too. */
		snprintf(why, why_len, "no process maps it (the maps of %u could not be read%s)",
			 hidden, geteuid() ? ": run as root or as QEMU's user" :
					     "");
		ret = -ESRCH;
	} else {
		snprintf(why, why_len, "no process maps it");
		ret = -ESRCH;
	}
out:
	closedir(d);
	if (ret)
		vcpu_threads_free(&v);
	else
		*out = v;
	return ret;
}

void vcpu_threads_free(struct vcpu_threads *v)
{
	free(v->tid);
	*v = (struct vcpu_threads){ 0 };
}
