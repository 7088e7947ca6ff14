// SPDX-License-Identifier: GPL-2.0
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * set_event_pid, set_event_notrace_pid and options/event-fork: the files
 * of tracefs, over the lists of ev_pid.c.
 *
 * tracefs empties a list when its file is opened with O_TRUNC (`>`), and
 * every write adds to it.  sysfs clears O_TRUNC before a file's write sees
 * it, so here a write at the start of a file not opened with O_APPEND
 * replaces the list, and O_APPEND (`>>`) or a later write on the same open
 * file (one past the first page, say) adds to it.  A write is all or
 * nothing: a bad token leaves the list as it was, where tracefs's `>` has
 * emptied it already.  A write of no byte never reaches us, so `: >`
 * empties nothing; `echo >` does.
 *
 * The files are binary attributes for two reasons: a list may outgrow the
 * page that a sysfs show() fills, and only a binary attribute's write sees
 * the open file, with its O_APPEND, and the offset.
 */
#include <linux/ctype.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/kobject.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "control.h"
#include "ev_pid.h"

/* tracefs's limit on one token (trace_pid_write()'s parser). */
#define IVR_PID_TOKEN_MAX	127

/*
 * Parse the pids of @buf (@len bytes) into @pids: whitespace between
 * them, each a number of kstrtoul()'s base 0 below IVR_PID_LIMIT.  A NUL
 * ends the text.  Return: the count, or -EINVAL.
 */
static int ivr_pid_parse(const char *buf, size_t len, u32 *pids)
{
	char tok[IVR_PID_TOKEN_MAX + 1];
	size_t pos = 0, start;
	unsigned long v;
	int n = 0;

	for (;;) {
		while (pos < len && isspace(buf[pos]))
			pos++;
		if (pos == len || !buf[pos])
			return n;
		start = pos;
		while (pos < len && buf[pos] && !isspace(buf[pos]))
			pos++;
		if (pos - start > IVR_PID_TOKEN_MAX)
			return -EINVAL;
		memcpy(tok, buf + start, pos - start);
		tok[pos - start] = '\0';
		/*
		 * tracefs takes up to 2^30 - 1 and cuts larger numbers to 32
		 * bits; no task can have a pid past PID_MAX_LIMIT.
		 */
		if (kstrtoul(tok, 0, &v) || v >= IVR_PID_LIMIT)
			return -EINVAL;
		pids[n++] = v;
	}
}

static ssize_t ivr_pid_file_write(enum ivr_pid_which which, struct file *file,
				  const char *buf, loff_t off, size_t count)
{
	bool replace = !off && !(file->f_flags & O_APPEND);
	size_t used = count;
	u32 *pids;
	int n, ret;

	if (!count)
		return 0;
	/*
	 * sysfs passes a page of a longer write at a time.  A number cut at
	 * the page's end is left to the next piece: the short count makes
	 * the writer send it again, at the next offset, which adds.
	 */
	if (count == PAGE_SIZE && !isspace(buf[count - 1])) {
		while (used && !isspace(buf[used - 1]))
			used--;
		if (!used)
			return -EINVAL;
	}
	pids = kvmalloc_array(used / 2 + 1, sizeof(*pids), GFP_KERNEL);
	if (!pids)
		return -ENOMEM;
	n = ivr_pid_parse(buf, used, pids);
	ret = n < 0 ? n : ivr_pids_add(which, pids, n, replace);
	kvfree(pids);
	return ret ? ret : used;
}

/*
 * sysfs reads a page at a time.  The text is taken anew only when the
 * lists changed since it was taken, and the pieces come from it: readers of a list that does not change meanwhile, several at
 * once too, each see it whole.  A read across a change (by a write, or by
 * event-fork) may be torn at a page's edge: read again.
 */
struct ivr_pid_text {
	struct mutex lock;
	char *text;
	size_t len;
	unsigned long changes;	/* ivr_pids_changes() when it was taken */
};

static struct ivr_pid_text ivr_pid_texts[IVR_PIDS_NR] = {
	[IVR_PIDS_TRACE] = {
		.lock = __MUTEX_INITIALIZER(ivr_pid_texts[IVR_PIDS_TRACE].lock),
	},
	[IVR_PIDS_NOTRACE] = {
		.lock = __MUTEX_INITIALIZER(ivr_pid_texts[IVR_PIDS_NOTRACE].lock),
	},
};

static ssize_t ivr_pid_file_read(enum ivr_pid_which which, char *buf,
				 loff_t off, size_t count)
{
	struct ivr_pid_text *t = &ivr_pid_texts[which];
	ssize_t ret = 0;
	size_t len;
	char *text;

	mutex_lock(&t->lock);
	if (!t->text || t->changes != ivr_pids_changes()) {
		text = ivr_pids_text(which, &len, &t->changes);
		if (IS_ERR(text)) {
			ret = PTR_ERR(text);
		} else {
			kvfree(t->text);
			t->text = text;
			t->len = len;
		}
	}
	if (!ret)
		ret = memory_read_from_buffer(buf, count, &off, t->text,
					      t->len);
	mutex_unlock(&t->lock);
	return ret;
}

static ssize_t set_event_pid_read(struct file *file, struct kobject *kobj,
				  struct bin_attribute *attr, char *buf,
				  loff_t off, size_t count)
{
	return ivr_pid_file_read(IVR_PIDS_TRACE, buf, off, count);
}

static ssize_t set_event_pid_write(struct file *file, struct kobject *kobj,
				   struct bin_attribute *attr, char *buf,
				   loff_t off, size_t count)
{
	return ivr_pid_file_write(IVR_PIDS_TRACE, file, buf, off, count);
}

static ssize_t set_event_notrace_pid_read(struct file *file,
					  struct kobject *kobj,
					  struct bin_attribute *attr,
					  char *buf, loff_t off, size_t count)
{
	return ivr_pid_file_read(IVR_PIDS_NOTRACE, buf, off, count);
}

static ssize_t set_event_notrace_pid_write(struct file *file,
					   struct kobject *kobj,
					   struct bin_attribute *attr,
					   char *buf, loff_t off, size_t count)
{
	return ivr_pid_file_write(IVR_PIDS_NOTRACE, file, buf, off, count);
}

/* Root's only, as tracefs is: the lists say which tasks are watched. */
BIN_ATTR_ADMIN_RW(set_event_pid, 0);
BIN_ATTR_ADMIN_RW(set_event_notrace_pid, 0);

static ssize_t event_fork_show(struct kobject *kobj,
			       struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n", ivr_pids_fork());
}

static ssize_t event_fork_store(struct kobject *kobj,
				struct kobj_attribute *attr, const char *buf,
				size_t count)
{
	bool on;
	int ret = ivr_parse_enable(buf, &on);

	if (!ret)
		ret = ivr_pids_set_fork(on);
	return ret ? ret : count;
}

/* Root's, as the lists. */
static struct kobj_attribute ivr_event_fork_attr = {
	.attr = { .name = "event-fork", .mode = 0600 },
	.show = event_fork_show,
	.store = event_fork_store,
};

static struct attribute *ivr_options_attrs[] = {
	&ivr_event_fork_attr.attr,
	NULL,
};

const struct attribute_group ivr_options_group = {
	.name = "options",
	.attrs = ivr_options_attrs,
};

/* After the files are gone. */
void ivr_set_event_pid_exit(void)
{
	unsigned int i;

	for (i = 0; i < IVR_PIDS_NR; i++) {
		kvfree(ivr_pid_texts[i].text);
		ivr_pid_texts[i].text = NULL;
	}
}
