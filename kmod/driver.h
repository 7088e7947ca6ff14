/* SPDX-License-Identifier: GPL-2.0 */
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * The driver layer (kmod/LAYERS): the ivshmem PCI driver, pci.c.  Probing
 * is synchronous: once ivr_pci_register() returns, a device that was there
 * is bound and its segment LIVE.
 */
#ifndef IVRING_KMOD_DRIVER_H
#define IVRING_KMOD_DRIVER_H

int ivr_pci_register(void);
void ivr_pci_unregister(void);

#endif /* IVRING_KMOD_DRIVER_H */
