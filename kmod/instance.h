/* SPDX-License-Identifier: GPL-2.0 */
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * The instance layer (kmod/LAYERS): the segment that the probes write to,
 * published under RCU, the switch they obey, the mutex under which all of
 * it changes, and the poller that answers the host's clock requests for it.
 */
#ifndef IVRING_KMOD_INSTANCE_H
#define IVRING_KMOD_INSTANCE_H

#include <linux/lockdep.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/types.h>

#include "ring_writer.h"

/* The PCI driver's, the BAR2 region's and /sys/kernel's directory's name. */
#define IVR_NAME	"ivring"

struct pci_dev;

/*
 * One formatted segment.  Probes reach it through ivr_inst under RCU-sched
 * (tracepoint callbacks run with preemption disabled), so it is freed only
 * after ivr_instance_unpublish() has waited for them.
 */
struct ivr_instance {
	struct pci_dev *pdev;
	void *base;			/* BAR2, memremap()ed write-back */
	u64 size;
	struct ivw_writer w;
	void *cpus_mem;			/* kvcalloc()ed, holds w.cpus */
	struct ivw_slot *slots;
	bool thaw_publish;		/* published when frozen; under ivr_mutex */
};

/*
 * Serialises device probe and remove, formatting and publishing, enabling
 * events, and every sysfs write; the clock poller holds it while it answers.
 */
extern struct mutex ivr_mutex;
/* The LIVE instance that probes write to, or NULL; set under ivr_mutex. */
extern struct ivr_instance __rcu *ivr_inst;
/* tracing_on: the probes write, or return at once (read without a lock). */
extern bool ivr_tracing_on;

/* The published instance, for a reader that holds ivr_mutex. */
static inline struct ivr_instance *ivr_instance_locked(void)
{
	return rcu_dereference_protected(ivr_inst, lockdep_is_held(&ivr_mutex));
}

void ivr_instance_publish(struct ivr_instance *inst);
void ivr_instance_unpublish(struct ivr_instance *inst);

/* clock_sync.c: answers the host's clock requests */
void ivr_sync_start(void);
void ivr_sync_stop(void);
ssize_t ivr_sync_show(char *buf);

#endif /* IVRING_KMOD_INSTANCE_H */
