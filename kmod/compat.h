/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel API differences starvd.c needs to build from 4.18 on. Which
 * STARVD_HAVE_* feature a kernel has is decided in kmod/Kbuild from its
 * version. Built without warnings: Debian 5.10 (amd64, 686, rt-amd64),
 * 6.1 (amd64, 686, rt-amd64, arm64), 6.12 (amd64, rt-amd64, rt-arm64),
 * 7.2 (amd64, rt-amd64, arm64, rt-arm64), which needs nothing here that
 * 6.12 does not.
 * Older than 5.10 is
 * written from the upstream history and is not verified; see
 * kmod/README.md.
 */
#ifndef _STARVD_COMPAT_H
#define _STARVD_COMPAT_H

#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <net/genetlink.h>

/* CONFIG_SCHEDSTATS or CONFIG_TASK_DELAY_ACCT select it. */
#ifndef CONFIG_SCHED_INFO
#error "starvd needs CONFIG_SCHED_INFO for task->sched_info.last_queued"
#endif

/* kernel/sched/sched.h is private: p->on_rq value of a queued task. */
#ifndef TASK_ON_RQ_QUEUED
#define TASK_ON_RQ_QUEUED	1
#endif

/*
 * The run queue clock of @cpu's queue. sched_clock_cpu() is exported only
 * where sched_clock() is unstable (x86); elsewhere (arm64) it is
 * sched_clock() itself, the same on every CPU, which is what the run
 * queues' clocks read.
 */
static inline u64 starvd_clock_cpu(int cpu)
{
#ifdef CONFIG_HAVE_UNSTABLE_SCHED_CLOCK
	return sched_clock_cpu(cpu);
#else
	return sched_clock();
#endif
}

/* 5.14 renamed task_struct::state to __state. */
static inline unsigned int starvd_task_state(struct task_struct *p)
{
#ifdef STARVD_HAVE_TASK___STATE
	return READ_ONCE(p->__state);
#else
	return READ_ONCE(p->state);
#endif
}

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

/*
 * 6.12's delayed dequeue leaves a fair task that went to sleep queued
 * until it is picked: it is not waiting for the CPU.
 */
static inline bool starvd_task_delayed(struct task_struct *p)
{
#ifdef STARVD_HAVE_SCHED_DELAYED
	return READ_ONCE(p->se.sched_delayed);
#else
	return false;
#endif
}

/* Extended ack of a dump request (4.20 added it to the callback). */
static inline struct netlink_ext_ack *
starvd_cb_extack(struct netlink_callback *cb)
{
#ifdef STARVD_HAVE_DUMP_EXTACK
	return cb->extack;
#else
	return NULL;
#endif
}

/*
 * 6.1 made genetlink itself check, for commands from the family's
 * resv_start_op on (all of starvd's: it sets none), that the genetlink
 * header's reserved byte is zero and that nlmsg_flags carry nothing but
 * REQUEST, ACK, ECHO and a whole DUMP. Before 6.1 the module checks the
 * same, so that every kernel answers a malformed request alike.
 */
static inline int starvd_header_check(const struct nlmsghdr *nlh,
				      struct netlink_ext_ack *extack)
{
#ifndef STARVD_HAVE_GENL_HDR_CHECK
	const struct genlmsghdr *hdr = nlmsg_data(nlh);
	u16 flags = nlh->nlmsg_flags;

	if (hdr->reserved) {
		NL_SET_ERR_MSG(extack, "genlmsghdr.reserved field is not 0");
		return -EINVAL;
	}
	if ((flags & NLM_F_DUMP) == NLM_F_DUMP)
		flags &= ~NLM_F_DUMP;
	if (flags & ~(NLM_F_REQUEST | NLM_F_ACK | NLM_F_ECHO)) {
		NL_SET_ERR_MSG(extack,
			       "ambiguous or reserved bits set in nlmsg_flags");
		return -EINVAL;
	}
#endif
	return 0;
}

#endif /* _STARVD_COMPAT_H */
