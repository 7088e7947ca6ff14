// SPDX-License-Identifier: GPL-2.0 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * The reader against a hostile segment (include/DESIGN, section 4): a guest can
 * write anything anywhere in the segment, at any time, and libivring must
 * answer with an error or a counted bad page, never with a crash, a hang or
 * a read outside the mapping.
 *
 * A reference segment is built with the real writer: three CPUs, events of
 * several sizes (type_len 1..28 and type_len 0 records), time extends,
 * padding at page ends, wrapped pages (overwrite) or dropped events
 * (discard), and the synth formats.  Then:
 *  - clean: the reader returns exactly the events that the writer wrote;
 *  - fields: every field of every structure and every record header word is
 *    set in turn to a list of hostile values;
 *  - fuzz: random mutations, reproducible with IVRING_FUZZ_SEED, as many as
 *    IVRING_FUZZ_ITERS;
 *  - live: the segment changes under an open handle, in step with the
 *    reader (reproducible) and from another thread (racing).
 * After each mutation the reader opens the segment, iterates to the end,
 * renders every event and reads the statistics; then the segment is
 * restored.  hostile.h puts guard regions around the reader's mapping and a
 * watchdog on every step, and both print the mutation that failed.
 */
#include <pthread.h>
#include <stddef.h>
#include <sys/mman.h>
#include <time.h>

#include "kselftest_harness.h"
#include "hostile.h"

#define NR_CPUS		3
#define SUBBUF		1024
#define NR_SUBBUFS	4
#define FORMAT_SIZE	8192
#define REC_AREA	(SUBBUF - sizeof(struct ivring_subbuf_hdr))
#define NR_PAGES	(NR_CPUS * NR_SUBBUFS)
/* The smallest record is 8 bytes, so no page can hold more events. */
#define PAGE_EVENTS_MAX	(REC_AREA / 8)
#define PASS_EVENTS_MAX	(NR_PAGES * PAGE_EVENTS_MAX)
#define LOG_MAX		1100	/* events logged per CPU */

/* One event as the writer wrote it. */
struct wev {
	u64 ts;
	u64 ticket;
	u16 type;
	u32 len;	/* payload bytes we filled */
	u32 rsize;	/* payload bytes the record holds (rounded up) */
	u32 poff;	/* payload copy in seg.store */
};

/* A 32-bit word worth mutating: a record header or its length word. */
struct rloc {
	u32 off;	/* in the segment */
	u32 cpu;
	u32 page;	/* index in seg.pages */
	u8 kind;	/* 0: header, 1: array[0] */
};

struct pinfo {
	bool valid;	/* holds a published sub-buffer */
	u64 seq;
	u32 cpu, slot;
	u32 first;	/* index in the CPU's expected list */
	u32 count;
};

struct seg {
	int fd;
	char path[64];
	u8 *map;	/* our own view of the file */
	size_t size;
	u8 *orig;	/* the reference bytes */
	struct ivring_header hdr;
	struct ivw_writer w;
	struct ivw_cpu *wc;
	struct ivw_slot *slots;
	/* what was written, per CPU, in ticket order (drops excluded) */
	struct wev *log[NR_CPUS];
	u32 nlog[NR_CPUS];
	u64 drops[NR_CPUS];
	u32 first_exp[NR_CPUS];	/* log index of the first event in the ring */
	u32 nexp[NR_CPUS];
	u8 *store;
	size_t store_len;
	struct pinfo pages[NR_PAGES];
	struct rloc *rl;
	u32 nrl;
	u64 ticket[NR_CPUS];
};

static u64 fake_now;

static u64 fake_clock(void)
{
	return fake_now;
}

static u32 seg_page_off(const struct seg *s, u32 cpu, u32 slot)
{
	return s->hdr.data_offset + (cpu * NR_SUBBUFS + slot) * SUBBUF;
}

/* Write one event of a kind picked by @rnd on @cpu, at fake_now. */
static void seg_write_one(struct seg *s, u32 cpu, u64 *rnd)
{
	/* 80..85: around the type_len 28 / type_len 0 boundary. */
	static const u32 blob_lens[] = { 0, 1, 7, 8, 60, 80, 81, 84, 85, 100,
					 120, 200, 333 };
	u8 buf[1024];
	u32 len, kind = hs_below(rnd, 8);
	u64 t = s->ticket[cpu]++;
	struct wev *e;
	void *p;

	if (kind < 3) {
		synth_fill_seq((void *)buf, 100 + cpu, t, cpu, 0);
		len = sizeof(struct synth_seq);
	} else if (kind < 5) {
		synth_fill_switch((void *)buf, 100 + cpu, "prev", 1, 120, 1,
				  "next-task", 2 + cpu, 120);
		len = sizeof(struct synth_switch);
	} else {
		u32 dl = blob_lens[hs_below(rnd, sizeof(blob_lens) /
						 sizeof(blob_lens[0]))];

		if (!hs_below(rnd, 20))		/* now and then, a page's worth */
			dl = 600 + hs_below(rnd, 400);
		if (dl > synth_blob_max_len(s->w.max_payload))
			dl = synth_blob_max_len(s->w.max_payload);
		synth_fill_blob(buf, 100 + cpu, t, dl);
		len = synth_blob_size(dl);
	}
	p = ivw_reserve(&s->w, cpu, len);
	if (!p) {
		s->drops[cpu]++;
		return;
	}
	memcpy(p, buf, len);
	ivw_commit(&s->w, cpu);

	e = &s->log[cpu][s->nlog[cpu]++];
	e->ts = fake_now;
	e->ticket = t;
	e->type = ((struct synth_common *)buf)->common_type;
	e->len = len;
	ivw_record_len(len, &kind);
	e->rsize = kind ? kind * 4 : (len + 7) & ~7U;
	e->poff = s->store_len;
	memcpy(s->store + s->store_len, buf, len);
	s->store_len += len;
}

static void seg_add_rloc(struct seg *s, u32 off, u32 cpu, u32 page, u8 kind)
{
	s->rl[s->nrl++] = (struct rloc){ off, cpu, page, kind };
}

/*
 * Walk the reference segment as a reader would, trusting it: find every
 * record header word, and which logged events each page holds.
 */
static int seg_walk(struct seg *s)
{
	u32 cpu, slot;

	s->nrl = 0;
	for (cpu = 0; cpu < NR_CPUS; cpu++) {
		const struct ivring_cpu *sc = (void *)(s->orig +
				s->hdr.cpu_offset + cpu * sizeof(*sc));
		u64 commit_seq = sc->commit_seq;
		u64 oldest = commit_seq + 1 > NR_SUBBUFS ?
			     commit_seq + 1 - NR_SUBBUFS : 0;
		u64 seq;
		u32 idx = 0, total = 0;

		for (seq = oldest; seq <= commit_seq; seq++) {
			const struct ivring_desc *d;
			struct pinfo *pi;
			u32 off = 0, len;
			const u8 *rec;
			u64 commit;

			slot = seq % NR_SUBBUFS;
			d = (void *)(s->orig + s->hdr.desc_offset +
				     (cpu * NR_SUBBUFS + slot) * sizeof(*d));
			if (d->seq != seq)
				return -1;
			pi = &s->pages[cpu * NR_SUBBUFS + slot];
			pi->valid = true;
			pi->seq = seq;
			pi->cpu = cpu;
			pi->slot = slot;
			pi->first = idx;
			commit = ((struct ivring_subbuf_hdr *)(s->orig +
				  seg_page_off(s, cpu, slot)))->commit;
			len = commit & ~IVRING_COMMIT_FLAGS;
			rec = s->orig + seg_page_off(s, cpu, slot) +
			      sizeof(struct ivring_subbuf_hdr);
			while (off < len) {
				u32 h, tl, a0;
				u32 at = seg_page_off(s, cpu, slot) +
					 sizeof(struct ivring_subbuf_hdr) + off;

				memcpy(&h, rec + off, 4);
				memcpy(&a0, rec + off + 4, 4);
				tl = h & 31;
				seg_add_rloc(s, at, cpu, cpu * NR_SUBBUFS + slot, 0);
				if (tl >= 1 && tl <= IVRING_TYPE_DATA_MAX) {
					off += 4 + tl * 4;
					pi->count++;
					continue;
				}
				seg_add_rloc(s, at + 4, cpu,
					     cpu * NR_SUBBUFS + slot, 1);
				if (tl == 0) {
					off += 4 + a0;
					pi->count++;
				} else if (tl == IVRING_TYPE_PADDING) {
					off += 4 + a0;
				} else {
					off += 8;
				}
			}
			idx += pi->count;
		}
		total = idx;
		/* The ring holds the newest @total committed events. */
		s->nexp[cpu] = total;
		if (total > s->nlog[cpu])
			return -1;
		s->first_exp[cpu] = s->nlog[cpu] - total;
	}
	return 0;
}

struct seg_opts {
	u32 mode;
	u32 events[NR_CPUS];	/* events to write per CPU */
	u32 state;
};

static int seg_build(struct seg *s, const struct seg_opts *o, u64 seed)
{
	struct ivw_params p = {
		.nr_cpus = NR_CPUS, .subbuf_size = SUBBUF,
		.nr_subbufs = NR_SUBBUFS, .format_size = FORMAT_SIZE,
		.mode = o->mode, .clock_id = IVRING_CLOCK_MONO,
		.clock_name = "mono",
	};
	u32 left[NR_CPUS], total = 0, cpu;
	u64 need, rnd = seed | 1;
	int ret;

	memset(s, 0, sizeof(*s));
	ret = ivw_layout(&p, &s->hdr, &need);
	if (ret != -ENOSPC && ret)
		return ret;
	/* A whole number of pages, so a read past its end faults. */
	s->size = p.segment_size = (need + HS_PAGE - 1) & ~(HS_PAGE - 1);
	s->fd = memfd_create("ivring-hostile", MFD_CLOEXEC);
	if (s->fd < 0 || ftruncate(s->fd, s->size))
		return -errno;
	snprintf(s->path, sizeof(s->path), "/proc/%d/fd/%d", getpid(), s->fd);
	s->map = mmap(NULL, s->size, PROT_READ | PROT_WRITE, MAP_SHARED,
		      s->fd, 0);
	if (s->map == MAP_FAILED)
		return -errno;
	s->wc = aligned_alloc(IVRING_CACHELINE, NR_CPUS * sizeof(*s->wc));
	s->slots = calloc(NR_CPUS * NR_SUBBUFS, sizeof(*s->slots));
	s->orig = malloc(s->size);
	s->rl = calloc(NR_PAGES * PAGE_EVENTS_MAX * 2, sizeof(*s->rl));
	for (cpu = 0; cpu < NR_CPUS; cpu++) {
		/* Room for the live tests, which keep writing. */
		s->log[cpu] = calloc(LOG_MAX, sizeof(struct wev));
		left[cpu] = o->events[cpu];
		total += left[cpu];
	}
	s->store = malloc((size_t)LOG_MAX * NR_CPUS * 1024);
	ret = ivw_format(&s->w, s->map, &p, 1, s->wc, s->slots);
	if (ret)
		return ret;
	ret = synth_add_formats(&s->w);
	if (ret)
		return ret;
	ivw_set_state(&s->w, IVRING_STATE_LIVE);
	s->hdr = *(struct ivring_header *)s->map;

	/*
	 * The first page started at the real clock; ours starts above it and
	 * then steps by small deltas, with some that need a time extend
	 * (> 2^27 - 1 ns) or sit just below one.
	 */
	s->w.clock = fake_clock;
	fake_now = ivw_clock_mono() + 1000;
	while (total) {
		u32 r = hs_below(&rnd, 100);

		do
			cpu = hs_below(&rnd, NR_CPUS);
		while (!left[cpu]);
		if (r < 6)
			fake_now += IVRING_TS_DELTA_MAX + 1 + hs_below(&rnd, 5);
		else if (r < 5)
			fake_now += IVRING_TS_DELTA_MAX;
		else if (r < 6)
			fake_now += 1ULL << 35;
		else
			fake_now += 1 + hs_below(&rnd, 5000);
		seg_write_one(s, cpu, &rnd);
		left[cpu]--;
		total--;
	}
	ivw_set_state(&s->w, o->state);
	memcpy(s->orig, s->map, s->size);
	return seg_walk(s);
}

static void seg_free(struct seg *s)
{
	u32 cpu;

	if (s->map && s->map != MAP_FAILED)
		syscall(SYS_munmap, s->map, s->size);
	if (s->fd > 0)
		close(s->fd);
	for (cpu = 0; cpu < NR_CPUS; cpu++)
		free(s->log[cpu]);
	free(s->wc);
	free(s->slots);
	free(s->orig);
	free(s->rl);
	free(s->store);
}

static void seg_restore(struct seg *s)
{
	memcpy(s->map, s->orig, s->size);
}

/* ---------------------------------------------------------------------
 * One reader pass: open, iterate to the end, render, statistics.
 * ------------------------------------------------------------------- */
struct got {
	u32 cpu;
	u64 ts;
	u16 type;
	u32 size;
	u64 lost;
	u32 hash;	/* of the payload, to compare with the log */
	u32 len;
	u8 head[64];
};

struct pass {
	int open_ret;
	int end_ret;	/* what ended the iteration */
	u32 n;
	u32 ncpu[NR_CPUS];
	u32 stale;
	u64 bad_pages;
	u64 lost;
	struct ivring_cpu_stats st[NR_CPUS];
	char err[256];
	bool record;	/* keep every event in ev[] */
	struct got ev[PASS_EVENTS_MAX + 64];
	u64 rendered;
	u32 nr_cpus;	/* as the handle says */
};

static u32 fnv(const void *p, u32 n)
{
	const u8 *b = p;
	u32 h = 2166136261U;

	while (n--)
		h = (h ^ *b++) * 16777619U;
	return h;
}

static bool errno_known(int ret)
{
	switch (-ret) {
	case ENOENT: case EACCES: case ENOTTY: case EPROTONOSUPPORT:
	case EFBIG: case EINVAL: case EAGAIN: case ENOMEM: case EBADMSG:
	case EOVERFLOW: case ERANGE: case E2BIG: case EPROTO: case ENODATA:
	case ENOSPC: case ENOEXEC:
		return true;
	}
	return false;
}

/*
 * Use one returned event the way a tool would: read every payload byte the
 * reader claims, look its format up, render it into a roomy and a tiny
 * buffer.
 */
static void use_event(struct __test_metadata *_metadata, struct ivring *r,
		      const struct ivring_event *ev, struct pass *ps)
{
	static char line[4096];
	char tiny[8];
	int n;

	ASSERT_LT(ev->cpu, ps->nr_cpus) TH_LOG("%s", hs_ctx);
	ASSERT_LE(ev->size, REC_AREA) TH_LOG("%s", hs_ctx);
	if (ev->size)
		ASSERT_NE(NULL, ev->data) TH_LOG("%s", hs_ctx);
	if (ps->record && ps->n < sizeof(ps->ev) / sizeof(ps->ev[0])) {
		struct got *g = &ps->ev[ps->n];

		g->cpu = ev->cpu;
		g->ts = ev->ts;
		g->type = ev->type;
		g->size = ev->size;
		g->lost = ev->lost;
		g->len = ev->size < sizeof(g->head) ? ev->size : sizeof(g->head);
		memcpy(g->head, ev->data, g->len);
		g->hash = fnv(ev->data, ev->size);
	} else {
		/* Touch it all: a pointer outside the copy faults here. */
		(void)fnv(ev->data, ev->size);
	}
	(void)ivring__event(r, ev->type);
	n = ivring__snprint(r, ev, line, sizeof(line));
	ASSERT_TRUE(n >= 0 || errno_known(n)) TH_LOG("snprint %d; %s", n, hs_ctx);
	if (n >= 0)
		ASSERT_EQ(strnlen(line, sizeof(line)),
			  (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1)
			TH_LOG("%s", hs_ctx);
	/* Truncation too, but rendering is most of a pass's cost: now and then. */
	if (!(ps->rendered & 15)) {
		n = ivring__snprint(r, ev, tiny, sizeof(tiny));
		if (n >= 0)
			ASSERT_LT(strnlen(tiny, sizeof(tiny)), sizeof(tiny))
				TH_LOG("%s", hs_ctx);
	}
	ps->rendered++;
}

/*
 * A live test's header page and format area back as the writer left them,
 * LIVE, after a mutation made the segment unopenable.
 */
static void restore_live_header(struct seg *s, const u8 *hdr_page)
{
	memcpy(s->map, hdr_page, HS_PAGE);
	((struct ivring_header *)s->map)->state = IVRING_STATE_LIVE;
	memcpy(s->map + s->hdr.format_offset, s->orig + s->hdr.format_offset,
	       s->hdr.format_size);
}

/*
 * Up to @n events, each used as a tool would (use_event()); *@got counts
 * them.  Returns what the last ivring__next() returned.
 */
static int use_events(struct __test_metadata *_metadata, struct ivring *r,
		      u32 n, struct pass *ps, u64 *got)
{
	struct ivring_event ev;
	int ret = 0;
	u32 k;

	for (k = 0; k < n; k++) {
		hs_progress++;
		ret = ivring__next(r, &ev);
		if (ret != 1)
			break;
		use_event(_metadata, r, &ev, ps);
		(*got)++;
	}
	return ret;
}

/*
 * Iterate @r until it has nothing more, at most @max events; an iteration
 * that wants to go on past that fails the test.
 */
static void drain(struct __test_metadata *_metadata, struct ivring *r,
		  struct pass *ps, u32 max)
{
	struct ivring_event ev;
	u32 calls, limit = max + 64;
	int ret = 0;

	for (calls = 0; calls < limit; calls++) {
		hs_progress++;
		ret = ivring__next(r, &ev);
		if (ret == 1) {
			use_event(_metadata, r, &ev, ps);
			ps->n++;
			if (ev.cpu < NR_CPUS)
				ps->ncpu[ev.cpu]++;
			ps->lost += ev.lost;
			ASSERT_LE(ps->n, max)
				TH_LOG("reader returned more events than fit: %s",
				       hs_ctx);
			continue;
		}
		if (ret == -ESTALE && ++ps->stale <= 4)
			continue;
		break;
	}
	ASSERT_LT(calls, limit) TH_LOG("iteration does not end: %s", hs_ctx);
	ASSERT_TRUE(ret == 0 || ret == -EPIPE || ret == -ESTALE ||
		    errno_known(ret))
		TH_LOG("ivring__next: %d; %s", ret, hs_ctx);
	if (ret < 0 && ret != -EPIPE)
		ASSERT_NE(0, ivring__errmsg(r)[0]) TH_LOG("%s", hs_ctx);
	ps->end_ret = ret;
}

static void stats(struct __test_metadata *_metadata, struct ivring *r,
		  struct pass *ps)
{
	struct ivring_info info = { .sz = sizeof(info) };
	u16 ids[8];
	u32 cpu;
	int ret;

	ps->bad_pages = 0;
	ASSERT_EQ(0, ivring__info(r, &info));
	ASSERT_EQ(ps->nr_cpus, info.nr_cpus);
	for (cpu = 0; cpu < info.nr_cpus + 1; cpu++) {
		struct ivring_cpu_stats st = { .sz = sizeof(st) };

		ret = ivring__cpu_stats(r, cpu, &st);
		if (cpu >= info.nr_cpus) {
			ASSERT_GT(0, ret) TH_LOG("stats of CPU %u", cpu);
			continue;
		}
		ASSERT_EQ(0, ret) TH_LOG("%s", hs_ctx);
		if (cpu < NR_CPUS)
			ps->st[cpu] = st;
		ps->bad_pages += st.bad_pages;
	}
	ret = ivring__match_events(r, "*", ids, 8);
	ASSERT_TRUE(ret >= 0 || errno_known(ret)) TH_LOG("%s", hs_ctx);
}

/*
 * The most events a static segment can yield, whatever its header claims:
 * each is a record of at least 8 bytes inside the file, and each sub-buffer
 * is read once.
 */
static u32 pass_max(const struct seg *s)
{
	return s->size / 8;
}

/* Open the segment, then drain and take statistics if that worked. */
static void pass_run(struct __test_metadata *_metadata, struct seg *s,
		     unsigned int flags, struct pass *ps, bool record)
{
	struct ivring_open_opts o = { .sz = sizeof(o), .flags = flags,
				      .errbuf = ps->err,
				      .errbuf_len = sizeof(ps->err) };
	struct ivring *r;

	memset(ps, 0, offsetof(struct pass, ev));
	ps->record = record;
	hs_progress++;
	ps->open_ret = ivring__open(s->path, &o, &r);
	if (ps->open_ret) {
		ASSERT_TRUE(errno_known(ps->open_ret))
			TH_LOG("open: %d (%s); %s", ps->open_ret, ps->err,
			       hs_ctx);
		ASSERT_NE(0, ps->err[0])
			TH_LOG("open failed (%d) without a message; %s",
			       ps->open_ret, hs_ctx);
		ASSERT_EQ(NULL, r);
		return;
	}
	{
		struct ivring_info info = { .sz = sizeof(info) };

		ASSERT_EQ(0, ivring__info(r, &info));
		ps->nr_cpus = info.nr_cpus;
	}
	drain(_metadata, r, ps, pass_max(s));
	stats(_metadata, r, ps);
	ivring__close(r);
}

/* Open for the live tests; ps->nr_cpus follows the handle. */
static int live_open(struct seg *s, struct ivring **r, struct pass *ps)
{
	struct ivring_open_opts o = { .sz = sizeof(o) };
	struct ivring_info info = { .sz = sizeof(info) };
	int ret = ivring__open(s->path, &o, r);

	if (!ret) {
		ret = ivring__info(*r, &info);
		ps->nr_cpus = info.nr_cpus;
	}
	return ret;
}

/* ---------------------------------------------------------------------
 * Comparing a pass with the log.
 * ------------------------------------------------------------------- */

/* Does @g match the writer's event @e of @cpu? */
static bool same_event(const struct seg *s, const struct got *g, u32 cpu,
		       const struct wev *e)
{
	return g->cpu == cpu && g->ts == e->ts && g->type == e->type &&
	       g->size == e->rsize &&
	       !memcmp(g->head, s->store + e->poff,
		       e->len < g->len ? e->len : g->len);
}

/*
 * The events of @cpu in @ps, in order, as indices into ps->ev.
 * Returns their count.
 */
static u32 events_of(const struct pass *ps, u32 cpu, u32 *idx)
{
	u32 i, n = 0;

	for (i = 0; i < ps->n && i < sizeof(ps->ev) / sizeof(ps->ev[0]); i++)
		if (ps->ev[i].cpu == cpu)
			idx[n++] = i;
	return n;
}

/*
 * Check that @cpu delivered exactly the expected events, except inside
 * page @bad_page (when it is one of this CPU's; -1 for none), which may
 * yield anything up to PAGE_EVENTS_MAX events in their place.
 */
static void check_cpu(struct __test_metadata *_metadata, const struct seg *s,
		      const struct pass *ps, u32 cpu, int bad_page)
{
	static u32 idx[PASS_EVENTS_MAX + 64];
	u32 n = events_of(ps, cpu, idx), i;
	u32 nexp = s->nexp[cpu], pre = nexp, post = 0;
	const struct wev *exp = s->log[cpu] + s->first_exp[cpu];

	if (bad_page >= 0 && s->pages[bad_page].cpu == cpu &&
	    s->pages[bad_page].valid) {
		pre = s->pages[bad_page].first;
		post = nexp - pre - s->pages[bad_page].count;
		ASSERT_LE(n, pre + post + PAGE_EVENTS_MAX) TH_LOG("%s", hs_ctx);
	} else {
		ASSERT_EQ(n, nexp) TH_LOG("cpu %u: %s", cpu, hs_ctx);
	}
	ASSERT_GE(n, pre + post) TH_LOG("cpu %u: %s", cpu, hs_ctx);
	for (i = 0; i < pre; i++)
		ASSERT_TRUE(same_event(s, &ps->ev[idx[i]], cpu, &exp[i]))
			TH_LOG("cpu %u event %u of %u differs: ts %llu/%llu type %u/%u size %u/%u; %s",
			       cpu, i, nexp,
			       (unsigned long long)ps->ev[idx[i]].ts,
			       (unsigned long long)exp[i].ts,
			       ps->ev[idx[i]].type, exp[i].type,
			       ps->ev[idx[i]].size, exp[i].rsize, hs_ctx);
	for (i = 0; i < post; i++)
		ASSERT_TRUE(same_event(s, &ps->ev[idx[n - post + i]], cpu,
				       &exp[nexp - post + i]))
			TH_LOG("cpu %u event %u after the bad page differs; %s",
			       cpu, nexp - post + i, hs_ctx);
}

/* ---------------------------------------------------------------------
 * Mutations.
 * ------------------------------------------------------------------- */
struct undo {
	u32 off;
	u8 len;
	u8 old[8];
};

static void poke(struct seg *s, u32 off, u32 width, u64 v, struct undo *u)
{
	if (off + width > s->size)
		return;
	if (u) {
		u->off = off;
		u->len = width;
		memcpy(u->old, s->map + off, width);
	}
	memcpy(s->map + off, &v, width);	/* little-endian: low bytes */
}

static u64 peek_val(const struct seg *s, u32 off, u32 width)
{
	u64 v = 0;

	memcpy(&v, s->orig + off, width);
	return v;
}

/* The hostile values for a field of @width bytes that holds @v. */
/*
 * The values of list[] below that are edges, where a size, an offset or a
 * count wraps or just overruns: 0, 1, ~0, 0x7fffffff, 0x80000000,
 * 0xffffffff, 1 << 63, v - 1, v + 1, v * 2, ~v, sz, sz - 1, sz + 1, 4096
 * and 65536.
 */
#define HS_EDGES	(1ULL << 0 | 1ULL << 1 | 1ULL << 6 | 1ULL << 14 |	\
			 1ULL << 15 | 1ULL << 16 | 1ULL << 18 | 1ULL << 20 |	\
			 1ULL << 21 | 1ULL << 27 | 1ULL << 32 | 1ULL << 34 |	\
			 1ULL << 35 | 1ULL << 36 | 1ULL << 42 | 1ULL << 44)

/* The values a field is set to: with @all every one, else the edges. */
static u32 hostile_values(const struct seg *s, u64 v, u32 width, u64 *out,
			  bool all)
{
	const u64 sz = s->size;
	const u64 list[] = {
		0, 1, 2, 3, 7, 8, ~0ULL, 0x7f, 0x80, 0xff, 0x7fff, 0x8000,
		0xffff, 0x10000, 0x7fffffff, 0x80000000, 0xffffffff,
		0x100000000ULL, 1ULL << 63, 0x7fffffffffffffffULL,
		v - 1, v + 1, v + 2, v + 3, v + 4, v + 8, v - 8, v * 2, v / 2,
		v + 4096, v - 4096, v ^ (1ULL << 63), ~v, v << 16,
		sz, sz - 1, sz + 1, sz - 8, sz + 4096, sz - 4096, sz / 2,
		4095, 4096, 4097, 65536, 65537,
	};
	u64 mask = width == 8 ? ~0ULL : (1ULL << (width * 8)) - 1;
	u32 i, j, n = 0;

	_Static_assert(sizeof(list) / sizeof(list[0]) <= 64,
		       "HS_EDGES has a bit per value");
	for (i = 0; i < sizeof(list) / sizeof(list[0]); i++) {
		u64 x = list[i] & mask;

		if (!all && !(HS_EDGES >> i & 1))
			continue;

		if (x == (v & mask))
			continue;
		for (j = 0; j < n && out[j] != x; j++)
			;
		if (j == n)
			out[n++] = x;
	}
	return n;
}

struct field {
	const char *name;
	u32 off;
	u8 width;
	int page;	/* page whose events it may spoil, -1: any */
	int cpu;	/* CPU whose events it may spoil, -1: any */
};

#define HDR_FIELD(f) { #f, offsetof(struct ivring_header, f), \
		       sizeof(((struct ivring_header *)0)->f), -1, -1 }

static const struct field hdr_fields[] = {
	HDR_FIELD(magic), HDR_FIELD(abi_major), HDR_FIELD(abi_minor),
	HDR_FIELD(header_size), HDR_FIELD(segment_size),
	HDR_FIELD(generation), HDR_FIELD(state), HDR_FIELD(mode),
	HDR_FIELD(nr_cpus), HDR_FIELD(subbuf_size), HDR_FIELD(nr_subbufs),
	HDR_FIELD(cpu_size), HDR_FIELD(desc_size), HDR_FIELD(host_cpu_size),
	HDR_FIELD(cpu_offset), HDR_FIELD(desc_offset),
	HDR_FIELD(format_offset), HDR_FIELD(format_size),
	HDR_FIELD(host_offset), HDR_FIELD(host_size), HDR_FIELD(data_offset),
	HDR_FIELD(data_size), HDR_FIELD(clock_id), HDR_FIELD(flags),
	{ "clock_name[0..7]", offsetof(struct ivring_header, clock_name), 8,
	  -1, -1 },
	{ "clock_name[8..15]", offsetof(struct ivring_header, clock_name) + 8,
	  8, -1, -1 },
	HDR_FIELD(format_time),
	/* reserved[] follows; the loop below adds its words */
};

/* Every field worth a systematic mutation, by name. */
static u32 all_fields(const struct seg *s, struct field *f)
{
	static char names[4096][40];
	u32 n = 0, i, cpu, slot, k;
	u32 off;

#define ADD(nm, o, w, pg, c) do {					\
		snprintf(names[n], sizeof(names[n]), "%s", nm);		\
		f[n] = (struct field){ names[n], (o), (w), (pg), (c) };	\
		n++;							\
	} while (0)

	for (i = 0; i < sizeof(hdr_fields) / sizeof(hdr_fields[0]); i++)
		f[n++] = hdr_fields[i];
	/* The reserved words, then the writer's clock answer (ABI 1.1). */
	for (i = 0; i < 12; i++) {
		char nm[40];

		if (i < 4)
			snprintf(nm, sizeof(nm), "hdr.reserved[%u]", i);
		else
			snprintf(nm, sizeof(nm), "hdr.sync[%u]", i - 4);
		ADD(nm, offsetof(struct ivring_header, reserved) + 8 * i, 8,
		    -1, -1);
	}
	for (cpu = 0; cpu < NR_CPUS; cpu++) {
		static const char *const cf[16] = {
			"commit_seq", "entries", "overrun", "dropped",
			"rejected", "bytes", "last_ts", "reserved[0]",
			"reserved[1]", "reserved[2]", "reserved[3]",
			"reserved[4]", "reserved[5]", "reserved[6]",
			"reserved[7]", "reserved[8]",
		};

		for (k = 0; k < 16; k++) {
			char nm[40];

			snprintf(nm, sizeof(nm), "cpu%u.%s", cpu, cf[k]);
			ADD(nm, s->hdr.cpu_offset +
				cpu * sizeof(struct ivring_cpu) + 8 * k, 8,
			    -1, cpu);
		}
	}
	for (cpu = 0; cpu < NR_CPUS; cpu++) {
		for (slot = 0; slot < NR_SUBBUFS; slot++) {
			static const struct { const char *n; u8 o, w; } df[] = {
				{ "seq", 0, 8 }, { "first_ticket", 8, 8 },
				{ "dropped", 16, 8 }, { "entries", 24, 4 },
				{ "reserved", 28, 4 },
			};
			u32 pg = cpu * NR_SUBBUFS + slot;

			off = s->hdr.desc_offset +
			      pg * sizeof(struct ivring_desc);
			for (k = 0; k < 5; k++) {
				char nm[40];

				snprintf(nm, sizeof(nm), "desc[%u][%u].%s", cpu,
					 slot, df[k].n);
				ADD(nm, off + df[k].o, df[k].w, pg, cpu);
			}
			off = seg_page_off(s, cpu, slot);
			snprintf(names[n], 40, "page[%u][%u].time_stamp", cpu,
				 slot);
			f[n] = (struct field){ names[n], off, 8, pg, cpu };
			n++;
			snprintf(names[n], 40, "page[%u][%u].commit", cpu, slot);
			f[n] = (struct field){ names[n], off + 8, 8, pg, cpu };
			n++;
			/* The commit word's flags and length, separately. */
			snprintf(names[n], 40, "page[%u][%u].commit.lo32", cpu,
				 slot);
			f[n] = (struct field){ names[n], off + 8, 4, pg, cpu };
			n++;
		}
	}
	/* The format area and each format record's fields. */
	off = s->hdr.format_offset;
	ADD("fmt.nr_events", off, 4, -1, -1);
	ADD("fmt.used", off + 4, 4, -1, -1);
	ADD("fmt.reserved", off + 8, 8, -1, -1);
	off += sizeof(struct ivring_format_area);
	for (i = 0; i < SYNTH_NR_EVENTS; i++) {
		const struct ivring_format *fr = (void *)(s->orig + off);
		char nm[40];

		snprintf(nm, sizeof(nm), "fmt[%u].rec_size", i);
		ADD(nm, off, 4, -1, -1);
		snprintf(nm, sizeof(nm), "fmt[%u].id", i);
		ADD(nm, off + 4, 2, -1, -1);
		snprintf(nm, sizeof(nm), "fmt[%u].sys_len", i);
		ADD(nm, off + 6, 2, -1, -1);
		snprintf(nm, sizeof(nm), "fmt[%u].text_len", i);
		ADD(nm, off + 8, 4, -1, -1);
		snprintf(nm, sizeof(nm), "fmt[%u].reserved", i);
		ADD(nm, off + 12, 4, -1, -1);
		snprintf(nm, sizeof(nm), "fmt[%u].text[0..7]", i);
		ADD(nm, off + sizeof(*fr) + fr->sys_len, 8, -1, -1);
		off += fr->rec_size;
	}
	/* The host's area: hostile too when the file is not ours. */
	off = s->hdr.host_offset;
	ADD("host.generation", off, 8, -1, -1);
	ADD("host.heartbeat", off + 8, 8, -1, -1);
	for (cpu = 0; cpu < NR_CPUS; cpu++) {
		char nm[40];

		snprintf(nm, sizeof(nm), "host_cpu[%u].consumer_pos", cpu);
		ADD(nm, off + sizeof(struct ivring_host) +
			cpu * sizeof(struct ivring_host_cpu), 8, -1, -1);
	}
#undef ADD
	return n;
}

/* Names of the record-header words of s->rl[], for messages. */
static const char *rloc_name(const struct seg *s, const struct rloc *l)
{
	static char nm[80];
	const struct pinfo *pi = &s->pages[l->page];

	snprintf(nm, sizeof(nm), "page[%u][%u]+%u %s", pi->cpu, pi->slot,
		 l->off - seg_page_off(s, pi->cpu, pi->slot),
		 l->kind ? "array[0]" : "record header");
	return nm;
}

/*
 * What a mutation at a field may legitimately change: the events of its
 * page (or CPU), nothing else.  Checked only when the reader opened the
 * segment and saw no change of generation.
 */
static void check_contained(struct __test_metadata *_metadata,
			    const struct seg *s, const struct pass *ps,
			    const struct field *f)
{
	u32 cpu;

	if (ps->open_ret || f->cpu < 0)
		return;
	for (cpu = 0; cpu < NR_CPUS; cpu++) {
		if ((int)cpu != f->cpu) {
			check_cpu(_metadata, s, ps, cpu, -1);
		} else if (f->page >= 0) {
			check_cpu(_metadata, s, ps, cpu, f->page);
		} else {
			/* A CPU-wide field: bounded by what the ring holds. */
			ASSERT_LE(ps->ncpu[cpu], NR_SUBBUFS * PAGE_EVENTS_MAX)
				TH_LOG("%s", hs_ctx);
		}
	}
}

/* ---------------------------------------------------------------------
 * The fixture: one reference segment per variant.
 * ------------------------------------------------------------------- */
FIXTURE(hostile) {
	struct seg s;
	struct pass ps;
};

FIXTURE_VARIANT(hostile) {
	u32 mode;
	u32 events[NR_CPUS];
};

/* Wraps CPU 0 about three times and CPU 1 once; CPU 2 holds a few events. */
FIXTURE_VARIANT_ADD(hostile, overwrite) {
	.mode = IVRING_MODE_OVERWRITE,
	.events = { 170, 70, 6 },
};

/* CPU 0 overflows and drops; CPU 1 fills part; CPU 2 writes one event. */
FIXTURE_VARIANT_ADD(hostile, discard) {
	.mode = IVRING_MODE_DISCARD,
	.events = { 120, 30, 1 },
};

/*
 * IVRING_HOSTILE_ONLY=fuzz (or another test's name) runs only that one:
 * the harness of Linux 6.1 has no test filter.
 */
static bool hs_skip(const char *name)
{
	const char *only = getenv("IVRING_HOSTILE_ONLY");

	return only && *only && strcmp(only, name);
}

#define HS_ONLY() do {						\
		if (hs_skip(_metadata->name))				\
			SKIP(return, "IVRING_HOSTILE_ONLY=%s",		\
			     getenv("IVRING_HOSTILE_ONLY"));		\
	} while (0)

FIXTURE_SETUP(hostile)
{

	struct seg_opts o = { .mode = variant->mode,
			      .state = IVRING_STATE_STOPPED };
	u32 cpu;

	memcpy(o.events, variant->events, sizeof(o.events));
	ASSERT_EQ(0, seg_build(&self->s, &o, 0x1f2e3d4c5b6a7988ULL));
	ASSERT_EQ(0, hs_guard_arm(self->s.size * 2));
	hs_dump_base = self->s.map;
	hs_dump_size = self->s.size;
	hs_watchdog_start();
	for (cpu = 0; cpu < NR_CPUS; cpu++)
		ASSERT_GT(self->s.nexp[cpu], 0);
}

FIXTURE_TEARDOWN(hostile)
{
	hs_watchdog_stop();
	if (hs_guard.unguarded)
		TH_LOG("note: %lu reader mappings were outside the guard",
		       hs_guard.unguarded);
	hs_guard_disarm();
	seg_free(&self->s);
}

/* The reference segment: what the writer wrote, and that nothing is off. */
static void check_clean(struct __test_metadata *_metadata, struct seg *s,
			struct pass *ps, unsigned int flags)
{
	u64 prev_ts = 0;
	u32 cpu, i;

	pass_run(_metadata, s, flags, ps, true);
	ASSERT_EQ(0, ps->open_ret) TH_LOG("%s", ps->err);
	ASSERT_EQ(-EPIPE, ps->end_ret);
	ASSERT_EQ(0, ps->bad_pages);
	ASSERT_EQ(0, ps->stale);
	for (cpu = 0; cpu < NR_CPUS; cpu++) {
		const struct ivring_cpu_stats *st = &ps->st[cpu];

		check_cpu(_metadata, s, ps, cpu, -1);
		ASSERT_EQ(s->nlog[cpu], st->entries);
		ASSERT_EQ(s->drops[cpu], st->dropped);
		ASSERT_EQ(s->nexp[cpu], st->read);
		ASSERT_EQ(0, st->unread);
		ASSERT_EQ(0, st->rejected);
		ASSERT_LE(st->oldest_ts, st->last_ts);
	}
	/* Merged by time. */
	for (i = 0; i < ps->n; i++) {
		ASSERT_LE(prev_ts, ps->ev[i].ts) TH_LOG("event %u", i);
		prev_ts = ps->ev[i].ts;
	}
}

TEST_F(hostile, clean)
{
	struct seg *s = &self->s;
	u32 cpu, ext = 0, big = 0, pad = 0, i;

	HS_ONLY();
	hs_ctx_set("clean segment");
	check_clean(_metadata, s, &self->ps, 0);
	check_clean(_metadata, s, &self->ps, IVRING_OPEN_PEEK);
	check_clean(_metadata, s, &self->ps,
		    IVRING_OPEN_PEEK | IVRING_OPEN_RDONLY);

	/* The reader's mapping sits between two inaccessible guards. */
	{
		struct ivring_open_opts o = { .sz = sizeof(o) };
		struct ivring *r;
		u8 *m;

		ASSERT_EQ(0, ivring__open(s->path, &o, &r));
		m = hs_guard.in_use;
		ASSERT_NE(NULL, m);
		ASSERT_EQ(s->size, hs_guard.in_use_len);
		ASSERT_TRUE(hs_no_access(m - 1));
		ASSERT_TRUE(hs_no_access(m + s->size));
		ASSERT_TRUE(hs_no_access(m + s->size + (1UL << 32)));
		ASSERT_FALSE(hs_no_access(m + s->size - 1));
		ivring__close(r);
		ASSERT_EQ(NULL, hs_guard.in_use);
	}
	/* The reference has what the mutations need to hit. */
	for (i = 0; i < s->nrl; i++) {
		u32 h;

		if (s->rl[i].kind)
			continue;
		memcpy(&h, s->orig + s->rl[i].off, 4);
		ext += (h & 31) == IVRING_TYPE_TIME_EXTEND;
		big += (h & 31) == 0;
		pad += (h & 31) == IVRING_TYPE_PADDING;
	}
	ASSERT_GT(ext, 2);
	ASSERT_GT(big, 5);
	ASSERT_GT(pad, 3);
	for (cpu = 0; cpu < NR_CPUS; cpu++)
		TH_LOG("cpu %u: %u written, %llu dropped, %u in the ring",
		       cpu, s->nlog[cpu], (unsigned long long)s->drops[cpu],
		       s->nexp[cpu]);
	TH_LOG("%u record words, %u time extends, %u type_len 0, %u paddings",
	       s->nrl, ext, big, pad);
	if (variant->mode == IVRING_MODE_OVERWRITE) {
		ASSERT_GT(s->nlog[0], s->nexp[0]);	/* it wrapped */
	} else {
		ASSERT_GT(s->drops[0], 0);
	}
}

/* A segment that claims more bytes than its file has, or a short file. */
TEST_F(hostile, truncated)
{
	struct seg *s = &self->s;
	const off_t sizes[] = { s->size - HS_PAGE, s->size / 2, HS_PAGE,
				sizeof(struct ivring_header),
				sizeof(struct ivring_header) - 1, 64, 0 };
	unsigned int i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		hs_ctx_set("file truncated to %lld bytes", (long long)sizes[i]);
		/* Our own view must not touch the cut-off tail. */
		ASSERT_EQ(0, ftruncate(s->fd, sizes[i]));
		pass_run(_metadata, s, 0, &self->ps, false);
		ASSERT_NE(0, self->ps.open_ret) TH_LOG("%s", hs_ctx);
		if (sizes[i] >= (off_t)sizeof(struct ivring_header))
			ASSERT_EQ(-EFBIG, self->ps.open_ret)
				TH_LOG("%s: %s", hs_ctx, self->ps.err);
		TH_LOG("%lld bytes: %d %s", (long long)sizes[i],
		       self->ps.open_ret, self->ps.err);
		ASSERT_EQ(0, ftruncate(s->fd, s->size));
		seg_restore(s);
	}
	/* A larger file than the segment is fine: the rest is ignored. */
	ASSERT_EQ(0, ftruncate(s->fd, s->size + 2 * HS_PAGE));
	hs_ctx_set("file larger than segment_size");
	check_clean(_metadata, s, &self->ps, 0);
	ASSERT_EQ(0, ftruncate(s->fd, s->size));
}

/* Every field, every record word, each set to every hostile value. */
/*
 * ASan makes a pass about 4 times slower (see FUZZ_ITERS_DEFAULT): its run
 * sets each field to the edges alone, where an overrun that the plain run
 * would not notice shows, and each mode takes every other field (the
 * overwrite mode the even ones, discard the odd ones), so that the two
 * cover the header's fields once between them; the plain run takes every
 * value of every field in both.
 */
#ifdef __SANITIZE_ADDRESS__
#define HS_FIELDS_ALL	false
#define HS_FIELD_TAKEN(i, mode) \
	((i) % 2 == ((mode) == IVRING_MODE_OVERWRITE ? 0 : 1))
#else
#define HS_FIELDS_ALL	true
#define HS_FIELD_TAKEN(i, mode)	true
#endif

TEST_F_TIMEOUT(hostile, fields, 900)
{
	static struct field f[4096];
	struct seg *s = &self->s;
	u64 vals[128];
	u32 nf = all_fields(s, f), i, j, nv, passes = 0, opened = 0, bad = 0;

	HS_ONLY();
	for (i = 0; i < nf; i++) {
		u64 v = peek_val(s, f[i].off, f[i].width);

		if (!HS_FIELD_TAKEN(i, variant->mode))
			continue;
		nv = hostile_values(s, v, f[i].width, vals, HS_FIELDS_ALL);
		for (j = 0; j < nv; j++) {
			unsigned int fl = j & 1 ? IVRING_OPEN_PEEK |
						  IVRING_OPEN_RDONLY : 0;

			hs_ctx_set("field %s (offset %u, %u bytes) = %#llx (was %#llx), flags %u",
				   f[i].name, f[i].off, f[i].width,
				   (unsigned long long)vals[j],
				   (unsigned long long)v, fl);
			poke(s, f[i].off, f[i].width, vals[j], NULL);
			pass_run(_metadata, s, fl, &self->ps, true);
			check_contained(_metadata, s, &self->ps, &f[i]);
			passes++;
			opened += !self->ps.open_ret;
			bad += self->ps.bad_pages > 0;
			seg_restore(s);
		}
	}
	/* Record header words: every type_len, delta extremes, the list. */
	for (i = 0; i < s->nrl; i++) {
		const struct rloc *l = &s->rl[i];
		struct field fl = { rloc_name(s, l), l->off, 4, l->page,
				    l->cpu };
		u64 v = peek_val(s, l->off, 4);

		if (!HS_FIELD_TAKEN(i, variant->mode))
			continue;
		nv = hostile_values(s, v, 4, vals, HS_FIELDS_ALL);
		if (!l->kind) {
			u32 t;

			for (t = 0; t < 32; t++)
				if (t != (v & 31))
					vals[nv++] = (v & ~31ULL) | t;
			vals[nv++] = v | ~31U;		/* delta max */
			vals[nv++] = v & 31;		/* delta 0 */
		}
		for (j = 0; j < nv; j++) {
			hs_ctx_set("%s (offset %u) = %#llx (was %#llx)",
				   fl.name, l->off, (unsigned long long)vals[j],
				   (unsigned long long)v);
			poke(s, l->off, 4, vals[j], NULL);
			pass_run(_metadata, s, j & 1 ? IVRING_OPEN_PEEK : 0,
				 &self->ps, true);
			check_contained(_metadata, s, &self->ps, &fl);
			passes++;
			opened += !self->ps.open_ret;
			bad += self->ps.bad_pages > 0;
			seg_restore(s);
		}
	}
	TH_LOG("%u fields + %u record words: %u passes, %u opened, %u with bad pages",
	       nf, s->nrl, passes, opened, bad);
}

/*
 * Iterations per variant: 2 x 10000 plain.  ASan makes a pass (mostly
 * libtraceevent rendering through intercepted printf) about 4 times slower,
 * so its run does fewer; IVRING_FUZZ_ITERS overrides.  The coverage-guided
 * targets (selftests/fuzz, fuzz_segment: 10 million runs by hand) search
 * the same segment far further; these runs are make check's share, about
 * 20 s of its 30 minutes with both variants (twice that at 20000 and 6000,
 * when the whole run neared its budget).  make fuzz-long runs 200000.
 */
#ifdef __SANITIZE_ADDRESS__
#define FUZZ_ITERS_DEFAULT	3000
#else
#define FUZZ_ITERS_DEFAULT	10000
#endif

/* Where a random mutation goes: biased to the structures that matter. */
static u32 pick_offset(struct seg *s, u64 *rnd, u32 width)
{
	u32 r = hs_below(rnd, 100), off;

	if (r < 15) {
		off = hs_below(rnd, sizeof(struct ivring_header));
	} else if (r < 25) {
		off = s->hdr.cpu_offset +
		      hs_below(rnd, NR_CPUS * sizeof(struct ivring_cpu));
	} else if (r < 40) {
		off = s->hdr.desc_offset +
		      hs_below(rnd, NR_PAGES * sizeof(struct ivring_desc));
	} else if (r < 52) {
		u32 pg = hs_below(rnd, NR_PAGES);

		off = seg_page_off(s, pg / NR_SUBBUFS, pg % NR_SUBBUFS) +
		      hs_below(rnd, sizeof(struct ivring_subbuf_hdr));
	} else if (r < 80) {
		off = s->rl[hs_below(rnd, s->nrl)].off + hs_below(rnd, 4);
	} else if (r < 85) {
		off = s->hdr.format_offset + hs_below(rnd, 3 * 1024);
	} else if (r < 88) {
		off = s->hdr.host_offset + hs_below(rnd, 512);
	} else {
		off = hs_below(rnd, s->size);
	}
	/* Mostly aligned words, sometimes not. */
	if (hs_below(rnd, 4))
		off &= ~(width - 1);
	if (off + width > s->size)
		off = s->size - width;
	return off;
}

static u64 pick_value(struct seg *s, u64 *rnd, u32 off, u32 width)
{
	u64 v = 0, vals[128];
	u32 n;

	memcpy(&v, s->map + off, width);
	switch (hs_below(rnd, 5)) {
	case 0:
		return v ^ (1ULL << hs_below(rnd, width * 8));
	case 1:
		return hs_rand(rnd);
	case 2:
		return v + (s64)(hs_below(rnd, 33)) - 16;
	default:
		n = hostile_values(s, v, width, vals, true);
		return n ? vals[hs_below(rnd, n)] : ~v;
	}
}

/* 1 to 8 mutations at once; describes them in hs_ctx. */
static void mutate(struct seg *s, u64 *rnd, struct undo *u, u32 *nu)
{
	u32 k, n = 1 + hs_below(rnd, 8);

	for (k = 0; k < n; k++) {
		static const u8 widths[] = { 1, 1, 2, 4, 4, 4, 8, 8 };
		u32 w = widths[hs_below(rnd, 8)];
		u32 off = pick_offset(s, rnd, w);
		u64 v = pick_value(s, rnd, off, w);

		poke(s, off, w, v, u ? &u[(*nu)++] : NULL);
		hs_ctx_add(" [%u]=%#llx/%u", off, (unsigned long long)v, w);
	}
}

static u64 fuzz_seed(void)
{
	u64 seed = hs_env_u64("IVRING_FUZZ_SEED", 0);

	if (!seed) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		seed = ((u64)ts.tv_sec << 20) ^ ts.tv_nsec ^ getpid();
	}
	return seed;
}

/*
 * Random mutations of the reference, each followed by a whole pass.  Each
 * iteration derives its own generator from (seed, iteration), so one
 * failing iteration reproduces alone with IVRING_FUZZ_SEED and
 * IVRING_FUZZ_FROM.
 */
TEST_F_TIMEOUT(hostile, fuzz, 900)
{
	struct seg *s = &self->s;
	u64 seed = fuzz_seed();
	u64 iters = hs_env_u64("IVRING_FUZZ_ITERS", FUZZ_ITERS_DEFAULT);
	u64 from = hs_env_u64("IVRING_FUZZ_FROM", 0), it;
	u64 opened = 0, bad = 0, events = 0;

	HS_ONLY();
	TH_LOG("IVRING_FUZZ_SEED=%#llx IVRING_FUZZ_ITERS=%llu (variant %s)",
	       (unsigned long long)seed, (unsigned long long)iters,
	       variant->mode == IVRING_MODE_OVERWRITE ? "overwrite" :
							"discard");
	for (it = from; it < from + iters; it++) {
		u64 rnd = seed ^ (it * 0x9e3779b97f4a7c15ULL);
		unsigned int fl;

		hs_rand(&rnd);
		fl = hs_below(&rnd, 4) == 0 ?
		     IVRING_OPEN_PEEK | IVRING_OPEN_RDONLY : 0;
		hs_ctx_set("IVRING_FUZZ_SEED=%#llx IVRING_FUZZ_FROM=%llu flags %u:",
			   (unsigned long long)seed, (unsigned long long)it,
			   fl);
		mutate(s, &rnd, NULL, NULL);
		pass_run(_metadata, s, fl, &self->ps, false);
		opened += !self->ps.open_ret;
		bad += self->ps.bad_pages > 0;
		events += self->ps.n;
		seg_restore(s);
	}
	TH_LOG("%llu iterations: %llu opened, %llu saw bad pages, %llu events",
	       (unsigned long long)iters, (unsigned long long)opened,
	       (unsigned long long)bad, (unsigned long long)events);
}

/*
 * The guest keeps writing and the segment keeps changing while a handle is
 * open and in the middle of an iteration.  Single-threaded and seeded, so
 * that a failure reproduces: steps of writing, reading a few events,
 * mutating, undoing, re-formatting the generation, reopening.
 */
TEST_F_TIMEOUT(hostile, live_stepped, 900)
{
	struct seg *s = &self->s;
	u64 seed = fuzz_seed() ^ 0x5a5a;
	u64 steps = hs_env_u64("IVRING_LIVE_STEPS", 20000), st;
	u64 rnd = seed | 1, mutations = 0, reopens = 0, got = 0, written = 0;
	static struct undo u[4096];
	u32 nu = 0;
	struct ivring *r = NULL;
	static struct pass ps;
	u8 hdr_page[HS_PAGE];
	u64 budget;

	HS_ONLY();
	TH_LOG("IVRING_FUZZ_SEED=%#llx (live: seed ^ 0x5a5a) IVRING_LIVE_STEPS=%llu",
	       (unsigned long long)(seed ^ 0x5a5a), (unsigned long long)steps);
	memcpy(hdr_page, s->orig, HS_PAGE);
	((struct ivring_header *)s->map)->state = IVRING_STATE_LIVE;
	ASSERT_EQ(0, live_open(s, &r, &ps));
	/* Everything written, plus a ring's worth per disturbance. */
	budget = PASS_EVENTS_MAX;
	for (st = 0; st < steps; st++) {
		u32 a = hs_below(&rnd, 100), k, n;

		hs_ctx_set("live IVRING_FUZZ_SEED=%#llx step %llu:",
			   (unsigned long long)(seed ^ 0x5a5a),
			   (unsigned long long)st);
		hs_progress++;
		if (a < 30) {
			/* The guest writes: undo most damage first. */
			if (hs_below(&rnd, 4)) {
				while (nu) {
					nu--;
					memcpy(s->map + u[nu].off, u[nu].old,
					       u[nu].len);
				}
			}
			nu = 0;
			n = 1 + hs_below(&rnd, 20);
			for (k = 0; k < n; k++) {
				fake_now += 1 + hs_below(&rnd, 3000);
				if (!hs_below(&rnd, 50))
					fake_now += 1ULL << 28;
				seg_write_one(s, hs_below(&rnd, NR_CPUS), &rnd);
				if (s->nlog[0] + s->nlog[1] + s->nlog[2] >
				    1000) {
					/* Keep the log bounded. */
					memset(s->nlog, 0, sizeof(s->nlog));
					s->store_len = 0;
				}
			}
			written += n;
			budget += n;
		} else if (a < 60) {
			int ret = use_events(_metadata, r, 1 + hs_below(&rnd, 40),
					     &ps, &got);

			ASSERT_TRUE(ret == 1 || ret == 0 || ret == -EPIPE ||
				    ret == -ESTALE || errno_known(ret))
				TH_LOG("next: %d; %s", ret, hs_ctx);
		} else if (a < 88) {
			if (nu > 4000)
				continue;
			mutate(s, &rnd, u, &nu);
			mutations++;
			budget += PASS_EVENTS_MAX;
		} else if (a < 92) {
			/* A new generation under the reader. */
			struct ivring_header *h = (void *)s->map;

			poke(s, offsetof(struct ivring_header, generation), 8,
			     h->generation + 1, nu < 4000 ? &u[nu++] : NULL);
			budget += PASS_EVENTS_MAX;
		} else if (a < 94) {
			struct ivring_cpu_stats cs = { .sz = sizeof(cs) };

			/* A handle whose move to a damaged header failed says so. */
			for (k = 0; k < NR_CPUS; k++) {
				int ret = ivring__cpu_stats(r, k, &cs);

				ASSERT_TRUE(!ret || errno_known(ret))
					TH_LOG("stats: %d; %s", ret, hs_ctx);
			}
			k = ivring__flush(r);
			ASSERT_TRUE(!k || errno_known(k)) TH_LOG("%s", hs_ctx);
		} else {
			/* Reopen; a damaged header gets the reference back. */
			ivring__close(r);
			r = NULL;
			reopens++;
			budget += PASS_EVENTS_MAX;
			if (live_open(s, &r, &ps)) {
				restore_live_header(s, hdr_page);
				hs_ctx_add(" reopen after restoring header");
				ASSERT_EQ(0, live_open(s, &r, &ps))
					TH_LOG("%s", hs_ctx);
			}
		}
		ASSERT_LE(got, budget) TH_LOG("%s", hs_ctx);
	}
	ivring__close(r);
	TH_LOG("%llu steps: %llu written, %llu read, %llu mutations, %llu reopens",
	       (unsigned long long)steps, (unsigned long long)written,
	       (unsigned long long)got, (unsigned long long)mutations,
	       (unsigned long long)reopens);
}

/*
 * The same with real concurrency: a writer thread and a mutator thread
 * change the segment while the test reads it.  Not reproducible by seed;
 * it is here for the races (a length read twice, a copy torn under the
 * reader's eyes) that a stepped test cannot produce.
 */
struct racer {
	struct seg *s;
	volatile bool stop;
	u64 seed;
	u64 n;
	long gap_ns;	/* between two mutations */
};

static void *race_writer(void *arg)
{
	struct racer *x = arg;
	u64 rnd = x->seed | 1;
	u8 buf[256];

	memset(buf, 0, sizeof(buf));
	while (!x->stop) {
		u32 cpu = hs_below(&rnd, NR_CPUS);
		u32 dl = hs_below(&rnd, 200);

		synth_fill_blob(buf, 7, x->n, dl);
		ivw_write(&x->s->w, cpu, buf, synth_blob_size(dl));
		x->n++;
	}
	return NULL;
}

static void *race_mutator(void *arg)
{
	struct racer *x = arg;
	u64 rnd = x->seed ^ 0xabcdef;
	struct seg *s = x->s;
	struct timespec gap = { 0, x->gap_ns };

	while (!x->stop) {
		/* Fast enough to land mid-copy, slow enough to let pages by. */
		if (gap.tv_nsec)
			nanosleep(&gap, NULL);
		u32 w = 1U << hs_below(&rnd, 4);
		u32 off = pick_offset(s, &rnd, w);
		u64 v = pick_value(s, &rnd, off, w), old = 0;
		u32 spin = hs_below(&rnd, 2000);

		/* A byte changes, stays a moment, and mostly changes back. */
		memcpy(&old, s->map + off, w);
		__atomic_store_n((u8 *)s->map + off, (u8)v, __ATOMIC_RELAXED);
		if (w > 1)
			memcpy(s->map + off, &v, w);
		while (spin--)
			__asm__ __volatile__("" ::: "memory");
		if (hs_below(&rnd, 8) && off >= HS_PAGE)
			memcpy(s->map + off, &old, w);
		x->n++;
	}
	return NULL;
}

TEST_F_TIMEOUT(hostile, live_racing, 900)
{
	struct seg *s = &self->s;
	struct racer wr = { .s = s }, mu = { .s = s };
	u64 secs = hs_env_u64("IVRING_RACE_SECS", 3), got = 0, reopens = 0;
	u8 hdr_page[HS_PAGE];
	struct ivring *r = NULL;
	pthread_t tw, tm;
	struct timespec t0, t;
	static struct pass ps;

	HS_ONLY();
	wr.seed = fuzz_seed();
	mu.seed = wr.seed ^ 1;
	mu.gap_ns = hs_env_u64("IVRING_RACE_GAP_NS", 20000);
	memcpy(hdr_page, s->orig, HS_PAGE);
	((struct ivring_header *)s->map)->state = IVRING_STATE_LIVE;
	s->w.clock = NULL;	/* the writer thread runs on the real clock */
	ASSERT_EQ(0, live_open(s, &r, &ps));
	ASSERT_EQ(0, pthread_create(&tw, NULL, race_writer, &wr));
	ASSERT_EQ(0, pthread_create(&tm, NULL, race_mutator, &mu));
	hs_ctx_set("live_racing (concurrent writer and mutator)");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		u32 k;
		int ret;

		clock_gettime(CLOCK_MONOTONIC, &t);
		if ((u64)(t.tv_sec - t0.tv_sec) >= secs)
			break;
		ret = use_events(_metadata, r, 1000, &ps, &got);
		if (ret == 1 || ret == 0 || ret == -ESTALE)
			continue;
		/* The handle gave up: start again, as a tool would. */
		ivring__close(r);
		r = NULL;
		reopens++;
		for (k = 0; live_open(s, &r, &ps); k++) {
			/* The mutator may have hit the header meanwhile. */
			ASSERT_LT(k, 10000) TH_LOG("cannot reopen");
			restore_live_header(s, hdr_page);
		}
	}
	wr.stop = mu.stop = true;
	pthread_join(tw, NULL);
	pthread_join(tm, NULL);
	ivring__close(r);
	TH_LOG("%llu s: %llu written, %llu mutations, %llu read, %llu reopens",
	       (unsigned long long)secs, (unsigned long long)wr.n,
	       (unsigned long long)mu.n, (unsigned long long)got,
	       (unsigned long long)reopens);
}

TEST_HARNESS_MAIN
