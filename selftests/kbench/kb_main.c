// SPDX-License-Identifier: GPL-2.0
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * ivring_kbench.ko: the per-event cost of ivring's write path against the
 * kernel's own ftrace ring buffer (ring_buffer_lock_reserve() +
 * ring_buffer_unlock_commit() on a buffer from ring_buffer_alloc()), in the
 * same guest, in the same run.  A benchmark, not a test: it asserts
 * nothing.  Loading runs it and prints the report to the kernel log; the
 * module then stays loaded, doing nothing, until it is removed.
 *
 * Each round times one batch of each kind for each payload size, the two
 * rings in alternating order from round to round, so that noise (another
 * guest on the host, an interrupt) spreads over both.  Quoted are the
 * median of each series and the median of the per-round ratios
 * ivring / ftrace, whose two batches ran next to each other.
 *
 * Load it pinned to one CPU (taskset), e.g.
 *   taskset 2 insmod ivring_kbench.ko rounds=101 batch=1024 sizes=16,64,256
 */
#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/sort.h>

#include "kbench.h"

#define KB_SIZES_MAX	8
#define KB_PER_SIZE	3	/* KB_IVRING, KB_FTRACE, KB_FILL */
#define KB_FIXED	4	/* KB_CLK_IVRING ... KB_ICALL: no payload */

static unsigned int rounds = 101;
module_param(rounds, uint, 0444);
MODULE_PARM_DESC(rounds, "interleaved rounds, each timing every kind once (default 101)");

/*
 * Short batches: on a busy host the vCPU thread is descheduled now and
 * then for milliseconds, and a short batch is either hit as a whole, which
 * the medians then drop, or not at all.
 */
static unsigned int batch = 1024;
module_param(batch, uint, 0444);
MODULE_PARM_DESC(batch, "events per timed batch (default 1024)");

static unsigned int sizes[KB_SIZES_MAX] = { 16, 64, 256 };
static unsigned int nr_sizes = 3;
module_param_array(sizes, uint, &nr_sizes, 0444);
MODULE_PARM_DESC(sizes, "payload sizes in bytes, 8 to 2048 (default 16,64,256)");

static unsigned int ring_kb = 1024;
module_param(ring_kb, uint, 0444);
MODULE_PARM_DESC(ring_kb, "KiB per CPU of each ring, a multiple of 4, at least 8 (default 1024)");

static char *clock = "auto";
module_param(clock, charp, 0444);
MODULE_PARM_DESC(clock, "ivring's clock, as ivring.ko's clock parameter: auto (default), mono or tsc");

static bool verbose;
module_param(verbose, bool, 0444);
MODULE_PARM_DESC(verbose, "also print every round's figures");

struct kb_run {
	struct kb_rings rings;
	u64 *ps;		/* [row][round]: picoseconds per event */
	u64 *ratio;		/* [round]: ivring / ftrace, permille */
	unsigned int nr_rows;
	unsigned int cpu;	/* of the first timed batch */
	unsigned int migrations;
	unsigned long fails[KB_NR_KINDS];
};

static unsigned int kb_row(enum kb_kind kind, unsigned int size_idx)
{
	if (kind >= KB_CLK_IVRING)
		return nr_sizes * KB_PER_SIZE + kind - KB_CLK_IVRING;
	return size_idx * KB_PER_SIZE + kind;
}

static void kb_time(struct kb_run *run, enum kb_kind kind,
		    unsigned int size_idx, unsigned int round)
{
	u32 len = kind < KB_CLK_IVRING ? sizes[size_idx] : 0;
	unsigned int cpu;
	u64 ns = kb_batch(&run->rings, kind, len, batch, &cpu,
			  &run->fails[kind]);

	if (cpu != run->cpu)
		run->migrations++;
	run->ps[kb_row(kind, size_idx) * rounds + round] =
		div_u64(ns * 1000, batch);
}

/*
 * Write twice each ring's size with the largest payload before timing:
 * from then on every page change on either ring reuses an old page, as it
 * does in a long trace, and no timed batch sees a fresh ring.
 */
static void kb_warm_up(struct kb_run *run)
{
	u32 len = 0;
	u64 n;
	unsigned int i, cpu;

	for (i = 0; i < nr_sizes; i++)
		len = max(len, sizes[i]);
	n = div_u64((u64)ring_kb * 1024 * 2, len + 8);
	for (; n; n -= min_t(u64, n, batch)) {
		kb_batch(&run->rings, KB_IVRING, len, batch, &cpu,
			 &run->fails[KB_IVRING]);
		kb_batch(&run->rings, KB_FTRACE, len, batch, &cpu,
			 &run->fails[KB_FTRACE]);
		cond_resched();
	}
	run->cpu = cpu;
}

static void kb_rounds(struct kb_run *run)
{
	unsigned int r, s;

	for (r = 0; r < rounds; r++) {
		/* Odd rounds put ftrace first: neither always runs warm. */
		enum kb_kind a = r & 1 ? KB_FTRACE : KB_IVRING;
		enum kb_kind b = r & 1 ? KB_IVRING : KB_FTRACE;

		for (s = 0; s < nr_sizes; s++) {
			kb_time(run, a, s, r);
			kb_time(run, b, s, r);
			kb_time(run, KB_FILL, s, r);
		}
		kb_time(run, r & 1 ? KB_CLK_FTRACE : KB_CLK_IVRING, 0, r);
		kb_time(run, r & 1 ? KB_CLK_IVRING : KB_CLK_FTRACE, 0, r);
		kb_time(run, KB_IRQ_OFF, 0, r);
		kb_time(run, KB_ICALL, 0, r);
		cond_resched();
	}
}

static int kb_cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/*
 * Sorts @v in place; the median, and the quartiles in *q1 and *q3 (the
 * spread without the outliers that a busy host makes).
 */
static u64 kb_median(u64 *v, unsigned int n, u64 *q1, u64 *q3)
{
	sort(v, n, sizeof(*v), kb_cmp_u64, NULL);
	*q1 = v[n / 4];
	*q3 = v[(3 * n) / 4];
	return n & 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Thousandths as "int.frac": picoseconds as ns, permille as a ratio. */
#define KB_NUM_LEN	24

static const char *kb_milli(char *buf, u64 milli)
{
	u32 rem;
	u64 q = div_u64_rem(milli, 1000, &rem);

	snprintf(buf, KB_NUM_LEN, "%llu.%03u", q, rem);
	return buf;
}

static void kb_report(struct kb_run *run)
{
	u64 *ratio = run->ratio;
	u64 q1, q3, iv, ft, fill, rmed, rq1, rq3;
	char b[6][KB_NUM_LEN];
	unsigned int s, r;

	pr_info(KB_NAME ": setup cpu=%u rounds=%u batch=%u ring_kb=%u mode=overwrite migrations=%u\n",
		run->cpu, rounds, batch, ring_kb, run->migrations);
	for (s = 0; s < nr_sizes; s++) {
		u64 *piv = &run->ps[kb_row(KB_IVRING, s) * rounds];
		u64 *pft = &run->ps[kb_row(KB_FTRACE, s) * rounds];

		/* Paired ratios first: the medians below sort the series. */
		for (r = 0; r < rounds; r++) {
			ratio[r] = div64_u64(piv[r] * 1000, max_t(u64, pft[r], 1));
			if (verbose)
				pr_info(KB_NAME ": round %u payload=%u ivring_ns=%s ftrace_ns=%s\n",
					r, sizes[s], kb_milli(b[0], piv[r]),
					kb_milli(b[1], pft[r]));
		}
		rmed = kb_median(ratio, rounds, &rq1, &rq3);
		iv = kb_median(piv, rounds, &q1, &q3);
		ft = kb_median(pft, rounds, &q1, &q3);
		fill = kb_median(&run->ps[kb_row(KB_FILL, s) * rounds], rounds,
				 &q1, &q3);
		pr_info(KB_NAME ": result payload=%u ivring_ns=%s ftrace_ns=%s fill_ns=%s ratio=%s ratio_q1=%s ratio_q3=%s\n",
			sizes[s], kb_milli(b[0], iv), kb_milli(b[1], ft),
			kb_milli(b[2], fill), kb_milli(b[3], rmed),
			kb_milli(b[4], rq1), kb_milli(b[5], rq3));
	}
	iv = kb_median(&run->ps[kb_row(KB_CLK_IVRING, 0) * rounds], rounds,
		       &q1, &q3);
	ft = kb_median(&run->ps[kb_row(KB_CLK_FTRACE, 0) * rounds], rounds,
		       &q1, &q3);
	pr_info(KB_NAME ": clock ivring_ns=%s ftrace_ns=%s ivring_clock=%s\n",
		kb_milli(b[0], iv), kb_milli(b[1], ft), run->rings.clock_name);
	iv = kb_median(&run->ps[kb_row(KB_IRQ_OFF, 0) * rounds], rounds,
		       &q1, &q3);
	ft = kb_median(&run->ps[kb_row(KB_ICALL, 0) * rounds], rounds,
		       &q1, &q3);
	pr_info(KB_NAME ": perf_parts irq_off_ns=%s icall_ns=%s\n",
		kb_milli(b[0], iv), kb_milli(b[1], ft));
	pr_info(KB_NAME ": fails ivring=%lu ftrace=%lu\n",
		run->fails[KB_IVRING], run->fails[KB_FTRACE]);
	kb_rings_report(&run->rings, run->cpu);
}

static int kb_check_params(void)
{
	unsigned int i;

	if (!rounds || !batch || ring_kb < 8 || ring_kb % 4 || !nr_sizes)
		return -EINVAL;
	for (i = 0; i < nr_sizes; i++)
		if (sizes[i] < KB_PAYLOAD_MIN || sizes[i] > KB_PAYLOAD_MAX)
			return -EINVAL;
	return 0;
}

static int __init kb_init(void)
{
	struct kb_run *run;
	int ret = kb_check_params();

	if (ret) {
		pr_err(KB_NAME ": bad parameters: rounds and batch must be positive, ring_kb a multiple of 4 of at least 8, sizes in [%u, %u]\n",
		       KB_PAYLOAD_MIN, KB_PAYLOAD_MAX);
		return ret;
	}
	run = kzalloc(sizeof(*run), GFP_KERNEL);
	if (!run)
		return -ENOMEM;
	run->nr_rows = nr_sizes * KB_PER_SIZE + KB_FIXED;
	run->ps = kcalloc((size_t)run->nr_rows * rounds, sizeof(*run->ps),
			  GFP_KERNEL);
	run->ratio = kcalloc(rounds, sizeof(*run->ratio), GFP_KERNEL);
	ret = run->ps && run->ratio ? kb_rings_create(&run->rings, ring_kb, clock) :
				      -ENOMEM;
	if (!ret) {
		kb_warm_up(run);
		kb_rounds(run);
		kb_report(run);
	}
	kb_rings_destroy(&run->rings);
	kfree(run->ratio);
	kfree(run->ps);
	kfree(run);
	return ret;
}

static void __exit kb_exit(void)
{
}

module_init(kb_init);
module_exit(kb_exit);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("The ivring authors");
MODULE_DESCRIPTION("Benchmark: ivring's write path against the ftrace ring buffer");
