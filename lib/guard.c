// SPDX-License-Identifier: LGPL-2.1 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * Surviving a segment file that shrinks under the mapping.
 *
 * The segment is a file in /dev/shm that any process with the rights may
 * truncate or re-create at any moment: QEMU restarting, an operator's
 * mistake, a hostile neighbour.  A load from a mapped page past the new end
 * of the file raises SIGBUS, which would kill the reader without a summary,
 * and in a reader that serves many guests, every guest's trace with it.
 *
 * So every public call that touches the mapping runs under a guard: a
 * sigsetjmp() point kept in a thread-local stack.  libivring's SIGBUS handler
 * jumps back to it when the fault address lies in the guarded handle's
 * mapping, and passes every other SIGBUS on to the handler that was there
 * before, or to the default action.  The handle is then dead: its state may
 * be half-updated, so every later call returns the same error, and close
 * unmaps without writing to the segment.
 *
 * The guard saves no signal mask (a sigprocmask per call would cost a
 * system call per event); the handler is installed with SA_NODEFER, so
 * SIGBUS is not left blocked after the jump.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "internal.h"

/*
 * initial-exec: the handler reads it, and a dynamic TLS access could call
 * malloc on a thread's first touch, which a signal handler must not.
 */
static __thread struct ivr_guard *guard_top
	__attribute__((tls_model("initial-exec")));
static struct sigaction prev_action;
static pthread_once_t install_once = PTHREAD_ONCE_INIT;

/* Whoever handled SIGBUS before us gets every fault that is not ours. */
static void pass_on(int sig, siginfo_t *si, void *uc)
{
	if (prev_action.sa_flags & SA_SIGINFO) {
		prev_action.sa_sigaction(sig, si, uc);
		return;
	}
	if (prev_action.sa_handler != SIG_DFL &&
	    prev_action.sa_handler != SIG_IGN) {
		prev_action.sa_handler(sig);
		return;
	}
	if (prev_action.sa_handler == SIG_IGN && si->si_code <= 0)
		return;		/* a sent SIGBUS, and the process ignores those */
	/* The default action, or a fault that cannot be ignored: die of it. */
	signal(SIGBUS, SIG_DFL);
	raise(SIGBUS);
}

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
	struct ivr_guard *g = guard_top;
	const u8 *addr = si->si_addr;

	if (g && si->si_code > 0 && addr >= g->r->map &&
	    addr < g->r->map + g->r->map_len)
		siglongjmp(g->env, 1);
	pass_on(sig, si, uc);
}

static void install(void)
{
	struct sigaction sa = {
		.sa_sigaction = on_sigbus,
		.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK,
	};

	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, &prev_action);
}

void ivr_guard_install(void)
{
	pthread_once(&install_once, install);
}

void ivr_guard_push(struct ivr_guard *g, struct ivring *r)
{
	g->r = r;
	g->prev = guard_top;
	guard_top = g;
	/* The handler must see the new top before any guarded access. */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
}

void ivr_guard_pop(struct ivr_guard *g)
{
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	guard_top = g->prev;
}

/* Back from the handler: the handle is dead, say why. */
int ivr_guard_fault(struct ivr_guard *g)
{
	struct ivring *r = g->r;
	struct stat st;

	ivr_guard_pop(g);
	r->gone = -EFBIG;
	if (r->fd >= 0 && !fstat(r->fd, &st))
		return ivr_err(r, r->gone,
			       "%s: the segment file shrank to %lld bytes under the reader (%zu mapped); was it truncated or re-created?",
			       r->path, (long long)st.st_size, r->map_len);
	return ivr_err(r, r->gone,
		       "%s: the segment file shrank under the reader; was it truncated or re-created?",
		       r->path);
}

/*
 * Run @fn(@r, @arg) under a guard.  The sigsetjmp() has to be in a frame
 * that outlives the guarded code, hence one function that every guarded
 * entry point goes through.
 */
int ivr_guarded(struct ivring *r, int (*fn)(struct ivring *r, void *arg),
		void *arg)
{
	struct ivr_guard g;
	int ret;

	if (r->gone)
		return ivr_err(r, r->gone, "%s", r->gone_msg);
	/*
	 * Pushed before the sigsetjmp(): nothing in g changes between it and
	 * a jump back, so reading g after the jump is well defined.
	 */
	ivr_guard_push(&g, r);
	if (sigsetjmp(g.env, 0)) {
		ret = ivr_guard_fault(&g);
		snprintf(r->gone_msg, sizeof(r->gone_msg), "%s", r->err);
		return ret;
	}
	ret = fn(r, arg);
	ivr_guard_pop(&g);
	return ret;
}
