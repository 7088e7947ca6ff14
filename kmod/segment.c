// SPDX-License-Identifier: GPL-2.0
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * The segment's lifecycle: format the BAR2 that the driver mapped, with the
 * formats of every event that the registry lists, publish it, format it
 * again on reset, on a mode change and after a hibernation image, and stop
 * it when the device or the kernel goes.
 *
 * Remove, reboot and kexec (shutdown) and the power-off of hibernation
 * leave the segment STOPPED, so that a host reader knows the writer has
 * gone.  BAR2 is not in a hibernation image: the host's memory outlives the
 * guest's, and what the kernel that wrote the image did to it after the
 * snapshot is not in the restored writer's state.  So restore formats the
 * segment again, with a new generation.  Thaw does not: the kernel that
 * thaws is the one that wrote BAR2 all along, after a failed hibernation
 * as after writing the image, so its state still matches.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/pci.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "registry.h"
#include "segment.h"
#include "testing.h"

static unsigned int ivr_subbuf_size = 4096;
module_param_named(subbuf_size, ivr_subbuf_size, uint, 0444);
MODULE_PARM_DESC(subbuf_size,
		 "bytes of one sub-buffer (ftrace page), a power of two in [256, 65536]; default 4096");

/* Read when a segment is formatted; written by ivr_segment_set_mode(). */
static unsigned int ivr_mode = IVRING_MODE_DISCARD;

static const char * const ivr_mode_names[] = {
	[IVRING_MODE_DISCARD] = "discard",
	[IVRING_MODE_OVERWRITE] = "overwrite",
};

/* IVRING_MODE_* from its name (a trailing newline is fine), or -EINVAL. */
int ivr_mode_parse(const char *val)
{
	return sysfs_match_string(ivr_mode_names, val);
}

const char *ivr_mode_name(unsigned int mode)
{
	return mode < ARRAY_SIZE(ivr_mode_names) ? ivr_mode_names[mode] : "?";
}

/* The mode of the next format; any context. */
unsigned int ivr_segment_mode(void)
{
	return READ_ONCE(ivr_mode);
}

static int ivr_mode_param_set(const char *val, const struct kernel_param *kp)
{
	int i = ivr_mode_parse(val);

	if (i < 0) {
		pr_err("mode=%s: expected discard or overwrite\n",
		       val);
		return -EINVAL;
	}
	*(unsigned int *)kp->arg = i;
	return 0;
}

static int ivr_mode_param_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s\n", ivr_mode_name(*(unsigned int *)kp->arg));
}

static const struct kernel_param_ops ivr_mode_param_ops = {
	.set = ivr_mode_param_set,
	.get = ivr_mode_param_get,
};
module_param_cb(mode, &ivr_mode_param_ops, &ivr_mode, 0444);
MODULE_PARM_DESC(mode,
		 "discard (drop the newest events when the host falls behind, default) or overwrite (flight recorder)");

/* At module init: the parameters that no segment could be formatted with. */
int ivr_segment_check_params(void)
{
	if (ivr_subbuf_size < IVRING_SUBBUF_MIN ||
	    ivr_subbuf_size > IVRING_SUBBUF_MAX ||
	    !is_power_of_2(ivr_subbuf_size)) {
		pr_err("subbuf_size=%u: expected a power of two in [%u, %u]\n",
		       ivr_subbuf_size, IVRING_SUBBUF_MIN, IVRING_SUBBUF_MAX);
		return -EINVAL;
	}
	return ivr_segment_check_clock();
}

/*
 * The instance of the device that ivring owns, under ivr_mutex.  While it
 * is LIVE, ivr_inst points to it too; after a failed format it is STOPPED,
 * unpublished, and still here, so that reset can try again.
 */
static struct ivr_instance *ivr_owned;

/* A new generation on every format, never 0 and never the previous one. */
static u64 ivr_new_generation(const struct ivring_header *old)
{
	u64 prev = READ_ONCE(old->generation), gen;

	do {
		gen = get_random_u64();
	} while (!gen || gen == prev);
	return gen;
}

/*
 * cmpxchg16b on a writer's tail needs 16-byte alignment and a writer state
 * per cache line avoids false sharing; kvcalloc() promises neither for
 * every size, so over-allocate and align.
 */
static struct ivw_cpu *ivr_alloc_cpus(u32 nr_cpus, void **mem)
{
	size_t align = __alignof__(struct ivw_cpu);

	*mem = kvcalloc(1, (size_t)nr_cpus * sizeof(struct ivw_cpu) +
			align - 1, GFP_KERNEL);
	if (!*mem)
		return NULL;
	return PTR_ALIGN(*mem, align);
}

/* Lay the segment out in the mapped BAR2 and make it LIVE. */
static int ivr_format_segment(struct ivr_instance *inst)
{
	struct ivw_params p = {
		.segment_size = inst->size,
		.nr_cpus = nr_cpu_ids,
		.subbuf_size = ivr_subbuf_size,
		.mode = ivr_mode,
		/* clock_sync.c answers. */
		.flags = IVRING_F_CLOCK_SYNC,
	};
	struct ivring_header lay;
	struct ivw_cpu *cpus;
	u64 need;
	int ret;

	ret = ivr_segment_pick_clock(&p, inst->pdev);
	if (ret)
		return ret;
	ret = ivw_layout(&p, &lay, &need);
	if (ret == -ENOSPC) {
		pci_err(inst->pdev, "BAR2 has %llu bytes, the layout needs %llu (%u CPUs, subbuf_size=%u, %u sub-buffers each at least); give ivshmem a larger size or load with a smaller subbuf_size\n",
			inst->size, need, p.nr_cpus, p.subbuf_size,
			IVRING_NR_SUBBUFS_MIN);
		return ret;
	}
	if (ret) {
		pci_err(inst->pdev, "invalid layout: %u CPUs, subbuf_size=%u: %d\n",
			p.nr_cpus, p.subbuf_size, ret);
		return ret;
	}

	cpus = ivr_alloc_cpus(p.nr_cpus, &inst->cpus_mem);
	inst->slots = kvcalloc((size_t)p.nr_cpus * lay.nr_subbufs,
			       sizeof(*inst->slots), GFP_KERNEL);
	if (!cpus || !inst->slots)
		return -ENOMEM;

	ret = ivw_format(&inst->w, inst->base, &p,
			 ivr_new_generation(inst->base), cpus, inst->slots);
	if (ret)
		return ret;
	ret = ivr_events_add_formats(inst);
	if (!ret)
		ret = ivr_test_fail_format();
	if (ret) {
		/* A reader must not wait for a segment that never goes live. */
		ivw_set_state(&inst->w, IVRING_STATE_STOPPED);
		return ret;
	}
	ivw_set_state(&inst->w, IVRING_STATE_LIVE);
	pci_info(inst->pdev, "segment of %llu bytes: %u CPUs x %u sub-buffers of %u bytes, %s mode, generation %#llx\n",
		 inst->size, p.nr_cpus, lay.nr_subbufs, p.subbuf_size,
		 p.mode == IVRING_MODE_OVERWRITE ? "overwrite" : "discard",
		 inst->w.generation);
	return 0;
}

/**
 * ivr_segment_free_state() - free the writer's own memory of @inst
 * @inst:	an instance that is not published
 *
 * The rest of the instance is the device's, and devres frees it.
 */
void ivr_segment_free_state(struct ivr_instance *inst)
{
	kvfree(inst->slots);
	kvfree(inst->cpus_mem);
	inst->slots = NULL;
	inst->cpus_mem = NULL;
	/* Nothing may look at the writer's CPUs, which were that memory. */
	inst->w.cpus = NULL;
	inst->w.tsc.on = 0;
}

/**
 * ivr_segment_stop() - unpublish @inst, then mark its segment STOPPED
 * @inst:	the instance
 * @why:	for dmesg
 *
 * A host reader sees the end of the writes; the contents stay readable
 * on the host.
 */
void ivr_segment_stop(struct ivr_instance *inst, const char *why)
{
	ivr_instance_unpublish(inst);
	ivw_set_state(&inst->w, IVRING_STATE_STOPPED);
	pci_info(inst->pdev, "segment generation %#llx stopped (%s)\n",
		 inst->w.generation, why);
}

/* Format @inst's segment afresh and publish it; STOPPED when that fails. */
static int ivr_segment_format(struct ivr_instance *inst)
{
	int ret;

	ivr_instance_unpublish(inst);
	ivr_segment_free_state(inst);
	ret = ivr_format_segment(inst);
	if (ret) {
		/* Keep the device: reset may try again, remove() frees. */
		ivw_set_state(&inst->w, IVRING_STATE_STOPPED);
		return ret;
	}
	ivr_instance_publish(inst);
	return 0;
}

/* The instance ivring writes to, or NULL: the driver takes one only. */
const struct ivr_instance *ivr_segment_owner(void)
{
	lockdep_assert_held(&ivr_mutex);
	return ivr_owned;
}

/**
 * ivr_segment_take() - own a newly mapped device's instance and format it
 * @inst:	its BAR2 mapped; ivr_segment_owner() was NULL
 *
 * Return: 0, the instance then LIVE and published; or the formatting
 * error, with the writer's memory freed and nothing owned.
 */
int ivr_segment_take(struct ivr_instance *inst)
{
	int ret;

	lockdep_assert_held(&ivr_mutex);
	ret = ivr_format_segment(inst);
	if (ret) {
		ivr_segment_free_state(inst);
		return ret;
	}
	ivr_owned = inst;
	ivr_instance_publish(inst);
	return 0;
}

/*
 * The device goes (remove), or the kernel (shutdown): @inst is no longer
 * owned, so that a reset or mode write finds none and cannot make the
 * segment LIVE again, and its segment is STOPPED.  Only what this device
 * owns is given up: another device may be in use.
 */
void ivr_segment_release(struct ivr_instance *inst, const char *why)
{
	lockdep_assert_held(&ivr_mutex);
	if (ivr_owned == inst)
		ivr_owned = NULL;
	ivr_segment_stop(inst, why);
}

/*
 * Before the hibernation snapshot: no probe may write while it is taken,
 * so that the image holds an unpublished instance.  Restored, that image
 * then writes nothing with its stale writer state until
 * ivr_segment_restore() has formatted BAR2 afresh; the kernel that took
 * the image goes on at ivr_segment_thaw() with the state that matches
 * BAR2, since it wrote it all along.
 */
void ivr_segment_freeze(struct ivr_instance *inst)
{
	lockdep_assert_held(&ivr_mutex);
	inst->thaw_publish = rcu_access_pointer(ivr_inst) == inst;
	ivr_instance_unpublish(inst);
}

/* The image is written: the machine powers off, the writer with it. */
void ivr_segment_poweroff(struct ivr_instance *inst)
{
	lockdep_assert_held(&ivr_mutex);
	ivr_segment_stop(inst, "hibernation");
}

/* The snapshot is taken (or hibernation failed): tracing goes on. */
void ivr_segment_thaw(struct ivr_instance *inst)
{
	lockdep_assert_held(&ivr_mutex);
	if (inst->thaw_publish && inst == ivr_owned)
		ivr_instance_publish(inst);
	inst->thaw_publish = false;
}

/*
 * Back from a hibernation image: the writer state is the image's, BAR2 is
 * not.  A failure is not the resume's: the segment stays STOPPED and reset
 * may try again.
 */
void ivr_segment_restore(struct ivr_instance *inst)
{
	int ret;

	lockdep_assert_held(&ivr_mutex);
	ret = inst == ivr_owned ? ivr_segment_format(inst) : 0;
	if (ret)
		pci_err(inst->pdev, "formatting after the hibernation image failed: %d; tracing to it stops until a reset succeeds\n",
			ret);
}

/*
 * Suspend to RAM.  BAR2 is unmapped from the devices' suspend until the PCI
 * core restores it on the way back (a PC that QEMU wakes has its devices
 * reset first): a probe that wrote meanwhile would lose its bytes while
 * the writer counted them published, and the host would find bad pages.
 * So nothing writes until ivr_segment_resume(), as around a hibernation
 * snapshot; the segment keeps its memory, and the writer its state.
 */
void ivr_segment_suspend(struct ivr_instance *inst)
{
	ivr_segment_freeze(inst);
}

/*
 * BAR2 is back, as the writer left it: tracing goes on in the same
 * generation.  A TSC clock that the sleep reset goes on from the newest
 * stamp (include/writer/ring_clock.c), before any probe writes again.
 */
void ivr_segment_resume(struct ivr_instance *inst)
{
	u64 back;

	lockdep_assert_held(&ivr_mutex);
	/* Only a writer about to go on: a failed format left its state freed. */
	if (inst->thaw_publish && inst == ivr_owned) {
		back = ivw_tsc_heal(&inst->w);
		if (back)
			pci_info(inst->pdev, "the TSC went back during the suspend (%llu ns behind the newest event): timestamps go on from that event\n",
				 back);
	}
	ivr_segment_thaw(inst);
}

/**
 * ivr_segment_reset() - empty the rings: format the segment again
 *
 * Used by sysfs's reset and mode.  The segment gets a new generation, so a
 * host reader starts over instead of mixing old and new pages; the mode and
 * sub-buffer size are taken afresh.
 *
 * Return: 0, -ENODEV when no device is bound, or a formatting error: the
 * segment is then STOPPED and no longer written, and the device stays
 * bound, so that another reset can try again.
 */
int ivr_segment_reset(void)
{
	struct ivr_instance *inst = ivr_owned;
	int ret;

	lockdep_assert_held(&ivr_mutex);
	if (!inst)
		return -ENODEV;
	ret = ivr_segment_format(inst);
	if (ret)
		pci_err(inst->pdev, "formatting again failed: %d; tracing to it stops until a reset succeeds\n",
			ret);
	return ret;
}

/**
 * ivr_segment_set_mode() - change the mode, formatting the segment again
 * @mode:	IVRING_MODE_*
 *
 * The writer's state and the pages' meaning depend on the mode, and a
 * reader must start over.  Only while tracing is off, so that nobody
 * loses events by surprise.
 *
 * Return: 0 (also with no device: the mode applies when one is bound),
 * -EBUSY while tracing_on is 1, or ivr_segment_reset()'s error, and then
 * the mode is the old one still.
 */
int ivr_segment_set_mode(unsigned int mode)
{
	unsigned int old = ivr_mode;
	int ret;

	lockdep_assert_held(&ivr_mutex);
	if (READ_ONCE(ivr_tracing_on))
		return -EBUSY;
	if (mode == old)
		return 0;
	WRITE_ONCE(ivr_mode, mode);
	ret = ivr_segment_reset();
	if (ret == -ENODEV)
		return 0;
	/* A failed write changes no setting: reset retries the old. */
	if (ret)
		WRITE_ONCE(ivr_mode, old);
	return ret;
}
