// SPDX-License-Identifier: GPL-2.0 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * The host's own trace beside its guests' (host_trace.h).
 *
 * The host's tracing is shared by everyone on it, so the recorder touches
 * only a tracefs instance of its own, "ivring-host-PID": its trace clock
 * (mono, the clock that --clock host maps guest times to), its buffer, and
 * its events.  The instance is removed at the end (Ctrl-C, SIGTERM) and
 * after a failure; one that a recorder killed before it could (SIGKILL, a
 * second Ctrl-C) left is removed by the next that finds it with no
 * process of that pid left.
 *
 * trace_pipe_raw gives the ring buffer's pages as they are: they are
 * checked (ivring__page_parse()) and go into the file whole.  The thread
 * sleeps in poll() until a CPU's buffer is half full (the instance's
 * buffer_percent) or a second passed; then it takes everything, the pages
 * being filled too, so that an idle CPU's events are at most that late.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <tracefs.h>

#include "libivring.h"
#include "host_trace.h"
#include "read_common.h"
#include "tool_msg.h"
#include "tool_time.h"

#define INSTANCE_PREFIX	"ivring-host-"
/* Per CPU: 4 MiB, a second of a busy host's scheduler events and more. */
#define BUFFER_KB	4096
/* The longest an idle CPU's events wait in the host's buffer. */
#define WAIT_MS		1000
/* Pages of one CPU in a row, so that a busy CPU cannot starve the others. */
#define CPU_BURST	64
/*
 * To a relay daemon: idle CPUs' beacons, and tries to reach it again, as
 * often as for the guests (out_record.c).
 */
#define RELAY_TICK_NS	200000000ULL

/*
 * What the host file holds: what preempts a vCPU (any host task, another
 * guest's vCPU), where it was woken and moved, and KVM's entries and
 * exits, which KernelShark's KVM plugin reads, where the host has KVM.
 */
static const struct host_event {
	const char *system, *event;
	bool needed;
} host_events[] = {
	{ "sched", "sched_switch", true },
	{ "sched", "sched_wakeup", true },
	{ "sched", "sched_wakeup_new", false },
	{ "sched", "sched_migrate_task", true },
	{ "kvm", "kvm_entry", false },
	{ "kvm", "kvm_exit", false },
};
#define NR_HOST_EVENTS	(sizeof(host_events) / sizeof(host_events[0]))

struct host_trace {
	struct tracefs_instance *inst;
	struct ivring_rec *w;
	const char *output;
	uint64_t trace_id;
	unsigned int nr_cpus, page_size;
	int *fds;
	bool *absent;		/* no buffer for the CPU: it was offline */
	struct tracefs_cpu **tcpu;
	void *page;
	pthread_t thread;
	bool running;
	int wake[2];		/* a pipe: written to stop the thread */
	pthread_mutex_t lock;	/* @w, shared with host_trace_guest() */
	bool links;		/* @w is a trace.dat: it names its guests */
	bool relay;		/* @w streams to a relay daemon */
	bool down;		/* which is out of reach: nothing is read */
	uint64_t next_tick;	/* the next beacon, or try to reach it */
	uint64_t pages, events, lost, lost_unknown, bad_pages;
	uint64_t cpu_ns;	/* the thread's CPU time, once it ended */
	int err;		/* the thread's: an exit code, having said why */
};

static void destroy_instance(struct tracefs_instance *inst)
{
	if (!inst)
		return;
	tracefs_trace_off(inst);
	if (tracefs_instance_destroy(inst))
		tool_warn("tracefs instance %s: cannot remove it: %s",
			  tracefs_instance_get_name(inst), strerror(errno));
	tracefs_instance_free(inst);
}

/* Instances of recorders that were killed before they could remove them. */
static int remove_stale(const char *name, void *ctx)
{
	struct tracefs_instance *inst;
	char *end;
	long pid;

	(void)ctx;
	if (strncmp(name, INSTANCE_PREFIX, strlen(INSTANCE_PREFIX)))
		return 0;
	errno = 0;
	pid = strtol(name + strlen(INSTANCE_PREFIX), &end, 10);
	if (errno || *end || pid <= 0 || pid == getpid() ||
	    !kill((pid_t)pid, 0) || errno != ESRCH)
		return 0;
	inst = tracefs_instance_alloc(NULL, name);
	if (inst && !tracefs_instance_destroy(inst))
		tool_warn("removed tracefs instance %s, which a recorder that was killed left",
			  name);
	tracefs_instance_free(inst);
	return 0;
}

static int setup_instance(struct host_trace *h)
{
	char name[64];
	unsigned int i;

	tracefs_instances_walk(remove_stale, NULL);
	snprintf(name, sizeof(name), INSTANCE_PREFIX "%d", (int)getpid());
	h->inst = tracefs_instance_create(name);
	if (!h->inst) {
		tool_warn("--host: cannot make tracefs instance %s: %s (is tracefs mounted, and are you root?)",
			  name, strerror(errno));
		return EXIT_RUNTIME;
	}
	if (!tracefs_instance_is_new(h->inst)) {
		tool_warn("--host: tracefs instance %s exists already; not ours to use",
			  name);
		tracefs_instance_free(h->inst);
		h->inst = NULL;
		return EXIT_RUNTIME;
	}
	tracefs_trace_off(h->inst);
	if (tracefs_instance_file_write(h->inst, "trace_clock", "mono") < 0) {
		tool_warn("--host: cannot set the trace clock mono: %s",
			  strerror(errno));
		return EXIT_RUNTIME;
	}
	if (tracefs_instance_set_buffer_size(h->inst, BUFFER_KB, -1) < 0) {
		tool_warn("--host: cannot size the buffer to %u KiB a CPU: %s",
			  BUFFER_KB, strerror(errno));
		return EXIT_RUNTIME;
	}
	for (i = 0; i < NR_HOST_EVENTS; i++) {
		const struct host_event *e = &host_events[i];

		if (!tracefs_event_file_exists(h->inst, e->system, e->event,
					       "enable")) {
			if (e->needed) {
				tool_warn("--host: the host kernel has no %s:%s event",
					  e->system, e->event);
				return EXIT_RUNTIME;
			}
			continue;
		}
		if (tracefs_event_enable(h->inst, e->system, e->event)) {
			tool_warn("--host: cannot enable %s:%s: %s", e->system,
				  e->event, strerror(errno));
			return EXIT_RUNTIME;
		}
	}
	return 0;
}

/* The formats of the events enabled, and the ring buffer's headers. */
static int open_file(struct host_trace *h, const struct host_trace_conf *c)
{
	struct ivring_rec_format fmts[NR_HOST_EVENTS];
	char *texts[NR_HOST_EVENTS] = { NULL };
	char *hpage, *hevent, errbuf[1024] = "";
	unsigned int i, n = 0;
	struct utsname u;
	char uname_str[5 * 65 + 8] = "Linux";
	struct ivring_rec_source src = {
		.sz = sizeof(src),
		.clock = "mono",
		.nr_cpus = h->nr_cpus,
		.page_size = h->page_size,
		.formats = fmts,
		.format_sz = sizeof(fmts[0]),
	};
	struct ivring_rec_opts opts = {
		.sz = sizeof(opts),
		.format = c->relayd ? IVRING_REC_CTF_RELAYD :
			  c->ctf ? IVRING_REC_CTF : IVRING_REC_TRACE_DAT,
		.version = c->version,
		.compression = c->compression,
		.trace_id = h->trace_id,
		/* A relay session is named as --host says, as a file is. */
		.name = c->relayd ? c->output : NULL,
		.hostname = c->hostname,
		.timeout_ms = c->relayd_timeout_ms,
		.errbuf = errbuf,
		.errbuf_len = sizeof(errbuf),
	};
	int ret, size;

	/*
	 * trace-cmd shows a trace.dat's uname; a CTF trace's name is its
	 * environment's hostname, which babeltrace2 shows beside each event.
	 */
	if (!uname(&u)) {
		if (c->ctf || c->relayd)
			snprintf(uname_str, sizeof(uname_str), "%s", u.nodename);
		else
			snprintf(uname_str, sizeof(uname_str), "%s %s %s %s %s",
				 u.sysname, u.nodename, u.release, u.version,
				 u.machine);
	}
	src.name = uname_str;
	for (i = 0; i < NR_HOST_EVENTS; i++) {
		const struct host_event *e = &host_events[i];

		if (!tracefs_event_file_exists(h->inst, e->system, e->event,
					       "format"))
			continue;
		texts[n] = tracefs_event_file_read(h->inst, e->system,
						   e->event, "format", &size);
		if (!texts[n] || size <= 0) {
			free(texts[n]);
			texts[n] = NULL;
			break;
		}
		fmts[n].system = e->system;
		fmts[n].text = texts[n];
		fmts[n].len = size;
		n++;
	}
	/* The instance's own: its sub-buffer may differ from the top's. */
	hpage = tracefs_instance_file_read(h->inst, "events/header_page", &size);
	hevent = tracefs_instance_file_read(h->inst, "events/header_event",
					    &size);
	src.header_page = hpage;
	src.header_event = hevent;
	src.nr_formats = n;
	if (i < NR_HOST_EVENTS || !hpage || !hevent) {
		tool_warn("--host: cannot read the host's event formats: %s",
			  strerror(errno));
		ret = -EIO;
	} else {
		ret = ivring__rec_open_source(&src, c->relayd ? c->relayd :
							 c->output, &opts, &h->w);
		if (ret)
			tool_warn("%s", errbuf);
	}
	for (i = 0; i < n; i++)
		free(texts[i]);
	free(hpage);
	free(hevent);
	return ret ? EXIT_RUNTIME : 0;
}

static int open_cpus(struct host_trace *h)
{
	unsigned int cpu;
	char file[64];
	long long kb;

	h->fds = malloc(h->nr_cpus * sizeof(*h->fds));
	h->absent = calloc(h->nr_cpus, sizeof(*h->absent));
	h->tcpu = calloc(h->nr_cpus, sizeof(*h->tcpu));
	if (!h->fds || !h->absent || !h->tcpu) {
		tool_warn("--host: out of memory");
		return EXIT_RUNTIME;
	}
	/*
	 * The instance's sub-buffer, which kernels since 6.8 let differ from
	 * a page (buffer_subbuf_size_kb): the unit that trace_pipe_raw reads.
	 */
	h->page_size = (unsigned int)getpagesize();
	if (!tracefs_instance_file_read_number(h->inst, "buffer_subbuf_size_kb",
					       &kb) && kb > 0 && kb <= 1024)
		h->page_size = kb * 1024;
	h->page = malloc(h->page_size);
	if (!h->page) {
		tool_warn("--host: out of memory");
		return EXIT_RUNTIME;
	}
	for (cpu = 0; cpu < h->nr_cpus; cpu++)
		h->fds[cpu] = -1;
	for (cpu = 0; cpu < h->nr_cpus; cpu++) {
		snprintf(file, sizeof(file), "per_cpu/cpu%u/trace_pipe_raw", cpu);
		h->fds[cpu] = tracefs_instance_file_open(h->inst, file,
							 O_RDONLY | O_NONBLOCK);
		if (h->fds[cpu] < 0) {
			tool_warn("--host: %s: %s", file, strerror(errno));
			return EXIT_RUNTIME;
		}
		h->tcpu[cpu] = tracefs_cpu_alloc_fd(h->fds[cpu], h->page_size,
						    true);
		if (!h->tcpu[cpu]) {
			tool_warn("--host: %s: %s", file, strerror(errno));
			return EXIT_RUNTIME;
		}
	}
	return 0;
}

/* A page of @cpu into the file.  0, or an exit code having said why. */
static int take_page(struct host_trace *h, unsigned int cpu, int len)
{
	struct ivring_page pg = { .sz = sizeof(pg) };
	int ret;

	static struct tool_ratelimit said =
		TOOL_RATELIMIT("about the host's pages", 5000000000ULL, 3);
	/* A short read is a page all the same: the rest was never written. */
	if ((unsigned int)len < h->page_size)
		memset((char *)h->page + len, 0, h->page_size - len);
	ret = len < 16 ? -EINVAL :
	      ivring__page_parse(h->page, h->page_size, &pg);
	/*
	 * The host's kernel is trusted, but a page that does not parse is
	 * left out and counted, as a guest's is, rather than end the run.
	 */
	if (ret < 0) {
		uint64_t commit;

		memcpy(&commit, (char *)h->page + 8, sizeof(commit));
		tool_warn_limited(&said, "--host: CPU %u: a page of the host's ring buffer that does not parse (%s), left out: %d bytes read, commit %#" PRIx64 ", pages of %u bytes",
				  cpu, strerror(-ret), len, commit,
				  h->page_size);
		h->bad_pages++;
		return 0;
	}
	h->lost_unknown += ret;
	pthread_mutex_lock(&h->lock);
	ret = ivring__rec_page(h->w, cpu, &pg);
	if (ret)
		tool_warn("%s", ivring__rec_errmsg(h->w));
	pthread_mutex_unlock(&h->lock);
	if (ret)
		return EXIT_RUNTIME;
	h->pages++;
	h->events += pg.events;
	h->lost += pg.lost;
	return 0;
}

/*
 * Up to CPU_BURST pages of @cpu: the pages taken, or -1 with h->err set.
 * A CPU that is possible but has no buffer (offline when the instance was
 * made: ENODEV) is left out until a later try finds one.
 */
static int read_cpu(struct host_trace *h, unsigned int cpu)
{
	int n = 0, len;

	while (n < CPU_BURST) {
		len = tracefs_cpu_read(h->tcpu[cpu], h->page, true);
		if (len <= 0) {
			if (len < 0 && errno == ENODEV) {
				h->absent[cpu] = true;
			} else if (len < 0 && errno != EAGAIN && errno != EINTR) {
				tool_warn("--host: reading CPU %u: %s", cpu,
					  strerror(errno));
				h->err = EXIT_RUNTIME;
				return -1;
			}
			break;
		}
		h->absent[cpu] = false;
		h->err = take_page(h, cpu, len);
		if (h->err)
			return -1;
		n++;
	}
	return n;
}

/*
 * A relay daemon out of reach (-ENOTCONN), or back: while it is away,
 * nothing more is read, so that the host's ring buffer holds the events
 * (and, full, overwrites the oldest, which the pages after count as lost).
 * Said once each way.  Any other failure ends the run.
 */
static void relay_state(struct host_trace *h, int ret)
{
	if (ret == -ENOTCONN && h->relay) {
		if (!h->down)
			tool_warn("--host: %s; holding the host's events until it is back",
				  ivring__rec_errmsg(h->w));
		h->down = true;
		return;
	}
	if (ret) {
		tool_warn("%s", ivring__rec_errmsg(h->w));
		h->err = EXIT_RUNTIME;
		return;
	}
	if (h->down)
		tool_warn("--host: %s: the relay daemon is back; the trace goes on in a new session",
			  h->output);
	h->down = false;
}

/*
 * Spooled pages to the files, so that a recorder killed loses little; or
 * to the relay daemon, which then has them.
 */
static void flush(struct host_trace *h)
{
	int ret;

	pthread_mutex_lock(&h->lock);
	ret = ivring__rec_flush(h->w);
	relay_state(h, ret);
	pthread_mutex_unlock(&h->lock);
}

/*
 * A relay daemon's live viewers hear that the CPUs that had nothing since
 * the last tick have nothing before the newest time: only right after a
 * pass that took every CPU's events, partial pages too, or an idle CPU's
 * older events would come after the beacon and be clamped to its time.
 */
static void relay_beacon(struct host_trace *h)
{
	int ret;

	pthread_mutex_lock(&h->lock);
	ret = ivring__rec_beacon(h->w);
	relay_state(h, ret);
	pthread_mutex_unlock(&h->lock);
}

/*
 * The reader's passes.  A CPU is read when poll() found it ready (its
 * buffer half full, buffer_percent), or when its last read took a whole
 * burst; every CPU, to its last partly filled page, once a second and at
 * the end, so that an idle CPU's events wait a second at most, and a CPU
 * without a buffer is tried again.  Reading a CPU that holds little makes
 * a page of it: a CPU read short of a burst is left out of poll() for
 * READ_GAP_NS, which also keeps a kernel whose poll() wakes for any event
 * (before 6.1's buffer_percent wait) from waking the reader for its own
 * sched_switch.
 */
#define READ_GAP_NS	100000000ULL
#define FULL_NS		(WAIT_MS * 1000000ULL)

struct pass {
	struct pollfd *pfd;	/* the CPUs', then the wake pipe */
	bool *ready;
	uint64_t *quiet_until;
	uint64_t next_full;
	bool stopping;
};

/*
 * While a relay daemon is out of reach: tried again each tick (the
 * library's back-off decides how often it connects), and once more at the
 * end, since the host's events held meanwhile go with the instance.
 * Whether it is back.
 */
static bool relay_back(struct host_trace *h, struct pass *p, uint64_t now)
{
	if (now >= h->next_tick || p->stopping) {
		h->next_tick = now + RELAY_TICK_NS;
		flush(h);
	}
	if (h->down && p->stopping && !h->err)
		tool_warn("--host: %s: the relay daemon is still out of reach: the host's events since it went are lost",
			  h->output);
	return !h->down;
}

/* One pass: whether a CPU had more than a burst, or -1 with h->err set. */
static int read_pass(struct host_trace *h, struct pass *p, uint64_t now)
{
	bool tick = h->relay && now >= h->next_tick;
	bool all = p->stopping || now >= p->next_full || tick, more = false;
	unsigned int i;
	int ret, taken = 0;

	if (h->down) {
		if (!relay_back(h, p, now)) {
			/* The next full pass, too, waits until it is back. */
			p->next_full = now + FULL_NS;
			return h->err ? -1 : 0;
		}
		/* Back: everything the ring buffer held meanwhile. */
		all = true;
		tick = true;
	}
	for (i = 0; i < h->nr_cpus && !h->err; i++) {
		if (!all && !p->ready[i])
			continue;
		ret = read_cpu(h, i);
		p->ready[i] = ret == CPU_BURST;
		p->quiet_until[i] = p->ready[i] ? 0 : now + READ_GAP_NS;
		more |= p->ready[i];
		taken += ret > 0 ? ret : 0;
	}
	if (all)
		p->next_full = now + FULL_NS;
	/* A relay daemon's viewers see pages as they are taken. */
	if (!h->err && !p->stopping && (all || (h->relay && taken)))
		flush(h);
	if (tick && !h->err && !h->down && !p->stopping) {
		h->next_tick = now + RELAY_TICK_NS;
		relay_beacon(h);
	}
	return h->err ? -1 : more;
}

/* Wait for a CPU to fill, the next full pass, or the end. */
static void wait_pass(struct host_trace *h, struct pass *p, bool more,
		      uint64_t now)
{
	uint64_t until = p->next_full;
	unsigned int i, n = h->nr_cpus;
	int ret, ms;

	for (i = 0; i < n; i++) {
		bool quiet = p->quiet_until[i] > now;

		/* poll() passes over a negative fd. */
		/* Nor over CPUs not read while a relay daemon is away. */
		p->pfd[i].fd = h->absent[i] || quiet || h->down ? -1 :
								  h->fds[i];
		if (quiet && p->quiet_until[i] < until)
			until = p->quiet_until[i];
	}
	if (h->relay && h->next_tick < until)
		until = h->next_tick;
	ms = more || until <= now ? 0 : (int)((until - now + 999999) / 1000000);
	ret = poll(p->pfd, n + 1, ms);
	if (ret < 0 && errno != EINTR) {
		tool_warn("--host: poll: %s", strerror(errno));
		h->err = EXIT_RUNTIME;
		return;
	}
	for (i = 0; ret > 0 && i < n; i++)
		if (p->pfd[i].fd >= 0 && p->pfd[i].revents)
			p->ready[i] = true;
	/* Tracing is off: the next pass takes what is left, from all. */
	if (ret > 0 && p->pfd[n].revents)
		p->stopping = true;
}

static void *reader(void *arg)
{
	struct host_trace *h = arg;
	struct pass p = { 0 };
	struct timespec cpu;
	unsigned int i, n = h->nr_cpus;
	int more;

	p.pfd = calloc(n + 1, sizeof(*p.pfd));
	p.ready = calloc(n, sizeof(*p.ready));
	p.quiet_until = calloc(n, sizeof(*p.quiet_until));
	if (!p.pfd || !p.ready || !p.quiet_until) {
		tool_warn("--host: out of memory");
		h->err = EXIT_RUNTIME;
	}
	for (i = 0; p.pfd && i < n; i++)
		p.pfd[i].events = POLLIN;
	if (p.pfd) {
		p.pfd[n].fd = h->wake[0];
		p.pfd[n].events = POLLIN;
	}
	while (!h->err) {
		bool stopping = p.stopping;

		more = read_pass(h, &p, now_ns());
		if (more < 0 || (stopping && !more))
			break;
		wait_pass(h, &p, more, now_ns());
	}
	/* Half of what was asked for is not what was asked for: all end. */
	if (h->err) {
		tool_warn("--host: the host's recording failed: ending the run");
		__atomic_store_n(&stop_requested, 1, __ATOMIC_RELAXED);
	}
	free(p.pfd);
	free(p.ready);
	free(p.quiet_until);
	/* What recording the host cost this process: its summary says. */
	if (!clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu))
		h->cpu_ns = cpu.tv_sec * 1000000000ULL + cpu.tv_nsec;
	return NULL;
}

static void free_host(struct host_trace *h)
{
	unsigned int cpu;

	for (cpu = 0; h->tcpu && cpu < h->nr_cpus; cpu++)
		if (h->tcpu[cpu])
			tracefs_cpu_free_fd(h->tcpu[cpu]);
	for (cpu = 0; h->fds && cpu < h->nr_cpus; cpu++)
		if (h->fds[cpu] >= 0)
			close(h->fds[cpu]);
	destroy_instance(h->inst);
	if (h->w)
		ivring__rec_close(h->w, NULL, 0);
	if (h->wake[0] >= 0)
		close(h->wake[0]);
	if (h->wake[1] >= 0)
		close(h->wake[1]);
	pthread_mutex_destroy(&h->lock);
	free(h->tcpu);
	free(h->fds);
	free(h->absent);
	free(h->page);
	free(h);
}

int host_trace_start(const struct host_trace_conf *c, struct host_trace **out)
{
	struct host_trace *h;
	long cpus;
	int err;

	*out = NULL;
	h = calloc(1, sizeof(*h));
	if (!h) {
		tool_warn("--host: out of memory");
		return EXIT_RUNTIME;
	}
	h->wake[0] = h->wake[1] = -1;
	pthread_mutex_init(&h->lock, NULL);
	h->output = c->output;
	h->relay = c->relayd != NULL;
	h->links = !c->relayd && !c->ctf;
	cpus = sysconf(_SC_NPROCESSORS_CONF);
	h->nr_cpus = cpus > 0 ? (unsigned int)cpus : 1;
	h->trace_id = host_trace_new_id();
	err = pipe2(h->wake, O_CLOEXEC | O_NONBLOCK) ? EXIT_RUNTIME : 0;
	if (err)
		tool_warn("--host: pipe: %s", strerror(errno));
	if (!err)
		err = setup_instance(h);
	/* The file last: a start that fails makes no file. */
	if (!err)
		err = open_cpus(h);
	if (!err)
		err = open_file(h, c);
	if (!err) {
		err = pthread_create(&h->thread, NULL, reader, h);
		if (err)
			tool_warn("--host: cannot start its thread: %s",
				  strerror(err));
		err = err ? EXIT_RUNTIME : 0;
	}
	if (err) {
		free_host(h);
		return err;
	}
	h->running = true;
	tracefs_trace_on(h->inst);
	*out = h;
	return 0;
}

uint64_t host_trace_new_id(void)
{
	uint64_t id = 0;

	while (!id && (getrandom(&id, sizeof(id), 0) >= 0 || errno == EINTR))
		;
	return id ? id : now_ns() ^ ((uint64_t)getpid() << 32);
}

uint64_t host_trace_id(const struct host_trace *h)
{
	return h->trace_id;
}

void host_trace_guest(struct host_trace *h, const char *name,
		      uint64_t trace_id, const struct vcpu_threads *v)
{
	int *tids = NULL;
	unsigned int i, nr = v ? v->nr : 0;
	int ret;

	/*
	 * CTF has no such link; and a relay session's lock may be held
	 * while the daemon is waited for, which a guest's start need not.
	 */
	if (!h->links)
		return;
	if (nr) {
		tids = malloc(nr * sizeof(*tids));
		if (!tids)
			nr = 0;
		for (i = 0; i < nr; i++)
			tids[i] = v->tid[i];
	}
	pthread_mutex_lock(&h->lock);
	ret = ivring__rec_guest(h->w, name, trace_id, nr, tids);
	if (ret)
		tool_warn("--host: %s: %s", name, ivring__rec_errmsg(h->w));
	pthread_mutex_unlock(&h->lock);
	free(tids);
}

int host_trace_stop(struct host_trace *h)
{
	struct ivring_rec_stats st = { .sz = sizeof(st) };
	char err[1024];
	int ret;

	if (!h)
		return 0;
	tracefs_trace_off(h->inst);
	if (h->running) {
		if (write(h->wake[1], "", 1) < 0)
			tool_warn("--host: cannot stop its thread: %s",
				  strerror(errno));
		pthread_join(h->thread, NULL);
	}
	ret = h->err;
	ivring__rec_stats(h->w, &st);
	if (!ret && ivring__rec_close(h->w, err, sizeof(err))) {
		tool_warn("%s", err);
		if (h->relay)
			tool_warn("--host: %s: the host's events that the relay daemon did not confirm may be missing from it",
				  h->output);
		ret = EXIT_RUNTIME;
	} else if (ret) {
		ivring__rec_close(h->w, NULL, 0);
	}
	h->w = NULL;
	if (!ret)
		fprintf(stderr, "ivring-read: %s: %" PRIu64 " host events, %"
			PRIu64 " pages, %" PRIu64 " lost, %" PRIu64
			" bytes; its thread took %.3f s of CPU (%.0f ns an event)\n",
			h->output, st.events, st.pages, st.lost, st.bytes,
			h->cpu_ns / 1e9,
			st.events ? (double)h->cpu_ns / st.events : 0.0);
	if (!ret && h->bad_pages)
		fprintf(stderr, "ivring-read: %s: and %" PRIu64
			" pages of the host's that did not parse, left out\n",
			h->output, h->bad_pages);
	if (!ret && h->lost_unknown)
		fprintf(stderr, "ivring-read: %s: and events lost before %"
			PRIu64 " pages that the host kernel did not count\n",
			h->output, h->lost_unknown);
	free_host(h);
	return ret;
}
