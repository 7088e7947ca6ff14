// SPDX-License-Identifier: LGPL-2.1 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * trace-cmd's trace.dat, versions 6 and 7 (trace-cmd.dat.v6(5),
 * trace-cmd.dat.v7(5)), written from pages that are already in the ring
 * buffer's format: nothing is decoded.
 *
 * A trace.dat keeps each CPU's data in one piece, at an offset that its
 * metadata gives.  Two ways to get there:
 *
 * - Spooled (a recording that may go on for ever, and any version 6): pages
 *   go to one file per CPU (PATH.cpuN, as trace-cmd record does, made when
 *   the CPU first has a page) and the file is put together at the end: the
 *   header and the metadata into PATH.tmp, then each CPU's spool appended
 *   with copy_file_range(), then a rename.  Every byte is written twice.
 *
 * - In place (a snapshot, version 7): a snapshot holds at most as many
 *   pages of a CPU as the segment has sub-buffers, so each CPU gets a
 *   region of that size in PATH.tmp, and its pages are written there once.
 *   Version 7 finds its sections through offsets, so the cmdlines and the
 *   options, which change as pages come (and the event formats, once the
 *   guest appends one), go after the regions, in two slots
 *   that take turns: after each flush the slot not in use is rewritten and
 *   then the header is pointed at it.  PATH.tmp is a whole trace.dat (with
 *   holes) after every flush, so a recorder that is killed leaves one.  At
 *   the end the metadata moves to just after the last CPU's data and the
 *   file is cut there; the part of a region that a CPU did not fill stays a
 *   hole.
 *
 * Either way a CPU holds its buffer of SPOOL_PAGES pages, and its spool
 * open, only while it is one of the CPUs used last (cpu_files.c).
 *
 * The metadata's bytes are tracedat_meta.c's, the cmdlines that go in it
 * tracedat_comms.c's.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "record/tracedat.h"

/* --- spooling ---------------------------------------------------------- */

static int write_head(struct ivring_rec *w);
static int write_tail(struct ivring_rec *w, u64 at);
static int copy_range(struct ivring_rec *w, u32 cpu, int fd, u64 in_off,
		      int out, u64 out_off, u64 len);

/* In place: the slot that the header does not point at. */
static u64 other_slot(const struct in_place *ip)
{
	return ip->slot[ip->cur != 0 ? 0 : 1];
}

/* Where a compressed CPU's next block goes: after its count and blocks. */
static u64 next_block(const struct spool *s)
{
	return s->size ? s->size : 4;
}

/*
 * The pages of @cpu's buffer as one compressed block.  In place it goes
 * after the CPU's blocks so far, and the count at the start of the region
 * takes it in only at the end of the flush (count_blocks()).  Spooled, it
 * goes behind a skippable frame that holds its two sizes (TD_ZHDR), so
 * that the spool is a .zst file of the CPU's pages.
 */
static int spool_flush_z(struct ivring_rec *w, u32 cpu)
{
	struct tracedat *t = w->priv;
	struct spool *s = &t->cpus[cpu];
	u32 hdr[4] = { TD_ZSKIP_MAGIC, 8, 0, s->used * t->page_size };
	ssize_t n;
	int ret;

	n = ivr_td_z_frame(w, t->zbuf + TD_ZHDR, t->zcap - TD_ZHDR, s->buf,
			   hdr[3]);
	if (n < 0)
		return (int)n;
	hdr[2] = (u32)n;
	memcpy(t->zbuf, hdr, TD_ZHDR);
	if (t->ip) {
		ret = ivr_pwrite_all(t->ip->fd, t->zbuf + TD_ZHDR - 8, 8 + n,
				     t->ip->offs[cpu] + next_block(s));
		if (ret)
			return ivr_err(w, ret, "%s.tmp: %s", w->path,
				       strerror(-ret));
	} else {
		int fd = ivr_cpus_fd(w, &t->res, cpu, s->spooled);

		if (fd < 0)
			return fd;
		ret = ivr_write_synced(w, fd, t->zbuf, TD_ZHDR + n);
		if (ret)
			return ivr_err(w, ret, "%s.cpu%u: %s", w->path,
				       cpu, strerror(-ret));
		s->spooled += TD_ZHDR + n;
	}
	s->size = next_block(s) + 8 + n;
	s->blocks++;
	return 0;
}

/*
 * In place, compressed: trace-cmd reads as many blocks of a CPU as the
 * count at the start of its region says, whatever the options say.  So
 * the counts take in the flush's blocks last, after the options: what
 * the file shows changes in these few writes, just before the caller
 * commits the pages, as the pointer to the options does uncompressed.
 */
static int count_blocks(struct ivring_rec *w)
{
	struct tracedat *t = w->priv;
	u32 cpu;
	int ret;

	for (cpu = 0; cpu < w->info.nr_cpus; cpu++) {
		struct spool *s = &t->cpus[cpu];

		if (s->counted == s->blocks)
			continue;
		ret = ivr_pwrite_all(t->ip->fd, &s->blocks, 4, t->ip->offs[cpu]);
		if (ret)
			return ivr_err(w, ret, "%s.tmp: %s", w->path,
				       strerror(-ret));
		s->counted = s->blocks;
	}
	if (w->sync && fdatasync(t->ip->fd))
		return ivr_err(w, -errno, "%s.tmp: %s", w->path,
			       strerror(errno));
	return 0;
}

static int spool_flush(struct ivring_rec *w, u32 cpu)
{
	struct tracedat *t = w->priv;
	struct spool *s = &t->cpus[cpu];
	size_t len = (size_t)s->used * t->page_size;
	int ret;

	if (!s->used)
		return 0;
	if (w->compression) {
		ret = spool_flush_z(w, cpu);
		if (ret)
			return ret;
	} else if (t->ip) {
		ret = ivr_pwrite_all(t->ip->fd, s->buf, len,
				     t->ip->offs[cpu] + s->size);
		if (!ret && w->sync && fdatasync(t->ip->fd))
			ret = -errno;
		if (ret)
			return ivr_err(w, ret, "%s.tmp: %s", w->path,
				       strerror(-ret));
		s->size += len;
	} else {
		int fd = ivr_cpus_fd(w, &t->res, cpu, s->size);

		if (fd < 0)
			return fd;
		ret = ivr_write_synced(w, fd, s->buf, len);
		if (ret)
			return ivr_err(w, ret, "%s.cpu%u: %s", w->path,
				       cpu, strerror(-ret));
		s->size += len;
	}
	s->pages += s->used;
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
	if (t->ip) {
		ret = write_tail(w, other_slot(t->ip));
		return !ret && w->compression ? count_blocks(w) : ret;
	}
	return t->comms_gen != t->head_gen || w->fmts_gen != t->head_fmts_gen ?
	       write_head(w) : 0;
}

/*
 * In place, a CPU's pages must fit its region; record.c stops a snapshot
 * before that, and this makes sure of it.
 */
static bool region_full(const struct tracedat *t, u32 cpu)
{
	const struct spool *s = &t->cpus[cpu];

	return t->ip && s->pages + s->used + 1 > t->ip->region_pages;
}

/*
 * cpu_files.c's: @cpu's pages written, its buffer given up.  Kept if the
 * write failed: its pages are not lost to a later try.
 */
static int td_evict(struct ivring_rec *w, u32 cpu)
{
	struct tracedat *t = w->priv;
	int ret = spool_flush(w, cpu);

	if (ret)
		return ret;
	free(t->cpus[cpu].buf);
	t->cpus[cpu].buf = NULL;
	return 0;
}

/* @cpu resident, with its buffer. */
static int spool_use(struct ivring_rec *w, u32 cpu)
{
	struct tracedat *t = w->priv;
	struct spool *s = &t->cpus[cpu];
	int ret = ivr_cpus_use(w, &t->res, cpu);

	if (ret)
		return ret;
	if (!s->buf)
		s->buf = malloc((size_t)SPOOL_PAGES * t->page_size);
	if (!s->buf)
		return ivr_err(w, -ENOMEM, "out of memory for a trace.dat");
	return 0;
}

/*
 * A CPU that is not resident reads into t->scratch, and becomes resident
 * only in td_put(), once a page came: a look at an idle CPU must not
 * evict a busy one.
 */
static int td_slot(struct ivring_rec *w, u32 cpu, u8 **at)
{
	struct tracedat *t = w->priv;
	struct spool *s = &t->cpus[cpu];

	if (region_full(t, cpu))
		return ivr_err(w, -ENOBUFS,
			       "CPU %u: its region of %s.tmp is full",
			       cpu, w->path);
	*at = ivr_cpus_resident(&t->res, cpu) ?
	      s->buf + (size_t)s->used * t->page_size : t->scratch;
	return 0;
}

/*
 * A sub-buffer smaller than the file's page: the rest of the page empty,
 * and the count of the events lost before it, for which the sub-buffer
 * may have had no room, after its records.
 */
static void pad_page(const struct tracedat *t, u8 *page,
		     const struct ivring_page *pg)
{
	struct ivring_subbuf_hdr *h = (void *)page;
	u64 commit = h->commit;

	memset(page + t->subbuf_size, 0, t->page_size - t->subbuf_size);
	if ((commit & IVRING_COMMIT_MISSED_EVENTS) &&
	    !(commit & IVRING_COMMIT_MISSED_STORED)) {
		memcpy(page + sizeof(*h) + pg->len, &pg->lost, sizeof(pg->lost));
		h->commit = commit | IVRING_COMMIT_MISSED_STORED;
	}
}

static int td_put(struct ivring_rec *w, u32 cpu, const struct ivring_page *pg)
{
	struct tracedat *t = w->priv;
	struct spool *s = &t->cpus[cpu];
	int ret;

	if (!ivr_cpus_resident(&t->res, cpu)) {
		ret = spool_use(w, cpu);
		if (ret)
			return ret;
		memcpy(s->buf + (size_t)s->used * t->page_size, t->scratch,
		       t->subbuf_size);
	}
	if (t->page_size != t->subbuf_size)
		pad_page(t, s->buf + (size_t)s->used * t->page_size, pg);
	if (++s->used == SPOOL_PAGES)
		return spool_flush(w, cpu);
	return 0;
}

static int td_page(struct ivring_rec *w, u32 cpu, const struct ivring_page *pg)
{
	struct tracedat *t = w->priv;
	u8 *slot;
	int ret = td_slot(w, cpu, &slot);

	if (ret)
		return ret;
	memcpy(slot, pg->data, t->subbuf_size);
	return td_put(w, cpu, pg);
}

static void td_event(struct ivring_rec *w, const struct ivring_event *ev)
{
	ivr_td_learn(w->priv, ev);
}

/*
 * Formats the guest appended: their comms are learned from now on; the
 * metadata written at each flush and at the end carries them.
 */
static int td_formats(struct ivring_rec *w, struct ivring *r, u32 from)
{
	ivr_td_find_comm_srcs(w->priv, w, r, from);
	return 0;
}

#define SPOOL_SUFFIX	".cpu"

#define SPOOL_LEFT	"it holds the pages of a recording that did not finish"
#define IN_PLACE_LEFT	"it is the trace.dat of a recording that did not finish, as far as it got (trace-cmd report reads it)"
#define TMP_LEFT	"a recording that did not finish left it"

/*
 * What a recorder that died left holds consumed events, which nothing else
 * holds: never overwrite it.
 */
static int refuse_leftover(struct ivring_rec *w, const char *name,
			   const char *what)
{
	int ret = ivr_out_absent(w->dirfd, name);

	if (ret == -EEXIST)
		return ivr_err(w, -EEXIST,
			       "%s exists: %s; move it away first",
			       name, what);
	if (ret)
		return ivr_err(w, ret, "%s: %s", name, strerror(-ret));
	return 0;
}

/* Spools that a recorder which died left: refused now, not at a CPU's page. */
static int refuse_spools(struct ivring_rec *w)
{
	/* Named as cpu_files.c names them, before (or without) any. */
	const struct ivr_cpus spools = { .suffix = SPOOL_SUFFIX };
	char name[PATH_MAX + 32];
	u32 cpu;
	int ret;

	for (cpu = 0; cpu < w->info.nr_cpus; cpu++) {
		ivr_cpus_name(w, &spools, cpu, name, sizeof(name));
		ret = refuse_leftover(w, name, SPOOL_LEFT);
		if (ret)
			return ret;
	}
	return 0;
}

static int begin_spools(struct ivring_rec *w)
{
	struct tracedat *t = w->priv;
	char name[PATH_MAX + 32];
	int ret;

	/* Where the file is put together at the end. */
	snprintf(name, sizeof(name), "%s.tmp", w->path);
	ret = refuse_leftover(w, name, TMP_LEFT);
	if (!ret)
		ret = refuse_spools(w);
	if (!ret)
		ret = ivr_cpus_init(w, &t->res, w->dirfd, SPOOL_SUFFIX, O_RDWR,
				    td_evict);
	return ret ? ret : write_head(w);
}

static int begin_in_place(struct ivring_rec *w, u64 format_size);

static int td_begin(struct ivring_rec *w, struct ivring *r)
{
	struct tracedat *t;
	int ret;

	ret = ivr_out_target(w, w->path);
	if (ret)
		return ret;
	if (w->info.subbuf_size & (w->info.subbuf_size - 1))
		return ivr_err(w, -EINVAL,
			       "sub-buffers of %u bytes: trace.dat pages are a power of two",
			       w->info.subbuf_size);
	t = calloc(1, sizeof(*t));
	if (!t)
		return ivr_err(w, -ENOMEM, "out of memory for a trace.dat");
	w->priv = t;
	w->event_types = t->src_types;
	t->subbuf_size = w->info.subbuf_size;
	t->page_size = t->subbuf_size < TD_PAGE_MIN ? TD_PAGE_MIN :
						      t->subbuf_size;
	t->cpus = calloc(w->info.nr_cpus, sizeof(*t->cpus));
	t->scratch = malloc(t->page_size);
	t->comms = calloc(COMM_SLOTS, sizeof(*t->comms));
	t->comm_used = malloc(IVR_COMMS_MAX * sizeof(*t->comm_used));
	if (!t->cpus || !t->scratch || !t->comms || !t->comm_used)
		return ivr_err(w, -ENOMEM, "out of memory for a trace.dat");
	if (w->compression) {
		ret = ivr_td_z_init(w, t);
		if (ret)
			return ret;
	}
	ivr_td_find_comm_srcs(t, w, r, 0);
	if (w->snapshot && w->version == 7)
		return begin_in_place(w, ivr_reader_format_area_size(r));
	return begin_spools(w);
}

/* --- putting the file together ----------------------------------------- */

/*
 * PATH.head: a trace.dat v6 up to its cmdlines, which is what trace-cmd
 * restore takes with -i.  Should the recorder die before it puts PATH
 * together, "trace-cmd restore -i PATH.head -o PATH PATH.cpu0 PATH.cpu1 ..."
 * does it instead (/dev/null for a CPU that had no page, so no spool).
 * Rewritten (atomically) when new cmdlines were learned.
 */
static int write_head(struct ivring_rec *w)
{
	char name[PATH_MAX + 32];
	struct tracedat *t = w->priv;
	struct obuf b = { 0 };
	int ret;

	snprintf(name, sizeof(name), "%s.head", w->path);
	ivr_td_v6_head(&b, w);
	if (b.nomem)
		return ivr_err(w, -ENOMEM, "out of memory for %s", name);
	do
		ret = ivr_out_replace(w, w->dirfd, name, b.p, b.len);
	while (ivr_cpus_shed(&t->res, ret, IVR_NO_CPU));
	if (ret)
		goto out;
	t->head_gen = t->comms_gen;
	t->head_fmts_gen = w->fmts_gen;
	t->head = true;
out:
	free(b.p);
	return ret;
}

/* --- version 7 in place ------------------------------------------------- */

/*
 * The cmdlines and the options at @at, then the header pointed at them:
 * the file is whole again, with each CPU's data as flushed.  Once the
 * guest appended formats, the front's event formats section is short of
 * them: a whole new one goes before the cmdlines, and the options point
 * at it instead.
 */
static int write_tail(struct ivring_rec *w, u64 at)
{
	struct tracedat *t = w->priv;
	struct in_place *ip = t->ip;
	u64 opts, end = ivr_td_data_end(w, ip->offs);
	struct obuf b = { 0 };
	int ret;

	if (w->nr_fmts != ip->front_fmts) {
		if (!ip->formats.len || ip->formats_gen != w->fmts_gen) {
			ip->formats.len = 0;
			ip->formats.nomem = ip->formats.zfail = false;
			ivr_td_event_formats(&ip->formats, w);
			ip->formats_gen = w->fmts_gen;
		}
		ip->sec.event_formats = at;
		ivr_td_put_obuf(&b, &ip->formats);
	}

	/* Walking every comm slot at each flush would cost more than the pages. */
	if (!ip->cmdlines.len || ip->cmdlines_gen != t->comms_gen) {
		ip->cmdlines.len = 0;
		ip->cmdlines.nomem = ip->cmdlines.zfail = false;
		ivr_td_cmdlines(&ip->cmdlines, w);
		ip->cmdlines_gen = t->comms_gen;
	}
	ip->sec.cmdlines = at + b.len;
	ivr_td_put_obuf(&b, &ip->cmdlines);
	opts = at + b.len;
	ivr_td_v7_options(&b, w, &ip->sec, ip->flyrecord, ip->offs);
	if (b.nomem) {
		ret = ivr_td_obuf_err(w, &b);
		goto out;
	}
	if (b.len > ip->slot_size) {
		ret = ivr_err(w, -EFBIG, "%s.tmp: %zu bytes of formats, cmdlines and options, room for %llu",
			      w->path, b.len, (unsigned long long)ip->slot_size);
		goto out;
	}
	ret = ivr_pwrite_all(ip->fd, b.p, b.len, at);
	end -= ip->flyrecord + 16;
	if (!ret)
		ret = ivr_pwrite_all(ip->fd, &end, 8, ip->flyrecord + 8);
	if (!ret)
		ret = ivr_pwrite_all(ip->fd, &opts, 8, ip->at_opts_ptr);
	if (ret) {
		ivr_err(w, ret, "%s.tmp: %s", w->path, strerror(-ret));
		goto out;
	}
	ip->cur = at == ip->slot[0] ? 0 : at == ip->slot[1] ? 1 : -1;
	ip->tail = b.len;
	w->meta_bytes = ip->front + b.len;
out:
	free(b.p);
	return ret;
}

/* An unnamed file in the recording's directory, or -1 (errno set). */
static int open_unnamed(struct ivring_rec *w)
{
	return openat(w->dirfd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0644);
}

/*
 * Name the unnamed @fd: -EEXIST if @name is taken.  Through /proc, as
 * open(2) shows: AT_EMPTY_PATH wants CAP_DAC_READ_SEARCH before Linux 6.10.
 */
static int link_unnamed(struct ivring_rec *w, int fd, const char *name)
{
	const char *leaf = ivr_out_leaf(name);
	char proc[64];

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	if (!linkat(AT_FDCWD, proc, w->dirfd, leaf, AT_SYMLINK_FOLLOW))
		return 0;
	if (errno == EEXIST)
		return -EEXIST;
	if (!linkat(fd, "", w->dirfd, leaf, AT_EMPTY_PATH))
		return 0;
	return -errno;
}

/*
 * PATH.tmp appears only once it is a whole trace.dat: it is made unnamed
 * (O_TMPFILE) in PATH's directory and linked, which fails if a recorder
 * that was killed left one.  Where O_TMPFILE is not supported it is
 * created under its name; a recorder killed before its first options are
 * written then leaves one that no reader takes, with nothing consumed.
 */
static int create_tmp(struct ivring_rec *w, const char *name, bool *unnamed)
{
	struct in_place *ip = ((struct tracedat *)w->priv)->ip;

	ip->fd = open_unnamed(w);
	*unnamed = ip->fd >= 0;
	if (ip->fd < 0 && errno != EOPNOTSUPP && errno != EISDIR &&
	    errno != EINVAL)
		return ivr_err(w, -errno, "%s: %s", name, strerror(errno));
	if (ip->fd < 0)
		ip->fd = ivr_out_create(w->dirfd, name, O_RDWR);
	if (ip->fd == -EEXIST)
		return refuse_leftover(w, name, IN_PLACE_LEFT);
	if (ip->fd < 0)
		return ivr_err(w, ip->fd, "%s: %s", name, strerror(-ip->fd));
	ip->created = !*unnamed;
	return 0;
}

/*
 * The metadata up to the flyrecord section, then each CPU's region (as
 * many pages as the segment has sub-buffers), then the two slots for the
 * cmdlines and the options: at most IVR_COMMS_MAX lines of a pid and a comm,
 * options whose size the CPUs and the names bound, and the formats, which
 * the segment's format area bounds.
 */
static int begin_in_place(struct ivring_rec *w, u64 format_size)
{
	struct tracedat *t = w->priv;
	char name[PATH_MAX + 32];
	struct in_place *ip;
	struct obuf b = { 0 };
	bool unnamed;
	u64 off;
	u32 cpu;
	int ret;

	ret = refuse_spools(w);
	if (!ret)
		ret = ivr_cpus_init(w, &t->res, -1, NULL, 0, td_evict);
	if (ret)
		return ret;
	ip = t->ip = calloc(1, sizeof(*ip));
	if (ip)
		ip->offs = calloc(w->info.nr_cpus, sizeof(*ip->offs));
	if (!ip || !ip->offs)
		return ivr_err(w, -ENOMEM, "out of memory for a trace.dat");
	ip->fd = -1;
	ip->cur = -1;
	ivr_td_v7_front(&b, w, &ip->sec, &ip->at_opts_ptr);
	ip->front_fmts = w->nr_fmts;
	ip->flyrecord = b.len;
	ivr_td_flyrecord(&b, w);
	ip->front = b.len;
	if (b.nomem) {
		ret = ivr_td_obuf_err(w, &b);
		goto out;
	}
	ip->region_pages = w->info.nr_subbufs;
	/*
	 * Compressed, the count, then at worst a block per page, each no
	 * larger than the bound: a block of several pages is bounded by
	 * less than their bounds' sum.
	 */
	ip->region = w->compression ?
		     ivr_td_page_align(4 + ip->region_pages *
				       (8 + ivr_td_z_bound(t->page_size)),
				       t->page_size) :
		     ip->region_pages * t->page_size;
	off = ivr_td_page_align(b.len, t->page_size);
	for (cpu = 0; cpu < w->info.nr_cpus; cpu++, off += ip->region)
		ip->offs[cpu] = off;
	ip->slot_size = 65536 + (u64)IVR_COMMS_MAX * (12 + IVR_COMM_LEN + 1) +
			(u64)w->info.nr_cpus * 20 + strlen(w->name) +
			/* TIME_SHIFT */
			16 + (u64)w->info.nr_cpus * (4 + 24 * TD_SHIFT_MAX) +
			/*
			 * Formats appended later: every text comes from a
			 * record of the area, of 24 bytes or more, and is
			 * written with its size, 12 bytes more when raw,
			 * and its system's name and count.
			 */
			20 + format_size + (format_size / 24) * (8 + 12 + 65 + 4);
	/*
	 * Compressed sections: at worst the bound of each, 8 bytes more,
	 * and what bounding each rather than their sum adds.
	 */
	if (w->compression)
		ip->slot_size = ivr_td_z_bound(ip->slot_size) + 1024;
	ip->slot_size = ivr_td_page_align(ip->slot_size, t->page_size);
	ip->slot[0] = off;
	ip->slot[1] = off + ip->slot_size;
	snprintf(name, sizeof(name), "%s.tmp", w->path);
	ret = create_tmp(w, name, &unnamed);
	if (ret)
		goto out;
	ret = ivr_pwrite_all(ip->fd, b.p, b.len, 0);
	if (ret)
		ivr_err(w, ret, "%s: %s", name, strerror(-ret));
	else
		ret = write_tail(w, ip->slot[0]);
	if (!ret && unnamed) {
		ret = link_unnamed(w, ip->fd, name);
		if (ret == -EEXIST)
			refuse_leftover(w, name, IN_PLACE_LEFT);
		else if (ret)
			ivr_err(w, ret, "%s: %s", name, strerror(-ret));
		ip->created = !ret;
	}
out:
	free(b.p);
	return ret;
}

/*
 * Compressed, a CPU's data fills a fraction of its region: each CPU's
 * moves down to just after the one before it, where that leaves it room
 * clear of its own, and the header is pointed at options that say so
 * before the next one moves.  So the file is whole at every step, and
 * nothing that it points at is written over.  Data that compressed to
 * more than about half its region stays where it is, with a hole before
 * it.
 */
static int compact(struct ivring_rec *w)
{
	struct tracedat *t = w->priv;
	struct in_place *ip = t->ip;
	u64 to = ivr_td_page_align(ip->front, t->page_size);
	u32 cpu;
	int ret;

	for (cpu = 0; cpu < w->info.nr_cpus; cpu++) {
		u64 size = t->cpus[cpu].size;

		/* Where the metadata goes if no later CPU has data. */
		if (!size) {
			ip->offs[cpu] = to;
			continue;
		}
		if (to < ip->offs[cpu] && to + size <= ip->offs[cpu]) {
			ret = copy_range(w, cpu, ip->fd, ip->offs[cpu], ip->fd,
					 to, size);
			if (!ret && w->sync && fdatasync(ip->fd))
				ret = ivr_err(w, -errno, "%s.tmp: %s",
					      w->path, strerror(errno));
			if (ret)
				return ret;
			ip->offs[cpu] = to;
			ret = write_tail(w, other_slot(ip));
			/* The header durable before the next move: NFS and such. */
			if (!ret && w->sync && fdatasync(ip->fd))
				ret = ivr_err(w, -errno, "%s.tmp: %s",
					      w->path, strerror(errno));
			if (ret)
				return ret;
		}
		to = ivr_td_page_align(ip->offs[cpu] + size, t->page_size);
	}
	return 0;
}

/*
 * The metadata right after the last CPU's data, once the slot that the
 * header points at is out of its way, and the file cut there.
 */
static int end_in_place(struct ivring_rec *w)
{
	struct tracedat *t = w->priv;
	struct in_place *ip = t->ip;
	char tmp[PATH_MAX + 32];
	u64 end;
	int ret = 0;

	snprintf(tmp, sizeof(tmp), "%s.tmp", w->path);
	if (w->compression)
		ret = compact(w);
	if (ret)
		return ret;
	end = ivr_td_data_end(w, ip->offs);
	if (ip->cur == 0)
		ret = write_tail(w, ip->slot[1]);
	if (!ret)
		ret = write_tail(w, end);
	if (!ret && ftruncate(ip->fd, end + ip->tail))
		ret = ivr_err(w, -errno, "%s: %s", tmp, strerror(errno));
	if (!ret && close(ip->fd))
		ret = ivr_err(w, -errno, "%s: %s", tmp, strerror(errno));
	ip->fd = -1;
	if (!ret) {
		ret = ivr_out_rename(w->dirfd, tmp, w->path);
		if (ret)
			ivr_err(w, ret, "%s: %s", w->path, strerror(-ret));
	}
	if (!ret)
		t->done = true;
	return ret;
}

/*
 * @len bytes of @cpu's spool (@fd) from @in_off to @out at @out_off: by
 * copy_file_range(), or through the CPU's buffer where the filesystems
 * cannot.
 */
static int copy_range(struct ivring_rec *w, u32 cpu, int fd, u64 in_off,
		      int out, u64 out_off, u64 len)
{
	struct tracedat *t = w->priv;
	loff_t in = in_off, to = out_off;
	u64 left = len, chunk = (u64)SPOOL_PAGES * t->page_size;
	int ret;

	while (left) {
		ssize_t n = copy_file_range(fd, &in, out, &to, left, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EXDEV || errno == ENOSYS ||
			      errno == EOPNOTSUPP || errno == EINVAL))
			break;		/* read and write below */
		if (n <= 0)
			return ivr_err(w, n ? -errno : -EIO,
				       "%s: copying CPU %u's data: %s",
				       w->path, cpu,
				       strerror(n ? errno : EIO));
		left -= n;
	}
	/* Flushed: the buffer is free for the copy by hand. */
	ret = left ? spool_use(w, cpu) : 0;
	if (ret)
		return ret;
	while (left) {
		ssize_t n = pread(fd, t->cpus[cpu].buf,
				  left < chunk ? left : chunk, in);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return ivr_err(w, n ? -errno : -EIO,
				       "%s: CPU %u's data: %s", w->path, cpu,
				       strerror(n ? errno : EIO));
		ret = ivr_pwrite_all(out, t->cpus[cpu].buf, n, to);
		if (ret)
			return ivr_err(w, ret, "%s: %s", w->path,
				       strerror(-ret));
		in += n;
		to += n;
		left -= n;
	}
	return 0;
}

/*
 * A compressed spool into the file: the count, then each block without
 * the skippable frame's 8 bytes before it.  The spool is ours, but sits
 * in a directory that others may write to: each block is checked against
 * what was written before it is copied.
 */
static int copy_spool_z(struct ivring_rec *w, int fd, int out, u32 cpu,
			u64 off)
{
	struct tracedat *t = w->priv;
	struct spool *s = &t->cpus[cpu];
	u32 max = SPOOL_PAGES * t->page_size, i, hdr[4];
	u64 in = 0, usize = 0;
	int ret;

	ret = ivr_pwrite_all(out, &s->blocks, 4, off);
	if (ret)
		return ivr_err(w, ret, "%s: %s", w->path, strerror(-ret));
	off += 4;
	for (i = 0; i < s->blocks; i++) {
		ssize_t n = pread(fd, hdr, TD_ZHDR, in);

		if (n != TD_ZHDR || hdr[0] != TD_ZSKIP_MAGIC || hdr[1] != 8 ||
		    hdr[2] > ivr_td_z_bound(max) || !hdr[3] || hdr[3] > max ||
		    hdr[3] % t->page_size ||
		    in + TD_ZHDR + hdr[2] > s->spooled)
			return ivr_err(w, -EIO,
				       "%s.cpu%u: block %u at %llu is not the one written",
				       w->path, cpu, i, (unsigned long long)in);
		ret = copy_range(w, cpu, fd, in + TD_ZHDR - 8, out, off,
				 8 + (u64)hdr[2]);
		if (ret)
			return ret;
		in += TD_ZHDR + hdr[2];
		off += 8 + (u64)hdr[2];
		usize += hdr[3];
	}
	if (usize != s->pages * t->page_size)
		return ivr_err(w, -EIO, "%s.cpu%u: %llu bytes of pages, %llu written",
			       w->path, cpu, (unsigned long long)usize,
			       (unsigned long long)(s->pages * t->page_size));
	if (in != s->spooled)
		return ivr_err(w, -EIO, "%s.cpu%u: %llu bytes, %llu expected",
			       w->path, cpu, (unsigned long long)in,
			       (unsigned long long)s->spooled);
	return 0;
}

static int copy_spool(struct ivring_rec *w, int out, u32 cpu, u64 off)
{
	struct tracedat *t = w->priv;
	struct spool *s = &t->cpus[cpu];
	int fd;

	if (!s->size)
		return 0;
	fd = ivr_cpus_fd(w, &t->res, cpu, w->compression ? s->spooled :
							    s->size);
	if (fd < 0)
		return fd;
	if (w->compression)
		return copy_spool_z(w, fd, out, cpu, off);
	return copy_range(w, cpu, fd, 0, out, off, s->size);
}

static int td_end(struct ivring_rec *w)
{
	struct tracedat *t = w->priv;
	char tmp[PATH_MAX + 32];
	struct obuf b = { 0 };
	u64 *offs;
	u32 cpu;
	int out, ret;

	if (t->ip)
		return end_in_place(w);
	offs = calloc(w->info.nr_cpus, sizeof(*offs));
	if (!offs)
		return ivr_err(w, -ENOMEM, "out of memory for a trace.dat");
	if (w->version == 6)
		ivr_td_v6(&b, w, offs);
	else
		ivr_td_v7(&b, w, offs);
	if (b.nomem) {
		ret = ivr_td_obuf_err(w, &b);
		goto out;
	}
	snprintf(tmp, sizeof(tmp), "%s.tmp", w->path);
	/* Made by us alone: what is there already is not ours to replace. */
	do
		out = ivr_out_create(w->dirfd, tmp, O_WRONLY);
	while (ivr_cpus_shed(&t->res, out, IVR_NO_CPU));
	if (out == -EEXIST) {
		ret = refuse_leftover(w, tmp, TMP_LEFT);
		goto out;
	}
	if (out < 0) {
		ret = ivr_err(w, out, "%s: %s", tmp, strerror(-out));
		goto out;
	}
	ret = ivr_write_all(out, b.p, b.len);
	if (ret)
		ivr_err(w, ret, "%s: %s", tmp, strerror(-ret));
	for (cpu = 0; !ret && cpu < w->info.nr_cpus; cpu++)
		ret = copy_spool(w, out, cpu, offs[cpu]);
	/* A CPU with no data still needs the file to reach its offset. */
	if (!ret && ftruncate(out, ivr_td_data_end(w, offs)))
		ret = ivr_err(w, -errno, "%s: %s", tmp, strerror(errno));
	/* Where errors come at fsync, before the spools go (io.c). */
	if (!ret && w->sync && fdatasync(out))
		ret = ivr_err(w, -errno, "%s: %s", tmp, strerror(errno));
	if (close(out) && !ret)
		ret = ivr_err(w, -errno, "%s: %s", tmp, strerror(errno));
	if (!ret) {
		ret = ivr_out_rename(w->dirfd, tmp, w->path);
		if (ret)
			ivr_err(w, ret, "%s: %s", w->path, strerror(-ret));
	}
	if (ret) {
		ivr_out_unlink(w->dirfd, tmp);
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

	for (cpu = 0; t->cpus && cpu < w->info.nr_cpus; cpu++)
		free(t->cpus[cpu].buf);
	free(t->scratch);
	ivr_cpus_free(w, &t->res, drop);
	if (drop && t->head) {
		snprintf(name, sizeof(name), "%s.head", w->path);
		ivr_out_unlink(w->dirfd, name);
	}
	if (t->ip) {
		/* Kept with pages in it: a trace.dat as of the last flush. */
		if (t->ip->fd >= 0)
			close(t->ip->fd);
		snprintf(name, sizeof(name), "%s.tmp", w->path);
		if (drop && !t->done && t->ip->created)
			ivr_out_unlink(w->dirfd, name);
		free(t->ip->offs);
		free(t->ip->cmdlines.p);
		free(t->ip->formats.p);
		free(t->ip);
	}
	free(t->cpus);
	free(t->comms);
	free(t->comm_used);
	ivr_td_z_free(t);
	ivr_td_clock_free(t);
	free(t);
	w->priv = NULL;
}

const struct ivr_rec_ops ivr_rec_tracedat_ops = {
	.begin = td_begin,
	.page = td_page,
	.slot = td_slot,
	.put = td_put,
	.event = td_event,
	.formats = td_formats,
	.clock = ivr_td_clock,
	.flush = td_flush,
	.end = td_end,
	.free = td_free,
};
