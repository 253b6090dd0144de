// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "escalate.h"
#include "fifo_worker.h"
#include "proc.h"
#include "util.h"

/* Its stack: a few /proc reads deep; all of it is locked (mlockall). */
#define WORKER_STACK	(128 * 1024)

/*
 * Sleep until @t (CLOCK_MONOTONIC) or a stop; true on a stop. A real-time
 * task's ppoll() timeout has no slack, and is a hard hrtimer on
 * PREEMPT_RT: no ktimers/N thread, which the busy loop may starve, in
 * between.
 */
static bool sleep_until(const struct fifo_worker *w, uint64_t t)
{
	struct pollfd pfd = { .fd = w->stop_fd, .events = POLLIN };
	uint64_t now = now_ns(), d;
	struct timespec ts;

	while (now < t) {
		d = t - now;
		ts.tv_sec = d / NSEC_PER_SEC;
		ts.tv_nsec = d % NSEC_PER_SEC;
		if (ppoll(&pfd, 1, &ts, NULL) > 0)
			return true;
		now = now_ns();
	}
	return poll(&pfd, 1, 0) > 0;
}

/* The task back to its own attributes, if it still has ours. */
static int lower(const struct fifo_worker *w)
{
	struct sched_attr cur;
	int ret = sched_getattr_tid(w->tid, &cur);

	if (ret)
		return ret;
	if (sched_attr_same(&cur, &w->saved))
		return 0;
	if (!sched_attr_same(&cur, &w->applied))
		return -EBUSY;
	return sched_setattr_tid(w->tid, &w->saved);
}

/*
 * One period: raise the task until it has had its runtime of CPU time
 * (schedstat), has blocked (run, then not runnable: a task queued in a
 * sleeping state looks asleep until it has run), or @end has come; then
 * lower it. Looks again after the rest of the runtime, or later while
 * the task has not run (fifo_poll_ns(): something above the raised
 * priority holds the CPU, and a look is this worker's time taken from
 * it). True on a stop.
 */
static bool period(struct fifo_worker *w, uint64_t end, uint64_t *check_ns)
{
	uint64_t exec0, ran = 0, prev_ran = 0, poll = w->runtime_ns, t, took;
	struct sched_attr cur;
	bool stop = false;
	int ret;

	/* Someone else changed it while lowered: stop boosting it. */
	ret = sched_getattr_tid(w->tid, &cur);
	if (!ret && !sched_attr_same(&cur, &w->saved))
		ret = -EBUSY;
	exec0 = task_exec_ns(w->tid);
	if (!ret)
		ret = sched_setattr_tid(w->tid, &w->applied);
	if (ret) {
		w->ret = ret;
		return true;
	}
	w->periods++;
	for (;;) {
		t = now_ns() + poll;
		stop = sleep_until(w, t < end ? t : end);
		t = now_ns();
		ran = task_exec_ns(w->tid) - exec0;
		if (stop || ran >= w->runtime_ns || t >= end ||
		    (ran && !task_runnable(w->tid)))
			break;
		took = now_ns() - t;
		if (!*check_ns || took < *check_ns)
			*check_ns = took;
		poll = fifo_poll_ns(w->runtime_ns, ran, prev_ran, poll,
				    *check_ns);
		prev_ran = ran;
	}
	ret = lower(w);
	/* What it ran raised: up to the lowering, and a little after. */
	ran = task_exec_ns(w->tid) - exec0;
	w->ran_ns += ran;
	if (ran > w->max_ran_ns)
		w->max_ran_ns = ran;
	if (ret) {
		w->ret = ret;
		return true;
	}
	return stop;
}

static void *worker(void *arg)
{
	struct fifo_worker *w = arg;
	uint64_t start = w->start_ns, check_ns = 0, end;
	uint64_t one = 1;
	ssize_t n;

	while (start < w->end_ns) {
		if (sleep_until(w, start))
			break;
		end = start + w->period_ns;
		if (period(w, end, &check_ns))
			break;
		start = end > now_ns() ? end : now_ns();
	}
	/* The boost lasts until its end, whatever its last period left. */
	if (start >= w->end_ns)
		sleep_until(w, w->end_ns);
	atomic_store(&w->done, true);
	/* Fails only on a counter overflow: the booster is woken all the same. */
	n = write(w->done_fd, &one, sizeof(one));
	(void)n;
	return NULL;
}

int fifo_worker_start(struct fifo_worker *w)
{
	struct sched_param sp = { .sched_priority = w->prio };
	pthread_attr_t attr;
	char name[16];
	cpu_set_t set;
	int ret;

	atomic_store(&w->done, false);
	w->ret = 0;
	w->periods = w->ran_ns = w->max_ran_ns = 0;
	w->stop_fd = eventfd(0, EFD_CLOEXEC);
	if (w->stop_fd < 0)
		return -errno;
	CPU_ZERO(&set);
	CPU_SET(w->cpu, &set);
	ret = pthread_attr_init(&attr);
	if (!ret)
		ret = pthread_attr_setstacksize(&attr, WORKER_STACK);
	if (!ret)
		ret = pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
	if (!ret)
		ret = pthread_attr_setinheritsched(&attr,
						   PTHREAD_EXPLICIT_SCHED);
	if (!ret)
		ret = pthread_attr_setschedpolicy(&attr, SCHED_FIFO);
	if (!ret)
		ret = pthread_attr_setschedparam(&attr, &sp);
	if (!ret)
		ret = pthread_create(&w->thread, &attr, worker, w);
	pthread_attr_destroy(&attr);
	/* Who that is on a busy CPU, for top and ps: starvd's, for the CPU. */
	if (!ret) {
		snprintf(name, sizeof(name), "starvd-fifo/%d", w->cpu);
		pthread_setname_np(w->thread, name);
	}
	if (ret) {
		close(w->stop_fd);
		w->stop_fd = -1;
	}
	return -ret;
}

void fifo_worker_stop(struct fifo_worker *w)
{
	uint64_t one = 1;
	ssize_t n = write(w->stop_fd, &one, sizeof(one));

	(void)n;	/* fails only on a counter overflow: it is set */
	pthread_join(w->thread, NULL);
	close(w->stop_fd);
	w->stop_fd = -1;
}
