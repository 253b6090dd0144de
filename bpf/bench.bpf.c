// SPDX-License-Identifier: GPL-2.0
/*
 * Empty programs on the tracepoints starvd uses: the floor that make
 * bench compares starvd's programs against, loaded in the same run.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

SEC("tp_btf/sched_switch")
int BPF_PROG(empty_switch, bool preempt, struct task_struct *prev,
	     struct task_struct *next)
{
	return 0;
}

SEC("tp_btf/sched_wakeup")
int BPF_PROG(empty_wakeup, struct task_struct *p)
{
	return 0;
}
