// SPDX-License-Identifier: GPL-2.0 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * Bounded memory: whatever the guest writes into the format area, a reader
 * takes at most IVRING_FORMAT_AREA_MAX bytes of it, refuses a segment that
 * claims more, and needs memory in proportion to what passed the checks.
 *
 * Each case runs in a child process under an address-space limit
 * (RLIMIT_AS): what the child has mapped when it opens, plus the segment
 * mapped once more by the reader, plus LIMIT_MB.  It prints the peak RSS
 * that opening, parsing and reading added.  Under ASan, whose shadow memory
 * takes terabytes of address space, the limit is left off and the figures
 * are not a reader's.
 */
#include <sys/resource.h>

#include "kselftest_harness.h"
#include "fmt_util.h"

#define LIMIT_MB	64
#define SEG_SIZE	(32U << 20)
#define BIG_AREA	(16U << 20)	/* what the issue measured: 168 MB of RSS */

#ifdef __SANITIZE_ADDRESS__
static const bool asan = true;
#else
static const bool asan;
#endif

struct mem {
	long rss_kb;
	long hwm_kb;
	long vm_kb;
};

static void mem_now(struct mem *m)
{
	char line[256];
	FILE *f = fopen("/proc/self/status", "r");

	memset(m, 0, sizeof(*m));
	while (f && fgets(line, sizeof(line), f)) {
		sscanf(line, "VmRSS: %ld", &m->rss_kb);
		sscanf(line, "VmHWM: %ld", &m->hwm_kb);
		sscanf(line, "VmSize: %ld", &m->vm_kb);
	}
	if (f)
		fclose(f);
}

/*
 * Fill the area at @a with what costs a reader most: texts with a 16 KiB
 * print fmt of 1400 arguments, then as many small valid formats as fit.
 * Returns how many records went in.
 */
static u32 fill_area(struct ivring_format_area *a, u64 size, u32 big)
{
	char *many = malloc(IVRING_FORMAT_TEXT_MAX), *t;
	u32 n = 0, id = 100;
	size_t len;
	int i;

	len = sprintf(many, "\"");
	for (i = 0; i < 1400; i++)
		len += sprintf(many + len, "%%u ");
	len += sprintf(many + len, "\"");
	for (i = 0; i < 1400; i++)
		len += sprintf(many + len, ", REC->a");
	for (; n < big; n++, id++) {
		t = fu_ab_text(id, many);
		if (fu_put_record(a, size, id, FU_SYS, strlen(FU_SYS), t, strlen(t)))
			break;
		free(t);
	}
	for (;; n++, id++) {
		char name[16];

		snprintf(name, sizeof(name), "t%u", id);
		t = fu_text(name, id, FU_AB, "\"a=%u\", REC->a");
		if (id == 0 || fu_put_record(a, size, id, FU_SYS, strlen(FU_SYS),
					     t, strlen(t)))
			break;
		free(t);
	}
	free(t);
	free(many);
	return n;
}

/*
 * Open @s under the limit, parse, read, and say what it cost.  Returns
 * ivring__open()'s result, with its message in @errbuf.
 */
static int open_limited(struct __test_metadata *_metadata, struct seg *s,
			char *errbuf, size_t errlen)
{
	struct ivring_open_opts o = {
		.sz = sizeof(o), .flags = IVRING_OPEN_PEEK,
		.errbuf = errbuf, .errbuf_len = errlen,
	};
	static char out[FU_OUT_MAX];
	struct mem before, after;
	struct ivring *r;
	int ret;

	mem_now(&before);
	if (!getenv("IVRING_MEM_NOLIMIT")) {
		struct rlimit rl;

		rl.rlim_cur = rl.rlim_max = ((u64)before.vm_kb << 10) +
					    SEG_SIZE + ((u64)LIMIT_MB << 20);
		ASSERT_EQ(0, setrlimit(RLIMIT_AS, &rl));
	}
	errbuf[0] = '\0';
	ret = ivring__open(s->path, &o, &r);
	if (!ret) {
		EXPECT_NE(NULL, ivring__tep(r)) TH_LOG("%s", ivring__errmsg(r));
		EXPECT_LE(0, fu_render_all(r, out)) TH_LOG("%s", ivring__errmsg(r));
		ivring__close(r);
	}
	mem_now(&after);
	TH_LOG("open %d; peak RSS +%ld KiB (%ld KiB before)", ret,
	       after.hwm_kb - before.rss_kb, before.rss_kb);
	EXPECT_GT(LIMIT_MB << 10, after.hwm_kb - before.rss_kb);
	return ret;
}

/*
 * In a child under the limit: open @s, parse, read; open must return
 * @want, and on failure name the format area's limit.
 */
static void limited(struct __test_metadata *_metadata, struct seg *s, int want)
{
	char errbuf[512];
	pid_t pid;
	int status;

	fflush(stderr);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		int ret = open_limited(_metadata, s, errbuf, sizeof(errbuf));

		EXPECT_EQ(want, ret) TH_LOG("%s", errbuf);
		if (want)
			EXPECT_NE(NULL, strstr(errbuf, "format area of 16777216 bytes is larger than IVRING_FORMAT_AREA_MAX (4194304)"))
				TH_LOG("%s", errbuf);
		_exit(!_metadata->passed);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status))
		TH_LOG("child status %#x", status);
}

/* The largest area a reader takes, with @big dense texts first. */
static void maximal_area(struct __test_metadata *_metadata, u32 big)
{
	struct seg s;

	if (asan)
		SKIP(return, "figures under ASan are not a reader's");
	ASSERT_EQ(0, seg_format(&s, SEG_SIZE, 1, 4096, 4, IVRING_MODE_DISCARD,
				NULL, IVRING_FORMAT_AREA_MAX));
	TH_LOG("%u formats in %u bytes",
	       fill_area(s.w.fmt, IVRING_FORMAT_AREA_MAX, big),
	       IVRING_FORMAT_AREA_MAX);
	ivw_set_state(&s.w, IVRING_STATE_LIVE);
	limited(_metadata, &s, 0);
	seg_destroy(&s);
}

/* One huge print fmt, then thousands of small formats. */
TEST(thousands_of_small_formats)
{
	maximal_area(_metadata, 1);
}

/* Only texts of 1400 print arguments each: the most per byte. */
TEST(dense_print_fmts)
{
	maximal_area(_metadata, IVRING_FORMATS_MAX);
}

/*
 * A guest that claims a larger format area than any writer makes: moved
 * past the data area, 16 MiB of small valid formats.  Refused at once,
 * with a message that names the limit.
 */
TEST(area_over_the_cap)
{
	struct ivring_format_area *a;
	struct ivring_header *h;
	struct seg s;
	u64 off;

	if (asan)
		SKIP(return, "figures under ASan are not a reader's");
	ASSERT_EQ(0, seg_format(&s, SEG_SIZE, 1, 4096, 4, IVRING_MODE_DISCARD,
				NULL, 0));
	ASSERT_EQ(0, synth_add_formats(&s.w));
	h = (struct ivring_header *)s.base;
	off = (h->data_offset + h->data_size + 4095) & ~4095ULL;
	ASSERT_GE(SEG_SIZE, off + BIG_AREA);
	a = (struct ivring_format_area *)(s.base + off);
	TH_LOG("%u formats in %u bytes", fill_area(a, BIG_AREA, 0), BIG_AREA);
	h->format_offset = off;
	h->format_size = BIG_AREA;
	ivw_set_state(&s.w, IVRING_STATE_LIVE);
	limited(_metadata, &s, -EINVAL);
	seg_destroy(&s);
}

TEST_HARNESS_MAIN
