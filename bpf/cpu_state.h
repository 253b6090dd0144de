/* SPDX-License-Identifier: GPL-2.0 */
/* Per-CPU state of the BPF programs, shared with their loader. */
#ifndef _STARVD_BPF_CPU_STATE_H
#define _STARVD_BPF_CPU_STATE_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

struct cpu_state {
	__u64 nr_events;	/* context switches seen */
	__u64 nr_dropped;	/* waits not tracked: table full */
	__u64 switch_ns;	/* CLOCK_MONOTONIC: reader last switched in */
	__u64 switch_pcount;	/* reader's sched_info.pcount before it */
};

#endif
