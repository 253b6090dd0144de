/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What bpf/pending.bpf.c and bpf/softirqs.bpf.c share: the task the
 * reader asked for, announced with a "T TID" line.
 */
#ifndef _STARVD_PENDING_CORE_H
#define _STARVD_PENDING_CORE_H

#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>

/* The iterator's task if it is @tid's (a T line says so), else NULL. */
static __always_inline struct task_struct *
pending_target(struct bpf_iter__task *ctx, __u32 tid)
{
	struct task_struct *t = ctx->task;

	if (!t || !tid || BPF_CORE_READ(t, pid) != tid)
		return NULL;
	BPF_SEQ_PRINTF(ctx->meta->seq, "T %u\n", tid);
	return t;
}

#endif
