// SPDX-License-Identifier: GPL-2.0 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * ctf_gen: segments for test_ctf.sh, and the reference it compares
 * babeltrace2's reading of a CTF recording with.
 *
 *   ctf_gen natives SET PATH  two CPUs with every native format of
 *                             selftests/data/SET (formats, formats-6.12,
 *                             formats-6.1-rt) and events of each, their
 *                             fields random (strings alphanumeric and
 *                             never empty: babeltrace2 2.0.4 shows an empty
 *                             string as the one an earlier event of the
 *                             class had, its bug fixed by
 *                             review.lttng.org/c/babeltrace/+/4528), with
 *                             time deltas that need time extends
 *   ctf_gen hostile PATH      records that lie: __data_loc words pointing
 *                             past the record, strings without a NUL,
 *                             payloads shorter than their format, a type
 *                             with no format
 *   ctf_gen dump [--consume] PATH
 *                             every event of a stopped segment, read with
 *                             ivring__next() (a snapshot, which counts no
 *                             loss, unless --consume) and decoded through
 *                             libtraceevent's field layouts, one line each:
 *                             "ts cpu sys:name field=value ...", then
 *                             "lost CPU N" for each CPU
 *
 * The dump's field rules are the CTF recorder's contract, stated here
 * independently: plain char arrays and __data_loc char[] are strings (up
 * to the first NUL, inside the record), other arrays list their integers,
 * a __data_loc array is preceded by NAME_length, data that is not wholly
 * inside the record is empty, and bytes the record does not have read as
 * zeros.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>
#include <unistd.h>

#include "fmt_util.h"

#define SEG_SIZE	(4U << 20)
#define FMT_AREA	(256U << 10)
#define ROUNDS		6
#define PAYLOAD_MAX	2048

static u64 rng_state = 0x1234567;

static u32 rnd(void)
{
	rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
	return rng_state >> 33;
}

static u64 fake_ns = 5000000000000ULL;

static u64 fake_clock(void)
{
	return fake_ns;
}

/* Mostly small steps, and now and then one a time extend must carry. */
static void tick(void)
{
	fake_ns += rnd() % 8 ? 1 + rnd() % 5000 : (1ULL << 28) + rnd();
}

/* "char", "const char", behind __data_loc or not: text. */
static bool text_type(const char *t)
{
	for (;;) {
		if (!strncmp(t, "__data_loc ", 11))
			t += 11;
		else if (!strncmp(t, "__rel_loc ", 10))
			t += 10;
		else if (!strncmp(t, "const ", 6))
			t += 6;
		else
			break;
	}
	return !strncmp(t, "char", 4) && strchr("[ ", t[4] ? t[4] : ' ');
}

static void alnum(u8 *p, u32 n)
{
	static const char set[] = "abcdefghijklmnopqrstuvwxyz"
				  "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_";

	while (n--)
		*p++ = set[rnd() % (sizeof(set) - 1)];
}

static u32 elem_size(const struct tep_format_field *f)
{
	u32 e = f->elementsize;

	return e == 1 || e == 2 || e == 4 || e == 8 ? e : 1;
}

/* One event of @ev with random fields into @buf; its payload length. */
static u32 fill(struct tep_event *ev, u8 *buf, u16 id)
{
	struct tep_format_field *lists[2] = { ev->format.common_fields,
					      ev->format.fields };
	struct tep_format_field *f;
	u32 fixed = 0, dyn, i, k;

	for (i = 0; i < 2; i++)
		for (f = lists[i]; f; f = f->next)
			if ((u32)(f->offset + f->size) > fixed)
				fixed = f->offset + f->size;
	memset(buf, 0, PAYLOAD_MAX);
	dyn = fixed;
	for (i = 0; i < 2; i++) {
		for (f = lists[i]; f; f = f->next) {
			u8 *p = buf + f->offset;

			if (!strcmp(f->name, "common_type")) {
				memcpy(p, &id, 2);
			} else if (f->flags & TEP_FIELD_IS_DYNAMIC) {
				u32 n, loc, base = f->flags & TEP_FIELD_IS_RELATIVE ?
						   f->offset + 4 : 0;

				if (text_type(f->type)) {
					n = 1 + rnd() % 23;
					alnum(buf + dyn, n);
					buf[dyn + n] = 0;
					n++;
				} else {
					n = (rnd() % 6) * elem_size(f);
					for (k = 0; k < n; k++)
						buf[dyn + k] = rnd();
				}
				loc = n << 16 | (dyn - base);
				memcpy(p, &loc, 4);
				dyn += n;
			} else if ((f->flags & TEP_FIELD_IS_ARRAY) &&
				   text_type(f->type)) {
				/* sometimes full, with no NUL at all */
				alnum(p, 1 + rnd() % f->size);
			} else {
				for (k = 0; k < (u32)f->size; k++)
					p[k] = rnd();
			}
		}
	}
	return dyn;
}

static int save(struct seg *s, const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	ivw_set_state(&s->w, IVRING_STATE_STOPPED);
	if (fd < 0 || write(fd, s->base, s->size) != (ssize_t)s->size) {
		perror(path);
		return 1;
	}
	close(fd);
	return 0;
}

static int natives(const char *set, const char *path)
{
	static u8 buf[PAYLOAD_MAX];
	struct fu_native *v;
	struct ivring *r;
	struct seg s;
	int n, i, round, ret;
	u32 cpu;

	n = fu_natives_of(set, &v);
	if (n <= 0)
		return fprintf(stderr, "ctf_gen: no formats in %s\n", set), 1;
	ret = seg_format(&s, SEG_SIZE, 2, 4096, 0, IVRING_MODE_DISCARD,
			 fake_clock, FMT_AREA);
	for (i = 0; !ret && i < n; i++)
		ret = ivw_add_format(&s.w, v[i].id, v[i].sys, v[i].text,
				     v[i].len);
	if (ret)
		return fprintf(stderr, "ctf_gen: segment: %s\n", strerror(-ret)), 1;
	ivw_set_state(&s.w, IVRING_STATE_LIVE);
	if (seg_open(&s, IVRING_OPEN_PEEK, &r) || !ivring__tep(r))
		return 1;
	for (round = 0; round < ROUNDS; round++) {
		for (i = 0; i < n; i++) {
			struct tep_event *ev = ivring__event(r, v[i].id);

			if (!ev)
				return fprintf(stderr, "ctf_gen: %s:%u refused\n",
					       v[i].sys, v[i].id), 1;
			for (cpu = 0; cpu < 2; cpu++) {
				tick();
				ret = ivw_write(&s.w, cpu, buf,
						fill(ev, buf, v[i].id));
				if (ret)
					return fprintf(stderr, "ctf_gen: write: %s\n",
						       strerror(-ret)), 1;
			}
		}
	}
	ivring__close(r);
	fu_natives_free(v, n);
	return save(&s, path);
}

/* --- hostile ----------------------------------------------------------- */

#define H_STR	50	/* __data_loc char[] s, then u32 a */
#define H_ARR	51	/* __data_loc u32[] v */
#define H_WIDE	52	/* fixed fields up to offset 48 */
#define H_REL	53	/* __rel_loc char[] s */
#define H_NONE	999	/* no format */

static const char *const h_fields[][2] = {
	{ "\tfield:__data_loc char[] s;\toffset:8;\tsize:4;\tsigned:0;\n"
	  "\tfield:u32 a;\toffset:12;\tsize:4;\tsigned:0;\n",
	  "\"s=%s a=%u\", __get_str(s), REC->a" },
	{ "\tfield:__data_loc u32[] v;\toffset:8;\tsize:4;\tsigned:0;\n",
	  "\"v=%d\", __get_dynamic_array_len(v)" },
	{ "\tfield:char name[16];\toffset:8;\tsize:16;\tsigned:1;\n"
	  "\tfield:u64 x;\toffset:24;\tsize:8;\tsigned:0;\n"
	  "\tfield:s32 arr[4];\toffset:32;\tsize:16;\tsigned:1;\n",
	  "\"name=%s x=%llu\", REC->name, REC->x" },
	{ "\tfield:__rel_loc char[] s;\toffset:8;\tsize:4;\tsigned:0;\n",
	  "\"s=%s\", __get_rel_str(s)" },
};

static int put_rec(struct seg *s, u16 type, u32 loc, const void *tail,
		   u32 tail_len, u32 len)
{
	u8 buf[256] = { 0 };
	struct synth_common c = { .common_type = type, .common_pid = 7 };
	u32 a = 0x45464748;	/* "HGFE": text where a char[] overlaps it */

	memcpy(buf, &c, sizeof(c));
	memcpy(buf + 8, &loc, 4);
	memcpy(buf + 12, &a, 4);
	if (tail_len)
		memcpy(buf + 16, tail, tail_len);
	tick();
	return ivw_write(&s->w, 0, buf, len);
}

static int hostile(const char *path)
{
	static const char ab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	struct seg s;
	int i, ret;

	ret = seg_format(&s, 1 << 20, 1, 4096, 0, IVRING_MODE_DISCARD,
			 fake_clock, 0);
	for (i = 0; !ret && i < 4; i++) {
		char name[16], *t;

		snprintf(name, sizeof(name), "h%d", H_STR + i);
		t = fu_text(name, H_STR + i, h_fields[i][0], h_fields[i][1]);
		ret = t ? fu_add(&s, H_STR + i, t) : -ENOMEM;
		free(t);
	}
	if (ret)
		return fprintf(stderr, "ctf_gen: hostile: %s\n", strerror(-ret)), 1;
	ivw_set_state(&s.w, IVRING_STATE_LIVE);
	/* honest: "ABCD" at 16, a at 12 */
	ret = put_rec(&s, H_STR, 5 << 16 | 16, "ABCD", 5, 24);
	/* offset past the record, then a length past it */
	ret = ret ?: put_rec(&s, H_STR, 5 << 16 | 0xfff0, ab, 8, 24);
	ret = ret ?: put_rec(&s, H_STR, 0xffffU << 16 | 16, ab, 36, 52);
	/* no NUL anywhere in the string's bytes */
	ret = ret ?: put_rec(&s, H_STR, 8 << 16 | 16, ab, 8, 24);
	/* the loc word itself missing: the record ends at 8 */
	ret = ret ?: put_rec(&s, H_STR, 0, NULL, 0, 8);
	/* 7 bytes for u32 elements, and a length past the end */
	ret = ret ?: put_rec(&s, H_ARR, 7 << 16 | 16, ab, 8, 24);
	ret = ret ?: put_rec(&s, H_ARR, 400 << 16 | 16, ab, 16, 32);
	/* fields to offset 48 in a record of 12 bytes, and name with no NUL */
	ret = ret ?: put_rec(&s, H_WIDE, 0x41424344, NULL, 0, 12);
	ret = ret ?: put_rec(&s, H_WIDE, 0x41424344, ab, 36, 48);
	/* __rel_loc counts from the field's end; and one pointing back */
	ret = ret ?: put_rec(&s, H_REL, 4 << 16 | 4, "XYZ", 4, 24);
	ret = ret ?: put_rec(&s, H_REL, 4 << 16 | 0xfffc, "XYZ", 4, 24);
	/* a type with no format, odd length */
	ret = ret ?: put_rec(&s, H_NONE, 0, ab, 5, 21);
	if (ret)
		return fprintf(stderr, "ctf_gen: write: %s\n", strerror(-ret)), 1;
	return save(&s, path);
}

/* --- dump -------------------------------------------------------------- */

/* @len bytes at @off of the record as a little-endian number, zeros past it. */
static u64 get(const u8 *d, u32 size, u32 off, u32 len)
{
	u8 b[8] = { 0 };
	u64 v;
	u32 i;

	for (i = 0; i < len && i < 8; i++)
		b[i] = (u64)off + i < size ? d[off + i] : 0;
	memcpy(&v, b, 8);
	return v;
}

static void put_num(u64 v, u32 len, bool sign, bool hex)
{
	if (hex)
		printf("0x%llx", (unsigned long long)v);
	else if (sign && len < 8 && (v >> (len * 8 - 1)) & 1)
		printf("%" PRId64, (int64_t)(v | ~0ULL << (len * 8)));
	else if (sign)
		printf("%" PRId64, (int64_t)v);
	else
		printf("%llu", (unsigned long long)v);
}

static void put_text(const u8 *p, u32 n)
{
	const u8 *nul = memchr(p, 0, n);

	printf("\"%.*s\"", (int)(nul ? (u32)(nul - p) : n), p);
}

static void dump_field(struct tep_event *ev, struct tep_format_field *f,
		       const u8 *d, u32 size)
{
	bool sign = f->flags & TEP_FIELD_IS_SIGNED;
	unsigned long long num;
	u32 i, e;

	if (f->flags & TEP_FIELD_IS_DYNAMIC) {
		u32 loc, off, len = 0;

		off = (u32)f->offset + 4 <= size ? 0 : ~0U;
		if (!off) {
			loc = get(d, size, f->offset, 4);
			off = (loc & 0xffff) +
			      (f->flags & TEP_FIELD_IS_RELATIVE ? f->offset + 4 : 0);
			len = loc >> 16;
		}
		if (off > size || len > size - off)
			off = len = 0;
		if (text_type(f->type)) {
			printf(" %s=", f->name);
			put_text(d + off, len);
			return;
		}
		e = elem_size(f);
		printf(" %s_length=%u %s=[", f->name, len / e, f->name);
		for (i = 0; i < len / e; i++) {
			printf(i ? "," : "");
			put_num(get(d, size, off + i * e, e), e, sign, false);
		}
		printf("]");
		return;
	}
	printf(" %s=", f->name);
	if (f->flags & TEP_FIELD_IS_ARRAY) {
		e = f->arraylen ? f->size / f->arraylen : 1;
		if (text_type(f->type) && e == 1) {
			u8 tmp[256] = { 0 };

			for (i = 0; i < (u32)f->size && i < sizeof(tmp); i++)
				tmp[i] = get(d, size, f->offset + i, 1);
			put_text(tmp, f->size);
			return;
		}
		if (!(e == 1 || e == 2 || e == 4 || e == 8) ||
		    e * f->arraylen != (u32)f->size)
			e = 1;
		printf("[");
		for (i = 0; i < (u32)f->size / e; i++) {
			printf(i ? "," : "");
			put_num(get(d, size, f->offset + i * e, e), e, sign, false);
		}
		printf("]");
		return;
	}
	/* libtraceevent's own reading wherever the record has the bytes */
	if ((u32)(f->offset + f->size) <= size &&
	    !tep_read_number_field(f, d, &num))
		put_num(num, f->size, sign, f->flags & TEP_FIELD_IS_POINTER);
	else
		put_num(get(d, size, f->offset, f->size), f->size, sign,
			f->flags & TEP_FIELD_IS_POINTER);
}

static int dump(const char *path, bool consume)
{
	struct ivring_open_opts o = {
		.sz = sizeof(o), .flags = consume ? 0 : IVRING_OPEN_PEEK,
	};
	u64 lost[64] = { 0 };
	struct ivring_event e;
	struct ivring *r;
	int ret;
	u32 i;

	ret = ivring__open(path, &o, &r);
	if (ret || !ivring__tep(r))
		return fprintf(stderr, "ctf_gen: %s: %d\n", path, ret), 1;
	while ((ret = ivring__next(r, &e)) > 0) {
		struct tep_event *ev = ivring__event(r, e.type);
		const u8 *d = e.data;

		if (e.cpu < 64)
			lost[e.cpu] += e.lost;
		printf("%" PRIu64 " %u ", e.ts, e.cpu);
		if (!ev) {
			printf("ivring:unknown common_type=%u data_length=%u data=[",
			       e.type, e.size);
			for (i = 0; i < e.size; i++)
				printf("%s%u", i ? "," : "", d[i]);
			printf("]\n");
			continue;
		}
		printf("%s:%s", ev->system, ev->name);
		for (struct tep_format_field *f = ev->format.common_fields; f;
		     f = f->next)
			dump_field(ev, f, d, e.size);
		for (struct tep_format_field *f = ev->format.fields; f; f = f->next)
			dump_field(ev, f, d, e.size);
		printf("\n");
	}
	for (i = 0; i < 64; i++)
		if (lost[i])
			printf("lost %u %llu\n", i, (unsigned long long)lost[i]);
	ivring__close(r);
	return ret == -EPIPE || !ret ? 0 : 1;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "natives"))
		return natives(argv[2], argv[3]);
	if (argc == 3 && !strcmp(argv[1], "hostile"))
		return hostile(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "dump"))
		return dump(argv[2], false);
	if (argc == 4 && !strcmp(argv[1], "dump") &&
	    !strcmp(argv[2], "--consume"))
		return dump(argv[3], true);
	fprintf(stderr, "usage: ctf_gen natives SET PATH | hostile PATH | dump [--consume] PATH\n");
	return 2;
}
