// SPDX-License-Identifier: GPL-2.0 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * gen_fixed: write a small segment whose every byte is the same on every
 * run (fixed clock, pids, generation), so test_read_cli.sh can compare
 * ivring-read's output with the files in selftests/data/ line by line.
 *
 *   gen_fixed basic PATH	two CPUs: sched_switch-style comms, seq, blob,
 *				an unknown type, an event whose format is
 *				refused, one whose print fmt is not trusted,
 *				a comm with an escape sequence
 *   gen_fixed lost PATH	one CPU in overwrite mode that wrapped: the
 *				reader must report the overwritten events
 *
 * Built from the writer's own sources (include/writer/ring_write.c, ring_format.c)
 * and tools/synth_events.c, like ivring-gen.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ring_writer.h"
#include "synth_events.h"

#define T0		5000000000000ULL	/* 5000 s: fixed, above any boot */
#define GENERATION	0x6669786564ULL
#define SEG_SIZE	(1 << 20)

#define ID_UNKNOWN	77	/* no format for it in the segment */
#define ID_DIVIDE	20	/* print fmt divides by a field: printed raw */
#define ID_FARFIELD	21	/* a field 70000 bytes in: format refused */

static u64 fake_now;

static u64 fake_clock(void)
{
	return fake_now;
}

#define FIXED_COMMON \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n" \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"

static const char divide_format[] =
	"name: divide\nID: 20\nformat:\n" FIXED_COMMON
	"\tfield:u32 a;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:u32 b;\toffset:12;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"q=%u\", REC->a / REC->b\n";

static const char farfield_format[] =
	"name: farfield\nID: 21\nformat:\n" FIXED_COMMON
	"\tfield:u32 far;\toffset:70000;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"far=%u\", REC->far\n";

struct fixed_raw {
	u16 type;
	u8 flags;
	u8 preempt;
	int32_t pid;
	u32 a;
	u32 b;
};

static void die(const char *what, int err)
{
	fprintf(stderr, "gen_fixed: %s: %s\n", what, strerror(err));
	exit(1);
}

static void put(struct ivw_writer *w, unsigned int cpu, u64 t,
		const void *p, u32 len)
{
	int ret;

	fake_now = T0 + t;
	ret = ivw_write(w, cpu, p, len);
	if (ret)
		die("ivw_write", -ret);
}

static void put_seq(struct ivw_writer *w, unsigned int cpu, u64 t,
		    int32_t pid, u64 seq)
{
	struct synth_seq e;

	synth_fill_seq(&e, pid, seq, cpu, SYNTH_ORIGIN_TASK);
	put(w, cpu, t, &e, sizeof(e));
}

static void put_switch(struct ivw_writer *w, unsigned int cpu, u64 t,
		       const char *prev, int32_t prev_pid, int64_t state,
		       const char *next, int32_t next_pid)
{
	struct synth_switch e;

	synth_fill_switch(&e, prev_pid, prev, prev_pid, 120, state, next,
			  next_pid, 120);
	put(w, cpu, t, &e, sizeof(e));
}

static void put_raw(struct ivw_writer *w, unsigned int cpu, u64 t,
		    u16 type, int32_t pid, u32 a, u32 b)
{
	struct fixed_raw e = { .type = type, .pid = pid, .a = a, .b = b };

	put(w, cpu, t, &e, sizeof(e));
}

static void scene_basic(struct ivw_writer *w)
{
	u8 blob[64];

	put_switch(w, 0, 1000, "swapper/0", 0, 0, "bash", 4242);
	put_seq(w, 0, 2000, 4242, 1);
	synth_fill_blob(blob, 4242, 2, 8);
	put(w, 0, 3500, blob, synth_blob_size(8));
	put_raw(w, 0, 4000, ID_UNKNOWN, 4242, 0xdead, 0xbeef);
	put_switch(w, 0, 5000, "bash", 4242, 1, "kworker/0:1", 31);
	put_seq(w, 0, 6000, 31, 3);
	put_seq(w, 0, 7000, 777, 4);		/* nobody named 777 */
	put_raw(w, 0, 8000, ID_DIVIDE, 31, 10, 0);
	put_raw(w, 0, 9000, ID_FARFIELD, 31, 1, 2);

	put_seq(w, 1, 1500, 0, 1);
	put_switch(w, 1, 2500, "swapper/1", 0, 0x100, "sshd", 900);
	put_seq(w, 1, 4500, 900, 2);
	/* A guest-chosen comm must not reach the terminal as an escape. */
	put_switch(w, 1, 4600, "sshd", 900, 2, "evil\033[2J", 66);
	put_seq(w, 1, 4700, 66, 3);
	/* Longer than a time_delta holds: a time-extend record. */
	put_seq(w, 1, 3000000000ULL + 123456789, 66, 4);
}

static void scene_lost(struct ivw_writer *w)
{
	u64 i;

	for (i = 0; i < 30; i++)
		put_seq(w, 0, 1000 * (i + 1), 4242, i);
}

int main(int argc, char **argv)
{
	struct ivw_params p = {
		.segment_size = SEG_SIZE,
		.nr_cpus = 2,
		.subbuf_size = 4096,
		.mode = IVRING_MODE_DISCARD,
		.clock_id = IVRING_CLOCK_MONO,
		.clock_name = "mono",
	};
	struct ivw_writer w;
	struct ivw_cpu *cpus;
	struct ivw_slot *slots;
	struct ivring_header lay;
	bool lost;
	u64 need;
	void *base;
	u32 cpu;
	int fd, ret;

	if (argc != 3 || (strcmp(argv[1], "basic") && strcmp(argv[1], "lost"))) {
		fprintf(stderr, "usage: gen_fixed basic|lost PATH\n");
		return 2;
	}
	lost = !strcmp(argv[1], "lost");
	if (lost) {
		p.nr_cpus = 1;
		p.subbuf_size = 256;
		p.nr_subbufs = 2;
		p.mode = IVRING_MODE_OVERWRITE;
	}
	ret = ivw_layout(&p, &lay, &need);
	if (ret)
		die("layout", -ret);

	fd = open(argv[2], O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		die(argv[2], errno);
	if (ftruncate(fd, SEG_SIZE))
		die("ftruncate", errno);
	base = mmap(NULL, SEG_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (base == MAP_FAILED)
		die("mmap", errno);
	cpus = aligned_alloc(IVRING_CACHELINE, p.nr_cpus * sizeof(*cpus));
	slots = calloc((size_t)p.nr_cpus * lay.nr_subbufs, sizeof(*slots));
	if (!cpus || !slots)
		die("alloc", ENOMEM);

	ret = ivw_format(&w, base, &p, GENERATION, cpus, slots);
	if (ret)
		die("format", -ret);
	/*
	 * ivw_format() stamps the pages and the header with the real
	 * clock (it also clears w->clock); restamp them with the fixed one.
	 */
	w.clock = fake_clock;
	w.hdr->format_time = T0;
	for (cpu = 0; cpu < p.nr_cpus; cpu++) {
		cpus[cpu].last_ts = T0;
		((struct ivring_subbuf_hdr *)cpus[cpu].data)->time_stamp = T0;
	}

	ret = synth_add_formats(&w);
	if (!ret && !lost)
		ret = ivw_add_format(&w, ID_DIVIDE, "fixed", divide_format,
				     strlen(divide_format));
	if (!ret && !lost)
		ret = ivw_add_format(&w, ID_FARFIELD, "fixed", farfield_format,
				     strlen(farfield_format));
	if (ret)
		die("add format", -ret);
	ivw_set_state(&w, IVRING_STATE_LIVE);

	if (lost)
		scene_lost(&w);
	else
		scene_basic(&w);

	ivw_set_state(&w, IVRING_STATE_STOPPED);
	munmap(base, SEG_SIZE);
	close(fd);
	free(cpus);
	free(slots);
	return 0;
}
