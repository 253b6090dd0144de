/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The SCHED_FIFO emulation of one boost, run on the boosted task's own
 * CPU by a thread of starvd's at SCHED_FIFO one priority above the
 * raised task, whatever starvd's own: each period it raises the task,
 * sleeps for the rest of the runtime on a timer of that CPU, looks at
 * the task's CPU time and lowers it, with no other CPU in between. Lowered from starvd's own
 * CPU instead, a raised task runs on for as long as starvd's wake-up and
 * its sched_setattr() take to cross the machine: many times a runtime of
 * tens of microseconds, whether starvd polls the task's CPU time or a
 * perf task-clock overflow wakes it. "make bench" (section 6) measures
 * what a boost costs the busy loop.
 *
 * The boost itself (journal, escalation, end, restore) stays the
 * booster's (boost.h): the worker only raises and lowers, says nothing
 * (the daemon's logging has one writer), and tells the booster when it
 * is done through an eventfd the daemon polls.
 */
#ifndef STARVD_FIFO_WORKER_H
#define STARVD_FIFO_WORKER_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "sched_attr.h"

struct fifo_worker {
	/* Set before fifo_worker_start(), then read only by the worker. */
	pid_t tid;
	int cpu;			/* the task's CPU: the worker's */
	int prio;			/* the worker's: above applied's */
	struct sched_attr saved;	/* the task's own */
	struct sched_attr applied;	/* raised: SCHED_FIFO above its holder */
	uint64_t runtime_ns, period_ns;
	uint64_t start_ns;		/* first raise, CLOCK_MONOTONIC */
	uint64_t end_ns;		/* no raise at or after it */
	int done_fd;			/* eventfd written when done */

	/* The worker's, read once done is true. */
	atomic_bool done;
	/*
	 * 0: the boost ran to its end and the task is back; -ESRCH: the
	 * task is gone; -EBUSY: someone else changed it (left as it is);
	 * another -errno: a sched_setattr() failed, and the task may still
	 * be raised (the booster restores it or keeps trying).
	 */
	int ret;
	uint64_t periods;		/* raises */
	uint64_t ran_ns;		/* CPU time raised, all periods */
	uint64_t max_ran_ns;		/* ... in the longest one */

	pthread_t thread;
	int stop_fd;			/* eventfd: stop now, lowering first */
};

/*
 * Start @w's thread on @w->cpu at SCHED_FIFO @w->prio. 0, or -errno if
 * no such thread can run there (the CPU outside starvd's cpuset, a
 * real-time priority refused): the emulation then runs from starvd's
 * own CPU.
 */
int fifo_worker_start(struct fifo_worker *w);
static inline bool fifo_worker_done(struct fifo_worker *w)
{
	return atomic_load(&w->done);
}
/* Stop @w at once (its task lowered first if raised) and join it. */
void fifo_worker_stop(struct fifo_worker *w);

#endif
