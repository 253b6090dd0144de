// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "proc.h"
#include "task_id.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open	434
#endif
/* A pidfd of one thread, not of its thread group (6.9): O_EXCL's value. */
#ifndef PIDFD_THREAD
#define PIDFD_THREAD	O_EXCL
#endif

/*
 * The thread's own pidfd first: before 6.9 the flag is refused (EINVAL),
 * and a pidfd is had without it for a thread group leader only, which
 * polls readable once its whole process has exited (the leader's tid is
 * not reused before that).
 */
static int open_pidfd(pid_t tid)
{
	long fd = syscall(SYS_pidfd_open, tid, PIDFD_THREAD);

	if (fd < 0 && errno == EINVAL)
		fd = syscall(SYS_pidfd_open, tid, 0);
	return fd < 0 ? -errno : (int)fd;
}

static bool pidfd_exited(int pidfd)
{
	struct pollfd pfd = { .fd = pidfd, .events = POLLIN };

	return poll(&pfd, 1, 0) != 0;	/* readable, or an error: not ours */
}

static const struct task_id_ops kernel_ops = {
	.start_time = task_live_start_time,
	.pidfd_open = open_pidfd,
	.pidfd_exited = pidfd_exited,
	.getattr = sched_getattr_tid,
	.setattr = sched_setattr_tid,
	.leave_deadline = sched_setattr_leave_deadline,
};

const struct task_id_ops *task_id_ops = &kernel_ops;

int task_id_open(struct task_id *id, pid_t tid)
{
	const struct task_id_ops *ops = task_id_ops;
	int fd;

	task_id_of(id, tid, ops->start_time(tid));
	if (!id->start_time)
		return task_exited(tid) ? -ESRCH : -ENODATA;
	fd = ops->pidfd_open(tid);
	if (fd == -ESRCH)
		return -ESRCH;
	id->pidfd = fd < 0 ? -1 : fd;
	/* The pidfd is of the task the start time was read of. */
	if (ops->start_time(tid) != id->start_time) {
		task_id_close(id);
		return -ESRCH;
	}
	return 0;
}

void task_id_of(struct task_id *id, pid_t tid, uint64_t start_time)
{
	id->tid = tid;
	id->start_time = start_time;
	id->pidfd = -1;
}

void task_id_close(struct task_id *id)
{
	if (id->pidfd >= 0)
		close(id->pidfd);
	id->pidfd = -1;
}

bool task_id_same(const struct task_id *id)
{
	const struct task_id_ops *ops = task_id_ops;

	if (!id->start_time)
		return false;
	if (id->pidfd >= 0)
		return !ops->pidfd_exited(id->pidfd);
	return ops->start_time(id->tid) == id->start_time;
}

static int set(const struct sched_attr *cur, pid_t tid,
	       const struct sched_attr *to)
{
	const struct task_id_ops *ops = task_id_ops;

	if (cur->sched_policy == SCHED_DEADLINE &&
	    to->sched_policy != SCHED_DEADLINE)
		return ops->leave_deadline(tid, cur, to);
	return ops->setattr(tid, to);
}

int task_id_change(const struct task_id *id, const struct sched_attr *from,
		   const struct sched_attr *to)
{
	const struct task_id_ops *ops = task_id_ops;
	struct sched_attr before, now;
	int ret;

	if (!task_id_same(id))
		return -ESRCH;
	ret = ops->getattr(id->tid, &before);
	if (ret)
		return ret;
	if (sched_attr_same(&before, to))
		return 1;
	if (from && !sched_attr_same(&before, from))
		return -EBUSY;
	ret = set(&before, id->tid, to);
	if (task_id_same(id))
		return ret;
	/*
	 * Gone meanwhile. Whoever has the tid now and has exactly @to got it
	 * from this change: @to is not what it had.
	 */
	if (ret || ops->getattr(id->tid, &now) || !sched_attr_same(&now, to))
		return -ESRCH;
	set(&now, id->tid, &before);
	return -ESTALE;
}

int task_id_put_back(const struct task_id *id,
		     const struct sched_attr *applied,
		     const struct sched_attr *saved)
{
	if (task_exited(id->tid))
		return -ESRCH;
	return task_id_change(id, applied, saved);
}
