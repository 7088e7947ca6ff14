// SPDX-License-Identifier: GPL-2.0 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * The registry of guests (guest_registry.h): liburcu's lock-free hash
 * table, the memory of retired guests reclaimed by call_rcu().
 *
 * ThreadSanitizer cannot see the ordering that liburcu provides: the
 * library is not instrumented, and a grace period is made of membarrier()
 * and futexes.  So the two orderings that RCU guarantees are told to it:
 * a guest's initialisation happens before any walk that finds it (release
 * at the add, acquire at the lookup), and every read-side section that
 * ended before a grace period happens before the frees that the grace
 * period allows (release at unlock, acquire in the call_rcu callback).
 * That is exactly what the grace period enforces, no more, so TSan still
 * sees every race that RCU does not prevent.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "guest_registry.h"
#include "tool_text.h"
#include "tool_time.h"

#if defined(__SANITIZE_THREAD__)
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);
#define tsan_acquire(p)	__tsan_acquire((void *)(p))
#define tsan_release(p)	__tsan_release((void *)(p))
#else
#define tsan_acquire(p)	((void)(p))
#define tsan_release(p)	((void)(p))
#endif

/* TSan's stand-in for "a grace period has elapsed since". */
static char grace;
/* ... and for "every callback queued before rcu_barrier() has run". */
static char reclaimed;

#if defined(__SANITIZE_THREAD__)
/*
 * Memory that liburcu allocates in one thread and frees in its own (table
 * resizes, call_rcu's queues) is handed over inside the library, where
 * TSan sees nothing: its allocations are not ours to check.
 */
const char *__tsan_default_suppressions(void);
const char *__tsan_default_suppressions(void)
{
	return "called_from_lib:liburcu.so\n"
	       "called_from_lib:liburcu-cds.so\n";
}
#endif

static unsigned long key_hash(dev_t dev, ino_t ino)
{
	uint64_t x = (uint64_t)ino ^ ((uint64_t)dev << 32) ^ (uint64_t)dev;

	/* splitmix64's finaliser: inode numbers come in runs. */
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return (unsigned long)x;
}

struct key {
	dev_t dev;
	ino_t ino;
};

static int key_match(struct cds_lfht_node *node, const void *arg)
{
	const struct guest *g = caa_container_of(node, struct guest, node);
	const struct key *k = arg;

	return g->dev == k->dev && g->ino == k->ino;
}

struct guest_reg *guest_reg_new(void (*free_priv)(void *priv))
{
	struct guest_reg *reg = calloc(1, sizeof(*reg));

	if (!reg)
		return NULL;
	reg->free_priv = free_priv;
	reg->ht = cds_lfht_new(64, 64, 0,
			       CDS_LFHT_AUTO_RESIZE | CDS_LFHT_ACCOUNTING,
			       NULL);
	if (!reg->ht) {
		free(reg);
		return NULL;
	}
	/*
	 * call_rcu()'s thread starts now rather than at the first retirement:
	 * a reader's threads are then the same from start to end, which is
	 * how a leak of them shows.
	 */
	get_default_call_rcu_data();
	return reg;
}

static void guest_free(struct guest_reg *reg, struct guest *g)
{
	if (g->priv && reg->free_priv)
		reg->free_priv(g->priv);
	free(g->path);
	free(g->name);
	free(g);
}

void guest_reg_free(struct guest_reg *reg)
{
	struct cds_lfht_iter iter;
	struct guest *g, *dead = NULL;

	if (!reg)
		return;
	/*
	 * Out of the table first, freed after a grace period: the table's
	 * own resize worker may still walk its nodes.
	 */
	rcu_read_lock();
	guest_reg_for_each(reg, &iter, g) {
		cds_lfht_del(reg->ht, &g->node);
		g->next_dead = dead;
		dead = g;
	}
	rcu_read_unlock();
	synchronize_rcu();
	/* The guests retired before are freed by their callbacks first. */
	rcu_barrier();
	tsan_acquire(&reclaimed);
	tsan_acquire(&grace);
	while (dead) {
		g = dead;
		dead = g->next_dead;
		tsan_acquire(g);
		guest_free(reg, g);
	}
	cds_lfht_destroy(reg->ht, NULL);
	free(reg);
}

void guest_reg_thread_online(void)
{
	rcu_register_thread();
}

void guest_reg_thread_offline(void)
{
	rcu_unregister_thread();
}

void guest_reg_lock(void)
{
	rcu_read_lock();
}

void guest_reg_unlock(void)
{
	tsan_release(&grace);
	rcu_read_unlock();
}

struct guest *guest_reg_iter_get(struct cds_lfht_iter *iter)
{
	struct cds_lfht_node *node = cds_lfht_iter_get_node(iter);
	struct guest *g;

	if (!node)
		return NULL;
	g = caa_container_of(node, struct guest, node);
	tsan_acquire(g);
	return g;
}

struct guest *guest_reg_find(struct guest_reg *reg, dev_t dev, ino_t ino)
{
	struct key k = { dev, ino };
	struct cds_lfht_iter iter;

	cds_lfht_lookup(reg->ht, key_hash(dev, ino), key_match, &k, &iter);
	return guest_reg_iter_get(&iter);
}

struct guest *guest_reg_add(struct guest_reg *reg, const char *path,
			    dev_t dev, ino_t ino)
{
	struct key k = { dev, ino };
	struct cds_lfht_node *got;
	struct guest *g;
	const char *slash;

	if (guest_reg_find(reg, dev, ino)) {
		errno = EEXIST;
		return NULL;
	}
	slash = strrchr(path, '/');
	g = calloc(1, sizeof(*g));
	if (!g || !(g->path = strdup(path)) ||
	    !(g->name = strdup(slash ? slash + 1 : path))) {
		if (g)
			free(g->path);
		free(g);
		errno = ENOMEM;
		return NULL;
	}
	tool_safe_text(g->name);
	g->reg = reg;
	g->dev = dev;
	g->ino = ino;
	g->added_ns = now_ns();
	tsan_release(g);
	got = cds_lfht_add_unique(reg->ht, key_hash(dev, ino), key_match, &k,
				  &g->node);
	if (got != &g->node) {
		/* Only the discovery thread adds; but be right if not. */
		free(g->path);
		free(g->name);
		free(g);
		errno = EEXIST;
		return NULL;
	}
	__atomic_fetch_add(&reg->nr_added, 1, __ATOMIC_RELAXED);
	return g;
}

bool guest_claim(struct guest *g)
{
	int free_ = 0;

	return __atomic_compare_exchange_n(&g->claimed, &free_, 1, false,
					   __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

void guest_unclaim(struct guest *g)
{
	__atomic_store_n(&g->claimed, 0, __ATOMIC_RELEASE);
}

void guest_gone(struct guest *g)
{
	__atomic_store_n(&g->gone, 1, __ATOMIC_RELEASE);
}

bool guest_is_gone(const struct guest *g)
{
	return __atomic_load_n(&g->gone, __ATOMIC_ACQUIRE);
}

static void reclaim(struct rcu_head *head)
{
	struct guest *g = caa_container_of(head, struct guest, rcu);

	tsan_acquire(&grace);
	tsan_acquire(g);
	guest_free(g->reg, g);
	tsan_release(&reclaimed);
}

static void add_counts(struct guest_counts *to, const struct guest_counts *c)
{
	__atomic_fetch_add(&to->events, c->events, __ATOMIC_RELAXED);
	__atomic_fetch_add(&to->lost, c->lost, __ATOMIC_RELAXED);
	__atomic_fetch_add(&to->bytes, c->bytes, __ATOMIC_RELAXED);
}

void guest_retire(struct guest_reg *reg, struct guest *g)
{
	struct guest_counts c;

	if (cds_lfht_del(reg->ht, &g->node))
		return;		/* retired already: a caller's bug */
	guest_read_counts(g, &c);
	add_counts(&reg->retired, &c);
	if (guest_state(g) == GUEST_FAILED)
		__atomic_fetch_add(&reg->nr_failed, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&reg->nr_retired, 1, __ATOMIC_RELAXED);
	tsan_release(g);
	call_rcu(&g->rcu, reclaim);
}

void guest_count(struct guest *g, uint64_t events, uint64_t lost,
		 uint64_t bytes)
{
	/* Only the claimant writes: a load and a store, no locked add. */
	__atomic_store_n(&g->n.events, g->n.events + events, __ATOMIC_RELAXED);
	__atomic_store_n(&g->n.lost, g->n.lost + lost, __ATOMIC_RELAXED);
	__atomic_store_n(&g->n.bytes, g->n.bytes + bytes, __ATOMIC_RELAXED);
}

static void load_counts(const struct guest_counts *from,
			struct guest_counts *c)
{
	c->events = __atomic_load_n(&from->events, __ATOMIC_RELAXED);
	c->lost = __atomic_load_n(&from->lost, __ATOMIC_RELAXED);
	c->bytes = __atomic_load_n(&from->bytes, __ATOMIC_RELAXED);
}

void guest_read_counts(const struct guest *g, struct guest_counts *c)
{
	load_counts(&g->n, c);
}

void guest_reg_read_retired(const struct guest_reg *reg,
			    struct guest_counts *c)
{
	load_counts(&reg->retired, c);
}

void guest_set_state(struct guest *g, enum guest_state state)
{
	__atomic_store_n(&g->state, state, __ATOMIC_RELAXED);
}

enum guest_state guest_state(const struct guest *g)
{
	return __atomic_load_n(&g->state, __ATOMIC_RELAXED);
}
