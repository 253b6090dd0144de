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

#endif
