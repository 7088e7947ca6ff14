/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * The host threads of a guest's vCPUs, for trace-cmd's GUEST option: the
 * QEMU process that maps the guest's segment file, and its threads named
 * "CPU N/TCG", "CPU N/KVM", ... (QEMU names them so when started with
 * -name NAME,debug-threads=on).
 */
#ifndef IVRING_VCPU_THREADS_H
#define IVRING_VCPU_THREADS_H

#include <stddef.h>
#include <sys/types.h>

/* Above any real guest; bounds what a hostile thread name can ask for. */
#define VCPU_MAX	1024

struct vcpu_threads {
	pid_t pid;		/* the QEMU process that maps the segment */
	unsigned int nr;	/* vCPUs found: 0..nr-1 each have a tid */
	pid_t *tid;		/* tid[vcpu], malloc()ed */
};

/*
 * The vCPU threads of the one process that maps the file @dev/@ino (the
 * segment, as fstat() gave it) and names vCPU threads; the caller itself,
 * mapping processes that name none (other readers), and those of users
 * other than the file's @owner and root (anyone who may read the file may
 * map it) are passed over.  @proc is the procfs root, "/proc" (tests pass
 * a tree of their own).
 * 0 with @out filled, or -errno having put the reason in @why:
 *   -ESRCH   no process (of the owner's or root's) maps the file
 *   -ENOENT  processes map it, but none names a vCPU thread
 *   -EINVAL  its vCPU names are not 0..N-1 each once
 *   -EEXIST  more than one process that maps it names vCPU threads
 * and other -errno from the procfs root or memory.
 */
int vcpu_threads_find(const char *proc, dev_t dev, ino_t ino, uid_t owner,
		      struct vcpu_threads *out, char *why, size_t why_len);
void vcpu_threads_free(struct vcpu_threads *v);

#endif /* IVRING_VCPU_THREADS_H */
