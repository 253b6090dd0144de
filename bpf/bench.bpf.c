// SPDX-License-Identifier: GPL-2.0
/*
 * Empty programs on the tracepoints starvd uses: the floor that make
 * bench compares starvd's programs against, loaded in the same run; and
 * a switch-in stamp, the reference for the clock calibration's error.
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

/* When the task target_tid was last switched in: the calibration bench. */
__u32 target_tid;
__u64 switch_in_ns;

SEC("tp_btf/sched_switch")
int BPF_PROG(stamp_switch, bool preempt, struct task_struct *prev,
	     struct task_struct *next)
{
	if (next->pid == target_tid)
		switch_in_ns = bpf_ktime_get_ns();
	return 0;
}
