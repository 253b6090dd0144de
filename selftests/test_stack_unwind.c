// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The unwinder of holder stacks (user/stack_unwind.c) on a sample with no
 * perf event: this process records its own registers and a copy of its
 * stack, as perf copies a holder's, and the unwinder names the functions
 * that called the recording, from the registers in perf's order, the
 * binary's CFI and the copy alone. A sample it cannot follow says why.
 */
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "stack_unwind.h"

#define COPY_BYTES	16384	/* what starvd asks perf to copy */

/*
 * The registers where this function runs and the stack above them,
 * copied up to COPY_BYTES or the stack's top; -1 where starvd unwinds
 * nothing (the registers are x86_64's).
 */
static __attribute__((noinline)) int record(struct stack_sample *smp)
{
#ifdef __x86_64__
	uint64_t ip, sp, bp, top;
	pthread_attr_t attr;
	size_t size;
	void *base;

	if (!stack_unwind_supported())
		return -1;
	/* One instruction apart: the CFI of @ip applies to @sp. */
	__asm__ __volatile__("lea 0(%%rip), %0\n\tmov %%rsp, %1\n\tmov %%rbp, %2"
			     : "=r"(ip), "=r"(sp), "=r"(bp));
	if (pthread_getattr_np(pthread_self(), &attr))
		return -1;
	pthread_attr_getstack(&attr, &base, &size);
	pthread_attr_destroy(&attr);
	top = (uintptr_t)base + size;
	smp->abi = PERF_SAMPLE_REGS_ABI_64;
	smp->regs[STACK_REG_IP] = ip;
	smp->regs[STACK_REG_SP] = sp;
	smp->regs[STACK_REG_BP] = bp;
	smp->stack_size = top - sp < COPY_BYTES ? top - sp : COPY_BYTES;
	smp->stack = malloc(smp->stack_size);
	if (!smp->stack)
		return -1;
	memcpy(smp->stack, (void *)(uintptr_t)sp, smp->stack_size);
	return 0;
#else
	return -1;
#endif
}

/* Callers that stay on the stack: no tail call. */
static __attribute__((noinline)) int record_inner(struct stack_sample *smp)
{
	int ret = record(smp);

	__asm__ __volatile__("" ::: "memory");
	return ret;
}

static __attribute__((noinline)) int record_outer(struct stack_sample *smp)
{
	int ret = record_inner(smp);

	__asm__ __volatile__("" ::: "memory");
	return ret;
}

FIXTURE(recorded) {
	struct stack_sample smp;
	struct stack_unwinder *u;
	char note[256];
};

FIXTURE_SETUP(recorded)
{
	memset(&self->smp, 0, sizeof(self->smp));
	if (record_outer(&self->smp))
		SKIP(return, "this build unwinds no user stack (LIBDW=0, or not x86_64)");
	self->u = stack_unwinder_open(getpid(), gettid(), self->note,
				      sizeof(self->note));
	ASSERT_TRUE(self->u != NULL) TH_LOG("%s", self->note);
}

FIXTURE_TEARDOWN(recorded)
{
	stack_unwinder_close(self->u);
	free(self->smp.stack);
}

/* The frame where it ran, then its callers, each by its symbol. */
TEST_F(recorded, names_the_callers)
{
	static const char *const want[] = {
		"record", "record_inner", "record_outer",
	};
	struct stack_frame f;
	unsigned int i;

	stack_unwind(self->u, &self->smp);
	ASSERT_LT(ARRAY_SIZE(want), self->smp.nr_user)
		TH_LOG("%u frame(s): %s", self->smp.nr_user,
		       self->smp.user_note);
	for (i = 0; i < ARRAY_SIZE(want); i++) {
		memset(&f, 0, sizeof(f));
		stack_unwind_name(self->u, self->smp.user[i], !i, &f);
		EXPECT_STREQ(want[i], f.symbol) TH_LOG("frame %u", i);
		EXPECT_NE(0, f.module[0]);
		EXPECT_NE(UINT64_MAX, f.file_offset);
	}
}

/*
 * The same sample with no stack copied: the frame where it ran, then a
 * note that the next one is beyond the copy, not a frame made up.
 */
TEST_F(recorded, stops_at_the_end_of_the_copy)
{
	const char *want = "1 frame(s) unwound, then stopped: the next frame is beyond the 0 bytes";

	self->smp.stack_size = 0;
	stack_unwind(self->u, &self->smp);
	EXPECT_EQ(1, self->smp.nr_user);
	EXPECT_EQ(0, strncmp(self->smp.user_note, want, strlen(want)))
		TH_LOG("note: %s", self->smp.user_note);
}

TEST_F(recorded, a_32_bit_task_is_not_unwound)
{
	self->smp.abi = PERF_SAMPLE_REGS_ABI_32;
	stack_unwind(self->u, &self->smp);
	EXPECT_EQ(0, self->smp.nr_user);
	EXPECT_STREQ("not unwound: a 32-bit task", self->smp.user_note);
}

TEST_HARNESS_MAIN
