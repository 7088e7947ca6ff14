// SPDX-License-Identifier: LGPL-2.1 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * Opening a segment: map the file, copy its header and check every size and
 * offset in it before anything else in the mapping is touched.  The guest
 * may be compromised, so nothing it wrote is trusted (DESIGN.md, invariant 4).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

#define SHM_DIR "/dev/shm/"

int ivr_err(struct ivring *r, int ret, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->err, sizeof(r->err), fmt, ap);
	va_end(ap);
	return ret;
}

const char *ivring__errmsg(const struct ivring *r)
{
	return r ? r->err : "no ivring handle";
}

struct area {
	const char *name;
	u64 off;
	u64 len;
};

/* Does [off, off + len) lie inside [0, size) without wrapping? */
static bool inside(u64 off, u64 len, u64 size)
{
	return off <= size && len <= size - off;
}

static int check_areas(struct ivring *r, const struct ivring_header *h)
{
	struct area a[] = {
		{ "header", 0, sizeof(*h) },
		{ "cpu", h->cpu_offset, (u64)h->nr_cpus * sizeof(struct ivring_cpu) },
		{ "descriptor", h->desc_offset,
		  (u64)h->nr_cpus * h->nr_subbufs * sizeof(struct ivring_desc) },
		{ "format", h->format_offset, h->format_size },
		{ "host", h->host_offset, h->host_size },
		{ "data", h->data_offset, h->data_size },
	};
	size_t i, j;

	/* nr_cpus and nr_subbufs are bounded, so the products cannot wrap. */
	if (h->data_size != (u64)h->nr_cpus * h->nr_subbufs * h->subbuf_size)
		return ivr_err(r, -EINVAL,
			       "data area is %llu bytes, expected %u CPUs x %u sub-buffers x %u bytes",
			       (unsigned long long)h->data_size, h->nr_cpus,
			       h->nr_subbufs, h->subbuf_size);
	if (h->host_size < sizeof(struct ivring_host) +
			   (u64)h->nr_cpus * sizeof(struct ivring_host_cpu))
		return ivr_err(r, -EINVAL, "host area of %llu bytes is too small for %u CPUs",
			       (unsigned long long)h->host_size, h->nr_cpus);
	if (h->format_size < sizeof(struct ivring_format_area))
		return ivr_err(r, -EINVAL, "format area of %llu bytes is too small",
			       (unsigned long long)h->format_size);
	/* What a reader copies and checks is bounded, whatever the guest says. */
	if (h->format_size > IVRING_FORMAT_AREA_MAX)
		return ivr_err(r, -EINVAL,
			       "%s: format area of %llu bytes is larger than IVRING_FORMAT_AREA_MAX (%u), which no writer exceeds; is the segment damaged?",
			       r->path, (unsigned long long)h->format_size,
			       IVRING_FORMAT_AREA_MAX);

	for (i = 0; i < sizeof(a) / sizeof(a[0]); i++) {
		if (!inside(a[i].off, a[i].len, h->segment_size) ||
		    a[i].off % IVRING_RECORD_ALIGN)
			return ivr_err(r, -EINVAL,
				       "%s area at offset %llu, %llu bytes, is outside the %llu-byte segment or misaligned",
				       a[i].name, (unsigned long long)a[i].off,
				       (unsigned long long)a[i].len,
				       (unsigned long long)h->segment_size);
		for (j = 0; j < i; j++) {
			if (a[i].off < a[j].off + a[j].len &&
			    a[j].off < a[i].off + a[i].len)
				return ivr_err(r, -EINVAL, "%s area overlaps the %s area",
					       a[i].name, a[j].name);
		}
	}
	return 0;
}

/*
 * Validate a private copy of the header against the mapped file size.
 * On success r->hdr holds it.
 */
int ivr_check_header(struct ivring *r, const struct ivring_header *h)
{
	u32 sb = h->subbuf_size;

	/*
	 * First: a copy taken as a re-format began holds FORMATTING with the
	 * magic already cleared (ivw_format() stores them in that order),
	 * which is a wait, not a segment that is not ours.
	 */
	if (h->state == IVRING_STATE_FORMATTING)
		return ivr_err(r, -EAGAIN, "%s: the guest is formatting the segment; try again",
			       r->path);
	if (h->magic != IVRING_MAGIC)
		return ivr_err(r, -ENOTTY,
			       "%s: not an ivring segment (magic %#llx); is the module loaded in the guest?",
			       r->path, (unsigned long long)h->magic);
	if (h->abi_major != IVRING_ABI_MAJOR)
		return ivr_err(r, -EPROTONOSUPPORT,
			       "%s: ABI version %u.x not supported by this reader (%u.x)",
			       r->path, h->abi_major, IVRING_ABI_MAJOR);
	if (h->header_size < sizeof(*h) || h->header_size > IVRING_PAGE_SIZE)
		return ivr_err(r, -EINVAL, "%s: header size %u, expected %zu to %u",
			       r->path, h->header_size, sizeof(*h), IVRING_PAGE_SIZE);
	if (h->segment_size > r->map_len)
		return ivr_err(r, -EFBIG,
			       "%s: segment truncated: header says %llu bytes, file has %zu",
			       r->path, (unsigned long long)h->segment_size,
			       r->map_len);
	if (h->state != IVRING_STATE_LIVE && h->state != IVRING_STATE_STOPPED)
		return ivr_err(r, -EINVAL, "%s: unknown segment state %u", r->path,
			       h->state);
	if (h->mode != IVRING_MODE_DISCARD && h->mode != IVRING_MODE_OVERWRITE)
		return ivr_err(r, -EINVAL, "%s: unknown mode %u", r->path, h->mode);
	if (!h->nr_cpus || h->nr_cpus > IVRING_NR_CPUS_MAX)
		return ivr_err(r, -EINVAL, "%s: %u CPUs, expected 1 to %u", r->path,
			       h->nr_cpus, IVRING_NR_CPUS_MAX);
	if (sb < IVRING_SUBBUF_MIN || sb > IVRING_SUBBUF_MAX || (sb & (sb - 1)))
		return ivr_err(r, -EINVAL,
			       "%s: sub-buffer size %u is not a power of two in [%u, %u]",
			       r->path, sb, IVRING_SUBBUF_MIN, IVRING_SUBBUF_MAX);
	if (h->nr_subbufs < IVRING_NR_SUBBUFS_MIN ||
	    (u64)h->nr_subbufs * sb > h->segment_size)
		return ivr_err(r, -EINVAL, "%s: %u sub-buffers per CPU do not fit",
			       r->path, h->nr_subbufs);
	if (h->cpu_size != sizeof(struct ivring_cpu) ||
	    h->desc_size != sizeof(struct ivring_desc) ||
	    h->host_cpu_size != sizeof(struct ivring_host_cpu))
		return ivr_err(r, -EINVAL,
			       "%s: structure sizes %u/%u/%u differ from ABI %u.x's %zu/%zu/%zu",
			       r->path, h->cpu_size, h->desc_size, h->host_cpu_size,
			       IVRING_ABI_MAJOR, sizeof(struct ivring_cpu),
			       sizeof(struct ivring_desc),
			       sizeof(struct ivring_host_cpu));
	return check_areas(r, h);
}

/*
 * Copy the live header.  The magic is read with acquire first, pairing with
 * the writer's store-release after formatting; the generation is read again
 * after the copy so that a concurrent re-format is noticed.
 */
int ivr_load_header(struct ivring *r)
{
	const struct ivring_header *live = (const void *)r->map;
	struct ivring_header h;
	u64 gen;
	int ret;

	if (__atomic_load_n(&live->magic, __ATOMIC_ACQUIRE) != IVRING_MAGIC &&
	    __atomic_load_n(&live->state, __ATOMIC_RELAXED) ==
		    IVRING_STATE_FORMATTING)
		return ivr_err(r, -EAGAIN, "%s: the guest is formatting the segment; try again",
			       r->path);
	memcpy(&h, live, sizeof(h));
	ivr_rmb();
	gen = __atomic_load_n(&live->generation, __ATOMIC_RELAXED);
	if (gen != h.generation)
		return ivr_err(r, -EAGAIN, "%s: the guest re-formatted the segment while we read it; try again",
			       r->path);
	ret = ivr_check_header(r, &h);
	if (ret)
		return ret;
	r->hdr = h;
	r->rec_area = h.subbuf_size - sizeof(struct ivring_subbuf_hdr);
	return 0;
}

/*
 * ivring_host.file_id of this file on this host: the boot id tells hosts
 * (and boots) apart, the device and inode the files of one host.  FNV-1a;
 * never 0, which means "not known".
 */
static u64 file_id(const struct stat *st)
{
	u64 v[2] = { st->st_dev, st->st_ino };
	char boot[64] = "";
	u64 h = 0xcbf29ce484222325ULL;
	const u8 *p;
	size_t i;
	FILE *f;

	f = fopen("/proc/sys/kernel/random/boot_id", "re");
	if (f) {
		if (!fgets(boot, sizeof(boot), f))
			boot[0] = '\0';
		fclose(f);
	}
	for (p = (const u8 *)boot; *p; p++)
		h = (h ^ *p) * 0x100000001b3ULL;
	for (p = (const u8 *)v, i = 0; i < sizeof(v); i++)
		h = (h ^ p[i]) * 0x100000001b3ULL;
	return h ? h : 1;
}

static int map_file(struct ivring *r, const char *path, bool rdonly)
{
	struct stat st;
	int prot = PROT_READ;
	int ret;

	ret = strchr(path, '/') ? asprintf(&r->path, "%s", path) :
				  asprintf(&r->path, SHM_DIR "%s", path);
	if (ret < 0) {
		r->path = NULL;
		return ivr_err(r, -ENOMEM, "out of memory for the path %.64s...",
			       path);
	}

	r->fd = open(r->path, (rdonly ? O_RDONLY : O_RDWR) | O_CLOEXEC);
	if (r->fd < 0 && !rdonly && (errno == EACCES || errno == EROFS)) {
		/* Not ours to write: a snapshot is all we can offer. */
		r->fd = open(r->path, O_RDONLY | O_CLOEXEC);
		rdonly = true;
		r->peek = true;
	}
	if (r->fd < 0)
		return ivr_err(r, -errno, "%s: %s", r->path, strerror(errno));
	if (fstat(r->fd, &st))
		return ivr_err(r, -errno, "%s: %s", r->path, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return ivr_err(r, -ENOTTY, "%s: not a regular file", r->path);
	r->file_id = file_id(&st);
	if ((size_t)st.st_size < sizeof(struct ivring_header))
		return ivr_err(r, -ENOTTY,
			       "%s: not an ivring segment (file is %lld bytes); is the module loaded in the guest?",
			       r->path, (long long)st.st_size);
	if (!rdonly)
		prot |= PROT_WRITE;
	r->map_len = st.st_size;
	r->map = mmap(NULL, r->map_len, prot, MAP_SHARED, r->fd, 0);
	if (r->map == MAP_FAILED) {
		r->map = NULL;
		return ivr_err(r, -errno, "%s: mmap of %zu bytes failed: %s",
			       r->path, r->map_len, strerror(errno));
	}
	return 0;
}

/*
 * One consumer per segment: two would each move the consumer positions the
 * guest obeys, and each would see only part of the events.  The lock is on
 * the open file, so it goes with the process, however the process ends.
 */
static int lock_consumer(struct ivring *r)
{
	u32 pid;

	if (r->peek || !flock(r->fd, LOCK_EX | LOCK_NB))
		return 0;
	if (errno != EWOULDBLOCK)
		return ivr_err(r, -errno, "%s: cannot lock the segment: %s",
			       r->path, strerror(errno));
	/* For the message only: the guest could have written any number. */
	pid = __atomic_load_n(&ivr_host(r)->reader_pid, __ATOMIC_RELAXED);
	return ivr_err(r, -EBUSY,
		       "%s: another reader (pid %u) is consuming this segment; read beside it with --peek (IVRING_OPEN_PEEK), or stop it first",
		       r->path, pid);
}

static int open_mapped(struct ivring *r, void *arg)
{
	int ret;

	ret = ivr_load_header(r);
	if (!ret)
		ret = lock_consumer(r);
	if (!ret)
		ret = ivr_attach(r);
	/* Write to the segment only once nothing can fail any more. */
	if (!ret)
		ivr_claim(r);
	return ret;
}

bool ivr_struct_tail_zero(const void *p, size_t sz, size_t known)
{
	const u8 *b = p;

	for (; sz > known; known++)
		if (b[known])
			return false;
	return true;
}

/* An open that fails says why in the caller's errbuf, whatever failed. */
static int open_failed(const struct ivring_open_opts *opts, struct ivring *r,
		       int ret, const char *why)
{
	size_t need = offsetof(struct ivring_open_opts, errbuf_len) +
		      sizeof(opts->errbuf_len);

	if (opts && opts->sz >= need && opts->errbuf && opts->errbuf_len)
		snprintf(opts->errbuf, opts->errbuf_len, "%s",
			 r && r->err[0] ? r->err : why);
	ivring__close(r);
	return ret;
}

int ivring__open(const char *path, const struct ivring_open_opts *opts,
		 struct ivring **out)
{
	const unsigned int known = IVRING_OPEN_PEEK | IVRING_OPEN_RDONLY |
				   IVRING_OPEN_EXPLICIT_COMMIT;
	unsigned int flags = 0;
	struct ivring *r;
	int ret;

	if (!out)
		return -EINVAL;
	*out = NULL;
	if (opts && (opts->sz < sizeof(opts->sz) ||
		     !ivr_struct_tail_zero(opts, opts->sz, sizeof(*opts))))
		return open_failed(opts, NULL, -EINVAL,
				   "ivring_open_opts: sz is too small, or fields this library does not know are set; is the header newer than the library?");
	if (opts && opts->sz >= offsetof(struct ivring_open_opts, flags) +
				sizeof(opts->flags))
		flags = opts->flags;
	if (flags & ~known)
		return open_failed(opts, NULL, -EINVAL,
				   "ivring_open_opts: unknown flags set; is the header newer than the library?");
	if (!path || !path[0])
		return open_failed(opts, NULL, -EINVAL, "no segment path given");

	r = calloc(1, sizeof(*r));
	if (!r)
		return open_failed(opts, NULL, -ENOMEM, "out of memory");
	r->fd = -1;
	r->last_cpu = -1;
	r->peek = flags & (IVRING_OPEN_PEEK | IVRING_OPEN_RDONLY);
	r->explicit_commit = flags & IVRING_OPEN_EXPLICIT_COMMIT;

	ivr_guard_install();
	ret = map_file(r, path, flags & IVRING_OPEN_RDONLY);
	if (!ret)
		ret = ivr_guarded(r, open_mapped, NULL);
	if (ret)
		return open_failed(opts, r, ret, strerror(-ret));
	/* Only a failure leaves a message. */
	r->err[0] = '\0';
	*out = r;
	return 0;
}

static int close_mapped(struct ivring *r, void *arg)
{
	if (!r->explicit_commit)
		ivring__flush(r);
	/* The flush may have found the mapping gone. */
	if (!r->gone)
		ivr_heartbeat(r);
	return 0;
}

void ivring__close(struct ivring *r)
{
	if (!r)
		return;
	/* A handle whose mapping faulted writes nothing more to it. */
	if (r->cpus && r->map && !r->gone)
		ivr_guarded(r, close_mapped, NULL);
	ivr_detach(r);
	if (r->map)
		munmap(r->map, r->map_len);
	if (r->fd >= 0)
		close(r->fd);
	free(r->heap);
	free(r->page_out);
	free(r->scratch);
	ivr_render_free(r);
	free(r->path);
	free(r->sync.s);
	free(r);
}

static int info_mapped(struct ivring *r, void *arg)
{
	const struct ivring_header *h = &r->hdr;
	struct ivring_info *info = arg;
	struct ivring_info i = { .sz = info->sz };

	i.abi_major = h->abi_major;
	i.abi_minor = h->abi_minor;
	i.generation = h->generation;
	i.segment_size = h->segment_size;
	i.state = ivr_live_state(r);
	i.mode = h->mode;
	i.nr_cpus = h->nr_cpus;
	i.subbuf_size = h->subbuf_size;
	i.nr_subbufs = h->nr_subbufs;
	i.clock_id = h->clock_id;
	memcpy(i.clock_name, h->clock_name, sizeof(h->clock_name));
	i.clock_name[sizeof(h->clock_name)] = '\0';
	i.peek = r->peek;
	i.resumed = r->resumed;
	i.may_repeat = r->may_repeat;
	/* A caller built against an older, shorter struct gets its part. */
	memcpy(info, &i, info->sz < sizeof(i) ? info->sz : sizeof(i));
	return 0;
}

int ivring__info(struct ivring *r, struct ivring_info *info)
{
	if (!r || !info || info->sz < sizeof(info->sz))
		return -EINVAL;
	return ivr_guarded(r, info_mapped, info);
}
