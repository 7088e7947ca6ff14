/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * The host's own trace, recorded beside its guests' (ivring-read record
 * --host FILE): the scheduler's events of every host CPU, and KVM's where
 * the host has KVM, in a tracefs instance of its own with the mono trace
 * clock, read by a thread of its own into a trace.dat (or a CTF trace,
 * to files or to a relay daemon) through libivring's writer.  A trace.dat
 * links each guest's recording (trace-cmd's GUEST option), and each
 * guest's file names the host's (TIME_SHIFT).
 */
#ifndef IVRING_HOST_TRACE_H
#define IVRING_HOST_TRACE_H

#include <stdbool.h>
#include <stdint.h>

#include "vcpu_threads.h"

struct host_trace;

struct host_trace_conf {
	/* the host's trace.dat or CTF directory; with @relayd, its session */
	const char *output;
	unsigned int version;	/* trace.dat version; 0: the default */
	unsigned int compression;	/* IVRING_REC_ZSTD, or 0 */
	bool ctf;		/* a CTF trace, beside the guests' CTF traces */
	/* A relay daemon's URL: the trace goes there, beside the guests'. */
	const char *relayd;
	const char *hostname;	/* under which it files it; NULL: ours */
	unsigned int relayd_timeout_ms;	/* 0: the library's default */
};

/*
 * Make the instance, enable its events, open the file and start reading:
 * 0 with *@out, or an exit code, having said why.  Whatever it made is
 * removed again on failure.
 */
int host_trace_start(const struct host_trace_conf *c, struct host_trace **out);
/*
 * A TRACEID for a file of the run, the host's or a guest's: chosen by the
 * tool, not by libivring, so that each file can name the other's.
 */
uint64_t host_trace_new_id(void);
/* The host file's TRACEID, which the guests' files name. */
uint64_t host_trace_id(const struct host_trace *h);
/*
 * A guest's recording @name with @trace_id, run by the vCPU threads @v
 * (NULL: not known), goes into the host file's GUEST options (a trace.dat's
 * only: CTF has no such link).  Any thread.
 */
void host_trace_guest(struct host_trace *h, const char *name,
		      uint64_t trace_id, const struct vcpu_threads *v);
/*
 * Stop tracing, record what the ring buffer still holds, complete the file
 * and remove the instance; @h is freed.  0, or an exit code having said
 * why.  The instance is removed whatever happened.
 */
int host_trace_stop(struct host_trace *h);

#endif /* IVRING_HOST_TRACE_H */
