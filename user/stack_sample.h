/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Samples of a holder (stack.h): one software cpu-clock perf event per
 * CPU, sampling every millisecond with the kernel's callchain and, for
 * user stacks, a copy of the user stack and registers; its ring is read
 * at intervals and the samples of any task but the holder dropped.
 *
 * The kernel frames come as addresses (ksym.h names them), the user
 * stack as bytes for the unwinder (stack_unwind.h). Not thread-safe: one
 * thread samples (stack.c's).
 */
#ifndef STARVD_STACK_SAMPLE_H
#define STARVD_STACK_SAMPLE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "stack_frame.h"

#define STACK_NR_SAMPLES	4	/* taken, at most */
#define STACK_SAMPLE_WAIT_MS	50	/* the holder may not run at all */

/*
 * x86_64's user registers in perf_regs.h's order: AX BX CX DX SI DI BP
 * SP IP, then R8 to R15.
 */
#define STACK_NR_USER_REGS	17
#define STACK_REG_BP		6
#define STACK_REG_SP		7
#define STACK_REG_IP		8

struct stack_sample {
	unsigned int nr_kernel;
	uint64_t kernel[STACK_MAX_FRAMES];
	uint64_t abi;			/* PERF_SAMPLE_REGS_ABI_* */
	uint64_t regs[STACK_NR_USER_REGS];
	uint64_t stack_size;		/* bytes valid in stack */
	unsigned char *stack;		/* from regs[STACK_REG_SP] up */
	/* The unwinder's (stack_unwind.h): return addresses, and why few. */
	uint64_t user[STACK_MAX_FRAMES];
	unsigned int nr_user;
	char user_note[256];
};

struct stack_sampler;

/* @user: copy user stacks and registers too. NULL if out of memory. */
struct stack_sampler *stack_sampler_open(bool user);
/*
 * Sample thread @tid on @cpu for up to STACK_SAMPLE_WAIT_MS, into @smp
 * (STACK_NR_SAMPLES of them): their number, -errno if the CPU's event
 * cannot be opened. Free them with stack_samples_free().
 */
int stack_sample(struct stack_sampler *sp, pid_t tid, int cpu,
		 struct stack_sample *smp);
void stack_samples_free(struct stack_sample *smp, unsigned int n);
/*
 * Of @n samples, the index of the stack most of them have (the later
 * one of a tie), and in *@count how many have it.
 */
unsigned int stack_most_common(const struct stack_sample *smp,
			       unsigned int n, unsigned int *count);
/*
 * Closes the events; on PREEMPT_RT each close waits for an RCU grace
 * period, so it comes last when starvd stops.
 */
void stack_sampler_close(struct stack_sampler *sp);

#endif
