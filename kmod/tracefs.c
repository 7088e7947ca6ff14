// SPDX-License-Identifier: GPL-2.0
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * The kernel's own event definitions, read where the kernel publishes them:
 * tracefs's available_events and each event's id and format files.  The
 * module mounts tracefs privately (kern_mount(): an internal mount that no
 * namespace sees), so it needs neither a mount in the guest's tree nor any
 * private structure of the tracing core.  tracefs has one superblock, so
 * the private mount shows the same files as /sys/kernel/tracing, kprobe and
 * uprobe events included, and mounting it with no options changes none of
 * the mount options that the guest's own mount was given.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/err.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/mount.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uio.h>

#include "generic.h"

static struct vfsmount *ivr_tracefs_mnt;

int ivr_tracefs_init(void)
{
	struct file_system_type *type = get_fs_type("tracefs");
	struct vfsmount *mnt;

	if (!type) {
		pr_info("this kernel has no tracefs; only the native events are offered\n");
		return -ENODEV;
	}
	mnt = kern_mount(type);
	/* What put_filesystem() does, which is not exported. */
	module_put(type->owner);
	if (IS_ERR(mnt)) {
		pr_warn("cannot mount tracefs privately: %ld; only the native events are offered\n",
			PTR_ERR(mnt));
		return PTR_ERR(mnt);
	}
	ivr_tracefs_mnt = mnt;
	return 0;
}

void ivr_tracefs_exit(void)
{
	if (ivr_tracefs_mnt)
		kern_unmount(ivr_tracefs_mnt);
	ivr_tracefs_mnt = NULL;
}

/*
 * tracefs's files read through seq_file with .read = seq_read, and
 * kernel_read() wants .read_iter (6.1 refuses and warns).  seq_file's own
 * seq_read_iter() reads them into kernel memory.  Files that are not
 * seq_files (an event's "id") are not read.
 */
static ssize_t ivr_read_at(struct file *f, char *buf, size_t len, loff_t *pos)
{
	struct kvec kv = { .iov_base = buf, .iov_len = len };
	struct iov_iter it;
	struct kiocb kiocb;
	ssize_t n;

	if (f->f_op->read_iter)
		return kernel_read(f, buf, len, pos);
	if (f->f_op->read != seq_read)
		return -EINVAL;
	init_sync_kiocb(&kiocb, f);
	kiocb.ki_pos = *pos;
	iov_iter_kvec(&it, READ, &kv, 1, len);
	n = seq_read_iter(&kiocb, &it);
	if (n > 0)
		*pos = kiocb.ki_pos;
	return n;
}

/**
 * ivr_tracefs_read() - the whole of a tracefs file
 * @path:	relative to tracefs's root, e.g. "events/sched/sched_switch/id"
 * @max:	largest size accepted
 * @lenp:	receives the length, without the NUL added after it
 *
 * Reads with the caller's credentials, as a read of /sys/kernel/tracing
 * would: tracefs is root's.
 *
 * Context: process; may sleep.
 * Return: a kvmalloc()ed, NUL-terminated copy (kvfree() it), or ERR_PTR:
 * -ENODEV without tracefs, the open's error (-ENOENT: no such event),
 * -E2BIG for a file longer than @max.
 */
char *ivr_tracefs_read(const char *path, size_t max, size_t *lenp)
{
	struct file *f;
	size_t len = 0;
	loff_t pos = 0;
	ssize_t n;
	char *buf;

	if (!ivr_tracefs_mnt)
		return ERR_PTR(-ENODEV);
	f = file_open_root_mnt(ivr_tracefs_mnt, path, O_RDONLY, 0);
	if (IS_ERR(f))
		return ERR_CAST(f);
	buf = kvmalloc(max + 1, GFP_KERNEL);
	if (!buf) {
		fput(f);
		return ERR_PTR(-ENOMEM);
	}
	/* One byte past @max tells a file that is too long. */
	do {
		n = ivr_read_at(f, buf + len, max + 1 - len, &pos);
		if (n > 0)
			len += n;
	} while (n > 0 && len <= max);
	fput(f);
	if (n < 0 || len > max) {
		kvfree(buf);
		return ERR_PTR(n < 0 ? n : -E2BIG);
	}
	buf[len] = '\0';
	*lenp = len;
	return buf;
}
