/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* SPDX-FileCopyrightText: 2026 The ivring authors */
#ifndef IVRING_READ_MANY_RECORD_H
#define IVRING_READ_MANY_RECORD_H

struct many_opts;
struct rec_opts;

/*
 * ivring-read record of many segments: one recording per guest in the
 * directory of -o or --ctf (@base), named after its segment.
 */
int many_record_main(struct many_opts *m, struct rec_opts *base);

#endif /* IVRING_READ_MANY_RECORD_H */
