/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/* Do not edit directly, auto-generated from: */
/*	include/starvd/starvd.yaml */
/* YNL-GEN uapi header */

/*
 * Documentation
 * =============
 *
 * Runnable-but-not-running tasks and the task on each CPU, read from the
 * scheduler's own bookkeeping (task->sched_info.last_queued) on each
 * request. Waits are "waited W ns at read-time", read-time being
 * CLOCK_MONOTONIC; a waiting task the scheduler did not stamp comes with
 * wait 0 and the flag wait-lower-bound. Thread ids are those of the initial
 * pid namespace. Queries need CAP_NET_ADMIN.
 *
 * STARVD_CMD_GET_INFO (do)
 * ------------------------
 * Module version, ABI version, CPUs and clock.
 *
 * Request: no attribute.
 * Reply:
 *     STARVD_A_INFO_VERSION: NLA_NUL_STRING: Module version.
 *     STARVD_A_INFO_ABI_VERSION: NLA_U32: Version of this ABI
 *         (STARVD_ABI_VERSION); its attribute value never changes.
 *     STARVD_A_INFO_NR_CPUS: NLA_U32: Number of possible CPU ids.
 *     STARVD_A_INFO_CLOCK: NLA_NUL_STRING: Clock the module reads waits
 *         from.
 *     STARVD_A_INFO_READ_TIME: NLA_U64: CLOCK_MONOTONIC nanoseconds of the
 *         request.
 *
 * STARVD_CMD_GET_CPUS (dump)
 * --------------------------
 * One message per possible CPU, or for the one CPU asked for.
 *
 * Request:
 *     STARVD_A_CPUS_FILTER_CPU: NLA_U32: Report only this CPU.
 * Replies:
 *     STARVD_A_CPUS_READ_TIME: NLA_U64: CLOCK_MONOTONIC nanoseconds of the
 *         read all waits refer to.
 *     STARVD_A_CPUS_CPU: NLA_U32: The CPU this message is about.
 *     STARVD_A_CPUS_NR_WAITERS: NLA_U32: Tasks waiting on the CPU.
 *     STARVD_A_CPUS_MAX_WAIT: NLA_U64: Longest wait on the CPU, ns at
 *         read-time.
 *     STARVD_A_CPUS_NR_EVENTS: NLA_U64: Always 0, the module observes no
 *         scheduler events.
 *     STARVD_A_CPUS_NR_DROPPED: NLA_U64: Always 0, the module drops nothing.
 *     STARVD_A_CPUS_CURR: NLA_NESTED: Task on the CPU; absent when the CPU
 *         is idle.
 *         STARVD_A_TASK_TID: NLA_U32: Thread id (initial pid namespace).
 *         STARVD_A_TASK_TGID: NLA_U32: Process id (initial pid namespace).
 *         STARVD_A_TASK_CPU: NLA_S32: CPU the task is queued or running on.
 *         STARVD_A_TASK_PRIO: NLA_S32: Kernel priority, 0..99 real-time,
 *             100..139 normal.
 *         STARVD_A_TASK_POLICY: NLA_U32: SCHED_* policy.
 *         STARVD_A_TASK_STATE: NLA_U32: enum starvd_task_state.
 *         STARVD_A_TASK_WAIT: NLA_U64: Nanoseconds waited at read-time (0
 *             for a running task).
 *         STARVD_A_TASK_NR_SWITCHES: NLA_U64: Voluntary plus involuntary
 *             context switches.
 *         STARVD_A_TASK_COMM: NLA_NUL_STRING: Command name, NUL-terminated.
 *         STARVD_A_TASK_FLAGS: NLA_U32: enum starvd_task_flags; absent from
 *             modules older than this attribute, which skip unstamped waits.
 *
 * STARVD_CMD_GET_TASKS (dump)
 * ---------------------------
 * One message per waiting task and per task on a CPU.
 *
 * Request:
 *     STARVD_A_TASKS_FILTER_CPU: NLA_U32: Report only this CPU.
 *     STARVD_A_TASKS_FILTER_MIN_WAIT: NLA_U64: Report only waiting tasks
 *         that waited at least this many ns, and those whose wait has no
 *         known start (flags wait-lower-bound).
 * Replies:
 *     STARVD_A_TASKS_READ_TIME: NLA_U64: CLOCK_MONOTONIC nanoseconds of the
 *         read all waits refer to.
 *     STARVD_A_TASKS_TASK: NLA_NESTED: The task this message is about.
 *         STARVD_A_TASK_TID: NLA_U32: Thread id (initial pid namespace).
 *         STARVD_A_TASK_TGID: NLA_U32: Process id (initial pid namespace).
 *         STARVD_A_TASK_CPU: NLA_S32: CPU the task is queued or running on.
 *         STARVD_A_TASK_PRIO: NLA_S32: Kernel priority, 0..99 real-time,
 *             100..139 normal.
 *         STARVD_A_TASK_POLICY: NLA_U32: SCHED_* policy.
 *         STARVD_A_TASK_STATE: NLA_U32: enum starvd_task_state.
 *         STARVD_A_TASK_WAIT: NLA_U64: Nanoseconds waited at read-time (0
 *             for a running task).
 *         STARVD_A_TASK_NR_SWITCHES: NLA_U64: Voluntary plus involuntary
 *             context switches.
 *         STARVD_A_TASK_COMM: NLA_NUL_STRING: Command name, NUL-terminated.
 *         STARVD_A_TASK_FLAGS: NLA_U32: enum starvd_task_flags; absent from
 *             modules older than this attribute, which skip unstamped waits.
 */

#ifndef _UAPI_LINUX_STARVD_H
#define _UAPI_LINUX_STARVD_H

#define STARVD_FAMILY_NAME	"starvd"
#define STARVD_FAMILY_VERSION	1

enum {
	STARVD_A_TASK_PAD = 1,
	STARVD_A_TASK_TID,
	STARVD_A_TASK_TGID,
	STARVD_A_TASK_CPU,
	STARVD_A_TASK_PRIO,
	STARVD_A_TASK_POLICY,
	STARVD_A_TASK_STATE,
	STARVD_A_TASK_WAIT,
	STARVD_A_TASK_NR_SWITCHES,
	STARVD_A_TASK_COMM,
	STARVD_A_TASK_FLAGS = 16,

	__STARVD_A_TASK_MAX,
	STARVD_A_TASK_MAX = (__STARVD_A_TASK_MAX - 1)
};

enum {
	STARVD_A_INFO_PAD = 1,
	STARVD_A_INFO_VERSION,
	STARVD_A_INFO_ABI_VERSION,
	STARVD_A_INFO_NR_CPUS,
	STARVD_A_INFO_CLOCK,
	STARVD_A_INFO_READ_TIME,

	__STARVD_A_INFO_MAX,
	STARVD_A_INFO_MAX = (__STARVD_A_INFO_MAX - 1)
};

enum {
	STARVD_A_CPUS_PAD = 1,
	STARVD_A_CPUS_READ_TIME = 6,
	STARVD_A_CPUS_FILTER_CPU,
	STARVD_A_CPUS_CPU = 9,
	STARVD_A_CPUS_NR_WAITERS,
	STARVD_A_CPUS_MAX_WAIT,
	STARVD_A_CPUS_NR_EVENTS,
	STARVD_A_CPUS_NR_DROPPED,
	STARVD_A_CPUS_CURR = 15,

	__STARVD_A_CPUS_MAX,
	STARVD_A_CPUS_MAX = (__STARVD_A_CPUS_MAX - 1)
};

enum {
	STARVD_A_TASKS_PAD = 1,
	STARVD_A_TASKS_READ_TIME = 6,
	STARVD_A_TASKS_FILTER_CPU,
	STARVD_A_TASKS_FILTER_MIN_WAIT,
	STARVD_A_TASKS_TASK = 14,

	__STARVD_A_TASKS_MAX,
	STARVD_A_TASKS_MAX = (__STARVD_A_TASKS_MAX - 1)
};

enum {
	STARVD_CMD_GET_INFO = 1,
	STARVD_CMD_GET_CPUS,
	STARVD_CMD_GET_TASKS,

	__STARVD_CMD_MAX,
	STARVD_CMD_MAX = (__STARVD_CMD_MAX - 1)
};

#endif /* _UAPI_LINUX_STARVD_H */
