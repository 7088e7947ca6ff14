// SPDX-License-Identifier: GPL-2.0
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * The kernel's own event definitions, read where the kernel publishes them:
 * tracefs's available_events and each event's format file.  The module
 * uses the tracefs that init's namespace mounts at /sys/kernel/tracing (or
 * under debugfs) when there is one, and else mounts tracefs privately
 * (kern_mount(): an internal mount that no namespace sees), so it needs
 * neither a mount in the guest's tree nor any private structure of the
 * tracing core.  tracefs has one superblock, so either way the files are
 * the same, kprobe and uprobe events included.  A private mount is the
 * fallback only because mounting a single-superblock filesystem again
 * reconfigures it: 6.1 forgets the mode= that the guest's own mount
 * shows, and 6.12 its uid=, gid= and mode= (the root's permissions stay).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/err.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mount.h>
#include <linux/namei.h>
#include <linux/path.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uio.h>

#include "generic.h"

static struct path ivr_tracefs;		/* .mnt NULL: no tracefs */
static bool ivr_tracefs_private;	/* ours to kern_unmount() */

/* @name, if it is the root of a tracefs mount. */
static bool ivr_tracefs_at(const char *name, struct file_system_type *type)
{
	struct path path;

	if (kern_path(name, LOOKUP_FOLLOW, &path))
		return false;
	if (path.mnt->mnt_sb->s_type == type &&
	    path.dentry == path.mnt->mnt_root) {
		ivr_tracefs = path;
		return true;
	}
	path_put(&path);
	return false;
}

int ivr_tracefs_init(void)
{
	struct file_system_type *type = get_fs_type("tracefs");
	struct vfsmount *mnt;
	int ret = 0;

	if (!type) {
		pr_info("this kernel has no tracefs; only the native events are offered\n");
		return -ENODEV;
	}
	if (ivr_tracefs_at("/sys/kernel/tracing", type) ||
	    ivr_tracefs_at("/sys/kernel/debug/tracing", type))
		goto out;
	mnt = kern_mount(type);
	if (IS_ERR(mnt)) {
		ret = PTR_ERR(mnt);
		pr_warn("cannot mount tracefs privately: %d; only the native events are offered\n",
			ret);
		goto out;
	}
	ivr_tracefs.mnt = mnt;
	ivr_tracefs.dentry = dget(mnt->mnt_root);
	ivr_tracefs_private = true;
out:
	/* What put_filesystem() does, which is not exported. */
	module_put(type->owner);
	return ret;
}

void ivr_tracefs_exit(void)
{
	if (!ivr_tracefs.mnt)
		return;
	if (ivr_tracefs_private) {
		dput(ivr_tracefs.dentry);
		kern_unmount(ivr_tracefs.mnt);
	} else {
		path_put(&ivr_tracefs);
	}
	memset(&ivr_tracefs, 0, sizeof(ivr_tracefs));
	ivr_tracefs_private = false;
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
 * @path:	relative to tracefs's root, e.g. "events/sched/sched_switch/format"
 * @max:	largest size accepted
 * @lenp:	receives the length, without the NUL added after it
 *
 * Opens with the caller's credentials, as an open of /sys/kernel/tracing
 * would: tracefs is root's.  The reads themselves go through seq_file
 * directly, past the VFS's read-time checks (rw_verify_area(), the LSM's
 * file_permission hook); the open made them.
 *
 * Context: process; may sleep.
 * Return: a kvmalloc()ed, NUL-terminated copy (kvfree() it), or ERR_PTR:
 * -ENODEV without tracefs, the open's error (-ENOENT: no such event),
 * -E2BIG for a file longer than @max.
 */
char *ivr_tracefs_read(const char *path, size_t max, size_t *lenp)
{
	size_t len = 0, size = min_t(size_t, max, 16384);
	char *buf = NULL, *grown;
	struct file *f;
	loff_t pos = 0;
	ssize_t n = 0;

	if (!ivr_tracefs.mnt)
		return ERR_PTR(-ENODEV);
	f = file_open_root(&ivr_tracefs, path, O_RDONLY, 0);
	if (IS_ERR(f))
		return ERR_CAST(f);
	for (;;) {
		/* One byte past @max tells a file that is too long. */
		if (!buf || len == size + 1) {
			if (buf)
				size = min_t(size_t, size * 2, max);
			grown = kvmalloc(size + 2, GFP_KERNEL);
			n = -ENOMEM;
			if (!grown)
				break;
			if (buf)
				memcpy(grown, buf, len);
			kvfree(buf);
			buf = grown;
		}
		if (len > max) {
			n = -E2BIG;
			break;
		}
		n = ivr_read_at(f, buf + len, size + 1 - len, &pos);
		if (n <= 0)
			break;
		len += n;
	}
	fput(f);
	if (n < 0) {
		kvfree(buf);
		return ERR_PTR(n);
	}
	buf[len] = '\0';
	*lenp = len;
	return buf;
}
