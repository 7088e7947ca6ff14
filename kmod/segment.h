/* SPDX-License-Identifier: GPL-2.0 */
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * The segment layer (kmod/LAYERS): the lifecycle of the one instance that
 * ivring owns.  The driver hands it an instance with BAR2 mapped; from then
 * on this layer formats its segment (with every listed event's format),
 * publishes it, formats it again (reset, mode, resume from hibernation),
 * holds its probes across a suspend to RAM and stops it.  It owns the parameters that shape a segment: subbuf_size,
 * the mode, and the rule for changing the mode (segment.c), and the clock
 * (segment_clock.c).
 *
 * Every function but the parameters' runs in process context with
 * ivr_mutex held.
 */
#ifndef IVRING_KMOD_SEGMENT_H
#define IVRING_KMOD_SEGMENT_H

#include "instance.h"

struct pci_dev;

int ivr_segment_check_params(void);
int ivr_segment_check_clock(void);
int ivr_segment_pick_clock(struct ivw_params *p, struct pci_dev *pdev);
int ivr_mode_parse(const char *val);
const char *ivr_mode_name(unsigned int mode);
unsigned int ivr_segment_mode(void);

const struct ivr_instance *ivr_segment_owner(void);
int ivr_segment_take(struct ivr_instance *inst);
void ivr_segment_release(struct ivr_instance *inst, const char *why);
void ivr_segment_free_state(struct ivr_instance *inst);
void ivr_segment_stop(struct ivr_instance *inst, const char *why);
void ivr_segment_freeze(struct ivr_instance *inst);
void ivr_segment_poweroff(struct ivr_instance *inst);
void ivr_segment_thaw(struct ivr_instance *inst);
void ivr_segment_restore(struct ivr_instance *inst);
void ivr_segment_suspend(struct ivr_instance *inst);
void ivr_segment_resume(struct ivr_instance *inst);
int ivr_segment_reset(void);
int ivr_segment_set_mode(unsigned int mode);

#endif /* IVRING_KMOD_SEGMENT_H */
