/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/* The tests that check that nothing keeps a file open (fd_count.c). */
#ifndef IVRING_SELFTESTS_FD_COUNT_H
#define IVRING_SELFTESTS_FD_COUNT_H

/* The process's open files, not counting the one that counting opens. */
int nr_fds(void);

#endif /* IVRING_SELFTESTS_FD_COUNT_H */
