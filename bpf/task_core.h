/* SPDX-License-Identifier: GPL-2.0 */
/*
 * task_struct fields that moved between kernels, read with CO-RE: one
 * definition for every BPF program of bpf/.
 */
#ifndef _STARVD_TASK_CORE_H
#define _STARVD_TASK_CORE_H

#include <bpf/bpf_core_read.h>

/* Linux 5.14 renamed task_struct.state to __state. */
struct task_struct___pre514 {
	long state;
} __attribute__((preserve_access_index));

/* Linux 5.16 moved the CPU of a task into thread_info on x86. */
struct task_struct___pre516 {
	unsigned int cpu;
} __attribute__((preserve_access_index));

static __always_inline long task_state(struct task_struct *t)
{
	struct task_struct___pre514 *old = (void *)t;

	if (bpf_core_field_exists(t->__state))
		return BPF_CORE_READ(t, __state);
	return BPF_CORE_READ(old, state);
}

static __always_inline int task_cpu(struct task_struct *t)
{
	struct task_struct___pre516 *old = (void *)t;

	if (bpf_core_field_exists(t->thread_info.cpu))
		return BPF_CORE_READ(t, thread_info.cpu);
	return BPF_CORE_READ(old, cpu);
}

/*
 * task_struct.on_cpu and on_rq are int up to 6.18 and u8 in 7.2. The
 * local type (int) would read 4 bytes there: on_cpu with on_rq beside
 * it (a queued task would look on a CPU) and on_rq with the bytes after
 * it. Read each at the kernel's size.
 */
static __always_inline int task_on_cpu(struct task_struct *t)
{
	return BPF_CORE_READ_BITFIELD_PROBED(t, on_cpu);
}

static __always_inline int task_on_rq(struct task_struct *t)
{
	return BPF_CORE_READ_BITFIELD_PROBED(t, on_rq);
}

#endif
