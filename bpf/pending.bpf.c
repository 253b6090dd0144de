// SPDX-License-Identifier: GPL-2.0
/*
 * What a starving kworker is there to do, read when starvd reports it: a
 * task iterator that, for the one task the reader names, prints lines
 * (bpf/softirqs.bpf.c does the same for ksoftirqd):
 *
 *   T TID           the task was found
 *   Q               it is a workqueue worker and its pool was read
 *   R WQ SYMBOL     the work item it runs, preempted in the middle of it
 *   W WQ SYMBOL     a work item queued on its pool (the first MAX_SHOWN)
 *   N COUNT         how many are queued on its pool and assigned to it
 *                   (worker->scheduled), each list counted up to MAX_COUNT
 *
 * WQ is the work item's workqueue ("-" when it cannot be told), as the
 * kernel named it (kernel code names workqueues: no space or newline;
 * the reader escapes it as any name); SYMBOL is the kernel's "%pB" of
 * the work function + 1, "name+0x1/0xsize [module]": "%pB" names the
 * function holding the byte before the address (as for a return address),
 * and prints the address's offset in it. The reader keeps only names of
 * that shape, never an address.
 *
 * Linked into starvd's object with bpf/starvd.bpf.c (its license, one
 * load, one read of the kernel's BTF): see the Makefile.
 *
 * Nothing is attached: the iterator runs when the reader reads it. The
 * lists are walked without the pool's lock, with bpf_probe_read_kernel():
 * a list that changes under the walk gives fewer items, or a function
 * the reader does not accept, never a fault.
 *
 * Kernel interfaces: the task iterator and bpf_seq_printf() (5.8), %pB
 * in it (5.9). Where it does not load, the loader loads the object
 * without it.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>

#include "task_core.h"
#include "pending_core.h"

#define PF_WQ_WORKER	0x00000020	/* include/linux/sched.h */
#define WORK_STRUCT_PWQ	0x4UL		/* include/linux/workqueue.h */
/*
 * A pool_workqueue is aligned to 1 << WORK_STRUCT_FLAG_BITS, 256 bytes
 * without CONFIG_DEBUG_OBJECTS_WORK; with it, the pointer this mask gives
 * fails the check against the worker's pool, and WQ is "-".
 */
#define WORK_STRUCT_WQ_DATA_MASK	(~0xffUL)

#define MAX_SHOWN	8	/* W lines */
#define MAX_COUNT	64	/* items counted on a list */
#define WQ_NAME_LEN	32

/* The task to read: written by the reader before each read (.bss). */
__u32 pending_tid;

/* Linux 5.17 moved a kthread's struct kthread to worker_private. */
struct task_struct___pre517 {
	int *set_child_tid;
} __attribute__((preserve_access_index));

static __always_inline struct worker *task_worker(struct task_struct *t)
{
	struct task_struct___pre517 *old = (void *)t;
	struct kthread *k;
	struct worker *w;

	if (!(BPF_CORE_READ(t, flags) & PF_WQ_WORKER))
		return NULL;
	if (bpf_core_field_exists(t->worker_private))
		k = BPF_CORE_READ(t, worker_private);
	else
		k = (void *)BPF_CORE_READ(old, set_child_tid);
	w = BPF_CORE_READ(k, data);
	/* Only a worker that names this task back is read. */
	if (!w || BPF_CORE_READ(w, task) != t)
		return NULL;
	return w;
}

/* @pwq's workqueue name, if @pwq serves @pool; "-" if it cannot be told. */
static __always_inline void wq_name(struct pool_workqueue *pwq,
				    struct worker_pool *pool, char *name)
{
	struct workqueue_struct *wq;

	name[0] = '-';
	name[1] = '\0';
	if (!pwq || BPF_CORE_READ(pwq, pool) != pool)
		return;
	wq = BPF_CORE_READ(pwq, wq);
	if (!wq ||
	    bpf_probe_read_kernel_str(name, WQ_NAME_LEN, &wq->name) <= 0) {
		name[0] = '-';
		name[1] = '\0';
	}
}

/* One work item of @pool as a W line. */
static __always_inline void put_work(struct seq_file *seq,
				     struct work_struct *work,
				     struct worker_pool *pool)
{
	unsigned long func = (unsigned long)BPF_CORE_READ(work, func);
	unsigned long data = BPF_CORE_READ(work, data.counter);
	struct pool_workqueue *pwq = NULL;
	char name[WQ_NAME_LEN];

	if (data & WORK_STRUCT_PWQ)
		pwq = (void *)(data & WORK_STRUCT_WQ_DATA_MASK);
	wq_name(pwq, pool, name);
	BPF_SEQ_PRINTF(seq, "W %s %pB\n", name, (void *)(func + 1));
}

/*
 * The work items of list @head (in @pool): up to @room of them shown,
 * then the rest counted, up to MAX_COUNT more. Two loops, so that the
 * verifier walks the costly one MAX_SHOWN times, not MAX_COUNT.
 */
static __always_inline int walk(struct seq_file *seq, struct list_head *head,
				struct worker_pool *pool, int room)
{
	unsigned long off = bpf_core_field_offset(struct work_struct, entry);
	struct list_head *pos = BPF_CORE_READ(head, next);
	int i, n = 0;

	for (i = 0; i < MAX_SHOWN; i++) {
		if (i >= room || !pos || pos == head)
			break;
		put_work(seq, (void *)pos - off, pool);
		pos = BPF_CORE_READ(pos, next);
		n++;
	}
	for (i = 0; i < MAX_COUNT; i++) {
		if (!pos || pos == head)
			break;
		pos = BPF_CORE_READ(pos, next);
		n++;
	}
	return n;
}

SEC("iter/task")
int pending_work(struct bpf_iter__task *ctx)
{
	struct task_struct *t = pending_target(ctx, pending_tid);
	struct seq_file *seq = ctx->meta->seq;
	struct list_head *scheduled, *worklist;
	struct worker_pool *pool;
	char name[WQ_NAME_LEN];
	struct worker *w;
	unsigned long func;
	int n;

	w = t ? task_worker(t) : NULL;
	pool = w ? BPF_CORE_READ(w, pool) : NULL;
	if (!pool)
		return 0;
	BPF_SEQ_PRINTF(seq, "Q\n");
	func = (unsigned long)BPF_CORE_READ(w, current_func);
	if (func) {
		wq_name(BPF_CORE_READ(w, current_pwq), pool, name);
		BPF_SEQ_PRINTF(seq, "R %s %pB\n", name, (void *)(func + 1));
	}
	/*
	 * The items queued on its pool, shown; then those assigned to this
	 * worker, only counted: with both shown the verifier walks several
	 * times as many states (the second list's room is not a constant).
	 */
	scheduled = (void *)w + bpf_core_field_offset(struct worker, scheduled);
	worklist = (void *)pool +
		   bpf_core_field_offset(struct worker_pool, worklist);
	n = walk(seq, worklist, pool, MAX_SHOWN);
	n += walk(seq, scheduled, pool, 0);
	BPF_SEQ_PRINTF(seq, "N %d\n", n);
	return 0;
}
