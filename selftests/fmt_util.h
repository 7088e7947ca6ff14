/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * Helpers for the format tests: format texts in tracefs's shape, segments
 * with chosen format records (also records the writer would refuse), a
 * segment read back through the library and through ivring-read, and the
 * native formats kept in selftests/data/formats.  Header-only, like
 * seg_util.h.
 */
#ifndef IVRING_SELFTESTS_FMT_UTIL_H
#define IVRING_SELFTESTS_FMT_UTIL_H

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdarg.h>
#include <sys/wait.h>

#include "seg_util.h"

/* The fields of a test format, and the payload of its events. */
#define FU_AB \
	"\tfield:u32 a;\toffset:8;\tsize:4;\tsigned:0;\n" \
	"\tfield:u32 b;\toffset:12;\tsize:4;\tsigned:0;\n"

struct fu_ab {
	struct synth_common c;
	u32 a;
	u32 b;
};

#define FU_SYS		"hostile"
#define FU_OUT_MAX	(1 << 20)

extern char **environ;

/* "name: @name", "ID: @id", the common fields, @fields, "print fmt: @print". */
static __attribute__((unused)) char *
fu_text(const char *name, unsigned int id, const char *fields,
	const char *print)
{
	char *t;

	if (asprintf(&t, "name: %s\nID: %u\nformat:\n" SYNTH_COMMON_FIELDS "\n%s\nprint fmt: %s\n",
		     name, id, fields, print) < 0)
		return NULL;
	return t;
}

/* A test format named h<id> with fields a and b. */
static __attribute__((unused)) char *fu_ab_text(unsigned int id, const char *print)
{
	char name[16];

	snprintf(name, sizeof(name), "h%u", id);
	return fu_text(name, id, FU_AB, print);
}

/*
 * Append a record to the format area at @a of @area_size bytes, as a guest
 * that ignores the writer's limits would.  0 or -ENOSPC.
 */
static __attribute__((unused)) int
fu_put_record(struct ivring_format_area *a, u64 area_size, u16 id,
	      const char *sys, u32 sys_len, const void *text, u32 text_len)
{
	struct ivring_format f = {
		.rec_size = (sizeof(f) + sys_len + text_len + 7) & ~7U,
		.id = id, .sys_len = sys_len, .text_len = text_len,
	};
	u8 *rec = (u8 *)(a + 1) + a->used;

	if (a->used + (u64)f.rec_size > area_size - sizeof(*a))
		return -ENOSPC;
	memset(rec, 0, f.rec_size);
	memcpy(rec, &f, sizeof(f));
	memcpy(rec + sizeof(f), sys, sys_len);
	memcpy(rec + sizeof(f) + sys_len, text, text_len);
	a->used += f.rec_size;
	__atomic_store_n(&a->nr_events, a->nr_events + 1, __ATOMIC_RELEASE);
	return 0;
}

/*
 * After fu_put_record() into @s's own area, before the writer adds more:
 * the writer keeps its books in private memory and never reads the area's
 * (kmod/RING-DESIGN 5), so it is told where the area ends now, as a guest
 * that had written the record itself would know.
 */
static __attribute__((unused)) void fu_writer_follows(struct seg *s)
{
	s->w.fmt_used = s->w.fmt->used;
	s->w.fmt_count = s->w.fmt->nr_events;
}

/* Add a text that the writer accepts: 0 or its -errno. */
static __attribute__((unused)) int fu_add(struct seg *s, u16 id, const char *text)
{
	return ivw_add_format(&s->w, id, FU_SYS, text, strlen(text));
}

/* A test format whose print fmt is @print, as id @id: 0 or -errno. */
static __attribute__((unused)) int fu_add_ab(struct seg *s, u16 id, const char *print)
{
	char *t = fu_ab_text(id, print);
	int ret = t ? fu_add(s, id, t) : -ENOMEM;

	free(t);
	return ret;
}

/* A segment of one CPU, formatted, with the synth formats in. */
static __attribute__((unused)) int fu_seg(struct seg *s, u32 format_size)
{
	int ret = seg_format(s, 1 << 20, 1, 4096, 0, IVRING_MODE_DISCARD,
			     NULL, format_size);

	return ret ?: synth_add_formats(&s->w);
}

/*
 * Make @s LIVE and write one event of each synth type, then one event of
 * each id in @ids (a=10, b=0).  0 or -errno.
 */
static __attribute__((unused)) int
fu_events(struct seg *s, const u16 *ids, unsigned int n)
{
	u8 blob[64];
	unsigned int i;
	int ret;

	ivw_set_state(&s->w, IVRING_STATE_LIVE);
	ret = seg_write_seq(s, 0, 1, 0);
	synth_fill_blob(blob, 42, 2, 8);
	if (!ret)
		ret = ivw_write(&s->w, 0, blob, synth_blob_size(8));
	for (i = 0; !ret && i < n; i++) {
		struct fu_ab e = { .c.common_type = ids[i], .c.common_pid = 42,
				   .a = 10 };

		ret = ivw_write(&s->w, 0, &e, sizeof(e));
	}
	return ret;
}

/* What the synth events decode to: the benign formats still work. */
#define FU_SEQ_LINE	"seq=1 cpu=0 origin=0"
#define FU_BLOB_LINE	"seq=2 len=8 data="

/*
 * Read every event of @r and render it; the lines go to @out (one per
 * event, FU_OUT_MAX bytes at most).  Returns the number of events, or
 * -errno from the library.
 */
static __attribute__((unused)) int fu_render_all(struct ivring *r, char *out)
{
	struct ivring_event ev;
	size_t used = 0;
	int n = 0, ret;

	out[0] = '\0';
	while ((ret = ivring__next(r, &ev)) > 0) {
		char line[8192];

		ret = ivring__snprint(r, &ev, line, sizeof(line));
		if (ret < 0)
			return ret;
		used += snprintf(out + used, FU_OUT_MAX - used, "%s\n", line);
		if (used >= FU_OUT_MAX)
			used = FU_OUT_MAX - 1;
		n++;
	}
	return ret < 0 && ret != -EPIPE ? ret : n;
}

/*
 * Open @s as a snapshot, parse, render every event into @out, and fill @st
 * (its first_reason copied, so that it outlives the handle).  Returns the
 * number of events, or -errno.
 */
static __attribute__((unused)) int
fu_read(struct seg *s, char *out, struct ivring_format_stats *st)
{
	static char why[256];
	struct ivring *r;
	int ret = seg_open(s, IVRING_OPEN_PEEK, &r);

	if (ret)
		return ret;
	ret = ivring__tep(r) ? fu_render_all(r, out) : -ENOMEM;
	if (st) {
		st->sz = sizeof(*st);
		ivring__format_stats(r, st);
		snprintf(why, sizeof(why), "%s", st->first_reason ?: "");
		st->first_reason = why;
	}
	ivring__close(r);
	return ret;
}

/* The file as read, NUL-terminated, at most @max - 1 bytes. */
static __attribute__((unused)) void fu_slurp(int fd, char *buf, size_t max)
{
	ssize_t n = pread(fd, buf, max - 1, 0);

	buf[n > 0 ? n : 0] = '\0';
}

/*
 * Run this variant's ivring-read (build/<variant>/tools/, beside this test's
 * directory) with @args... on segment @s, with its stdout and stderr in @out
 * and @err (FU_OUT_MAX bytes each).  Returns its exit status, or 128 plus
 * the signal that killed it, or -errno.
 */
static __attribute__((unused)) int
fu_run_read(struct seg *s, char *out, char *err, const char *arg, ...)
{
	char exe[PATH_MAX], path[64], *argv[8];
	posix_spawn_file_actions_t fa;
	int fo, fe, status, argc = 0;
	ssize_t n;
	va_list ap;
	pid_t pid;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 32);
	if (n < 0)
		return -errno;
	exe[n] = '\0';
	strcpy(strrchr(exe, '/'), "/../tools/ivring-read");
	snprintf(path, sizeof(path), "/proc/%d/fd/%d", getpid(), s->fd);
	argv[argc++] = exe;
	va_start(ap, arg);
	for (; arg && argc < 6; arg = va_arg(ap, const char *))
		argv[argc++] = (char *)arg;
	va_end(ap);
	argv[argc++] = path;
	argv[argc] = NULL;

	fo = memfd_create("ivring-read-out", MFD_CLOEXEC);
	fe = memfd_create("ivring-read-err", MFD_CLOEXEC);
	if (fo < 0 || fe < 0)
		return -errno;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fo, 1);
	posix_spawn_file_actions_adddup2(&fa, fe, 2);
	status = posix_spawn(&pid, exe, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (status)
		return -status;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	fu_slurp(fo, out, FU_OUT_MAX);
	fu_slurp(fe, err, FU_OUT_MAX);
	close(fo);
	close(fe);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

/*
 * One of the native formats in selftests/data/formats/<sys>/<event> (6.1's
 * texts), or in formats-6.1-rt/ or formats-6.12/ (6.12-rt's are 6.12's).
 */
struct fu_native {
	char sys[32];
	char *text;
	u32 len;
	u16 id;
};

/* Load all of selftests/data/@set into *@out: their count, or -errno. */
static __attribute__((unused)) int fu_natives_of(const char *set,
						 struct fu_native **out)
{
	char top[PATH_MAX / 4];	/* leaves room for <sys>/<event> */
	struct fu_native *v = NULL;
	struct dirent *ds, *de;
	DIR *d, *e;
	int n = 0;

	snprintf(top, sizeof(top), "%s/%s", IVRING_SELFTESTS_DATA, set);
	d = opendir(top);

	*out = NULL;
	if (!d)
		return -errno;
	while ((ds = readdir(d))) {
		char dir[PATH_MAX];

		if (ds->d_name[0] == '.' || ds->d_type != DT_DIR)
			continue;
		snprintf(dir, sizeof(dir), "%s/%s", top, ds->d_name);
		e = opendir(dir);
		while (e && (de = readdir(e))) {
			char file[PATH_MAX + 256];
			struct fu_native *k;
			const char *idl;
			int fd;

			if (de->d_name[0] == '.')
				continue;
			v = realloc(v, (n + 1) * sizeof(*v));
			k = &v[n++];
			snprintf(k->sys, sizeof(k->sys), "%.31s", ds->d_name);
			snprintf(file, sizeof(file), "%s/%s", dir, de->d_name);
			fd = open(file, O_RDONLY);
			k->text = calloc(1, IVRING_FORMAT_TEXT_MAX + 1);
			fu_slurp(fd, k->text, IVRING_FORMAT_TEXT_MAX + 1);
			close(fd);
			k->len = strlen(k->text);
			idl = strstr(k->text, "\nID: ");
			k->id = idl ? atoi(idl + 5) : 0;
		}
		if (e)
			closedir(e);
	}
	closedir(d);
	*out = v;
	return n;
}

/* The 6.1 texts, which most tests use. */
static __attribute__((unused)) int fu_natives(struct fu_native **out)
{
	return fu_natives_of("formats", out);
}

static __attribute__((unused)) void fu_natives_free(struct fu_native *v, int n)
{
	while (n-- > 0)
		free(v[n].text);
	free(v);
}

#endif /* IVRING_SELFTESTS_FMT_UTIL_H */
