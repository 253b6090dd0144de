/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What /proc says about a task. Every reader returns 0/false if it is gone. */
#ifndef STARVD_PROC_H
#define STARVD_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "escalate.h"

/*
 * Field @n (>= 3) of a /proc/<tid>/stat line, past the comm (which may
 * hold spaces and parentheses); NULL if the line has no such field.
 */
const char *stat_field(const char *stat, int n);
/* stat_field() of /proc/<tid>/stat, read into @buf; NULL if it is gone. */
const char *task_stat_field(pid_t tid, int n, char *buf, size_t len);
/* starttime (field 22 of /proc/<tid>/stat): with the tid, an identity. */
uint64_t task_start_time(pid_t tid);
/* The same, from one read; 0 also if it has exited (task_exited()). */
uint64_t task_live_start_time(pid_t tid);
/*
 * Gone (no /proc/<tid>), or exited and not yet reaped ('Z' or 'X' in its
 * stat)? False when its stat cannot be parsed: never taken for an exit.
 */
bool task_exited(pid_t tid);
/* Running or runnable ('R' in /proc/<tid>/stat)? */
bool task_runnable(pid_t tid);
/* CPU time consumed, ns (/proc/<tid>/schedstat). */
uint64_t task_exec_ns(pid_t tid);
/*
 * CPU time, run delay and switch-ins (/proc/<tid>/schedstat) and context
 * switches (/proc/<tid>/status), one sample for progress_delta(); -ESRCH
 * and an invalid sample if the task is gone.
 */
int task_progress(pid_t tid, struct progress_sample *p);
/* comm of a process or thread; "" if gone. */
void task_comm(pid_t tid, char *buf, size_t len);
/*
 * Call @fn for every thread on the machine (/proc/<pid>/task/<tid>) until
 * it returns a positive value, which is then returned; 0 once all were
 * seen, -errno if /proc cannot be listed. Threads that come or go
 * meanwhile may be missed.
 */
int proc_for_each_thread(int (*fn)(pid_t pid, pid_t tid, void *arg),
			 void *arg);
/* The same for the threads of @pid only; -errno if it cannot be listed. */
int proc_for_each_thread_of(pid_t pid,
			    int (*fn)(pid_t pid, pid_t tid, void *arg),
			    void *arg);
/*
 * Is this process in the initial pid namespace, whose ids the kernel's
 * reports (BPF, the module) and sched_setattr() callers of that namespace
 * use? 1 or 0, with the namespace's inode in @ino; -errno if
 * /proc/self/ns/pid cannot be read.
 */
int proc_in_initial_pid_ns(unsigned long *ino);

#endif
