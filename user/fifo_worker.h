/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The SCHED_FIFO emulation of a boost, run on the boosted task's own CPU
 * by a thread of starvd's at SCHED_FIFO one priority above the raised
 * task, whatever starvd's own: each period it raises the task, sleeps for
 * the rest of the runtime on a timer of that CPU, looks at the task's CPU
 * time and lowers it, with no other CPU in between. Lowered from starvd's
 * own CPU instead, a raised task runs on for as long as starvd's wake-up
 * and its sched_setattr() take to cross the machine: many times a runtime
 * of tens of microseconds, whether starvd polls the task's CPU time or a
 * perf task-clock overflow wakes it. "make bench" (section 6) measures
 * what a boost costs the busy loop.
 *
 * The threads are made once, at start-up, and wait, asleep, for a boost:
 * creating a thread takes tasklist_lock for writing, which a starving
 * task may hold for reading (on PREEMPT_RT a task preempted inside its
 * stop does), and starvd must never wait for what it is there to rescue.
 * The booster moves an idle thread to the task's CPU and priority (so
 * that it wakes there, and knows at once whether it can), raises the task
 * itself for the first period, and hands the rest over; the thread puts
 * the task back at each period's end, says nothing (the daemon's logging
 * has one writer), and tells the booster through an eventfd the daemon
 * polls when the boost is over. The booster then sends it home.
 */
#ifndef STARVD_FIFO_WORKER_H
#define STARVD_FIFO_WORKER_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "sched_attr.h"
#include "task_id.h"

struct fifo_worker {
	/* The job, set by the booster before fifo_worker_start(). */
	struct task_id id;		/* the task; its pidfd the booster's */
	struct sched_attr saved;	/* its own */
	struct sched_attr applied;	/* raised: SCHED_FIFO above its holder */
	uint64_t runtime_ns, period_ns;
	uint64_t start_ns;		/* first period, raised already */
	uint64_t exec0_ns;		/* its CPU time at that raise */
	uint64_t end_ns;		/* no raise at or after it */

	/* The worker's, read once done is true. */
	atomic_bool done;
	/*
	 * 0: the boost ran to its end and the task is back; -ESRCH: the
	 * task is gone; -ESTALE: it went during a change and the task that
	 * took its tid was put back (task_id.h); -EBUSY: someone else
	 * changed it (left as it is); another -errno: a sched_setattr()
	 * failed, and the task may still be raised (the booster restores
	 * it or keeps trying).
	 */
	int ret;

	/* The pool's. */
	bool busy;			/* the booster's: it has a job */
	atomic_int thread_tid;		/* 0 until the thread runs */
	atomic_bool quit;
	pthread_t thread;
	int job_fd;			/* eventfd: a job, or quit */
	int stop_fd;			/* eventfd: end the job now */
	int done_fd;			/* the pool's: a job is done */
};

struct fifo_pool {
	struct fifo_worker *w;
	int n;
	int done_fd;			/* eventfd the daemon polls */
};

/*
 * Make up to @n idle threads, at the caller's policy and CPUs: 0, or
 * -errno of the first that could not be made (p->n says how many were).
 * Fewer threads still work: emulations beyond them run from starvd's own
 * CPU.
 */
int fifo_pool_init(struct fifo_pool *p, int n);
void fifo_pool_free(struct fifo_pool *p);

/*
 * An idle thread moved to @cpu at SCHED_FIFO @prio, or NULL if none is
 * free or it cannot run there (the CPU outside starvd's cpuset, the
 * priority refused): -errno in *@err then (0: none free; -EAGAIN: the
 * free ones have not run yet since fifo_pool_init()).
 */
struct fifo_worker *fifo_pool_get(struct fifo_pool *p, int cpu, int prio,
				  int *err);
/* Hand the job in @w over: it runs until w->end_ns or a stop. */
void fifo_worker_start(struct fifo_worker *w);
static inline bool fifo_worker_done(struct fifo_worker *w)
{
	return atomic_load(&w->done);
}
/*
 * End @w's job at once (its task lowered first if raised), wait for it,
 * and send the thread home, idle: to the CPUs and policy of the calling
 * thread (starvd's main loop). Returns what the job ended with (w->ret).
 * A thread that does not run on the task's CPU within 100 ms (something
 * above its priority holds that CPU), or at once if @at_once (the caller
 * knows it cannot), is sent home first, where it runs once the caller
 * waits: the wait never depends on the CPU it rescues.
 */
int fifo_worker_put(struct fifo_worker *w, bool at_once);

#endif
