// SPDX-License-Identifier: GPL-2.0 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * ivring-gen: make an ivring segment in a file and fill it with synthetic
 * events, running the same writer code as the guest module.  It stands in
 * for a guest when trying ivring-read, in demos and in tests: one thread per
 * sub-ring plays a CPU, and an optional per-thread timer signal plays the
 * interrupts that nest into it.
 *
 * Every task event (synth:seq, or synth:blob with --sizes) carries the next
 * number of its sub-ring's task stream; every nested event is a synth:seq
 * with origin 1 and the next number of that sub-ring's signal stream.
 * Numbers are taken before the write is tried, so a dropped event leaves a
 * gap that a reader must account for as lost.  Before its stream, each
 * thread writes one synth:switch that names it (gen-cpuN), outside the
 * counts.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "clock_tsc_user.h"
#include "filter.h"
#include "ring_writer.h"
#include "tool_msg.h"
#include "tool_time.h"
#include "synth_events.h"

#define PROG			"ivring-gen"
#define MAX_SIZES		64
#define NESTED_HZ_DEFAULT	2000

struct gen_opts {
	const char *path;
	u64 size;
	u32 cpus;
	u32 subbuf_size;
	u32 mode;
	u64 events;		/* per CPU; 0 with duration or keep_running */
	double duration;	/* seconds, 0: none */
	u64 rate;		/* events per second per CPU, 0: unlimited */
	u32 nested_hz;		/* 0: no nested writes */
	u64 sizes[MAX_SIZES];	/* blob data lengths; none: synth:seq */
	const char *size_arg;	/* --size as given, for messages */
	u32 nr_sizes;
	bool keep_running;
	bool stop;
	bool quiet;
	bool have_generation;
	u64 generation;
	bool answer_clock;	/* as ivring.ko's clock_sync.c */
	u64 clock_behind;	/* ns the writer's clock runs behind */
	int clock_drift;	/* ppm it runs fast (or slow, below 0) */
	u64 clock_base;		/* the host's time at which it drifts from */
	bool clock_tsc;		/* --clock tsc: as ivring.ko's clock=tsc */
	const char *filter;	/* --filter: on the task's synth:seq events */
};

/* One writer thread: a guest CPU.  Counters are per origin, so the task
 * and the signal handler never update the same word. */
struct gen_thread {
	pthread_t tid;
	u32 cpu;
	pid_t pid;
	u64 task_seq;		/* next number of the task stream */
	u64 task_failed;
	u64 task_filtered;
	volatile u64 sig_seq;	/* next number of the signal stream */
	volatile u64 sig_failed;
	u8 *buf;		/* blob payload, max_payload bytes */
} __attribute__((aligned(IVRING_CACHELINE)));

static struct gen_opts opt = {
	.size = 4 << 20,
	.size_arg = "4M",
	.cpus = 2,
	.subbuf_size = 4096,
	.mode = IVRING_MODE_DISCARD,
	.events = 1000,
};
static struct ivw_writer writer;
/* --filter, compiled by the module's own include/filter (see usage). */
static struct ivf_prog filter_prog;
static volatile sig_atomic_t stop_requested;
static __thread struct gen_thread *self;

static void usage(FILE *f)
{
	fprintf(f,
"usage: " PROG " [options] NAME|PATH\n"
"Create an ivring segment (NAME: /dev/shm/NAME) and write synthetic events.\n"
"  -s, --size SIZE         segment bytes, a power of two (K, M, G) [4M]\n"
"  -c, --cpus N            sub-rings, one writer thread each [2]\n"
"  -b, --subbuf-size SIZE  sub-buffer bytes, power of two, 256..64K [4096]\n"
"  -m, --mode MODE         discard (drop newest) or overwrite (oldest) [discard]\n"
"  -n, --events N          task events per CPU [1000]\n"
"  -d, --duration SEC      write for SEC seconds instead of --events (with\n"
"                          --rate: exactly RATE x SEC events per CPU)\n"
"  -r, --rate N            task events per second per CPU [unlimited]\n"
"  -N, --nested[=HZ]       per-thread timer signal of HZ [%d] whose handler\n"
"                          writes synth:seq origin=1, nesting like an IRQ\n"
"  -z, --sizes LIST        write synth:blob, data bytes cycling through LIST:\n"
"                          numbers (K suffix), 'max', or 'mix'\n"
"  -k, --keep-running      write until SIGINT/SIGTERM (for a following reader)\n"
"  -S, --stop              mark the segment STOPPED when done\n"
"  -g, --generation N      use N instead of a fresh generation number\n"
"      --clock CLOCK       mono (CLOCK_MONOTONIC) or tsc (the TSC scaled to\n"
"                          ns at CLOCK_MONOTONIC_RAW's rate, as ivring.ko's\n"
"                          clock=tsc) [mono]\n"
"      --answer-clock      answer the host's clock requests, as ivring.ko\n"
"      --clock-behind NS   the writer's clock runs NS behind the host's\n"
"                          CLOCK_MONOTONIC (a guest booted later)\n"
"      --clock-drift PPM   and runs PPM fast, from the start (-1000..1000)\n"
"      --filter TEXT       keep only the task's synth:seq events that pass\n"
"                          TEXT, an event filter as ivring.ko takes it\n"
"                          (e.g. 'seq & 1'); the rest count as filtered\n"
"  -q, --quiet             no summary on stderr\n"
"  -h, --help\n", NESTED_HZ_DEFAULT);
}

/*
 * --filter against synth:seq's fields, or dies saying why, as ivring.ko's
 * filter file would.
 */
static void compile_filter(void)
{
	static struct ivf_fields fields;
	static struct ivf_work work;
	const char *fmt = synth_event(SYNTH_ID_SEQ)->format;
	struct ivf_error err;

	if (opt.nr_sizes)
		tool_die("--filter takes the synth:seq events; not with --sizes");
	ivf_fields_parse(fmt, strlen(fmt), &fields);
	if (ivf_compile(opt.filter, strlen(opt.filter), &fields, &filter_prog,
			&work, &err))
		tool_die("--filter '%s': %s (at byte %u)", opt.filter,
			 err.msg, err.pos);
}

/* "4M", "64K", "4096": bytes, or dies naming the option. */
static u64 parse_size(const char *name, const char *s)
{
	unsigned long long v;
	char *end;
	u64 mult = 1;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *s == '-')
		tool_die("%s %s: not a size (e.g. 4096, 64K, 4M)", name, s);
	switch (*end) {
	case 'k': case 'K': mult = 1ULL << 10; end++; break;
	case 'm': case 'M': mult = 1ULL << 20; end++; break;
	case 'g': case 'G': mult = 1ULL << 30; end++; break;
	}
	if (*end == 'i' || *end == 'B')
		end += (*end == 'i' && end[1] == 'B') ? 2 : 1;
	if (*end)
		tool_die("%s %s: not a size (e.g. 4096, 64K, 4M)", name, s);
	if (v > UINT64_MAX / mult)
		tool_die("%s %s: too large", name, s);
	return v * mult;
}

static u64 parse_count(const char *name, const char *s, u64 max)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *end || *s == '-')
		tool_die("%s %s: not a number", name, s);
	if (v > max)
		tool_die("%s %s: at most %llu", name, s, max);
	return v;
}

/* 524288 -> "512K": sizes in messages as a user would type them. */
static const char *fmt_size(u64 v, char *buf, size_t len)
{
	static const char unit[] = "KMG";
	int u = -1;

	while (u < 2 && v >= 1024 && !(v & 1023)) {
		v >>= 10;
		u++;
	}
	if (u < 0)
		snprintf(buf, len, "%llu", v);
	else
		snprintf(buf, len, "%llu%c", v, unit[u]);
	return buf;
}

static bool is_pow2(u64 v)
{
	return v && !(v & (v - 1));
}

/* Blob data lengths; 'max' is stored as UINT64_MAX until the layout is known. */
static void parse_sizes(const char *list)
{
	static const u64 mix[] = { 0, 8, 100, 1000, UINT64_MAX };
	char *copy = strdup(list), *tok, *save;

	if (!copy)
		tool_die("out of memory");
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "mix")) {
			for (size_t i = 0; i < sizeof(mix) / sizeof(mix[0]); i++) {
				if (opt.nr_sizes == MAX_SIZES)
					tool_die("--sizes %s: at most %d sizes", list, MAX_SIZES);
				opt.sizes[opt.nr_sizes++] = mix[i];
			}
			continue;
		}
		if (opt.nr_sizes == MAX_SIZES)
			tool_die("--sizes %s: at most %d sizes", list, MAX_SIZES);
		if (!strcmp(tok, "max"))
			opt.sizes[opt.nr_sizes++] = UINT64_MAX;
		else
			opt.sizes[opt.nr_sizes++] = parse_size("--sizes", tok);
	}
	free(copy);
	if (!opt.nr_sizes)
		tool_die("--sizes '%s': empty list", list);
}

static void parse_args(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "size", required_argument, NULL, 's' },
		{ "cpus", required_argument, NULL, 'c' },
		{ "subbuf-size", required_argument, NULL, 'b' },
		{ "mode", required_argument, NULL, 'm' },
		{ "events", required_argument, NULL, 'n' },
		{ "duration", required_argument, NULL, 'd' },
		{ "rate", required_argument, NULL, 'r' },
		{ "nested", optional_argument, NULL, 'N' },
		{ "sizes", required_argument, NULL, 'z' },
		{ "keep-running", no_argument, NULL, 'k' },
		{ "follow-mode", no_argument, NULL, 'k' },
		{ "stop", no_argument, NULL, 'S' },
		{ "generation", required_argument, NULL, 'g' },
		{ "answer-clock", no_argument, NULL, 'A' },
		{ "clock", required_argument, NULL, 'C' },
		{ "clock-behind", required_argument, NULL, 'B' },
		{ "clock-drift", required_argument, NULL, 'D' },
		{ "filter", required_argument, NULL, 'F' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	bool have_events = false;
	char *end;
	long ppm;
	int c;

	while ((c = getopt_long(argc, argv, "s:c:b:m:n:d:r:N::z:kSg:qh",
				longopts, NULL)) != -1) {
		switch (c) {
		case 's':
			opt.size = parse_size("--size", optarg);
			opt.size_arg = optarg;
			if (!is_pow2(opt.size))
				tool_die("--size %s: must be a power of two (ivshmem's rule), e.g. 4M",
				    optarg);
			break;
		case 'c':
			opt.cpus = parse_count("--cpus", optarg, 1024);
			if (!opt.cpus)
				tool_die("--cpus 0: need at least one sub-ring");
			break;
		case 'b': {
			u64 v = parse_size("--subbuf-size", optarg);

			if (!is_pow2(v) || v < IVRING_SUBBUF_MIN ||
			    v > IVRING_SUBBUF_MAX)
				tool_die("--subbuf-size %s: must be a power of two from %d to %d",
				    optarg, IVRING_SUBBUF_MIN, IVRING_SUBBUF_MAX);
			opt.subbuf_size = v;
			break;
		}
		case 'm':
			if (!strcmp(optarg, "discard"))
				opt.mode = IVRING_MODE_DISCARD;
			else if (!strcmp(optarg, "overwrite"))
				opt.mode = IVRING_MODE_OVERWRITE;
			else
				tool_die("--mode %s: must be 'discard' or 'overwrite'", optarg);
			break;
		case 'n':
			opt.events = parse_count("--events", optarg, UINT64_MAX);
			/* 0 is how --duration and --keep-running say "no count". */
			if (!opt.events)
				tool_die("--events 0: write at least one, or use --duration or --keep-running");
			have_events = true;
			break;
		case 'd':
			errno = 0;
			opt.duration = strtod(optarg, &end);
			if (errno || end == optarg || *end || !(opt.duration > 0) ||
			    opt.duration > 1e7)
				tool_die("--duration %s: must be a positive number of seconds",
				    optarg);
			break;
		case 'r':
			opt.rate = parse_count("--rate", optarg, 1000000000);
			break;
		case 'N':
			opt.nested_hz = optarg ?
				parse_count("--nested", optarg, 1000000) :
				NESTED_HZ_DEFAULT;
			if (!opt.nested_hz)
				tool_die("--nested=0: give a frequency in Hz, or leave --nested out");
			break;
		case 'z':
			parse_sizes(optarg);
			break;
		case 'k':
			opt.keep_running = true;
			break;
		case 'S':
			opt.stop = true;
			break;
		case 'g':
			opt.generation = parse_count("--generation", optarg, UINT64_MAX);
			opt.have_generation = true;
			break;
		case 'A':
			opt.answer_clock = true;
			break;
		case 'C':
			if (strcmp(optarg, "mono") && strcmp(optarg, "tsc"))
				tool_die("--clock '%s': mono or tsc", optarg);
			opt.clock_tsc = !strcmp(optarg, "tsc");
			break;
		case 'B':
			opt.clock_behind = strtoull(optarg, &end, 0);
			if (*end || !*optarg)
				tool_die("--clock-behind '%s': nanoseconds", optarg);
			break;
		case 'D':
			ppm = strtol(optarg, &end, 10);
			if (*end || !*optarg || ppm < -1000 || ppm > 1000)
				tool_die("--clock-drift '%s': ppm, -1000 to 1000", optarg);
			opt.clock_drift = ppm;
			break;
		case 'F':
			opt.filter = optarg;
			break;
		case 'q':
			opt.quiet = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			exit(1);
		}
	}
	if (optind != argc - 1) {
		usage(stderr);
		exit(1);
	}
	opt.path = argv[optind];
	if (!*opt.path)
		tool_die("empty segment name");
	if (opt.keep_running && opt.duration)
		tool_die("--keep-running and --duration: choose one");
	if ((opt.keep_running || opt.duration) && have_events)
		tool_die("--events with %s: choose one",
		    opt.keep_running ? "--keep-running" : "--duration");
	if (opt.keep_running || opt.duration)
		opt.events = 0;
	/* A follow demo wants to be watched, not to fill the ring at once. */
	if (opt.keep_running && !opt.rate)
		opt.rate = 1000;
	if (opt.filter)
		compile_filter();
}

/* The writer's clock: the host's, --clock-behind late, --clock-drift fast. */
static u64 guest_clock(void)
{
	u64 now = ivw_clock_mono();
	s64 drift = (s64)((now - opt.clock_base) / 1000) * opt.clock_drift / 1000;

	return now - opt.clock_behind + drift;
}

/*
 * --answer-clock: ivring.ko's poller (kmod/clock_sync.c) in a thread, with
 * its policy, ivw_sync_poll(): a look every millisecond, and after an
 * answer the burst's spin.
 */
static void *clock_thread(void *arg)
{
	const struct timespec ms = { 0, 1000000 };
	struct ivw_sync_poller poller = { 0 };

	(void)arg;
	while (!stop_requested) {
		ivw_sync_poll(&poller, &writer);
		nanosleep(&ms, NULL);
	}
	return NULL;
}

static void sleep_until(u64 t)
{
	struct timespec ts = {
		.tv_sec = t / 1000000000ULL,
		.tv_nsec = t % 1000000000ULL,
	};

	/* The nested timer interrupts the sleep; just go back to it. */
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR &&
	       !stop_requested)
		;
}

/* The "interrupt": one nested write on the thread it interrupted. */
static void nested_handler(int sig)
{
	struct gen_thread *t = self;
	struct synth_seq *e;
	int saved = errno;

	(void)sig;
	if (!t)
		return;
	e = ivw_reserve(&writer, t->cpu, sizeof(*e));
	if (e) {
		synth_fill_seq(e, t->pid, t->sig_seq, t->cpu, SYNTH_ORIGIN_SIGNAL);
		ivw_commit(&writer, t->cpu);
	} else {
		t->sig_failed = t->sig_failed + 1;
	}
	t->sig_seq = t->sig_seq + 1;
	errno = saved;
}

static void stop_handler(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static int start_timer(struct gen_thread *t, timer_t *timer)
{
	struct sigevent sev = {
		.sigev_notify = SIGEV_THREAD_ID,
		.sigev_signo = SIGRTMIN,
	};
	u64 period = 1000000000ULL / opt.nested_hz;
	struct itimerspec its = {
		.it_interval = { period / 1000000000ULL, period % 1000000000ULL },
		.it_value = { period / 1000000000ULL, period % 1000000000ULL },
	};

	sev._sigev_un._tid = t->pid;
	if (timer_create(CLOCK_MONOTONIC, &sev, timer))
		return -errno;
	if (timer_settime(*timer, 0, &its, NULL)) {
		int ret = -errno;

		timer_delete(*timer);
		return ret;
	}
	return 0;
}

static void stop_timer(timer_t timer)
{
	sigset_t set;

	/* Block first, so no handler runs once the thread starts leaving. */
	sigemptyset(&set);
	sigaddset(&set, SIGRTMIN);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	timer_delete(timer);
}

static void write_task_event(struct gen_thread *t, u64 i)
{
	u64 seq = t->task_seq;
	int ret;

	if (opt.nr_sizes) {
		u32 len = (u32)opt.sizes[i % opt.nr_sizes];
		u32 size = synth_blob_size(len);
		void *p = ivw_reserve(&writer, t->cpu, size);

		/*
		 * Reserve, fill in place, commit: a nested write that lands
		 * between them goes after us in the page, as in the kernel.
		 */
		if (p) {
			synth_fill_blob(p, t->pid, seq, len);
			ivw_commit(&writer, t->cpu);
			ret = 0;
		} else {
			ret = -ENOSPC;
		}
	} else {
		struct synth_seq e;
		char comm[16] = { 0 };

		synth_fill_seq(&e, t->pid, seq, t->cpu, SYNTH_ORIGIN_TASK);
		if (filter_prog.nr) {
			snprintf(comm, sizeof(comm), "gen-cpu%u", t->cpu);
			if (!ivf_match(&filter_prog, &e, sizeof(e),
				       &(struct ivf_ctx){ t->cpu, comm })) {
				ivw_count_filtered(&writer, t->cpu);
				t->task_filtered++;
				t->task_seq = seq + 1;
				return;
			}
		}
		ret = ivw_write(&writer, t->cpu, &e, sizeof(e));
	}
	if (ret)
		t->task_failed++;
	t->task_seq = seq + 1;
}

/*
 * A sched_switch-shaped event into this thread, as a scheduler would write
 * it: it names the thread, so readers show "gen-cpuN-TID" instead of
 * "<...>-TID" for every event after it, the way trace-cmd learns comms.
 */
static void announce_thread(struct gen_thread *t)
{
	char comm[16];
	u8 e[sizeof(struct synth_switch)];

	snprintf(comm, sizeof(comm), "gen-cpu%u", t->cpu);
	synth_fill_switch(e, t->pid, PROG, getpid(), 120, 0, comm, t->pid, 120);
	ivw_write(&writer, t->cpu, e, sizeof(e));
}

static void *writer_thread(void *arg)
{
	struct gen_thread *t = arg;
	u64 start = now_ns(), end = 0, i;
	u64 period = opt.rate ? 1000000000ULL / opt.rate : 0;
	timer_t timer;
	bool timer_on = false;
	int ret;

	t->pid = syscall(SYS_gettid);
	self = t;
	announce_thread(t);
	if (opt.nested_hz) {
		ret = start_timer(t, &timer);
		if (ret)
			tool_die("cpu %u: timer_create for --nested: %s", t->cpu,
			    strerror(-ret));
		timer_on = true;
	}
	if (opt.duration)
		end = start + (u64)(opt.duration * 1e9);

	for (i = 0; !stop_requested; i++) {
		if (opt.events && i >= opt.events)
			break;
		/*
		 * With a rate, the schedule ends the run: every event due
		 * before the end is written, late or not, so that -r R -d S
		 * writes R x S events however busy the machine is (a check
		 * of the time here stopped a late writer 152 events short).
		 */
		if (end && !period && !(i & 255) && now_ns() >= end)
			break;
		if (period) {
			u64 due = start + i * period;

			if (end && due >= end)
				break;
			if (now_ns() < due)
				sleep_until(due);
		}
		write_task_event(t, i);
	}

	if (timer_on)
		stop_timer(timer);
	self = NULL;
	return NULL;
}

/* Resolve 'max' and refuse what can never fit, now that max_payload is known. */
static void check_sizes(void)
{
	u32 max = synth_blob_max_len(writer.max_payload);

	for (u32 i = 0; i < opt.nr_sizes; i++) {
		if (opt.sizes[i] == UINT64_MAX)
			opt.sizes[i] = max;
		else if (opt.sizes[i] > max)
			tool_die("--sizes %llu: larger than the largest blob a %u-byte sub-buffer takes (%u data bytes)",
			    opt.sizes[i], opt.subbuf_size, max);
	}
}

static char *segment_path(const char *arg)
{
	char *p;

	if (strchr(arg, '/'))
		return strdup(arg);
	if (asprintf(&p, "/dev/shm/%s", arg) < 0)
		return NULL;
	return p;
}

static void *map_segment(const char *path, u64 size)
{
	struct stat st;
	void *base;
	int fd;

	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		tool_die("%s: cannot create: %s", path, strerror(errno));
	if (fstat(fd, &st))
		tool_die("%s: %s", path, strerror(errno));
	if (!S_ISREG(st.st_mode))
		tool_die("%s: not a regular file", path);
	/* Same size: keep the file, so a reader's mapping stays valid. */
	if ((u64)st.st_size != size && ftruncate(fd, size))
		tool_die("%s: cannot size to %llu bytes: %s", path, size,
		    strerror(errno));
	base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (base == MAP_FAILED)
		tool_die("%s: mmap of %llu bytes: %s", path, size, strerror(errno));
	close(fd);
	return base;
}

static const char *mode_name(u32 mode)
{
	return mode == IVRING_MODE_OVERWRITE ? "overwrite" : "discard";
}

int main(int argc, char **argv)
{
	struct ivw_params p = { 0 };
	struct ivring_header lay;
	struct ivw_cpu *cpus;
	struct ivw_slot *slots;
	struct gen_thread *threads;
	struct sigaction sa = { 0 };
	pthread_t clock_tid;
	char *path;
	void *base;
	u64 need, gen;
	u32 i;
	int ret;

	parse_args(argc, argv);

	p.segment_size = opt.size;
	p.nr_cpus = opt.cpus;
	p.subbuf_size = opt.subbuf_size;
	p.mode = opt.mode;
	p.clock_id = IVRING_CLOCK_MONO;
	p.clock_name = "mono";
	if (opt.clock_tsc) {
		if (opt.clock_behind || opt.clock_drift)
			tool_die("--clock tsc: not with --clock-behind or --clock-drift, which shift CLOCK_MONOTONIC");
		if (ivw_tsc_calibrate(&p.tsc, 20000000))
			tool_die("--clock tsc: this CPU has no cycle counter to read");
		p.clock_id = IVRING_CLOCK_TSC;
		p.clock_name = "mono_raw";
	}
	p.flags = opt.answer_clock ? IVRING_F_CLOCK_SYNC : 0;
	ret = ivw_layout(&p, &lay, &need);
	if (ret == -ENOSPC) {
		char sz[32];

		tool_die("--size %s: too small for %u CPUs with %u-byte sub-buffers (needs %llu bytes; try --size %s or fewer --cpus)",
		    opt.size_arg, opt.cpus, opt.subbuf_size, need,
		    fmt_size(1ULL << (64 - __builtin_clzll(need - 1)), sz,
			     sizeof(sz)));
	}
	if (ret)
		tool_die("invalid geometry (%u CPUs, %u-byte sub-buffers): %s",
		    opt.cpus, opt.subbuf_size, strerror(-ret));

	path = segment_path(opt.path);
	if (!path)
		tool_die("out of memory");
	cpus = aligned_alloc(IVRING_CACHELINE, opt.cpus * sizeof(*cpus));
	slots = calloc((size_t)opt.cpus * lay.nr_subbufs, sizeof(*slots));
	threads = aligned_alloc(IVRING_CACHELINE, opt.cpus * sizeof(*threads));
	if (!cpus || !slots || !threads)
		tool_die("out of memory");
	memset(threads, 0, opt.cpus * sizeof(*threads));
	base = map_segment(path, opt.size);

	/* Clock and pid: a reader sees a new epoch on every run. */
	gen = opt.have_generation ? opt.generation :
	      (now_ns() ^ ((u64)getpid() << 40)) | 1;
	opt.clock_base = ivw_clock_mono();
	if (opt.clock_behind || opt.clock_drift)
		writer.clock = guest_clock;
	ret = ivw_format(&writer, base, &p, gen, cpus, slots);
	if (ret)
		tool_die("%s: format: %s", path, strerror(-ret));
	ret = synth_add_formats(&writer);
	if (ret)
		tool_die("%s: adding event formats: %s", path, strerror(-ret));
	check_sizes();
	ivw_set_state(&writer, IVRING_STATE_LIVE);

	sa.sa_handler = nested_handler;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGRTMIN, &sa, NULL);
	sa.sa_handler = stop_handler;
	sa.sa_flags = 0;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	if (!opt.quiet)
		fprintf(stderr,
			PROG ": %s: generation %#llx, %u CPUs x %u sub-buffers of %u bytes, %s mode\n",
			path, gen, opt.cpus, writer.nr_subbufs, opt.subbuf_size,
			mode_name(opt.mode));

	for (i = 0; i < opt.cpus; i++) {
		threads[i].cpu = i;
		threads[i].buf = NULL;
		ret = pthread_create(&threads[i].tid, NULL, writer_thread,
				     &threads[i]);
		if (ret)
			tool_die("cpu %u: pthread_create: %s", i, strerror(ret));
	}
	if (opt.answer_clock) {
		ret = pthread_create(&clock_tid, NULL, clock_thread, NULL);
		if (ret)
			tool_die("clock thread: pthread_create: %s", strerror(ret));
	}
	for (i = 0; i < opt.cpus; i++)
		pthread_join(threads[i].tid, NULL);
	if (opt.answer_clock) {
		stop_requested = 1;
		pthread_join(clock_tid, NULL);
	}

	if (opt.stop)
		ivw_set_state(&writer, IVRING_STATE_STOPPED);

	if (!opt.quiet) {
		for (i = 0; i < opt.cpus; i++) {
			struct gen_thread *t = &threads[i];
			struct ivring_cpu *c = cpus[i].shared;

			char filtered[48] = "";

			/* Only with --filter: scripts read the line as it was. */
			if (opt.filter)
				snprintf(filtered, sizeof(filtered),
					 ", filtered %llu", t->task_filtered);
			fprintf(stderr,
				PROG ": cpu%u: written %llu (task %llu, nested %llu), not written %llu%s; segment: entries %llu dropped %llu overrun %llu\n",
				i, t->task_seq + t->sig_seq, t->task_seq,
				t->sig_seq, t->task_failed + t->sig_failed,
				filtered, c->entries, c->dropped, c->overrun);
		}
		fprintf(stderr, PROG ": %s: %s\n", path,
			opt.stop ? "stopped" : "left live");
	}
	munmap(base, opt.size);
	free(path);
	free(threads);
	free(slots);
	free(cpus);
	return 0;
}
