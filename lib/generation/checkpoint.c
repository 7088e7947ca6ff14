// SPDX-License-Identifier: LGPL-2.1 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * Checkpoints: where a consumer stopped, saved to a file, so that a consumer
 * of a copy of the segment (a live migration's destination) goes on from
 * there instead of from the copied host area, which may be older.
 *
 * The file is text, one line per item, so that an operator can read it and
 * a script can check it:
 *
 *   ivring-checkpoint 1
 *   generation G
 *   layout SEGMENT_SIZE NR_CPUS SUBBUF_SIZE NR_SUBBUFS
 *   cpu N SEQ OFF TICKET          one per CPU, in order
 *   end NR_CPUS
 *
 * It is read as strictly as it is written: any other line, a missing CPU or
 * a missing end (a file cut short) makes it no checkpoint.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "generation/generation.h"

#define CKPT_MAGIC	"ivring-checkpoint 1"

static int save_file(struct ivring *r, const char *path, FILE *f)
{
	const struct ivring_header *h = &r->hdr;
	u32 cpu;
	int err;

	errno = 0;
	fprintf(f, CKPT_MAGIC "\ngeneration %" PRIu64 "\n", (uint64_t)h->generation);
	fprintf(f, "layout %" PRIu64 " %u %u %u\n", (uint64_t)h->segment_size,
		h->nr_cpus, h->subbuf_size, h->nr_subbufs);
	for (cpu = 0; cpu < r->ncpus; cpu++) {
		const struct ivr_cpu *c = &r->cpus[cpu];

		fprintf(f, "cpu %u %" PRIu64 " %u %" PRIu64 "\n", cpu,
			(uint64_t)IVRING_POS_SEQ(c->stored_pos),
			(unsigned int)IVRING_POS_OFF(c->stored_pos),
			(uint64_t)c->stored_ticket);
	}
	fprintf(f, "end %u\n", r->ncpus);
	if (!fflush(f) && !ferror(f) && !fsync(fileno(f)))
		return 0;
	err = errno ? errno : EIO;
	return ivr_err(r, -err, "%s: cannot write the checkpoint: %s", path,
		       strerror(err));
}

int ivring__checkpoint_save(struct ivring *r, const char *path)
{
	char tmp[PATH_MAX];
	FILE *f;
	int fd, ret;

	if (!r || !path)
		return -EINVAL;
	if (r->gone)
		return ivr_err(r, r->gone, "%s", r->gone_msg);
	if (r->peek)
		return ivr_err(r, -EINVAL, "a snapshot handle consumes nothing: it has no checkpoint");
	if (!r->attached)
		return ivr_err(r, -ESTALE, "%s: between two generations: nothing to checkpoint",
			       r->path);
	if (snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path) >= (int)sizeof(tmp))
		return ivr_err(r, -ENAMETOOLONG, "%s: name too long", path);
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return ivr_err(r, -errno, "%s: %s", tmp, strerror(errno));
	f = fdopen(fd, "w");
	if (!f) {
		ret = ivr_err(r, -errno, "%s: %s", tmp, strerror(errno));
		close(fd);
		unlink(tmp);
		return ret;
	}
	ret = save_file(r, tmp, f);
	if (fclose(f) && !ret)
		ret = ivr_err(r, -errno, "%s: %s", tmp, strerror(errno));
	/* Whole or not at all: a reader never sees a checkpoint cut short. */
	if (!ret && rename(tmp, path))
		ret = ivr_err(r, -errno, "%s: %s", path, strerror(errno));
	if (ret)
		unlink(tmp);
	return ret;
}

struct ckpt {
	u64 generation;
	u64 segment_size;
	u32 nr_cpus, subbuf_size, nr_subbufs;
	u64 *pos;		/* nr_cpus of each */
	u64 *ticket;
};

/* One "cpu" line after another, then "end": 0, or -EINVAL. */
static int parse_cpus(FILE *f, struct ckpt *k)
{
	char line[128], tail;
	unsigned int cpu, off, n;
	uint64_t seq, ticket;
	u32 i;

	for (i = 0; i < k->nr_cpus; i++) {
		if (!fgets(line, sizeof(line), f) ||
		    sscanf(line, "cpu %u %" SCNu64 " %u %" SCNu64 "%c", &cpu,
			   &seq, &off, &ticket, &tail) != 5 || tail != '\n' ||
		    cpu != i || off >= 1U << IVRING_POS_OFF_BITS ||
		    seq >> (64 - IVRING_POS_OFF_BITS))
			return -EINVAL;
		k->pos[i] = IVRING_POS(seq, off);
		k->ticket[i] = ticket;
	}
	if (!fgets(line, sizeof(line), f) ||
	    sscanf(line, "end %u%c", &n, &tail) != 2 || tail != '\n' ||
	    n != k->nr_cpus || fgets(line, sizeof(line), f))
		return -EINVAL;
	return 0;
}

static int parse_file(struct ivring *r, const char *path, struct ckpt *k)
{
	char line[128], tail;
	uint64_t gen, size;
	int ret = -EINVAL;
	FILE *f;

	f = fopen(path, "re");
	if (!f)
		return ivr_err(r, -errno, "%s: %s", path, strerror(errno));
	if (fgets(line, sizeof(line), f) && !strcmp(line, CKPT_MAGIC "\n") &&
	    fgets(line, sizeof(line), f) &&
	    sscanf(line, "generation %" SCNu64 "%c", &gen, &tail) == 2 &&
	    tail == '\n' && fgets(line, sizeof(line), f) &&
	    sscanf(line, "layout %" SCNu64 " %u %u %u%c", &size, &k->nr_cpus,
		   &k->subbuf_size, &k->nr_subbufs, &tail) == 5 &&
	    tail == '\n' && k->nr_cpus && k->nr_cpus <= IVRING_NR_CPUS_MAX) {
		k->generation = gen;
		k->segment_size = size;
		k->pos = calloc(k->nr_cpus, sizeof(*k->pos));
		k->ticket = calloc(k->nr_cpus, sizeof(*k->ticket));
		if (!k->pos || !k->ticket)
			ret = -ENOMEM;
		else
			ret = parse_cpus(f, k);
	}
	fclose(f);
	if (ret == -ENOMEM)
		return ivr_err(r, ret, "out of memory for a checkpoint of %u CPUs",
			       k->nr_cpus);
	if (ret)
		return ivr_err(r, ret, "%s: not a whole ivring checkpoint", path);
	return 0;
}

static int load_mapped(struct ivring *r, void *arg)
{
	const struct ckpt *k = arg;
	u64 *cs;
	u32 cpu;
	int ret = 0;

	cs = calloc(r->ncpus, sizeof(*cs));
	if (!cs)
		return ivr_err(r, -ENOMEM, "out of memory for %u CPUs", r->ncpus);
	/* Every CPU first, so that a checkpoint that does not fit changes nothing. */
	for (cpu = 0; cpu < r->ncpus && !ret; cpu++) {
		cs[cpu] = ivr_load_acquire(&ivr_shared_cpu(r, cpu)->commit_seq);
		if (IVRING_POS_SEQ(k->pos[cpu]) > cs[cpu])
			ret = ivr_err(r, -ERANGE,
				      "%s: the checkpoint is at sub-buffer %" PRIu64 " of CPU %u, where the segment has only %" PRIu64 ": it was saved from another segment",
				      r->path, (uint64_t)IVRING_POS_SEQ(k->pos[cpu]),
				      cpu, (uint64_t)cs[cpu]);
	}
	for (cpu = 0; cpu < r->ncpus && !ret; cpu++) {
		ivr_cpu_place(r, cpu, k->pos[cpu], k->ticket[cpu], cs[cpu]);
		ivr_cpu_store_pos(r, cpu);
	}
	free(cs);
	if (ret)
		return ret;
	if (r->gen_ops && r->gen_ops->placed)
		r->gen_ops->placed(r);
	r->resumed = IVRING_RESUMED_CHECKPOINT;
	r->may_repeat = 0;
	return 0;
}

int ivring__checkpoint_load(struct ivring *r, const char *path)
{
	const struct ivring_header *h;
	struct ckpt k = { 0 };
	int ret;
	u32 cpu;

	if (!r || !path)
		return -EINVAL;
	if (r->gone)
		return ivr_err(r, r->gone, "%s", r->gone_msg);
	if (!r->attached)
		return ivr_err(r, -ESTALE, "%s: between two generations", r->path);
	for (cpu = 0; cpu < r->ncpus; cpu++)
		if (r->cpus[cpu].read || r->cpus[cpu].lost)
			return ivr_err(r, -EBUSY,
				       "%s: events were read already: a checkpoint is for a reader that starts",
				       r->path);
	ret = parse_file(r, path, &k);
	if (ret)
		goto out;
	h = &r->hdr;
	if (k.generation != h->generation) {
		ret = ivr_err(r, -ESTALE,
			      "%s: of generation %" PRIu64 ", but the segment is at %" PRIu64 ": the guest formatted it again since",
			      path, (uint64_t)k.generation, (uint64_t)h->generation);
	} else if (k.segment_size != h->segment_size || k.nr_cpus != h->nr_cpus ||
		   k.subbuf_size != h->subbuf_size || k.nr_subbufs != h->nr_subbufs) {
		ret = ivr_err(r, -EINVAL,
			      "%s: saved from a segment of %" PRIu64 " bytes, %u CPUs, %u sub-buffers of %u bytes; this one has %" PRIu64 ", %u, %u of %u",
			      path, (uint64_t)k.segment_size, k.nr_cpus, k.nr_subbufs,
			      k.subbuf_size, (uint64_t)h->segment_size, h->nr_cpus,
			      h->nr_subbufs, h->subbuf_size);
	} else {
		ret = ivr_guarded(r, load_mapped, &k);
	}
out:
	free(k.pos);
	free(k.ticket);
	return ret;
}
