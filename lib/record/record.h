/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * A recording's state shared by record.c and the format writers
 * (tracedat.c, ctf.c).  record.c takes the segment's layout and format texts
 * at open, counts what goes through, and keeps the error message; a writer
 * only lays out its format.
 */
#ifndef IVRING_LIB_RECORD_H
#define IVRING_LIB_RECORD_H

#include <sys/types.h>
#include <linux/ivring.h>

#include "handle/reader.h"

struct ivring_rec;
struct ctf_sink;

struct ivr_rec_ops {
	/* Create the files; @r may be consulted here only. */
	int (*begin)(struct ivring_rec *w, struct ivring *r);
	/* Take one verified page (copy it: pg->data is the caller's). */
	int (*page)(struct ivring_rec *w, u32 cpu, const struct ivring_page *pg);
	/*
	 * Optional, both or neither: where the next page of @cpu may be read
	 * to (subbuf_size bytes, in *@at), so that ivring__rec_read() saves
	 * a copy; then @put takes the page that was read there.  0, or
	 * -ENOBUFS when a snapshot has no room for it, or another -errno,
	 * with the error set.
	 */
	int (*slot)(struct ivring_rec *w, u32 cpu, u8 **at);
	int (*put)(struct ivring_rec *w, u32 cpu, const struct ivring_page *pg);
	/*
	 * Optional: each event of a page, before @page or @put takes it
	 * (the trace.dat writer learns comms), seen as the library verifies
	 * the page, or in a walk of a page that the caller passed.
	 */
	void (*event)(struct ivring_rec *w, const struct ivring_event *ev);
	/*
	 * Optional: w->fmts[@from ..] were appended (the guest added formats
	 * after open); @r may be consulted here only.  Called before any page
	 * with their events reaches @page or @put.
	 */
	int (*formats)(struct ivring_rec *w, struct ivring *r, u32 from);
	/*
	 * Optional: host time (ivring__rec_clock()) from @r's clock samples;
	 * returns what ivring__rec_clock() does.
	 */
	int (*clock)(struct ivring_rec *w, struct ivring *r);
	/*
	 * Optional: @lost events of @cpu dropped after its last page, which
	 * no page will tell of, into the file (ivring__rec_lost()).  A
	 * format without it cannot carry them.
	 */
	int (*lost)(struct ivring_rec *w, u32 cpu, u64 lost);
	/* Write out every page taken so far. */
	int (*flush)(struct ivring_rec *w);
	/* Optional: ivring__rec_beacon(). */
	int (*beacon)(struct ivring_rec *w);
	/* Complete the file(s).  Called once, after the last page. */
	int (*end)(struct ivring_rec *w);
	/* Free the writer's state, closing what is still open. */
	void (*free)(struct ivring_rec *w);
};

extern const struct ivr_rec_ops ivr_rec_tracedat_ops;
extern const struct ivr_rec_ops ivr_rec_ctf_ops;

/* One format text the recording carries, copied at open or appended. */
struct ivr_rec_fmt {
	u16 id;
	const char *system;	/* in ivring_rec.str */
	const char *text;
	u32 len;
	u32 flags;		/* IVRING_FORMAT_* */
};

/* A guest of a host's recording: trace-cmd's GUEST option (source.c). */
struct ivr_rec_guest {
	char *name;
	u64 trace_id;
	u32 nr_vcpus;
	int32_t *tids;		/* by vCPU */
};

struct ivr_rec_cpu {
	u64 pages;
	u64 events;
	u64 lost;
	u64 bytes;		/* written to this CPU's data */
	u64 first_ts;		/* of the first event recorded, 0: none yet */
	u64 last_ts;
};

struct ivring_rec {
	const struct ivr_rec_ops *ops;
	void *priv;			/* the writer's */
	char *path;
	int dirfd;			/* the directory of path (out.c) */
	unsigned int format;
	unsigned int version;
	unsigned int compression;	/* IVRING_REC_ZSTD, or 0 */
	bool snapshot;			/* IVRING_REC_SNAPSHOT */
	bool any_dir;			/* IVRING_REC_ANY_DIR */
	u64 trace_id;			/* never 0 */
	const struct ctf_sink *ctf_sink;	/* where a CTF trace goes */
	char *hostname;			/* a relay session's */
	int timeout_ms;			/* a relay daemon's */
	u64 peer_trace_id;		/* the host's, for TIME_SHIFT; 0: unknown */
	char *name;			/* the guest's */
	/* the segment at open */
	struct ivring_info info;
	char *seg_path;
	struct ivr_rec_fmt *fmts;	/* by id */
	u32 nr_fmts;
	char **blocks;			/* their strings, a block per copy */
	u32 nr_blocks;
	u32 src_listed;			/* the reader's formats looked at */
	u64 fmts_gen;			/* bumped when formats were appended */
	struct ivr_rec_cpu *cpus;	/* info.nr_cpus */
	/* Bitmap by type id: the events ops->event looks into; NULL: all. */
	const u8 *event_types;
	/*
	 * A recording of pages from outside a segment (source.c): no reader
	 * behind it; the events' formats parsed here, for their comms; the
	 * ring buffer's own header texts; the guests it hosts.
	 */
	bool from_source;
	struct tep_handle *tep;
	char *header_page;
	char *header_event;
	struct ivr_rec_guest *guests;
	u32 nr_guests;
	u64 meta_bytes;			/* written besides the CPU data */
	bool failed;			/* a write failed: the file is incomplete */
	/* Its filesystem reports write errors at fsync only: writes sync. */
	bool sync;
	struct ivr_msg err;
};

/*
 * record.c, for source.c: the arguments that every open checks first (0,
 * or -EINVAL); a failed open's reason into opts->errbuf; the options a
 * caller passed, taken as this library knows them and checked (0, or
 * -EINVAL with @why); the parts of an open that do not depend on where
 * the pages come from, once w->info is set; and freeing a recording.
 */
int ivr_rec_open_args(const struct ivring_rec_opts *opts,
		      struct ivring_rec **out);
void ivr_rec_say(const struct ivring_rec_opts *opts, const char *why);
int ivr_rec_take_opts(struct ivring_rec_opts *o,
		      const struct ivring_rec_opts *opts, struct ivr_msg *why);
int ivr_rec_setup_out(struct ivring_rec *w, const char *path,
		      const struct ivring_rec_opts *o, const char *name);
void ivr_rec_free(struct ivring_rec *w);

/* io.c: write all of @len bytes at the file's offset; -errno on failure. */
int ivr_write_all(int fd, const void *buf, size_t len);
/* As ivr_write_all() at @off. */
int ivr_pwrite_all(int fd, const void *buf, size_t len, u64 off);
/* ivr_write_all(), then fdatasync() when w->sync. */
int ivr_write_synced(struct ivring_rec *w, int fd, const void *buf,
		     size_t len);

/*
 * out.c: files made in a directory fd, never through a symlink.  @name is
 * a whole path for messages; the file is its last part, in @dirfd.
 */
const char *ivr_out_leaf(const char *name);
/* The directory that holds @path, opened: an fd, or -errno with w->err. */
int ivr_out_open_dir(struct ivring_rec *w, const char *path);
/*
 * @path, which a trace.dat replaces at the end, is nothing, a regular file
 * or a symlink (replaced, not followed): 0, or -EEXIST with w->err (a
 * device, a directory, a FIFO: /dev/null is not ours to rename over).
 */
int ivr_out_target(struct ivring_rec *w, const char *path);
/* A new file (O_CREAT | O_EXCL | O_NOFOLLOW | @flags): an fd or -errno. */
int ivr_out_create(int dirfd, const char *name, int flags);
/* 0 if nothing, not even a symlink, is at @name; -EEXIST if something is. */
int ivr_out_absent(int dirfd, const char *name);
int ivr_out_rename(int dirfd, const char *from, const char *to);
void ivr_out_unlink(int dirfd, const char *name);
/*
 * @path, a directory that the recording makes its own (a CTF trace): made
 * 0755 (less the umask), or taken if it exists; either way only if it is a
 * directory, not a symlink, of this user's that nobody else may write to
 * (unless w->any_dir).  An fd of it, or -errno with w->err; *@made:
 * whether this call made it.
 */
int ivr_out_own_dir(struct ivring_rec *w, const char *path, bool *made);
/*
 * @name replaced whole by @buf: written under a random name beside it and
 * renamed over it.  0, or -errno with w->err.
 */
int ivr_out_replace(struct ivring_rec *w, int dirfd, const char *name,
		    const void *buf, size_t len);

/*
 * cpu_files.c: the CPUs that hold a buffer, and a file where each CPU has
 * one, at most IVR_RESIDENT_CPUS at a time.
 */
#define IVR_RESIDENT_CPUS	64

struct ivr_cpu {
	u64 used;		/* the tick of its last use; 0: not resident */
	int fd;			/* -1: closed */
	bool made;		/* its file exists, as dev and ino */
	dev_t dev;
	ino_t ino;
};

struct ivr_cpus {
	struct ivr_cpu *cpu;	/* info.nr_cpus */
	u32 nr;
	u32 list[IVR_RESIDENT_CPUS];	/* the resident CPUs */
	u32 resident;
	u64 tick;
	int dirfd;		/* where the files are */
	const char *suffix;	/* a file's name: w->path, suffix, the CPU */
	int flags;		/* O_WRONLY or O_RDWR */
	/*
	 * The writer's: write out what @cpu holds and free its buffer; its
	 * file may be used, and is closed after.
	 */
	int (*evict)(struct ivring_rec *w, u32 cpu);
};

int ivr_cpus_init(struct ivring_rec *w, struct ivr_cpus *cs, int dirfd,
		  const char *suffix, int flags,
		  int (*evict)(struct ivring_rec *, u32));
/*
 * @cpu is about to hold data: made resident, the one used longest ago
 * evicted if the set is full.  0 or -errno with w->err.
 */
int ivr_cpus_use(struct ivring_rec *w, struct ivr_cpus *cs, u32 cpu);
bool ivr_cpus_resident(const struct ivr_cpus *cs, u32 cpu);
/*
 * ivr_cpus_use(), and @cpu's file, made or opened again (it must hold the
 * @size bytes written to it): an fd or -errno.
 */
int ivr_cpus_fd(struct ivring_rec *w, struct ivr_cpus *cs, u32 cpu,
		u64 size);
void ivr_cpus_name(const struct ivring_rec *w, const struct ivr_cpus *cs,
		   u32 cpu, char *buf, size_t len);
/*
 * An open that failed with @err: if the process is out of files (EMFILE,
 * ENFILE), one of @cs's open files closed, the one used longest ago other
 * than @keep's (IVR_NO_CPU: any), to be opened again when next written.
 * Whether one was: then the open is worth another try.
 */
#define IVR_NO_CPU	((u32)-1)
bool ivr_cpus_shed(struct ivr_cpus *cs, int err, u32 keep);
/* Close every file; with @drop, remove those made. */
void ivr_cpus_free(struct ivring_rec *w, struct ivr_cpus *cs, bool drop);

#endif /* IVRING_LIB_RECORD_H */
