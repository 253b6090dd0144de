/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * starvd ABI shared by the BPF programs (bpf/), the kernel module (kmod/)
 * and userspace (user/).
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

/* struct starvd_task.state */
enum starvd_task_state {
	STARVD_TASK_WAITING = 0,	/* runnable, queued, not on a CPU */
	STARVD_TASK_RUNNING = 1,	/* currently on its CPU */
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

/*
 * Generic netlink family served by kmod/starvd.ko.
 * Documented as a netlink YAML spec in include/starvd/starvd.yaml.
 */
#define STARVD_GENL_NAME	"starvd"
#define STARVD_GENL_VERSION	1
#define STARVD_GENL_MCGRP_EVENTS "events"

enum starvd_cmd {
	STARVD_CMD_UNSPEC,
	STARVD_CMD_GET_INFO,	/* do: module and clock information */
	STARVD_CMD_GET_CPUS,	/* dump: one message per CPU */
	STARVD_CMD_GET_TASKS,	/* dump: one message per task */
	__STARVD_CMD_MAX,
};

#define STARVD_CMD_MAX (__STARVD_CMD_MAX - 1)

enum starvd_attr {
	STARVD_A_UNSPEC,
	STARVD_A_PAD,
	STARVD_A_VERSION,	/* string: module version */
	STARVD_A_ABI_VERSION,	/* u32 */
	STARVD_A_NR_CPUS,	/* u32: possible CPUs */
	STARVD_A_CLOCK,		/* string: clock of the wait data */
	STARVD_A_READ_TIME,	/* u64: CLOCK_MONOTONIC ns of the read */
	STARVD_A_FILTER_CPU,	/* u32: request: only this CPU */
	STARVD_A_FILTER_MIN_WAIT, /* u64: request: only waits >= this (ns) */
	STARVD_A_CPU,		/* u32 */
	STARVD_A_NR_WAITERS,	/* u32 */
	STARVD_A_MAX_WAIT,	/* u64 ns */
	STARVD_A_NR_EVENTS,	/* u64 */
	STARVD_A_NR_DROPPED,	/* u64 */
	STARVD_A_TASK,		/* nest: task attributes below */
	STARVD_A_CURR,		/* nest: task holding the CPU */
	__STARVD_A_MAX,
};

#define STARVD_A_MAX (__STARVD_A_MAX - 1)

enum starvd_task_attr {
	STARVD_TASK_A_UNSPEC,
	STARVD_TASK_A_PAD,
	STARVD_TASK_A_TID,	/* u32, init pid namespace */
	STARVD_TASK_A_TGID,	/* u32, init pid namespace */
	STARVD_TASK_A_CPU,	/* u32 */
	STARVD_TASK_A_PRIO,	/* s32 kernel prio */
	STARVD_TASK_A_POLICY,	/* u32 */
	STARVD_TASK_A_STATE,	/* u32 enum starvd_task_state */
	STARVD_TASK_A_WAIT,	/* u64 ns waited at STARVD_A_READ_TIME */
	STARVD_TASK_A_NR_SWITCHES, /* u64 */
	STARVD_TASK_A_COMM,	/* string */
	__STARVD_TASK_A_MAX,
};

#define STARVD_TASK_A_MAX (__STARVD_TASK_A_MAX - 1)

#endif /* _STARVD_ABI_H */
