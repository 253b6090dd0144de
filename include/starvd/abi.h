/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * starvd records shared by the BPF programs (bpf/), the kernel module
 * (kmod/) and userspace (user/). The module's generic netlink family is
 * described in include/starvd/starvd.yaml and numbered in the header
 * generated from it, include/starvd/starvd.h.
 *
 * Wait data is always "waited W ns at read time R": R is CLOCK_MONOTONIC
 * at the moment of the read, so a consumer gets the start of a wait as
 * R - W without knowing the kernel's scheduler clock.
 */
#ifndef _STARVD_ABI_H
#define _STARVD_ABI_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#define STARVD_ABI_VERSION	1
#define STARVD_COMM_LEN		16

/* struct starvd_task.state; on the wire STARVD_A_TASK_STATE (starvd.yaml) */
enum starvd_task_state {
	STARVD_TASK_WAITING = 0,	/* runnable, queued, not on a CPU */
	STARVD_TASK_RUNNING = 1,	/* currently on its CPU */
};

/*
 * struct starvd_task.flags; on the wire STARVD_A_TASK_FLAGS (starvd.yaml)
 *
 * STARVD_TASK_WAIT_LOWER_BOUND: the source did not see this wait start,
 * so wait_ns is only what it can vouch for (0 when it has nothing). The
 * scheduler stamps sched_info.last_queued when a running task is
 * preempted or a sleeping one is enqueued, but not for a task preempted
 * between set_current_state() and schedule() (possible with full
 * preemption: PREEMPT_RT, preempt=full): queued, it waits unstamped,
 * woken since (TASK_RUNNING again) or not (it must run to go to
 * sleep; preempted before it armed its wake-up, nothing else wakes it).
 * The tracking mode's tasks queued before its programs were attached are
 * the other case. A reader that saw the task waiting earlier with the
 * same nr_switches knows it has not run since: it has waited at least
 * since that read.
 */
enum starvd_task_flags {
	STARVD_TASK_WAIT_LOWER_BOUND = 1 << 0,
};

/*
 * One task of interest: a waiter (runnable but not running) or the task
 * holding a CPU. For a running task wait_ns is 0.
 */
struct starvd_task {
	__u32 tid;
	__u32 tgid;
	__s32 cpu;
	__s32 prio;		/* kernel prio: 0..99 RT, 100..139 normal */
	__u32 policy;		/* SCHED_* */
	__u32 state;		/* enum starvd_task_state */
	__u32 flags;		/* enum starvd_task_flags */
	__u32 reserved;		/* 0 */
	__u64 wait_ns;		/* waited at read time */
	__u64 nr_switches;	/* voluntary + involuntary context switches */
	char comm[STARVD_COMM_LEN];
};

/*
 * Header of one BPF iterator read: the time all wait_ns values of the
 * read refer to, followed by struct starvd_task records.
 */
struct starvd_read_hdr {
	__u64 read_time_ns;	/* CLOCK_MONOTONIC */
	__u32 abi_version;
	__u32 mode;		/* enum starvd_bpf_mode */
};

/* Per-CPU summary, built from the task records plus per-CPU counters. */
struct starvd_cpu {
	__u32 cpu;
	__u32 nr_waiters;
	__u64 max_wait_ns;
	__u64 nr_events;	/* scheduler events seen on this CPU */
	__u64 nr_dropped;	/* waits not tracked: table full */
	struct starvd_task curr;	/* holder; tid 0 when idle */
};

/* Where the BPF backend takes the start of a wait from. */
enum starvd_bpf_mode {
	STARVD_MODE_AUTO = 0,
	STARVD_MODE_SCHED_INFO = 1,	/* task->sched_info.last_queued */
	STARVD_MODE_TRACKING = 2,	/* tracepoints into a hash table */
};

#endif /* _STARVD_ABI_H */
