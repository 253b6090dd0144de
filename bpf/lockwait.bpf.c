// SPDX-License-Identifier: GPL-2.0
/*
 * Who waits for whom: a task iterator for the guests' stall witness
 * (selftests/stallwatch.c -l). For every task blocked on an rt_mutex,
 * which on PREEMPT_RT includes every spinlock_t and local_lock_t, one
 * line follows the chain of owners: each lock, and the task that holds
 * it with its CPU and priority, until an owner that waits for nothing.
 * /proc/PID/stack cannot say this: it leaves out the locking functions.
 *
 * Pinned with "bpftool iter pin lockwait.bpf.o PATH"; each read of PATH
 * walks the tasks again.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>

#include "task_core.h"

char LICENSE[] SEC("license") = "GPL";

#define MAX_CHAIN	4
#define RT_MUTEX_HAS_WAITERS	1UL

SEC("iter/task")
int lockwait(struct bpf_iter__task *ctx)
{
	struct seq_file *seq = ctx->meta->seq;
	struct task_struct *t = ctx->task;
	struct rt_mutex_waiter *w;
	char comm[16];
	int i;

	if (!t)
		return 0;
	w = BPF_CORE_READ(t, pi_blocked_on);
	if (!w)
		return 0;
	BPF_CORE_READ_STR_INTO(&comm, t, comm);
	BPF_SEQ_PRINTF(seq, "%d %s (CPU %u, prio %d)", BPF_CORE_READ(t, pid),
		       comm, task_cpu(t),
		       BPF_CORE_READ(t, prio));
	for (i = 0; i < MAX_CHAIN && w; i++) {
		struct rt_mutex_base *lock = BPF_CORE_READ(w, lock);
		struct task_struct *o;

		o = (void *)((unsigned long)BPF_CORE_READ(lock, owner) &
			     ~RT_MUTEX_HAS_WAITERS);
		BPF_SEQ_PRINTF(seq, " waits for lock %pS", lock);
		if (!o) {
			BPF_SEQ_PRINTF(seq, " with no owner");
			break;
		}
		BPF_CORE_READ_STR_INTO(&comm, o, comm);
		BPF_SEQ_PRINTF(seq, " held by %d %s (CPU %u, prio %d)",
			       BPF_CORE_READ(o, pid), comm,
			       task_cpu(o),
			       BPF_CORE_READ(o, prio));
		w = BPF_CORE_READ(o, pi_blocked_on);
	}
	BPF_SEQ_PRINTF(seq, "\n");
	return 0;
}
