/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel API differences starvd.c needs to build from 4.18 on.
 * Built and tested: Debian 6.1 (amd64, 686) and 6.12 (amd64).
 * Everything older than 6.1 is written from the upstream history and is
 * not verified; see kmod/README.
 */
#ifndef _STARVD_COMPAT_H
#define _STARVD_COMPAT_H

#include <linux/version.h>
#include <linux/sched.h>
#include <net/genetlink.h>

#ifndef CONFIG_SCHED_INFO
#error "starvd needs CONFIG_SCHED_INFO (enable CONFIG_SCHEDSTATS or CONFIG_TASK_DELAY_ACCT) for task->sched_info.last_queued"
#endif

#if LINUX_VERSION_CODE < KERNEL_VERSION(4, 18, 0)
#error "starvd needs Linux 4.18 or later (see kmod/README)"
#endif

/* kernel/sched/sched.h is private: p->on_rq value of a queued task. */
#ifndef TASK_ON_RQ_QUEUED
#define TASK_ON_RQ_QUEUED	1
#endif

/* 5.14 renamed task_struct::state to __state. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(5, 14, 0)
#define starvd_task_state(p)	READ_ONCE((p)->__state)
#else
#define starvd_task_state(p)	READ_ONCE((p)->state)
#endif

/*
 * Is @p on a CPU right now? On UP kernels there is no on_cpu; while this
 * module walks the tasks, the only task on the CPU is the walker.
 */
static inline bool starvd_task_on_cpu(struct task_struct *p)
{
#ifdef CONFIG_SMP
	return READ_ONCE(p->on_cpu);
#else
	return p == current;
#endif
}

/* 5.2 moved the attribute policy from genl_ops to genl_family. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(5, 2, 0)
#define STARVD_FAMILY_POLICY(pol)	.policy = (pol),
#define STARVD_OP_POLICY(pol)
#else
#define STARVD_FAMILY_POLICY(pol)
#define STARVD_OP_POLICY(pol)		.policy = (pol),
#endif

/*
 * 6.1 validates the reserved genetlink header bytes and rejects requests
 * of commands without a policy for ops below resv_start_op.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 1, 0)
#define STARVD_RESV_START_OP(op)	.resv_start_op = (op),
#else
#define STARVD_RESV_START_OP(op)
#endif

/* Parsed request attributes of a dump. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)
static inline struct nlattr **starvd_dump_attrs(struct netlink_callback *cb,
						struct nlattr **tb)
{
	return genl_info_dump(cb)->attrs;
}
#elif LINUX_VERSION_CODE >= KERNEL_VERSION(5, 5, 0)
static inline struct nlattr **starvd_dump_attrs(struct netlink_callback *cb,
						struct nlattr **tb)
{
	return genl_dumpit_info(cb)->attrs;
}
#else
/* @tb must have room for the family's maxattr + 1 entries. */
#define starvd_dump_attrs(cb, tb)					\
	(nlmsg_parse((cb)->nlh, GENL_HDRLEN, (tb), STARVD_A_MAX,	\
		     starvd_policy, NULL) ? NULL : (tb))
#endif

/* Extended ack of a dump request (4.20 added it to the callback). */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(4, 20, 0)
#define starvd_cb_extack(cb)	((cb)->extack)
#else
#define starvd_cb_extack(cb)	((struct netlink_ext_ack *)NULL)
#endif

#endif /* _STARVD_COMPAT_H */
