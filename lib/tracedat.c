// SPDX-License-Identifier: LGPL-2.1 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * trace-cmd's trace.dat, versions 6 and 7 (trace-cmd.dat.v6(5),
 * trace-cmd.dat.v7(5)), written from pages that are already in the ring
 * buffer's format: nothing is decoded.
 *
 * A trace.dat keeps each CPU's data in one piece, after a header that lists
 * where each piece starts, so pages are spooled to one file per CPU
 * (PATH.cpuN, as trace-cmd record does) and the file is put together at
 * the end: the header and the metadata into PATH.tmp, then each CPU's
 * spool appended with copy_file_range(), then a rename.
 *
 * The cmdlines come from the events that name a task (sched_switch's prev
 * and next, the comm and pid of sched_wakeup and others): while spooling,
 * each page's records are walked by their headers alone, and only the
 * events of those types are looked into.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <traceevent/event-parse.h>
#include <unistd.h>

#include "record.h"

#define SPOOL_PAGES	64		/* a CPU's pages per write() */
#define COMM_LEN	16		/* the kernel's TASK_COMM_LEN */
#define COMMS_MAX	32768		/* distinct pids: a hostile guest could invent more */
#define COMM_SLOTS	65536		/* open addressing, at most half full */
#define COMM_SRCS_MAX	16

/* trace-cmd's option and section ids (trace-cmd.dat.v7(5)) */
enum {
	OPT_DONE = 0,
	OPT_BUFFER = 3,
	OPT_TRACECLOCK = 4,
	OPT_UNAME = 5,
	OPT_CPUCOUNT = 8,
	OPT_VERSION = 9,
	OPT_TRACEID = 11,
	OPT_HEADER_INFO = 16,
	OPT_FTRACE_EVENTS = 17,
	OPT_EVENT_FORMATS = 18,
	OPT_KALLSYMS = 19,
	OPT_PRINTK = 20,
	OPT_CMDLINES = 21,
};

/* Where an event type carries a task's comm and pid. */
struct comm_src {
	u16 type;
	u16 comm_off;
	u16 comm_len;
	u16 pid_off;
};

struct comm_slot {
	int32_t pid;		/* -1: empty */
	char comm[COMM_LEN + 1];
};

struct spool {
	int fd;
	u8 *buf;		/* SPOOL_PAGES pages */
	u32 used;		/* pages in buf */
	u64 size;		/* bytes written to fd */
};

struct tracedat {
	struct spool *cpus;
	u32 subbuf_size;
	struct comm_src srcs[COMM_SRCS_MAX];
	u32 nr_srcs;
	u8 src_types[65536 / 8];	/* bitmap: type has a comm_src */
	struct comm_slot *comms;
	u32 nr_comms;
	u32 head_comms;			/* nr_comms when PATH.head was written */
	bool head;			/* PATH.head is ours */
	/*
	 * The spools hold consumed events from the first page on: they are
	 * removed once the file is put together, or when there never was a
	 * page, and kept when putting it together failed.
	 */
	bool done;
};

/* A growable buffer for the metadata, written in the file's byte order. */
struct obuf {
	u8 *p;
	size_t len;
	size_t cap;
	bool nomem;
};

static void put(struct obuf *b, const void *src, size_t len)
{
	if (b->nomem)
		return;
	if (b->len + len > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		u8 *p;

		while (cap < b->len + len)
			cap *= 2;
		p = realloc(b->p, cap);
		if (!p) {
			b->nomem = true;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, src, len);
	b->len += len;
}

/* The host is little-endian, as the guest is (x86-64 both). */
static void put16(struct obuf *b, u16 v) { put(b, &v, 2); }
static void put32(struct obuf *b, u32 v) { put(b, &v, 4); }
static void put64(struct obuf *b, u64 v) { put(b, &v, 8); }
static void put_str(struct obuf *b, const char *s) { put(b, s, strlen(s) + 1); }

static void set64(struct obuf *b, size_t at, u64 v)
{
	if (!b->nomem)
		memcpy(b->p + at, &v, 8);
}

static void set32(struct obuf *b, size_t at, u32 v)
{
	if (!b->nomem)
		memcpy(b->p + at, &v, 4);
}

/* --- cmdlines ---------------------------------------------------------- */

static void add_src(struct tracedat *t, struct tep_event *ev,
		    const char *comm, const char *pid)
{
	struct tep_format_field *c = tep_find_field(ev, comm);
	struct tep_format_field *p = tep_find_field(ev, pid);
	struct comm_src *s;

	/*
	 * A fixed char array and a 4-byte pid, inside the 64 KiB that a
	 * format may describe: anything else is not a task's name.
	 */
	if (!c || !p || t->nr_srcs == COMM_SRCS_MAX || p->size != 4 ||
	    !(c->flags & TEP_FIELD_IS_ARRAY) ||
	    (c->flags & TEP_FIELD_IS_DYNAMIC) || !c->size ||
	    c->offset + c->size > IVR_FIELD_END_MAX ||
	    p->offset + 4 > IVR_FIELD_END_MAX)
		return;
	s = &t->srcs[t->nr_srcs++];
	s->type = ev->id;
	s->comm_off = c->offset;
	s->comm_len = c->size < COMM_LEN ? c->size : COMM_LEN;
	s->pid_off = p->offset;
	t->src_types[ev->id / 8] |= 1 << (ev->id % 8);
}

/* The same events that ivring__snprint() learns comms from (render.c). */
static void find_comm_srcs(struct tracedat *t, struct ivring_rec *w,
			   struct ivring *r)
{
	u32 i;

	for (i = 0; i < w->nr_fmts; i++) {
		struct tep_event *ev = ivring__event(r, w->fmts[i].id);

		if (!ev)
			continue;
		add_src(t, ev, "prev_comm", "prev_pid");
		add_src(t, ev, "next_comm", "next_pid");
		add_src(t, ev, "comm", "pid");
	}
}

static void learn(struct tracedat *t, const struct comm_src *s,
		  const u8 *data, u32 size)
{
	char comm[COMM_LEN + 1];
	struct comm_slot *slot;
	int32_t pid;
	u32 h, i;

	if (s->comm_off + s->comm_len > size || s->pid_off + 4u > size)
		return;
	memcpy(&pid, data + s->pid_off, 4);
	if (pid < 0)
		return;
	/*
	 * A line of the cmdlines each: a control character from a hostile
	 * comm would end the line early and add one of the guest's choice.
	 */
	for (i = 0; i < s->comm_len && data[s->comm_off + i]; i++) {
		u8 ch = data[s->comm_off + i];

		comm[i] = ch < 0x20 || ch == 0x7f ? '?' : ch;
	}
	comm[i] = '\0';
	if (!i)
		return;
	h = ((u32)pid * 2654435761U) % COMM_SLOTS;
	for (;; h = (h + 1) % COMM_SLOTS) {
		slot = &t->comms[h];
		if (slot->pid == pid || slot->pid < 0)
			break;
	}
	if (slot->pid < 0) {
		if (t->nr_comms >= COMMS_MAX)
			return;
		t->nr_comms++;
		slot->pid = pid;
	}
	memcpy(slot->comm, comm, i + 1);
}

static void learn_page(struct tracedat *t, const struct ivring_page *pg)
{
	const struct ivring_subbuf_hdr *h = pg->data;
	const u8 *rec = (const u8 *)pg->data + sizeof(*h);
	struct ivring_event ev;
	u64 ts = h->time_stamp;
	u32 off = 0, end, i;

	while (ivr_rec_parse(rec, pg->len, &off, &ts, &ev, &end) > 0) {
		if (t->src_types[ev.type / 8] & (1 << (ev.type % 8))) {
			for (i = 0; i < t->nr_srcs; i++)
				if (t->srcs[i].type == ev.type)
					learn(t, &t->srcs[i], ev.data, ev.size);
		}
		off = end;
		ts = ev.ts;
	}
}

static void put_cmdlines(struct obuf *b, struct tracedat *t)
{
	char line[32 + COMM_LEN];
	size_t at;
	u32 i;

	at = b->len;
	put64(b, 0);
	for (i = 0; i < COMM_SLOTS; i++) {
		const struct comm_slot *s = &t->comms[i];
		int n;

		if (s->pid < 0)
			continue;
		n = snprintf(line, sizeof(line), "%d %s\n", s->pid, s->comm);
		put(b, line, n);
	}
	set64(b, at, b->len - at - 8);
}

/* --- spooling ---------------------------------------------------------- */

static int write_head(struct ivring_rec *w);

static int spool_flush(struct ivring_rec *w, u32 cpu)
{
	struct tracedat *t = w->priv;
	struct spool *s = &t->cpus[cpu];
	size_t len = (size_t)s->used * t->subbuf_size;
	int ret;

	if (!s->used)
		return 0;
	ret = ivr_write_all(s->fd, s->buf, len);
	if (ret)
		return ivr_rec_err(w, ret, "%s.cpu%u: %s", w->path, cpu,
				   strerror(-ret));
	s->size += len;
	s->used = 0;
	w->cpus[cpu].bytes = s->size;
	return 0;
}

static int td_flush(struct ivring_rec *w)
{
	struct tracedat *t = w->priv;
	u32 cpu;
	int ret;

	for (cpu = 0; cpu < w->info.nr_cpus; cpu++) {
		ret = spool_flush(w, cpu);
		if (ret)
			return ret;
	}
	return t->nr_comms != t->head_comms ? write_head(w) : 0;
}

static u8 *td_slot(struct ivring_rec *w, u32 cpu)
{
	struct tracedat *t = w->priv;
	struct spool *s = &t->cpus[cpu];

	return s->buf + (size_t)s->used * t->subbuf_size;
}

static int td_put(struct ivring_rec *w, u32 cpu, const struct ivring_page *pg)
{
	struct tracedat *t = w->priv;
	struct spool *s = &t->cpus[cpu];

	if (t->nr_srcs)
		learn_page(t, pg);
	if (++s->used == SPOOL_PAGES)
		return spool_flush(w, cpu);
	return 0;
}

static int td_page(struct ivring_rec *w, u32 cpu, const struct ivring_page *pg)
{
	struct tracedat *t = w->priv;

	memcpy(td_slot(w, cpu), pg->data, t->subbuf_size);
	return td_put(w, cpu, pg);
}

static void spool_name(char *buf, size_t len, const struct ivring_rec *w,
		       u32 cpu)
{
	snprintf(buf, len, "%s.cpu%u", w->path, cpu);
}

static int td_begin(struct ivring_rec *w, struct ivring *r)
{
	char name[PATH_MAX + 32];
	struct tracedat *t;
	u32 cpu, i;

	if (w->info.subbuf_size & (w->info.subbuf_size - 1))
		return ivr_rec_err(w, -EINVAL,
				   "sub-buffers of %u bytes: trace.dat pages are a power of two",
				   w->info.subbuf_size);
	t = calloc(1, sizeof(*t));
	if (!t)
		return ivr_rec_err(w, -ENOMEM, "out of memory for a trace.dat");
	w->priv = t;
	t->subbuf_size = w->info.subbuf_size;
	t->cpus = calloc(w->info.nr_cpus, sizeof(*t->cpus));
	t->comms = malloc(COMM_SLOTS * sizeof(*t->comms));
	if (!t->cpus || !t->comms)
		return ivr_rec_err(w, -ENOMEM, "out of memory for a trace.dat");
	for (i = 0; i < COMM_SLOTS; i++)
		t->comms[i].pid = -1;
	for (cpu = 0; cpu < w->info.nr_cpus; cpu++)
		t->cpus[cpu].fd = -1;
	for (cpu = 0; cpu < w->info.nr_cpus; cpu++) {
		struct spool *s = &t->cpus[cpu];

		s->buf = malloc((size_t)SPOOL_PAGES * t->subbuf_size);
		if (!s->buf)
			return ivr_rec_err(w, -ENOMEM, "out of memory for a trace.dat");
		spool_name(name, sizeof(name), w, cpu);
		/*
		 * A spool that exists is the data of a recorder that died
		 * before it put its file together: consumed events, which
		 * nothing else holds.  Never truncate one.
		 */
		s->fd = open(name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (s->fd < 0 && errno == EEXIST)
			return ivr_rec_err(w, -EEXIST,
					   "%s exists: it holds the pages of a recording that did not finish; move it away first",
					   name);
		if (s->fd < 0)
			return ivr_rec_err(w, -errno, "%s: %s", name,
					   strerror(errno));
	}
	find_comm_srcs(t, w, r);
	return write_head(w);
}

/* --- putting the file together ----------------------------------------- */

/* ring_buffer_print_page_header(): the page header as the guest has it. */
static void put_header_info(struct obuf *b, u32 subbuf_size)
{
	char text[512];
	int n;

	n = snprintf(text, sizeof(text),
		     "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
		     "\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
		     "\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
		     "\tfield: char data;\toffset:16;\tsize:%u;\tsigned:1;\n",
		     subbuf_size - 16);
	put_str(b, "header_page");
	put64(b, n);
	put(b, text, n);
	/* ring_buffer_print_entry_header(): the record header of <linux/ivring.h> */
	n = snprintf(text, sizeof(text),
		     "# compressed entry header\n"
		     "\ttype_len    :    5 bits\n"
		     "\ttime_delta  :   27 bits\n"
		     "\tarray       :   32 bits\n"
		     "\n"
		     "\tpadding     : type == %d\n"
		     "\ttime_extend : type == %d\n"
		     "\ttime_stamp : type == %d\n"
		     "\tdata max type_len  == %d\n",
		     IVRING_TYPE_PADDING, IVRING_TYPE_TIME_EXTEND,
		     IVRING_TYPE_TIME_STAMP, 28);
	put_str(b, "header_event");
	put64(b, n);
	put(b, text, n);
}

/*
 * A format's text, for libtraceevent in trace-cmd and KernelShark.  A print
 * fmt that libivring found not provably safe (a division by a field, a
 * helper it does not know) can crash them, as it could crash us (trace-cmd
 * 3.1.6 dies of SIGFPE on the first): it is left empty, which
 * libtraceevent fails to parse, and so prints "[FAILED TO PARSE]" and the
 * event's fields, as ivring-read prints the fields.
 */
static void put_format(struct obuf *b, const struct ivr_rec_fmt *f)
{
	/* Not even "": libtraceevent would print that, and no field. */
	static const char safe[] = "print fmt: \n";
	const char *p = f->text;
	u32 len = f->len;

	if (f->flags & IVRING_FORMAT_RAW) {
		p = memmem(f->text, f->len, "\nprint fmt:", 11);
		len = p ? p + 1 - f->text : f->len;
		p = f->text;
		put64(b, len + sizeof(safe) - 1);
		put(b, p, len);
		put(b, safe, sizeof(safe) - 1);
		return;
	}
	put64(b, len);
	put(b, p, len);
}

static int cmp_sys(const void *a, const void *b)
{
	const struct ivr_rec_fmt *x = a, *y = b;
	int c = strcmp(x->system, y->system);

	return c ? c : (x->id > y->id) - (x->id < y->id);
}

/* Every event's format text, grouped by system. */
static void put_event_formats(struct obuf *b, struct ivring_rec *w)
{
	u32 i, j, nr_sys = 0;
	size_t at_sys;

	qsort(w->fmts, w->nr_fmts, sizeof(*w->fmts), cmp_sys);
	at_sys = b->len;
	put32(b, 0);
	for (i = 0; i < w->nr_fmts; i = j) {
		size_t at_n;

		put_str(b, w->fmts[i].system);
		at_n = b->len;
		put32(b, 0);
		for (j = i; j < w->nr_fmts &&
			    !strcmp(w->fmts[j].system, w->fmts[i].system); j++)
			put_format(b, &w->fmts[j]);
		set32(b, at_n, j - i);
		nr_sys++;
	}
	set32(b, at_sys, nr_sys);
}

static void put_option(struct obuf *b, u16 id, const void *data, u32 len)
{
	put16(b, id);
	put32(b, len);
	put(b, data, len);
}

static void put_option64(struct obuf *b, u16 id, u64 v)
{
	put_option(b, id, &v, 8);
}

static void put_option_str(struct obuf *b, u16 id, const char *s)
{
	put_option(b, id, s, strlen(s) + 1);
}

/* The options that both versions carry. */
static void put_common_options(struct obuf *b, struct ivring_rec *w)
{
	char text[64];
	u32 cpus = w->info.nr_cpus;

	snprintf(text, sizeof(text), "[%s]\n", w->info.clock_name);
	put_option_str(b, OPT_TRACECLOCK, text);
	put_option64(b, OPT_TRACEID, w->trace_id);
	put_option(b, OPT_CPUCOUNT, &cpus, 4);
	put_option_str(b, OPT_UNAME, w->name);
	put_option_str(b, OPT_VERSION, "ivring " IVRING_VERSION);
}

static u64 page_align(u64 off, u32 page)
{
	return (off + page - 1) & ~(u64)(page - 1);
}

/* The offset of each CPU's data, once the metadata is @meta bytes long. */
static void place_cpus(struct ivring_rec *w, u64 meta, u64 *offs)
{
	struct tracedat *t = w->priv;
	u64 off = page_align(meta, t->subbuf_size);
	u32 cpu;

	for (cpu = 0; cpu < w->info.nr_cpus; cpu++) {
		offs[cpu] = off;
		off += t->cpus[cpu].size;
	}
}

/* Where the last CPU's data ends: the end of the file. */
static u64 data_end(const struct ivring_rec *w, const u64 *offs)
{
	const struct tracedat *t = w->priv;
	u32 last = w->info.nr_cpus - 1;

	return offs[last] + t->cpus[last].size;
}

static void put_magic(struct obuf *b, struct ivring_rec *w, unsigned int v)
{
	static const u8 magic[] = { 0x17, 0x08, 0x44 };
	char version[2] = { (char)('0' + v), 0 };

	put(b, magic, sizeof(magic));
	put(b, "tracing", 7);
	put(b, version, 2);
	put(b, "\0\10", 2);		/* little-endian, 8-byte longs */
	put32(b, w->info.subbuf_size);
}

/*
 * Version 6: everything inline, then "options  ", then "flyrecord" with
 * each CPU's offset and size.
 */
static void build_v6_head(struct obuf *b, struct ivring_rec *w)
{
	put_magic(b, w, 6);
	put_header_info(b, w->info.subbuf_size);
	put32(b, 0);				/* ftrace's own events */
	put_event_formats(b, w);
	put32(b, 0);				/* kallsyms */
	put32(b, 0);				/* trace_printk formats */
	put_cmdlines(b, w->priv);
}

/*
 * PATH.head: a trace.dat v6 up to its cmdlines, which is what trace-cmd
 * restore takes with -i.  Should the recorder die before it puts PATH
 * together, "trace-cmd restore -i PATH.head -o PATH PATH.cpu0 PATH.cpu1 ..."
 * does it instead.  Rewritten (atomically) when new cmdlines were learned.
 */
static int write_head(struct ivring_rec *w)
{
	char name[PATH_MAX + 32], tmp[PATH_MAX + 32];
	struct tracedat *t = w->priv;
	struct obuf b = { 0 };
	int fd, ret;

	snprintf(name, sizeof(name), "%s.head", w->path);
	snprintf(tmp, sizeof(tmp), "%s.head.tmp", w->path);
	build_v6_head(&b, w);
	if (b.nomem)
		return ivr_rec_err(w, -ENOMEM, "out of memory for %s", name);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		ret = ivr_rec_err(w, -errno, "%s: %s", tmp, strerror(errno));
		goto out;
	}
	ret = ivr_write_all(fd, b.p, b.len);
	if (close(fd) && !ret)
		ret = -errno;
	if (!ret && rename(tmp, name))
		ret = -errno;
	if (ret) {
		unlink(tmp);
		ivr_rec_err(w, ret, "%s: %s", name, strerror(-ret));
		goto out;
	}
	t->head_comms = t->nr_comms;
	t->head = true;
out:
	free(b.p);
	return ret;
}

static void build_v6(struct obuf *b, struct ivring_rec *w, u64 *offs)
{
	struct tracedat *t = w->priv;
	size_t at_cpus;
	u32 cpu;

	build_v6_head(b, w);
	put32(b, w->info.nr_cpus);
	put(b, "options  ", 10);
	put_common_options(b, w);
	put16(b, OPT_DONE);
	put(b, "flyrecord", 10);
	at_cpus = b->len;
	for (cpu = 0; cpu < w->info.nr_cpus; cpu++) {
		put64(b, 0);
		put64(b, t->cpus[cpu].size);
	}
	place_cpus(w, b->len, offs);
	for (cpu = 0; cpu < w->info.nr_cpus; cpu++)
		set64(b, at_cpus + 16 * cpu, offs[cpu]);
}

/* A version 7 section: its header, then @fill's bytes; returns its offset. */
static u64 put_section(struct obuf *b, u16 id,
		       void (*fill)(struct obuf *b, struct ivring_rec *w),
		       struct ivring_rec *w)
{
	u64 at = b->len;

	put16(b, id);
	put16(b, 0);			/* not compressed */
	put32(b, (u32)-1);		/* no description string */
	put64(b, 0);
	fill(b, w);
	set64(b, at + 8, b->len - at - 16);
	return at;
}

static void fill_header_info(struct obuf *b, struct ivring_rec *w)
{
	put_header_info(b, w->info.subbuf_size);
}

static void fill_event_formats(struct obuf *b, struct ivring_rec *w)
{
	put_event_formats(b, w);
}

static void fill_empty32(struct obuf *b, struct ivring_rec *w)
{
	put32(b, 0);
}

static void fill_cmdlines(struct obuf *b, struct ivring_rec *w)
{
	put_cmdlines(b, w->priv);
}

/* Section offsets, in the order trace-cmd writes them. */
struct v7_sections {
	u64 header_info, ftrace_events, event_formats, kallsyms, printk,
	    cmdlines;
};

static void put_buffer_option(struct obuf *b, struct ivring_rec *w,
			      u64 flyrecord, const u64 *offs)
{
	struct tracedat *t = w->priv;
	struct obuf o = { 0 };
	u32 cpu;

	put64(&o, flyrecord);
	put_str(&o, "");			/* the top instance */
	put_str(&o, w->info.clock_name);
	put32(&o, w->info.subbuf_size);
	put32(&o, w->info.nr_cpus);
	for (cpu = 0; cpu < w->info.nr_cpus; cpu++) {
		put32(&o, cpu);
		put64(&o, offs[cpu]);
		put64(&o, t->cpus[cpu].size);
	}
	if (o.nomem)
		b->nomem = true;
	else
		put_option(b, OPT_BUFFER, o.p, o.len);
	free(o.p);
}

/*
 * Version 7: the metadata sections, one options section that points at
 * them and describes the flyrecord buffer, then the flyrecord section,
 * whose CPU data starts page-aligned.  The options are built twice: the
 * first pass only measures, as the offsets depend on their own length.
 */
static void build_v7(struct obuf *b, struct ivring_rec *w, u64 *offs)
{
	struct v7_sections sec;
	size_t at_opts_ptr, at_opts, opts_len = 0;
	int pass;

	put_magic(b, w, 7);
	put_str(b, "none");			/* compression */
	put_str(b, "");
	at_opts_ptr = b->len;
	put64(b, 0);
	sec.header_info = put_section(b, OPT_HEADER_INFO, fill_header_info, w);
	sec.ftrace_events = put_section(b, OPT_FTRACE_EVENTS, fill_empty32, w);
	sec.event_formats = put_section(b, OPT_EVENT_FORMATS, fill_event_formats, w);
	sec.kallsyms = put_section(b, OPT_KALLSYMS, fill_empty32, w);
	sec.printk = put_section(b, OPT_PRINTK, fill_empty32, w);
	sec.cmdlines = put_section(b, OPT_CMDLINES, fill_cmdlines, w);
	at_opts = b->len;
	set64(b, at_opts_ptr, at_opts);
	for (pass = 0; pass < 2; pass++) {
		u64 flyrecord = at_opts + opts_len;

		b->len = at_opts;
		put16(b, 0);			/* the options section */
		put16(b, 0);
		put32(b, (u32)-1);
		put64(b, 0);
		put_option64(b, OPT_HEADER_INFO, sec.header_info);
		put_option64(b, OPT_FTRACE_EVENTS, sec.ftrace_events);
		put_option64(b, OPT_EVENT_FORMATS, sec.event_formats);
		put_option64(b, OPT_KALLSYMS, sec.kallsyms);
		put_option64(b, OPT_PRINTK, sec.printk);
		put_option64(b, OPT_CMDLINES, sec.cmdlines);
		put_common_options(b, w);
		/* The flyrecord section header follows the options. */
		place_cpus(w, flyrecord + 16, offs);
		put_buffer_option(b, w, flyrecord, offs);
		put_option64(b, OPT_DONE, 0);
		set64(b, at_opts + 8, b->len - at_opts - 16);
		opts_len = b->len - at_opts;
	}
	put16(b, OPT_BUFFER);			/* the flyrecord section */
	put16(b, 0);
	put32(b, (u32)-1);
	put64(b, 0);
	set64(b, b->len - 8, data_end(w, offs) - b->len);
}

static int copy_spool(struct ivring_rec *w, int out, u32 cpu, u64 off)
{
	struct tracedat *t = w->priv;
	struct spool *s = &t->cpus[cpu];
	loff_t in_off = 0, out_off = off;
	u64 left = s->size;

	while (left) {
		ssize_t n = copy_file_range(s->fd, &in_off, out, &out_off,
					    left, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EXDEV || errno == ENOSYS ||
			      errno == EOPNOTSUPP || errno == EINVAL))
			break;		/* read and write below */
		if (n <= 0)
			return ivr_rec_err(w, n ? -errno : -EIO,
					   "%s: copying CPU %u's data: %s",
					   w->path, cpu,
					   strerror(n ? errno : EIO));
		left -= n;
	}
	while (left) {
		ssize_t n = pread(s->fd, s->buf,
				  left < (u64)SPOOL_PAGES * t->subbuf_size ?
				  left : (u64)SPOOL_PAGES * t->subbuf_size,
				  in_off);
		int ret;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return ivr_rec_err(w, n ? -errno : -EIO,
					   "%s.cpu%u: %s", w->path, cpu,
					   strerror(n ? errno : EIO));
		ret = ivr_pwrite_all(out, s->buf, n, out_off);
		if (ret)
			return ivr_rec_err(w, ret, "%s: %s", w->path,
					   strerror(-ret));
		in_off += n;
		out_off += n;
		left -= n;
	}
	return 0;
}

static int td_end(struct ivring_rec *w)
{
	char tmp[PATH_MAX + 32];
	struct obuf b = { 0 };
	u64 *offs;
	u32 cpu;
	int out, ret;

	offs = calloc(w->info.nr_cpus, sizeof(*offs));
	if (!offs)
		return ivr_rec_err(w, -ENOMEM, "out of memory for a trace.dat");
	if (w->version == 6)
		build_v6(&b, w, offs);
	else
		build_v7(&b, w, offs);
	if (b.nomem) {
		ret = ivr_rec_err(w, -ENOMEM, "out of memory for a trace.dat");
		goto out;
	}
	snprintf(tmp, sizeof(tmp), "%s.tmp", w->path);
	out = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (out < 0) {
		ret = ivr_rec_err(w, -errno, "%s: %s", tmp, strerror(errno));
		goto out;
	}
	ret = ivr_write_all(out, b.p, b.len);
	if (ret)
		ivr_rec_err(w, ret, "%s: %s", tmp, strerror(-ret));
	for (cpu = 0; !ret && cpu < w->info.nr_cpus; cpu++)
		ret = copy_spool(w, out, cpu, offs[cpu]);
	/* A CPU with no data still needs the file to reach its offset. */
	if (!ret && ftruncate(out, data_end(w, offs)))
		ret = ivr_rec_err(w, -errno, "%s: %s", tmp, strerror(errno));
	if (close(out) && !ret)
		ret = ivr_rec_err(w, -errno, "%s: %s", tmp, strerror(errno));
	if (!ret && rename(tmp, w->path))
		ret = ivr_rec_err(w, -errno, "%s: %s", w->path, strerror(errno));
	if (ret) {
		unlink(tmp);
		goto out;
	}
	w->meta_bytes = b.len;
	((struct tracedat *)w->priv)->done = true;
out:
	free(b.p);
	free(offs);
	return ret;
}

static bool any_page(const struct ivring_rec *w)
{
	u32 cpu;

	for (cpu = 0; cpu < w->info.nr_cpus; cpu++)
		if (w->cpus[cpu].pages)
			return true;
	return false;
}

static void td_free(struct ivring_rec *w)
{
	char name[PATH_MAX + 32];
	struct tracedat *t = w->priv;
	bool drop = t->done || !any_page(w);
	u32 cpu;

	for (cpu = 0; t->cpus && cpu < w->info.nr_cpus; cpu++) {
		free(t->cpus[cpu].buf);
		if (t->cpus[cpu].fd < 0)
			continue;
		close(t->cpus[cpu].fd);
		spool_name(name, sizeof(name), w, cpu);
		if (drop)
			unlink(name);
	}
	if (drop && t->head) {
		snprintf(name, sizeof(name), "%s.head", w->path);
		unlink(name);
	}
	free(t->cpus);
	free(t->comms);
	free(t);
	w->priv = NULL;
}

const struct ivr_rec_ops ivr_rec_tracedat_ops = {
	.begin = td_begin,
	.page = td_page,
	.slot = td_slot,
	.put = td_put,
	.flush = td_flush,
	.end = td_end,
	.free = td_free,
};
