/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What a starving task is there to do, read when it is reported: the kind
 * of kernel thread (per-CPU kworker, ksoftirqd/N, an IRQ's thread, rcuc/N,
 * ktimers/N, ...), for an IRQ thread the IRQ's number, its actions'
 * device names and its configured and effective affinity, and one line
 * saying what the thread serves and whether the kernel command line
 * already moves or offloads that work for the task's CPU. For a kworker,
 * the workqueue of the work item it runs or last ran (its /proc comm);
 * the work still pending on its pool is not read.
 *
 * A user task may give itself any name ("irq/25-x"): a name says what a
 * thread is only if the kernel marks the task a kernel thread (PF_KTHREAD
 * in /proc/TID/stat), which no user task can set. IRQ action names are
 * chosen by drivers and shown escaped (escape.h).
 */
#ifndef STARVD_TASK_ROLE_H
#define STARVD_TASK_ROLE_H

#include <stdbool.h>
#include <stddef.h>

#include <starvd/abi.h>

enum task_role_kind {
	ROLE_USER,		/* not a kernel thread */
	ROLE_KTHREAD,		/* a kernel thread of no kind below */
	ROLE_KWORKER,		/* kworker/N:M, bound to CPU N */
	ROLE_KWORKER_UNBOUND,	/* kworker/uN:M */
	ROLE_KSOFTIRQD,		/* ksoftirqd/N */
	ROLE_IRQ,		/* irq/N-name */
	ROLE_RCUC,		/* rcuc/N */
	ROLE_RCU_NOCB,		/* rcuog/N, rcuop/N, rcuos/N */
	ROLE_KTIMERS,		/* ktimers/N */
	ROLE_IRQ_WORK,		/* irq_work/N */
	ROLE_CPUHP,		/* cpuhp/N */
	ROLE_MIGRATION,		/* migration/N */
};

struct task_role {
	enum task_role_kind kind;
	int irq;			/* ROLE_IRQ: its number, else -1 */
	char actions[128];		/* ROLE_IRQ: escaped, ","-separated */
	char affinity[64];		/* ROLE_IRQ: smp_affinity_list */
	char effective[64];		/* ROLE_IRQ: effective_affinity_list */
	char workqueue[64];		/* kworkers: of the last work, escaped */
	char about[512];		/* what it serves; "" for ROLE_USER */
};

/* The kind a kernel thread's name says (@kthread false: ROLE_USER). */
enum task_role_kind task_role_kind(const char *comm, bool kthread);
/* "kworker", "irq_thread", ...: the JSON and metrics name of @k. */
const char *task_role_name(enum task_role_kind k);
/*
 * Does the kernel command line @cmdline list @cpu in parameter @param
 * ("rcu_nocbs", "nohz_full", "isolcpus", "irqaffinity")? 1 yes, 0 no,
 * -1 the parameter is absent. isolcpus= flags ("domain,managed_irq,")
 * are skipped; a bare "rcu_nocbs" lists every CPU.
 */
int cmdline_lists_cpu(const char *cmdline, const char *param, int cpu);
/* Fill @r->about for @r->kind on @cpu, with the command line @cmdline. */
void task_role_explain(struct task_role *r, int cpu, const char *cmdline);
/*
 * Everything above for @t, from the /proc tree at @proc ("/proc"; tests
 * give another). 0, or -errno if @t is gone (@r is then ROLE_USER).
 */
int task_role_read(const char *proc, const struct starvd_task *t,
		   struct task_role *r);

#endif
