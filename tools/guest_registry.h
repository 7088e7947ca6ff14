/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * The guests that a reader of many segments serves: a liburcu lock-free
 * hash table of segment files, keyed by device and inode.
 *
 * Three kinds of thread use it, and none waits for another:
 * - the discovery thread adds a guest when its file appears and marks it
 *   gone when the file goes (guest_reg_add(), guest_gone());
 * - reader threads walk the table inside an RCU read-side section, and
 *   serve a guest only while they hold its claim (guest_claim()); the
 *   holder of a claim alone touches the guest's reading state, and alone
 *   may take the guest out of the table (guest_retire()), whose memory is
 *   then freed by call_rcu() once no walk can still see it;
 * - a statistics reporter walks the table and reads the counters, which
 *   are atomics that only the claimant writes.
 * A walk sees every guest that was in the table for the whole walk, and
 * may or may not see one added or retired during it; a guest that a walk
 * saw stays valid until the walk ends.
 *
 * Every thread that walks or changes the table must be registered with
 * liburcu (guest_reg_thread_online()).
 */
#ifndef IVRING_GUEST_REGISTRY_H
#define IVRING_GUEST_REGISTRY_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <urcu.h>
#include <urcu/rculfhash.h>

/* What a guest's claimant found it to be. */
enum guest_state {
	GUEST_NEW,		/* not opened yet, or waiting to be formatted */
	GUEST_READING,
	GUEST_FAILED,		/* reported and skipped until its file goes */
	GUEST_DONE,		/* drained after its file went; retiring */
};

struct guest_counts {
	uint64_t events, lost, bytes;
};

struct guest_reg;

struct guest {
	struct cds_lfht_node node;
	struct rcu_head rcu;
	struct guest_reg *reg;
	dev_t dev;
	ino_t ino;
	char *path;
	/*
	 * The file's name, with control bytes as '?': it begins the guest's
	 * lines, and whoever named the file must not forge another's.
	 */
	char *name;
	int claimed;		/* a reader thread serves it */
	int gone;		/* its file was removed or replaced */
	int state;		/* enum guest_state: guest_set_state() */
	uint64_t added_ns;
	/* Written by the claimant with atomic stores, read by anyone. */
	struct guest_counts n;
	uint64_t unread;	/* events the writer published, not yet read */
	int64_t clock_offset_ns;
	int have_clock;
	/* The statistics reporter's alone: the counts at its last report. */
	struct guest_counts rep_last;
	/* The reading state: the claimant's alone. */
	void *priv;
	struct guest *next_dead;	/* guest_reg_free()'s list */
};

struct guest_reg {
	struct cds_lfht *ht;
	/* What retired guests counted, so that a summary misses nothing. */
	struct guest_counts retired;
	uint64_t nr_added, nr_retired, nr_failed;
	/* Called by call_rcu() before a retired guest is freed. */
	void (*free_priv)(void *priv);
};

struct guest_reg *guest_reg_new(void (*free_priv)(void *priv));
/*
 * Free the registry and every guest still in it; no other thread may use
 * it.  The caller must still be registered (it walks and changes the table).
 */
void guest_reg_free(struct guest_reg *reg);

void guest_reg_thread_online(void);
void guest_reg_thread_offline(void);

/*
 * The guest whose file is @path (@dev, @ino), added if it is not there.
 * Returns NULL with errno EEXIST when it was there already, or ENOMEM.  Call
 * inside a read-side section.
 */
struct guest *guest_reg_add(struct guest_reg *reg, const char *path,
			    dev_t dev, ino_t ino);
/* The guest of @dev, @ino, or NULL.  Call inside a read-side section. */
struct guest *guest_reg_find(struct guest_reg *reg, dev_t dev, ino_t ino);

/* The walk: inside guest_reg_lock()/guest_reg_unlock() only. */
#define guest_reg_for_each(reg, iter, g) \
	for (cds_lfht_first((reg)->ht, (iter)); \
	     ((g) = guest_reg_iter_get(iter)) != NULL; \
	     cds_lfht_next((reg)->ht, (iter)))

struct guest *guest_reg_iter_get(struct cds_lfht_iter *iter);
void guest_reg_lock(void);
void guest_reg_unlock(void);

/* True if the caller now holds @g's claim. */
bool guest_claim(struct guest *g);
void guest_unclaim(struct guest *g);
/*
 * The claimant takes @g out of the table, adding its counts to the
 * registry's; freed once every walk that may see it has ended.  Call
 * inside a read-side section, holding the claim, which is never released.
 */
void guest_retire(struct guest_reg *reg, struct guest *g);
/* The discovery thread: @g's file is gone; its claimant drains it. */
void guest_gone(struct guest *g);
bool guest_is_gone(const struct guest *g);

/* The claimant's counters: relaxed atomics, so a reporter reads them whole. */
void guest_count(struct guest *g, uint64_t events, uint64_t lost,
		 uint64_t bytes);
void guest_read_counts(const struct guest *g, struct guest_counts *c);
void guest_set_state(struct guest *g, enum guest_state state);
enum guest_state guest_state(const struct guest *g);
void guest_reg_read_retired(const struct guest_reg *reg,
			    struct guest_counts *c);

#endif /* IVRING_GUEST_REGISTRY_H */
