/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the BPF programs (starvd.bpf.c) and their loader
 * (user/backend_bpf.c) share besides the records of include/starvd/abi.h.
 */
#ifndef _STARVD_BPF_H
#define _STARVD_BPF_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/* CPUs the programs can filter on: the size of the CPU mask. */
#define STARVD_BPF_MAX_CPUS	8192

/* Per-read inputs: written by the reader before each read (.bss). */
struct starvd_bpf_input {
	__u64 cpu_mask[STARVD_BPF_MAX_CPUS / 64];
	__u64 min_wait_ns;
	__u64 now_ns;		/* CLOCK_MONOTONIC when the read began */
	__u64 nr_switches;	/* reader's nvcsw + nivcsw, before now_ns */
	__u8 cpu_filter;	/* 0: every CPU */
};

/* Written by the programs (.bss), read by the loader. */
struct starvd_bpf_state {
	/*
	 * CLOCK_MONOTONIC - scheduler clock: 0 until a calibration
	 * succeeded, then kept when one cannot be made.
	 */
	__s64 offset;
	__u64 read_ns;		/* CLOCK_MONOTONIC every wait refers to */
	/* The reader as the previous read saw it. */
	__u64 reader_pcount;
	__u64 reader_nvcsw;
	__u64 reader_nivcsw;
	__u32 reader_tid;
	__u32 pad;
};

/* Tracking mode, one per CPU (a per-CPU array). */
struct starvd_bpf_cpu {
	__u64 nr_dropped;	/* waits not tracked: table full */
};

#endif
