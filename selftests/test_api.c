// SPDX-License-Identifier: GPL-2.0 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * The API's contracts as libbpf keeps them: option and result structs grow
 * by their sz (unknown options must be zero, results never written past the
 * caller's sz), every failed open says why in errbuf, and a path of any
 * length is taken whole.
 */
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>

#include "kselftest_harness.h"
#include "seg_util.h"

FIXTURE(api)
{
	struct seg s;
};

FIXTURE_SETUP(api)
{
	ASSERT_EQ(0, seg_create(&self->s, 1 << 20, 2, 1024, 0,
				IVRING_MODE_DISCARD, NULL));
	ASSERT_EQ(0, seg_write_seq(&self->s, 0, 0, 0));
}

FIXTURE_TEARDOWN(api)
{
	seg_destroy(&self->s);
}

/* An options struct from a newer header, with its new fields after ours. */
struct newer_opts {
	struct ivring_open_opts o;
	uint64_t future;
};

TEST_F(api, open_opts_sz)
{
	struct newer_opts n = { 0 };
	char err[256];
	struct ivring *r = (void *)1;

	n.o.errbuf = err;
	n.o.errbuf_len = sizeof(err);

	/* Zero where we know nothing: fine. */
	n.o.sz = sizeof(n);
	ASSERT_EQ(0, ivring__open(self->s.path, &n.o, &r));
	ivring__close(r);

	/* Something asked that this library cannot do: refused, and said. */
	n.future = 1;
	err[0] = '\0';
	ASSERT_EQ(-EINVAL, ivring__open(self->s.path, &n.o, &r));
	ASSERT_EQ(NULL, r);
	ASSERT_NE(NULL, strstr(err, "fields this library does not know"))
		TH_LOG("%s", err);

	/* A struct from an older header: only what it has is read. */
	n.future = 0;
	n.o.sz = offsetof(struct ivring_open_opts, flags) + sizeof(n.o.flags);
	n.o.flags = IVRING_OPEN_PEEK;
	ASSERT_EQ(0, ivring__open(self->s.path, &n.o, &r));
	ivring__close(r);

	n.o.sz = 0;
	ASSERT_EQ(-EINVAL, ivring__open(self->s.path, &n.o, &r));
}

/* Every failure fills errbuf, the early ones too. */
TEST_F(api, errbuf_always)
{
	char err[256];
	struct ivring_open_opts o = { .sz = sizeof(o), .errbuf = err,
				      .errbuf_len = sizeof(err) };
	struct ivring *r;

	err[0] = '\0';
	o.flags = 1U << 30;
	ASSERT_EQ(-EINVAL, ivring__open(self->s.path, &o, &r));
	ASSERT_NE(NULL, strstr(err, "unknown flags")) TH_LOG("%s", err);

	err[0] = '\0';
	o.flags = 0;
	ASSERT_EQ(-EINVAL, ivring__open("", &o, &r));
	ASSERT_NE(0, err[0]);

	err[0] = '\0';
	ASSERT_EQ(-ENOENT, ivring__open("/nonexistent/seg", &o, &r));
	ASSERT_NE(NULL, strstr(err, "/nonexistent/seg: No such file"))
		TH_LOG("%s", err);

	/* And a success leaves nothing behind in errmsg. */
	ASSERT_EQ(0, ivring__open(self->s.path, &o, &r));
	ASSERT_STREQ("", ivring__errmsg(r));
	ivring__close(r);
}

/* A path longer than any fixed buffer: opened, and named whole. */
TEST_F(api, long_path)
{
	char path[PATH_MAX], err[PATH_MAX + 256];
	struct ivring_open_opts o = { .sz = sizeof(o), .errbuf = err,
				      .errbuf_len = sizeof(err) };
	struct ivring *r;
	size_t len = 0;
	int i;

	len = snprintf(path, sizeof(path), "/proc");
	for (i = 0; i < 500; i++)
		len += snprintf(path + len, sizeof(path) - len, "/.");
	snprintf(path + len, sizeof(path) - len, "/self/fd/%d", self->s.fd);
	ASSERT_GT(strlen(path), 1000);
	ASSERT_EQ(0, ivring__open(path, &o, &r)) TH_LOG("%s", err);
	ivring__close(r);

	strcat(path, "-missing");
	ASSERT_EQ(-ENOENT, ivring__open(path, &o, &r));
	ASSERT_NE(NULL, strstr(err, path)) TH_LOG("%s", err);
}

/* Results are written up to the caller's sz and not a byte further. */
TEST_F(api, info_sz)
{
	struct {
		struct ivring_info i;
		u8 canary[64];
	} big;
	struct ivring *r;
	size_t part = offsetof(struct ivring_info, nr_cpus);
	size_t k;

	ASSERT_EQ(0, seg_open(&self->s, IVRING_OPEN_PEEK, &r));
	memset(&big, 0xa5, sizeof(big));
	big.i.sz = part;
	ASSERT_EQ(0, ivring__info(r, &big.i));
	ASSERT_EQ(part, big.i.sz);
	ASSERT_EQ(IVRING_ABI_MAJOR, big.i.abi_major);
	for (k = part; k < sizeof(big); k++)
		ASSERT_EQ(0xa5, ((u8 *)&big)[k]) TH_LOG("byte %zu", k);

	memset(&big, 0xa5, sizeof(big));
	big.i.sz = sizeof(big.i);
	ASSERT_EQ(0, ivring__info(r, &big.i));
	ASSERT_EQ(2, big.i.nr_cpus);
	ASSERT_TRUE(big.i.peek);
	for (k = 0; k < sizeof(big.canary); k++)
		ASSERT_EQ(0xa5, big.canary[k]);

	big.i.sz = 1;
	ASSERT_EQ(-EINVAL, ivring__info(r, &big.i));
	ivring__close(r);
}

TEST_HARNESS_MAIN
