// SPDX-License-Identifier: GPL-2.0 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * ivring-vcpus HOST.dat GUEST.dat...: where each vCPU's time went, from a
 * host's trace and its guests' (ivring-read record --host): per guest and
 * vCPU, the time it ran guest code, was runnable on the host but not
 * running (and which host tasks ran instead), and was halted; per guest
 * task, the part of its running time during which its vCPU was preempted.
 *
 * The files are read with libtracecmd, trace-cmd's own library, which
 * puts the guests' events in host time (their TIME_SHIFT) and merges every
 * file in time order; the host's GUEST options link each guest's file, by
 * its TRACEID, to its vCPUs' host threads.  The accounting is
 * vcpu_time.c's.  What this program reads of the files is not trusted:
 * fields are read within their records, comms are printed made safe, and
 * tasks are kept to a bound.  libtracecmd's own parsing of a file is
 * trusted: a file that it cannot parse safely can crash it, as it can
 * crash trace-cmd report.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <trace-cmd.h>

#include "read_common.h"
#include "tool_msg.h"
#include "tool_text.h"
#include "vcpu_time.h"

/* Host CPUs followed; a CPU beyond is not one that a vCPU waits on. */
#define HOST_CPUS_MAX	8192
/* Guest tasks printed per guest, those that lost the most first. */
#define TASKS_SHOWN	20
/* Host tasks printed per vCPU, those that took the most from it first. */
#define BY_SHOWN	8

/* The sched events' fields that the accounting reads, per file. */
struct sched_fields {
	int switch_id, wakeup_id, migrate_id;	/* -1: not in the file */
	struct tep_format_field *prev_comm, *prev_pid, *prev_state;
	struct tep_format_field *next_comm, *next_pid;
	struct tep_format_field *wake_pid, *wake_cpu;
	struct tep_format_field *mig_pid, *mig_cpu;
};

struct input {
	const char *path;
	struct tracecmd_input *h;
	int guest;		/* its index in the accounting; -1: the host */
	struct sched_fields f;
	uint64_t inside, outside;	/* a guest's events, of the host's span */
};

struct run {
	struct vt vt;
	struct input *in;
	uint64_t span[2];	/* the host's first and last event */
};

static struct tep_format_field *field(struct tep_event *ev, const char *name,
				      int *id)
{
	struct tep_format_field *f = ev ? tep_find_field(ev, name) : NULL;

	if (!f)
		*id = -1;
	return f;
}

/* An event's id, if the file has it and every field asked of it. */
static void find_fields(struct tep_handle *tep, struct sched_fields *f)
{
	struct tep_event *ev;

	ev = tep_find_event_by_name(tep, "sched", "sched_switch");
	f->switch_id = ev ? ev->id : -1;
	f->prev_comm = field(ev, "prev_comm", &f->switch_id);
	f->prev_pid = field(ev, "prev_pid", &f->switch_id);
	f->prev_state = field(ev, "prev_state", &f->switch_id);
	f->next_comm = field(ev, "next_comm", &f->switch_id);
	f->next_pid = field(ev, "next_pid", &f->switch_id);
	ev = tep_find_event_by_name(tep, "sched", "sched_wakeup");
	f->wakeup_id = ev ? ev->id : -1;
	f->wake_pid = field(ev, "pid", &f->wakeup_id);
	f->wake_cpu = field(ev, "target_cpu", &f->wakeup_id);
	ev = tep_find_event_by_name(tep, "sched", "sched_migrate_task");
	f->migrate_id = ev ? ev->id : -1;
	f->mig_pid = field(ev, "pid", &f->migrate_id);
	f->mig_cpu = field(ev, "dest_cpu", &f->migrate_id);
}

/*
 * Whether @f lies within @rec.  Offsets and sizes are the file's format
 * text's, which libtraceevent takes as ints, negative ones too.
 */
static bool within(struct tep_record *rec, struct tep_format_field *f)
{
	return f->offset >= 0 && f->size >= 0 && rec->size >= 0 &&
	       (int64_t)f->offset + f->size <= rec->size;
}

/* A number field of @rec, read only within the record; else -1. */
static long long num(struct tep_record *rec, struct tep_format_field *f)
{
	unsigned long long v;

	if (!within(rec, f) || tep_read_number_field(f, rec->data, &v))
		return -1;
	if ((f->flags & TEP_FIELD_IS_SIGNED) && f->size == 4)
		return (int32_t)v;
	return (long long)v;
}

static void comm(struct tep_record *rec, struct tep_format_field *f,
		 char out[VT_COMM])
{
	int n;

	out[0] = '\0';
	if (!within(rec, f))
		return;
	n = f->size < VT_COMM - 1 ? f->size : VT_COMM - 1;
	memcpy(out, (char *)rec->data + f->offset, n);
	out[n] = '\0';
	tool_safe_text(out);
}

static void host_event(struct run *r, const struct sched_fields *f,
		       struct tep_record *rec, int type, int cpu)
{
	char prev[VT_COMM], next[VT_COMM];

	if (type == f->switch_id) {
		comm(rec, f->prev_comm, prev);
		comm(rec, f->next_comm, next);
		vt_host_switch(&r->vt, rec->ts, cpu, num(rec, f->prev_pid), prev,
			       num(rec, f->prev_state), num(rec, f->next_pid),
			       next);
	} else if (type == f->wakeup_id) {
		vt_host_wakeup(&r->vt, rec->ts, num(rec, f->wake_pid),
			       num(rec, f->wake_cpu));
	} else if (type == f->migrate_id) {
		vt_host_migrate(&r->vt, rec->ts, num(rec, f->mig_pid),
				num(rec, f->mig_cpu));
	}
}

/*
 * @cpu counts the CPUs of every file in one series: rec->cpu is the CPU
 * of the record's own file, a host CPU or a vCPU.
 */
static int on_event(struct tracecmd_input *h, struct tep_record *rec,
		    int cpu, void *arg)
{
	struct run *r = arg;
	struct input *in = &r->in[(uintptr_t)tracecmd_get_private(h)];
	int type = tep_data_type(tracecmd_get_tep(h), rec);
	char next[VT_COMM];

	(void)cpu;
	if (in->guest < 0) {
		host_event(r, &in->f, rec, type, rec->cpu);
		return stop_is_requested();
	}
	if (rec->ts < r->span[0] || rec->ts > r->span[1])
		in->outside++;
	else
		in->inside++;
	if (type == in->f.switch_id) {
		comm(rec, in->f.next_comm, next);
		vt_guest_switch(&r->vt, rec->ts, in->guest, rec->cpu,
				num(rec, in->f.next_pid), next);
	}
	return stop_is_requested();
}

static int span_of(struct tracecmd_input *h, struct tep_record *rec, int cpu,
		   void *arg)
{
	uint64_t *span = arg;

	(void)h;
	(void)cpu;
	if (!span[0] || rec->ts < span[0])
		span[0] = rec->ts;
	if (rec->ts > span[1])
		span[1] = rec->ts;
	return stop_is_requested();
}

/*
 * The span of the host's events, before the pass that accounts: a guest's
 * interval is known only within it.  A handle of its own, as libtracecmd
 * iterates a handle's events once.
 */
static int host_span(const char *path, uint64_t span[2])
{
	struct tracecmd_input *h = tracecmd_open(path,
						 TRACECMD_FL_LOAD_NO_PLUGINS);

	span[0] = span[1] = 0;
	if (!h)
		return -1;
	tracecmd_iterate_events(h, NULL, 0, span_of, span);
	tracecmd_close(h);
	return 0;
}

/* Each guest file, by its TRACEID in the host file's GUEST options. */
static int link_guests(struct run *r, int nr)
{
	const int *tids;
	const char *name;
	int i, vcpus;

	for (i = 1; i < nr; i++) {
		struct input *in = &r->in[i];
		unsigned long long id = tracecmd_get_traceid(in->h);

		if (tracecmd_get_guest_cpumap(r->in[0].h, id, &name, &vcpus,
					      &tids) || vcpus <= 0) {
			tool_warn("%s: %s names no guest of TRACEID %#llx with its vCPUs' threads (record them with ivring-read record --host)",
				  in->path, r->in[0].path, id);
			return EXIT_USAGE;
		}
		in->guest = vt_add_guest(&r->vt, name, vcpus, tids);
		if (in->guest < 0) {
			tool_warn("out of memory");
			return EXIT_RUNTIME;
		}
		if (in->f.switch_id < 0)
			tool_warn("%s: no sched:sched_switch events, so no guest task is accounted",
				  in->path);
	}
	return 0;
}

/*
 * A guest file whose times are not the host's (recorded without --clock
 * host, or whose guest never answered for its clock) lies mostly outside
 * the host's span, or its events land on the wrong host events.
 */
static void warn_outside(const struct run *r, int nr)
{
	int i;

	for (i = 1; i < nr; i++)
		if (r->in[i].outside > r->in[i].inside)
			tool_warn("%s: %" PRIu64 " of its %" PRIu64 " events lie outside the host's span: were its times the host's (--clock host), and recorded at the same time?",
				  r->in[i].path, r->in[i].outside,
				  r->in[i].outside + r->in[i].inside);
}

static double sec(uint64_t ns)
{
	return ns / 1e9;
}

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * part / whole : 0;
}

static int by_lost(const void *a, const void *b)
{
	const struct vt_guest_task *x = a, *y = b;
	uint64_t lx = x->preempted_ns + x->blocked_ns;
	uint64_t ly = y->preempted_ns + y->blocked_ns;

	if (lx != ly)
		return lx < ly ? 1 : -1;
	return x->run_ns < y->run_ns ? 1 : x->run_ns > y->run_ns ? -1 : 0;
}

static int by_ns(const void *a, const void *b)
{
	const struct vt_task *x = a, *y = b;

	return x->ns < y->ns ? 1 : x->ns > y->ns ? -1 : 0;
}

static void print_vcpu(struct vt_vcpu *c, unsigned int i, uint64_t span)
{
	uint64_t others = c->by_others_ns;
	struct vt_task *by;
	unsigned int k;

	printf("  %4u %8d", i, c->tid);
	for (k = VT_RUNNING; k < VT_NR_STATES; k++)
		printf("  %11.6f %5.1f%%", sec(c->ns[k]), pct(c->ns[k], span));
	printf("  %11.6f %5.1f%%\n", sec(c->ns[VT_UNKNOWN]),
	       pct(c->ns[VT_UNKNOWN], span));
	if (!c->by.nr && !others)
		return;
	pid_table_sort(&c->by, by_ns);
	printf("        runnable while these ran instead:");
	for (k = 0; k < c->by.nr; k++) {
		by = pid_table_at(&c->by, k);
		if (k < BY_SHOWN)
			printf(" %s:%d %.6f", by->comm, by->pid, sec(by->ns));
		else
			others += by->ns;
	}
	if (others)
		printf(" others %.6f", sec(others));
	printf("\n");
}

static void print_guest(struct vt_guest *g, uint64_t span)
{
	char name[256];
	unsigned int i;

	snprintf(name, sizeof(name), "%s", g->name);
	tool_safe_text(name);
	printf("\nguest %s: %u vCPUs\n", name, g->nr_vcpus);
	printf("  vCPU   thread      running (s)      runnable (s)        halted (s)       blocked (s)       unknown (s)\n");
	for (i = 0; i < g->nr_vcpus; i++)
		print_vcpu(&g->vcpus[i], i, span);
	if (!g->tasks.nr)
		return;
	pid_table_sort(&g->tasks, by_lost);
	printf("  guest tasks, by running time lost to the host:\n");
	printf("  %8s %-16s %12s %12s %12s %6s\n", "pid", "comm", "running (s)",
	       "preempted", "blocked", "lost");
	for (i = 0; i < g->tasks.nr && i < TASKS_SHOWN; i++) {
		const struct vt_guest_task *t = pid_table_at(&g->tasks, i);

		printf("  %8d %-16s %12.6f %12.6f %12.6f %5.1f%%\n", t->pid,
		       t->comm, sec(t->run_ns), sec(t->preempted_ns),
		       sec(t->blocked_ns),
		       pct(t->preempted_ns + t->blocked_ns, t->run_ns));
	}
	if (g->tasks.nr > TASKS_SHOWN)
		printf("  ... and %u tasks more\n", g->tasks.nr - TASKS_SHOWN);
	if (g->tasks_dropped_ns)
		printf("  and %.6f s of tasks beyond the first %u\n",
		       sec(g->tasks_dropped_ns), VT_TASKS_MAX);
}

static void usage(FILE *f)
{
	fputs("usage: ivring-vcpus HOST.dat GUEST.dat...\n"
	      "Where each vCPU's time went, from the host's trace and its guests'\n"
	      "(ivring-read record -f -o GUEST.dat --host HOST.dat): per guest and\n"
	      "vCPU, the time its host thread ran, was runnable but not running\n"
	      "(preempted; the host tasks that ran instead), was halted, blocked\n"
	      "in the host, or not known yet; per guest task, the part of its\n"
	      "running time during which its vCPU was preempted or blocked.  See\n"
	      "ivring-vcpus(1).\n", f);
}

int main(int argc, char **argv)
{
	struct tracecmd_input **hs;
	struct run r = { 0 };
	int i, nr = argc - 1, err = 0;
	uint64_t *span = r.span;

	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		usage(stdout);
		return 0;
	}
	if (nr < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	read_signals();
	tracecmd_set_loglevel(TEP_LOG_CRITICAL);
	if (host_span(argv[1], r.span)) {
		tool_warn("%s: not a trace.dat that libtracecmd reads", argv[1]);
		return EXIT_RUNTIME;
	}
	r.in = calloc(nr, sizeof(*r.in));
	hs = calloc(nr, sizeof(*hs));
	if (!r.in || !hs || vt_init(&r.vt, HOST_CPUS_MAX, span[0], span[1]))
		tool_die("out of memory");
	for (i = 0; i < nr && !err; i++) {
		r.in[i].path = argv[i + 1];
		r.in[i].guest = -1;
		r.in[i].h = hs[i] = tracecmd_open(argv[i + 1],
						  TRACECMD_FL_LOAD_NO_PLUGINS);
		if (!hs[i]) {
			tool_warn("%s: not a trace.dat that libtracecmd reads",
				  argv[i + 1]);
			err = EXIT_RUNTIME;
			break;
		}
		tracecmd_set_private(hs[i], (void *)(uintptr_t)i);
		find_fields(tracecmd_get_tep(hs[i]), &r.in[i].f);
	}
	if (!err && !span[1]) {
		tool_warn("%s: no event: nothing to account", r.in[0].path);
		err = EXIT_USAGE;
	}
	if (!err && r.in[0].f.switch_id < 0) {
		tool_warn("%s: no sched:sched_switch events: not a host's trace",
			  r.in[0].path);
		err = EXIT_USAGE;
	}
	if (!err)
		err = link_guests(&r, nr);
	if (!err && tracecmd_iterate_events_multi(hs, nr, on_event, &r) < 0) {
		tool_warn("reading the files failed");
		err = EXIT_RUNTIME;
	}
	/* Figures of part of the files would pass for the whole's. */
	if (!err && stop_is_requested()) {
		tool_warn("interrupted: no figures");
		err = EXIT_RUNTIME;
	}
	if (!err) {
		vt_end(&r.vt);
		warn_outside(&r, nr);
		printf("%s and %d guest file%s: %.6f s of host time that the host's events span, %.6f to %.6f\n",
		       r.in[0].path, nr - 1, nr > 2 ? "s" : "",
		       sec(span[1] - span[0]), sec(span[0]), sec(span[1]));
		for (i = 0; i < (int)r.vt.nr_guests; i++)
			print_guest(&r.vt.guests[i], span[1] - span[0]);
	}
	for (i = 0; i < nr; i++)
		if (hs[i])
			tracecmd_close(hs[i]);
	vt_free(&r.vt);
	free(hs);
	free(r.in);
	return err;
}
