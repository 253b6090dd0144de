// SPDX-License-Identifier: GPL-2.0
/*
 * The softirqs pending on a starving ksoftirqd's CPU, read when starvd
 * reports it: a task iterator that, for the one task the reader names,
 * prints
 *
 *   T TID           the task was found
 *   S MASK          the softirqs pending on its CPU (decimal bit mask)
 *
 * The mask is a per-CPU variable whose name and type depend on the
 * kernel (docs/kernel-behaviours.md, "Where the pending softirqs are
 * kept"): weak typed ksyms find the one there is. An object of its own,
 * loaded after starvd's: libbpf resolves an object's externs whether or
 * not the programs that use them load, and looks for one missing from
 * the kernel's BTF in the modules' BTF, which needs CAP_SYS_ADMIN;
 * without it, or without the variable in the kernel's BTF (5.11 on) and
 * in kallsyms (CONFIG_KALLSYMS_ALL), this object alone does not load or
 * prints no S line, and a report says so.
 *
 * Nothing is attached: the iterator runs when the reader reads it.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>

#include "task_core.h"
#include "pending_core.h"

char LICENSE[] SEC("license") = "GPL";

/* The task to read: written by the reader before each read (.bss). */
__u32 softirqs_tid;

/* Where each x86 kernel keeps the pending softirqs; others: irq_stat. */
extern u16 __softirq_pending __ksym __weak;		/* x86, 6.15 on */
extern struct pcpu_hot pcpu_hot __ksym __weak;		/* x86, 6.2 to 6.14 */
extern irq_cpustat_t irq_stat __ksym __weak;		/* first member */

static __always_inline int softirq_pending(int cpu, u32 *mask)
{
	u16 v = 0;

	if (&__softirq_pending) {
		u16 *p = bpf_per_cpu_ptr(&__softirq_pending, cpu);

		if (!p)
			return -1;
		bpf_probe_read_kernel(&v, sizeof(v), p);
	} else if (&pcpu_hot) {
		struct pcpu_hot *h = bpf_per_cpu_ptr(&pcpu_hot, cpu);

		if (!h)
			return -1;
		v = BPF_CORE_READ(h, softirq_pending);
	} else if (&irq_stat) {
		/*
		 * __softirq_pending comes first: u16 on x86 up to 6.1,
		 * unsigned int elsewhere, whose low half (little endian)
		 * holds every vector there is (NR_SOFTIRQS is 10).
		 */
		irq_cpustat_t *s = bpf_per_cpu_ptr(&irq_stat, cpu);

		if (!s)
			return -1;
		bpf_probe_read_kernel(&v, sizeof(v), s);
	} else {
		return -1;
	}
	*mask = v;
	return 0;
}

SEC("iter/task")
int pending_softirqs(struct bpf_iter__task *ctx)
{
	struct task_struct *t = pending_target(ctx, softirqs_tid);
	u32 mask;

	if (t && !softirq_pending(task_cpu(t), &mask))
		BPF_SEQ_PRINTF(ctx->meta->seq, "S %u\n", mask);
	return 0;
}
