/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* SPDX-FileCopyrightText: 2026 The ivring authors */
#ifndef IVRING_READ_USAGE_H
#define IVRING_READ_USAGE_H

#include <stdbool.h>
#include <stdio.h>

/* ivring-read's --help, or with @record ivring-read record's, into @f. */
void read_usage(bool record, FILE *f);

#endif /* IVRING_READ_USAGE_H */
