/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* SPDX-FileCopyrightText: 2026 The ivring authors */
#ifndef IVRING_READ_RECORD_H
#define IVRING_READ_RECORD_H

/* ivring-read record ...: argv[0] is "record". */
int record_main(int argc, char **argv);

#endif /* IVRING_READ_RECORD_H */
