// SPDX-License-Identifier: GPL-2.0 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * The registry of guests (tools/guest_registry.c) without segments: the
 * threads of ivring-read's many-guest mode, with fake guests.
 *
 * basic: step by step: add, find, a second add of a key that is there,
 * gone, the claim (against this thread and another), retire, and the free
 * callback, which cannot run while the read-side section that retired the
 * guest is open and has run after rcu_barrier().
 *
 * stress: a discovery thread adds guests, at most MAX_LIVE of them in the
 * table at once, and marks them gone; reader threads walk the table, claim
 * guests, do their "work" in g->priv and count it, and retire the guests
 * that are gone, as read_many.c's readers do; a reporter walks and reads
 * the counters.  Every guest must be retired exactly once and never served
 * by two threads at once, what the readers counted must be what the
 * registry summed, and the free callback must run once for each guest that
 * had a priv.  Under TSan nothing may race: the annotations of
 * guest_registry.c must give TSan the orderings that RCU gives, and no
 * more, so the test's own checks use relaxed atomics, which order nothing,
 * lest they hide a missing one.  guest_reg_free() walks and empties the
 * table, so its caller is registered too, as the header asks of every
 * thread that does.
 *
 * IVRING_REGISTRY_GUESTS sets the guests that the stress adds, by default
 * 20000: 0.1 s plain, under a second with TSan (plus its exit sleep), on
 * two CPUs.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kselftest_harness.h"
#include "guest_registry.h"

#define GUESTS_DEFAULT	20000
#define READERS		3
#define MAX_LIVE	64
/* Discovery marks gone the guests added this many adds ago, or earlier. */
#define GONE_LAG	32
#define DEV_BASE	0x800
#define INO_BASE	1000
#define WORK_MAGIC	0x57a7e5eeU

#define RELAXED		__ATOMIC_RELAXED

/* What the test knows of one guest, by its number: relaxed atomics. */
struct track {
	unsigned int gone;	/* discovery marked it gone */
	unsigned int in_service;	/* a reader serves it now */
	unsigned int retired;
	unsigned int had_priv;
	unsigned int failed;	/* a reader set it GUEST_FAILED */
	unsigned int freed;	/* the free callback ran on its priv */
};

/* A reader's state for one guest, in g->priv: its claimant's alone. */
struct work {
	unsigned int magic;
	struct track *t;
	unsigned int batches;
	struct guest_counts n;	/* what its claimants counted */
};

static void work_free(void *priv)
{
	struct work *w = priv;

	/* A double free, or a priv not ours, shows in the count. */
	if (w->magic == WORK_MAGIC)
		__atomic_fetch_add(&w->t->freed, 1, RELAXED);
	w->magic = 0;
	free(w);
}

static dev_t guest_dev(unsigned int id)
{
	return DEV_BASE + (id & 3);
}

static ino_t guest_ino(unsigned int id)
{
	return INO_BASE + id;
}

static void guest_path(char *buf, size_t len, unsigned int id)
{
	snprintf(buf, len, "/x/vm%u", id);
}

/* --- basic ------------------------------------------------------------ */

struct other {
	struct guest_reg *reg;
	int claimed;		/* what the other thread's claim got */
	int found;
};

/* Another thread's try at a guest's claim, as a second reader would. */
static void *other_claim(void *arg)
{
	struct other *o = arg;
	struct guest *g;

	guest_reg_thread_online();
	guest_reg_lock();
	g = guest_reg_find(o->reg, guest_dev(1), guest_ino(1));
	o->found = g != NULL;
	if (g) {
		o->claimed = guest_claim(g);
		if (o->claimed)
			guest_unclaim(g);
	}
	guest_reg_unlock();
	guest_reg_thread_offline();
	return NULL;
}

static int try_other_claim(struct guest_reg *reg)
{
	struct other o = { .reg = reg, .claimed = -1 };
	pthread_t t;

	if (pthread_create(&t, NULL, other_claim, &o))
		return -1;
	pthread_join(t, NULL);
	return o.found ? o.claimed : -1;
}

static struct work *new_work(struct track *t)
{
	struct work *w = calloc(1, sizeof(*w));

	if (w) {
		w->magic = WORK_MAGIC;
		w->t = t;
	}
	return w;
}

/*
 * A file named to forge another guest's line ("x\nvm1: ...") begins its
 * own lines with no line break and no escape sequence in its name.
 */
TEST(name_cannot_forge_lines)
{
	struct guest_reg *reg;
	struct guest *g;

	reg = guest_reg_new(work_free);
	ASSERT_NE(NULL, reg);
	guest_reg_thread_online();
	guest_reg_lock();
	g = guest_reg_add(reg, "/x/ivring-a\nvm1: \033[2Jfake\x7f",
			  guest_dev(1), guest_ino(1));
	ASSERT_NE(NULL, g);
	EXPECT_STREQ("/x/ivring-a\nvm1: \033[2Jfake\x7f", g->path);
	EXPECT_STREQ("ivring-a?vm1: ?[2Jfake?", g->name);
	/*
	 * C1 controls, a raw CSI (0x9b) and as UTF-8 (C2 9B), and bytes that
	 * are no UTF-8 go too; names in UTF-8 stay.
	 */
	g = guest_reg_add(reg, "/x/\x9b" "2J-\xc2\x9b" "2J-\xff\xc3-\xc3\xa9t\xc3\xa9-\xe6\x97\xa5",
			  guest_dev(2), guest_ino(2));
	ASSERT_NE(NULL, g);
	EXPECT_STREQ("?2J-?" "?2J-?" "?-\xc3\xa9t\xc3\xa9-\xe6\x97\xa5", g->name);
	guest_reg_unlock();
	guest_reg_thread_offline();
	guest_reg_free(reg);
}

TEST(basic)
{
	struct track t[3] = { 0 };
	struct guest_counts c;
	struct cds_lfht_iter iter;
	struct guest_reg *reg;
	struct guest *g, *g2, *g3, *it;
	char path[32] = "/x/vm1";
	int n;

	reg = guest_reg_new(work_free);
	ASSERT_NE(NULL, reg);
	guest_reg_thread_online();
	guest_reg_lock();

	g = guest_reg_add(reg, path, guest_dev(1), guest_ino(1));
	ASSERT_NE(NULL, g);
	/* The path and the name are the registry's copies. */
	path[0] = 0;
	EXPECT_STREQ("/x/vm1", g->path);
	EXPECT_STREQ("vm1", g->name);
	EXPECT_EQ(guest_dev(1), g->dev);
	EXPECT_EQ(guest_ino(1), g->ino);
	EXPECT_EQ(GUEST_NEW, guest_state(g));
	EXPECT_FALSE(guest_is_gone(g));
	EXPECT_EQ(NULL, g->priv);
	EXPECT_EQ(g, guest_reg_find(reg, guest_dev(1), guest_ino(1)));
	/* Either half of the key alone is another guest. */
	EXPECT_EQ(NULL, guest_reg_find(reg, guest_dev(1), guest_ino(2)));
	EXPECT_EQ(NULL, guest_reg_find(reg, guest_dev(2), guest_ino(1)));

	/* The same file again, under any name: not added. */
	errno = 0;
	EXPECT_EQ(NULL, guest_reg_add(reg, "/y/vm1", guest_dev(1),
				      guest_ino(1)));
	EXPECT_NE(ENOMEM, errno);
	EXPECT_EQ(g, guest_reg_find(reg, guest_dev(1), guest_ino(1)));

	g2 = guest_reg_add(reg, "vm2", guest_dev(2), guest_ino(1));
	ASSERT_NE(NULL, g2);
	EXPECT_STREQ("vm2", g2->name);
	g3 = guest_reg_add(reg, "/x/vm3", guest_dev(3), guest_ino(3));
	ASSERT_NE(NULL, g3);
	EXPECT_EQ(3, reg->nr_added);

	n = 0;
	guest_reg_for_each(reg, &iter, it) {
		EXPECT_TRUE(it == g || it == g2 || it == g3);
		n++;
	}
	EXPECT_EQ(3, n);

	/* The claim: one holder at a time, from this thread or another. */
	ASSERT_TRUE(guest_claim(g));
	EXPECT_FALSE(guest_claim(g));
	guest_reg_unlock();
	EXPECT_EQ(0, try_other_claim(reg));
	guest_reg_lock();
	guest_unclaim(g);
	guest_reg_unlock();
	EXPECT_EQ(1, try_other_claim(reg));
	guest_reg_lock();
	ASSERT_TRUE(guest_claim(g));

	g->priv = new_work(&t[1]);
	ASSERT_NE(NULL, g->priv);
	guest_set_state(g, GUEST_READING);
	EXPECT_EQ(GUEST_READING, guest_state(g));
	guest_count(g, 3, 1, 100);
	guest_count(g, 4, 0, 28);
	guest_read_counts(g, &c);
	EXPECT_EQ(7, c.events);
	EXPECT_EQ(1, c.lost);
	EXPECT_EQ(128, c.bytes);

	guest_gone(g);
	EXPECT_TRUE(guest_is_gone(g));
	EXPECT_FALSE(guest_is_gone(g2));
	guest_set_state(g, GUEST_DONE);
	guest_retire(reg, g);
	EXPECT_EQ(NULL, guest_reg_find(reg, guest_dev(1), guest_ino(1)));
	EXPECT_EQ(1, reg->nr_retired);
	EXPECT_EQ(0, reg->nr_failed);
	guest_reg_read_retired(reg, &c);
	EXPECT_EQ(7, c.events);
	EXPECT_EQ(1, c.lost);
	EXPECT_EQ(128, c.bytes);
	/* A second retire is a caller's bug, but does no harm. */
	guest_retire(reg, g);
	EXPECT_EQ(1, reg->nr_retired);
	/* This section may still see g: its memory cannot have gone. */
	EXPECT_EQ(0, __atomic_load_n(&t[1].freed, RELAXED));

	/* A failed guest, with no priv, is counted as such. */
	ASSERT_TRUE(guest_claim(g3));
	guest_set_state(g3, GUEST_FAILED);
	guest_gone(g3);
	guest_retire(reg, g3);
	EXPECT_EQ(2, reg->nr_retired);
	EXPECT_EQ(1, reg->nr_failed);

	n = 0;
	guest_reg_for_each(reg, &iter, it) {
		EXPECT_EQ(g2, it);
		n++;
	}
	EXPECT_EQ(1, n);
	/* A key whose guest was retired may come back, as a new guest. */
	g = guest_reg_add(reg, "/x/vm1b", guest_dev(1), guest_ino(1));
	ASSERT_NE(NULL, g);
	EXPECT_EQ(g, guest_reg_find(reg, guest_dev(1), guest_ino(1)));
	EXPECT_EQ(4, reg->nr_added);
	ASSERT_TRUE(guest_claim(g2));
	g2->priv = new_work(&t[2]);
	ASSERT_NE(NULL, g2->priv);
	guest_unclaim(g2);
	guest_reg_unlock();

	rcu_barrier();
	EXPECT_EQ(1, __atomic_load_n(&t[1].freed, RELAXED));
	EXPECT_EQ(0, __atomic_load_n(&t[2].freed, RELAXED));
	/* The guests still in the table go with it, their priv too. */
	guest_reg_free(reg);
	guest_reg_thread_offline();
	EXPECT_EQ(1, __atomic_load_n(&t[1].freed, RELAXED));
	EXPECT_EQ(1, __atomic_load_n(&t[2].freed, RELAXED));
}

/* --- stress ----------------------------------------------------------- */

struct stress {
	struct guest_reg *reg;
	struct track *t;
	unsigned int total;
	unsigned int nr_retired;	/* counted after guest_retire() */
	int readers_done;
	int failed;
	char fail[256];		/* the first violation; empty if none */
};

struct reader {
	struct stress *x;
	pthread_t tid;
	struct guest_counts n;	/* what this reader counted */
	unsigned long claims, retires, passes;
};

struct reporter {
	struct stress *x;
	unsigned long walks, seen;
};

static void stress_fail(struct stress *x, const char *fmt,
			unsigned long a, unsigned long b)
{
	/* The first one is the one that explains; main reads it after join. */
	if (!__atomic_exchange_n(&x->failed, 1, RELAXED))
		snprintf(x->fail, sizeof(x->fail), fmt, a, b);
}

static bool stress_failed(struct stress *x)
{
	return __atomic_load_n(&x->failed, RELAXED);
}

/* The guest's number, from its key; total if the key is not one of ours. */
static unsigned int guest_id(struct stress *x, const struct guest *g)
{
	unsigned long id = g->ino - INO_BASE;

	if (g->ino < INO_BASE || id >= x->total || g->dev != guest_dev(id)) {
		stress_fail(x, "a stranger in the table: %lu, %lu",
			    (unsigned long)g->dev, (unsigned long)g->ino);
		return x->total;
	}
	return id;
}

static void mark_gone(struct stress *x, struct guest *g, unsigned int id)
{
	if (__atomic_exchange_n(&x->t[id].gone, 1, RELAXED))
		stress_fail(x, "guest %lu marked gone twice", id, 0);
	guest_gone(g);
}

/* As a rescan does: every guest below @below that is still there goes. */
static void gone_below(struct stress *x, unsigned int below)
{
	struct cds_lfht_iter iter;
	struct guest *g;

	guest_reg_for_each(x->reg, &iter, g) {
		unsigned int id = guest_id(x, g);

		if (id < below && !guest_is_gone(g))
			mark_gone(x, g, id);
	}
}

/* As a rescan finds guest @id, not gone yet, so still there: no add. */
static void add_again(struct stress *x, unsigned int id)
{
	char path[32];

	guest_path(path, sizeof(path), id);
	if (guest_reg_add(x->reg, path, guest_dev(id), guest_ino(id)))
		stress_fail(x, "guest %lu added twice", id, 0);
	if (!guest_reg_find(x->reg, guest_dev(id), guest_ino(id)))
		stress_fail(x, "guest %lu not found", id, 0);
}

static void *discovery_main(void *arg)
{
	struct stress *x = arg;
	unsigned int id, gone_to = 0;
	char path[32];
	struct guest *g;

	guest_reg_thread_online();
	for (id = 0; id < x->total && !stress_failed(x); id++) {
		while (id - __atomic_load_n(&x->nr_retired, RELAXED) >=
		       MAX_LIVE && !stress_failed(x))
			sched_yield();
		guest_path(path, sizeof(path), id);
		guest_reg_lock();
		g = guest_reg_add(x->reg, path, guest_dev(id), guest_ino(id));
		if (!g)
			stress_fail(x, "guest %lu: add failed, errno %lu", id,
				    (unsigned long)errno);
		if (id % 16 == 15)
			add_again(x, id - 1);
		if (id % 8 == 7 && id + 1 >= GONE_LAG) {
			gone_to = id + 1 - GONE_LAG;
			gone_below(x, gone_to);
		}
		guest_reg_unlock();
	}
	/* The last ones, by key: any not marked yet must still be there. */
	guest_reg_lock();
	for (id = gone_to; id < x->total && !stress_failed(x); id++) {
		if (__atomic_load_n(&x->t[id].gone, RELAXED))
			continue;
		g = guest_reg_find(x->reg, guest_dev(id), guest_ino(id));
		if (!g || guest_id(x, g) != id)
			stress_fail(x, "guest %lu, not gone, not found", id, 0);
		else
			mark_gone(x, g, id);
	}
	guest_reg_unlock();
	guest_reg_thread_offline();
	return NULL;
}

/* A batch of work for @g, claimed, which then stays claimed if retired. */
static bool serve(struct reader *rd, struct guest *g, unsigned int id)
{
	struct stress *x = rd->x;
	struct track *t = &x->t[id];
	struct work *w = g->priv;
	bool gone = guest_is_gone(g);
	struct guest_counts c, want = { 0 }, b;

	if (w && (w->magic != WORK_MAGIC || w->t != t)) {
		stress_fail(x, "guest %lu: priv is not its own", id, 0);
		return false;
	}
	switch (guest_state(g)) {
	case GUEST_NEW:
		/* Gone before it was ever served: nothing to read. */
		if (gone) {
			guest_set_state(g, GUEST_DONE);
			return false;
		}
		/* One in four never opens; it is skipped until it goes. */
		if (id % 4 == 3) {
			__atomic_store_n(&t->failed, 1, RELAXED);
			guest_set_state(g, GUEST_FAILED);
			return false;
		}
		w = new_work(t);
		if (!w) {
			stress_fail(x, "guest %lu: out of memory", id, 0);
			return false;
		}
		g->priv = w;
		if (__atomic_exchange_n(&t->had_priv, 1, RELAXED))
			stress_fail(x, "guest %lu: priv made twice", id, 0);
		guest_set_state(g, GUEST_READING);
		/* fall through */
	case GUEST_READING:
		if (!w) {
			stress_fail(x, "guest %lu: no priv", id, 0);
			return false;
		}
		/* Plain fields of priv, claimant after claimant. */
		w->batches++;
		b.events = 1 + w->batches % 5;
		b.lost = w->batches % 7 == 0;
		b.bytes = b.events * 48;
		w->n.events += b.events;
		w->n.lost += b.lost;
		w->n.bytes += b.bytes;
		guest_count(g, b.events, b.lost, b.bytes);
		rd->n.events += b.events;
		rd->n.lost += b.lost;
		rd->n.bytes += b.bytes;
		/* Its file went before this batch: that was the last one. */
		if (gone)
			guest_set_state(g, GUEST_DONE);
		return false;
	default:
		if (!gone)
			return false;
		break;
	}

	/* Done and gone: what it counted is what its claimants did. */
	if (!__atomic_load_n(&t->gone, RELAXED))
		stress_fail(x, "guest %lu gone, not by discovery", id, 0);
	if (w)
		want = w->n;
	guest_read_counts(g, &c);
	if (c.events != want.events || c.lost != want.lost ||
	    c.bytes != want.bytes)
		stress_fail(x, "guest %lu counted %lu events, not that",
			    id, c.events);
	if (__atomic_exchange_n(&t->retired, 1, RELAXED))
		stress_fail(x, "guest %lu retired twice", id, 0);
	guest_retire(x->reg, g);
	__atomic_fetch_add(&x->nr_retired, 1, RELAXED);
	rd->retires++;
	return true;
}

static void *reader_main(void *arg)
{
	struct reader *rd = arg;
	struct stress *x = rd->x;
	struct cds_lfht_iter iter;
	struct guest *g;

	guest_reg_thread_online();
	while (__atomic_load_n(&x->nr_retired, RELAXED) < x->total &&
	       !stress_failed(x)) {
		guest_reg_lock();
		guest_reg_for_each(x->reg, &iter, g) {
			unsigned int id = guest_id(x, g);
			unsigned int *busy;

			if (id == x->total || !guest_claim(g))
				continue;
			rd->claims++;
			busy = &x->t[id].in_service;
			if (__atomic_exchange_n(busy, 1, RELAXED))
				stress_fail(x, "guest %lu served twice at once",
					    id, 0);
			if (!serve(rd, g, id)) {
				__atomic_store_n(busy, 0, RELAXED);
				guest_unclaim(g);
			}
		}
		guest_reg_unlock();
		rd->passes++;
		/* Six threads on two CPUs: discovery must not starve. */
		sched_yield();
	}
	guest_reg_thread_offline();
	return NULL;
}

static void *reporter_main(void *arg)
{
	struct reporter *rp = arg;
	struct stress *x = rp->x;
	struct guest_counts c, ret, last_ret = { 0 };
	struct timespec nap = { 0, 200000 };
	struct cds_lfht_iter iter;
	char path[32];
	struct guest *g;

	guest_reg_thread_online();
	while (!__atomic_load_n(&x->readers_done, RELAXED) &&
	       !stress_failed(x)) {
		guest_reg_lock();
		guest_reg_for_each(x->reg, &iter, g) {
			unsigned int id = guest_id(x, g);
			enum guest_state st = guest_state(g);

			if (id == x->total)
				continue;
			guest_path(path, sizeof(path), id);
			if (strcmp(g->path, path) || strcmp(g->name, path + 3))
				stress_fail(x, "guest %lu: path or name wrong",
					    id, 0);
			if (st != GUEST_NEW && st != GUEST_READING &&
			    st != GUEST_FAILED && st != GUEST_DONE)
				stress_fail(x, "guest %lu: state %lu", id, st);
			guest_read_counts(g, &c);
			/* Only the claimant adds, and only ever adds. */
			if (c.events < g->rep_last.events ||
			    c.lost < g->rep_last.lost ||
			    c.bytes < g->rep_last.bytes)
				stress_fail(x, "guest %lu: counts went back",
					    id, 0);
			g->rep_last = c;
			rp->seen++;
		}
		guest_reg_unlock();
		guest_reg_read_retired(x->reg, &ret);
		if (ret.events < last_ret.events || ret.bytes < last_ret.bytes)
			stress_fail(x, "retired counts went back to %lu",
				    ret.events, 0);
		last_ret = ret;
		rp->walks++;
		nanosleep(&nap, NULL);
	}
	guest_reg_thread_offline();
	return NULL;
}

FIXTURE(stress) {
	struct stress x;
	struct reader rd[READERS];
	struct reporter rp;
};

FIXTURE_SETUP(stress)
{
	const char *env = getenv("IVRING_REGISTRY_GUESTS");

	memset(&self->x, 0, sizeof(self->x));
	self->x.total = env && *env ? strtoul(env, NULL, 0) : GUESTS_DEFAULT;
	ASSERT_LT(GONE_LAG + 8, MAX_LIVE);
	ASSERT_LT(0, self->x.total);
	self->x.t = calloc(self->x.total, sizeof(*self->x.t));
	ASSERT_NE(NULL, self->x.t);
	self->x.reg = guest_reg_new(work_free);
	ASSERT_NE(NULL, self->x.reg);
}

FIXTURE_TEARDOWN(stress)
{
	free(self->x.t);
}

TEST_F_TIMEOUT(stress, retired_once_counted_all, 120)
{
	struct stress *x = &self->x;
	struct guest_counts sum = { 0 }, ret, c;
	unsigned long claims = 0, nr_priv = 0, nr_failed = 0;
	struct cds_lfht_iter iter;
	pthread_t disc, rep;
	struct guest *g;
	unsigned int i, id;

	guest_reg_thread_online();
	self->rp.x = x;
	for (i = 0; i < READERS; i++) {
		self->rd[i].x = x;
		ASSERT_EQ(0, pthread_create(&self->rd[i].tid, NULL,
					    reader_main, &self->rd[i]));
	}
	ASSERT_EQ(0, pthread_create(&rep, NULL, reporter_main, &self->rp));
	ASSERT_EQ(0, pthread_create(&disc, NULL, discovery_main, x));
	pthread_join(disc, NULL);
	for (i = 0; i < READERS; i++)
		pthread_join(self->rd[i].tid, NULL);
	__atomic_store_n(&x->readers_done, 1, RELAXED);
	pthread_join(rep, NULL);
	/* On, not out: the registry is freed below whatever the threads saw. */
	EXPECT_STREQ("", x->fail);

	for (i = 0; i < READERS; i++) {
		sum.events += self->rd[i].n.events;
		sum.lost += self->rd[i].n.lost;
		sum.bytes += self->rd[i].n.bytes;
		claims += self->rd[i].claims;
		TH_LOG("reader %u: %lu passes, %lu claims, %lu retired", i,
		       self->rd[i].passes, self->rd[i].claims,
		       self->rd[i].retires);
	}
	TH_LOG("reporter: %lu walks, %lu guests seen", self->rp.walks,
	       self->rp.seen);

	/* What the registry summed: the retired, and any still there. */
	guest_reg_read_retired(x->reg, &ret);
	guest_reg_lock();
	guest_reg_for_each(x->reg, &iter, g) {
		guest_read_counts(g, &c);
		ret.events += c.events;
		ret.lost += c.lost;
		ret.bytes += c.bytes;
		TH_LOG("guest %s still in the table", g->name);
	}
	guest_reg_unlock();
	EXPECT_EQ(sum.events, ret.events);
	EXPECT_EQ(sum.lost, ret.lost);
	EXPECT_EQ(sum.bytes, ret.bytes);
	EXPECT_LT(0, sum.events);

	EXPECT_EQ(x->total, x->nr_retired);
	EXPECT_EQ(x->total, x->reg->nr_added);
	EXPECT_EQ(x->total, x->reg->nr_retired);
	/* Every priv is freed once the callbacks queued so far have run. */
	rcu_barrier();
	for (id = 0; id < x->total; id++) {
		struct track *t = &x->t[id];
		unsigned int freed = __atomic_load_n(&t->freed, RELAXED);

		nr_priv += t->had_priv;
		nr_failed += t->failed;
		if (t->gone != 1 || t->retired != 1 ||
		    freed != t->had_priv) {
			EXPECT_EQ(1, t->gone);
			EXPECT_EQ(1, t->retired);
			EXPECT_EQ(t->had_priv, freed);
			TH_LOG("guest %u", id);
			break;
		}
	}
	EXPECT_EQ(nr_failed, x->reg->nr_failed);
	/* Both kinds were retired: with a priv to free and without. */
	EXPECT_LT(0, nr_priv);
	EXPECT_LT(nr_priv, x->total);
	TH_LOG("%u guests, %lu with priv, %lu failed, %lu claims, %llu events",
	       x->total, nr_priv, nr_failed, claims,
	       (unsigned long long)sum.events);
	guest_reg_free(x->reg);
	guest_reg_thread_offline();
}

TEST_HARNESS_MAIN
