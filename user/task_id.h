/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A task's identity, and every change of its scheduling attributes made
 * through it. sched_setattr() takes a tid, and a tid is reused once its
 * task is reaped: a change by tid alone, made after the task exited, lands
 * on a stranger. So a boosted task is known by its tid together with a
 * pidfd where the kernel gives one for it (pidfd_open() of a thread group
 * leader, any thread with PIDFD_THREAD from 6.9), and by its start time
 * (/proc/<tid>/stat) always. The pidfd polls readable once the task has
 * exited, before its tid can be reused: one poll() tells whether the tid
 * is still the task's. Without a pidfd (a thread that is not its
 * process's leader, before 6.9; a journal's entry, read by another
 * starvd), the start time is read again instead: in clock ticks (10 ms),
 * it tells a task from one that reused its tid at least a tick later,
 * which cycling through the pid space takes.
 *
 * task_id_change() checks the identity before and after the change. If
 * after the change the tid is no longer the task's, the task that got
 * the change may be the one that reused the tid: if it has exactly what
 * was set, it is put back to the attributes the tid had just before the
 * change. What remains is the task's exit and the tid's reuse both
 * between that read and the change, two consecutive system calls.
 */
#ifndef STARVD_TASK_ID_H
#define STARVD_TASK_ID_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "sched_attr.h"

struct task_id {
	pid_t tid;
	uint64_t start_time;	/* /proc/<tid>/stat starttime, never 0 */
	int pidfd;		/* -1: none, the start time is read again */
};

/* What task_id.c asks the kernel; the unit tests replace it with a fake. */
struct task_id_ops {
	/* starttime of @tid, 0 if it is gone, exited or cannot be read. */
	uint64_t (*start_time)(pid_t tid);
	/* A pidfd of @tid (-errno if the kernel has none for it). */
	int (*pidfd_open)(pid_t tid);
	/* Has the task of @pidfd exited? */
	bool (*pidfd_exited)(int pidfd);
	int (*getattr)(pid_t tid, struct sched_attr *attr);
	int (*setattr)(pid_t tid, const struct sched_attr *attr);
	/* sched_setattr_leave_deadline() (sched_attr.h). */
	int (*leave_deadline)(pid_t tid, const struct sched_attr *cur,
			      const struct sched_attr *to);
};

extern const struct task_id_ops *task_id_ops;

/*
 * Identify @tid now: 0, -ESRCH if it is gone or has exited, -ENODATA if
 * its start time cannot be read (a task whose identity is unknown is
 * never to be changed: nothing would tell a reused tid from it).
 */
int task_id_open(struct task_id *id, pid_t tid);
/* An identity read back from a journal: start time only, no pidfd. */
void task_id_of(struct task_id *id, pid_t tid, uint64_t start_time);
void task_id_close(struct task_id *id);
/* Is @id's tid still its task, alive? */
bool task_id_same(const struct task_id *id);

/*
 * Set @to on @id's task if it has @from (NULL: whatever it has), out of
 * SCHED_DEADLINE with sched_setattr_leave_deadline() if @to leaves the
 * class. 0; 1 if it has @to already (nothing done); -EBUSY if it has
 * neither; -ESRCH, changing nothing, if it is gone or has exited; -ESTALE
 * if it went during the change and the tid was reused (the task that
 * reused it was put back to what it had); else the change's -errno.
 */
int task_id_change(const struct task_id *id, const struct sched_attr *from,
		   const struct sched_attr *to);

/*
 * The one restore check: @id's task back from @applied to @saved, unless
 * it has exited (a zombie never runs again, and the kernel has taken a
 * SCHED_DEADLINE task's bandwidth off at its death: changing it now would
 * take it off twice). 0 if put back, 1 if back already; otherwise
 * task_id_change()'s -ESRCH, -ESTALE, -EBUSY (someone else changed it:
 * left as it is) or -errno. Says nothing: its callers do.
 */
int task_id_put_back(const struct task_id *id,
		     const struct sched_attr *applied,
		     const struct sched_attr *saved);

#endif
