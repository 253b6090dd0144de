// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "fifo_policy.h"
#include "fifo_worker.h"
#include "proc.h"
#include "util.h"

/* Its stack: a few /proc reads deep; all of it is locked (mlockall). */
#define WORKER_STACK	(64 * 1024)
/* How long fifo_worker_put() leaves a thread on the task's CPU. */
#define PUT_HOME_AFTER_NS	(100 * NSEC_PER_MSEC)

static void notify(int fd)
{
	uint64_t one = 1;
	ssize_t n = write(fd, &one, sizeof(one));

	(void)n;	/* fails only on a counter overflow: it is set */
}

static void drain(int fd)
{
	uint64_t n;

	while (read(fd, &n, sizeof(n)) > 0)
		;
}

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

/* The task back to its own attributes: the one restore check. */
static int lower(const struct fifo_worker *w)
{
	int ret = task_id_put_back(&w->id, &w->applied, &w->saved);

	return ret > 0 ? 0 : ret;
}

/* Raise the task for a period, unless someone else changed it meanwhile. */
static int raise_task(const struct fifo_worker *w)
{
	int ret = task_id_change(&w->id, &w->saved, &w->applied);

	return ret > 0 ? 0 : ret;
}

/*
 * A boost's emulation from its first period, raised by the booster, to
 * its end: the steps fifo_emul_step() gives (fifo_policy.h), the same as
 * the booster's from starvd's own CPUs, taken here on the task's CPU,
 * sleeping on this CPU's timer in between. A look costs this thread's
 * shortest one; a job stopped early lowers a raised task and ends. An
 * error ends the job with it in w->ret.
 */
static void run(struct fifo_worker *w)
{
	uint64_t exec0 = w->exec0_ns, check_ns = 0, next, t, ran, took;
	struct fifo_emul e;
	bool runnable;
	int ret = 0;

	fifo_emul_init(&e, w->runtime_ns, w->period_ns, w->start_ns,
		       w->end_ns);
	next = fifo_emul_raised(&e, w->start_ns);
	for (;;) {
		if (sleep_until(w, next)) {
			if (e.raised)
				ret = lower(w);
			break;
		}
		t = now_ns();
		ran = 0;
		runnable = true;
		if (e.raised) {
			ran = task_exec_ns(w->id.tid) - exec0;
			if (ran)
				runnable = task_runnable(w->id.tid);
			took = now_ns() - t;
			if (!check_ns || took < check_ns)
				check_ns = took;
		}
		switch (fifo_emul_step(&e, t, ran, runnable, check_ns, &next)) {
		case FIFO_ACT_WAIT:
			continue;
		case FIFO_ACT_RAISE:
			exec0 = task_exec_ns(w->id.tid);
			ret = raise_task(w);
			next = fifo_emul_raised(&e, now_ns());
			break;
		case FIFO_ACT_LOWER:
			ret = lower(w);
			next = fifo_emul_lowered(&e, now_ns());
			break;
		case FIFO_ACT_END:
			return;
		}
		if (ret)
			break;
	}
	w->ret = ret;
}

static void *worker(void *arg)
{
	struct fifo_worker *w = arg;
	uint64_t n;

	atomic_store(&w->thread_tid, gettid());
	for (;;) {
		if (read(w->job_fd, &n, sizeof(n)) < 0)
			continue;	/* EINTR */
		if (atomic_load(&w->quit))
			break;
		run(w);
		atomic_store(&w->done, true);
		notify(w->done_fd);
	}
	return NULL;
}

static int worker_create(struct fifo_worker *w, int done_fd)
{
	int ret;

	memset(w, 0, sizeof(*w));
	w->done_fd = done_fd;
	w->job_fd = eventfd(0, EFD_CLOEXEC);
	w->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (w->job_fd < 0 || w->stop_fd < 0) {
		ret = -errno;
		goto fail;
	}
	/* At starvd's own policy from its start (thread_start()). */
	ret = thread_start(&w->thread, WORKER_STACK, worker, w);
	if (!ret) {
		/* On a busy CPU, top and ps show whose thread it is. */
		pthread_setname_np(w->thread, "starvd-fifo");
		return 0;
	}
fail:
	if (w->job_fd >= 0)
		close(w->job_fd);
	if (w->stop_fd >= 0)
		close(w->stop_fd);
	return ret;
}

static bool all_started(const struct fifo_pool *p)
{
	int i;

	for (i = 0; i < p->n; i++)
		if (!atomic_load(&p->w[i].thread_tid))
			return false;
	return true;
}

int fifo_pool_init(struct fifo_pool *p, int n)
{
	int i, ret = 0;

	memset(p, 0, sizeof(*p));
	p->done_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	p->w = calloc(n > 0 ? n : 1, sizeof(*p->w));
	if (p->done_fd < 0 || !p->w)
		return p->done_fd < 0 ? -errno : -ENOMEM;
	for (i = 0; i < n; i++) {
		ret = worker_create(&p->w[p->n], p->done_fd);
		if (ret)
			break;
		p->n++;
	}
	/*
	 * Until each has run (its tid is known): at the caller's real-time
	 * priority they run only once the caller sleeps, and a boost right
	 * after the start-up would find none ready. A thread that has not
	 * run within a second is left out of fifo_pool_get() until it has.
	 */
	for (i = 0; i < 1000 && !all_started(p); i++)
		usleep(1000);
	return ret;
}

void fifo_pool_free(struct fifo_pool *p)
{
	int i;

	for (i = 0; i < p->n; i++) {
		struct fifo_worker *w = &p->w[i];

		if (w->busy)
			fifo_worker_put(w, false);
		atomic_store(&w->quit, true);
		notify(w->job_fd);
		pthread_join(w->thread, NULL);
		close(w->job_fd);
		close(w->stop_fd);
	}
	free(p->w);
	if (p->done_fd >= 0)
		close(p->done_fd);
	memset(p, 0, sizeof(*p));
	p->done_fd = -1;
}

/*
 * Back where the caller runs, at its policy. Its CPUs first: the thread
 * may still be running on the boosted task's CPU (between its done and
 * its next read()), and lowered while pinned there it would wait behind
 * the task holding that CPU, with nowhere else to go.
 */
static void send_home(struct fifo_worker *w)
{
	pid_t tid = atomic_load(&w->thread_tid);
	struct sched_attr home;
	cpu_set_t set;

	if (!sched_getaffinity(0, sizeof(set), &set))
		sched_setaffinity(tid, sizeof(set), &set);
	if (!sched_getattr_tid(0, &home))
		sched_setattr_tid(tid, &home);
}

struct fifo_worker *fifo_pool_get(struct fifo_pool *p, int cpu, int prio,
				  int *err)
{
	struct sched_attr attr = {
		.size = sizeof(attr),
		.sched_policy = SCHED_FIFO,
		.sched_priority = prio,
	};
	struct fifo_worker *w = NULL;
	cpu_set_t set;
	pid_t tid = 0;
	int i;

	*err = 0;
	for (i = 0; i < p->n && !w; i++) {
		tid = atomic_load(&p->w[i].thread_tid);
		if (!p->w[i].busy && tid)
			w = &p->w[i];
		else if (!p->w[i].busy)
			*err = -EAGAIN;	/* free, but has not run yet */
	}
	if (!w)
		return NULL;
	*err = 0;
	if (cpu < 0 || cpu >= CPU_SETSIZE)
		return NULL;
	/* The priority first: on its new CPU it preempts what runs there. */
	*err = sched_setattr_tid(tid, &attr);
	if (!*err) {
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (sched_setaffinity(tid, sizeof(set), &set))
			*err = -errno;
	}
	if (*err) {
		send_home(w);
		return NULL;
	}
	return w;
}

void fifo_worker_start(struct fifo_worker *w)
{
	drain(w->stop_fd);
	w->ret = 0;
	atomic_store(&w->done, false);
	w->busy = true;
	notify(w->job_fd);
}

int fifo_worker_put(struct fifo_worker *w, bool at_once)
{
	uint64_t home_ns = at_once ? 0 : now_ns() + PUT_HOME_AFTER_NS;
	bool home = false;
	int ret = 0;

	if (w->busy) {
		notify(w->stop_fd);
		/*
		 * By the clock, not by a count of sleeps: under emulation a
		 * 100 us sleep can take milliseconds.
		 */
		while (!atomic_load(&w->done)) {
			if (!home && now_ns() >= home_ns) {
				send_home(w);
				home = true;
			}
			usleep(100);
		}
		ret = w->ret;
	}
	send_home(w);
	w->busy = false;
	return ret;
}
