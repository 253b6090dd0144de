// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What starvd reads of the kernel it runs on (user/util.c): whether it
 * is PREEMPT_RT, from the RT patch set's /sys/kernel/realtime or, on
 * mainline PREEMPT_RT kernels that have no such file, from the version
 * string the kernel was built with.
 */
#include <stdbool.h>

#include "kselftest_harness.h"

#include "util.h"

/* uname -v of the kernels starvd runs on. */
TEST(preempt_rt_from_the_version_string)
{
	/* Mainline PREEMPT_RT, without /sys/kernel/realtime. */
	EXPECT_TRUE(uts_version_preempt_rt("#1 SMP PREEMPT_RT Debian 7.2.12-1 (2026-10-22)"));
	EXPECT_TRUE(uts_version_preempt_rt("#1 SMP PREEMPT_RT Debian 6.12.117-1~deb12u1 (2026-08-20)"));
	EXPECT_TRUE(uts_version_preempt_rt("#1 SMP PREEMPT_RT"));
	/* The older RT patches, and an architecture's prefix. */
	EXPECT_TRUE(uts_version_preempt_rt("#1 SMP PREEMPT RT Tue Jan 4 2022"));
	EXPECT_TRUE(uts_version_preempt_rt("PREEMPT_RT"));
	/* Generic kernels, whatever the preemption model. */
	EXPECT_FALSE(uts_version_preempt_rt("#1 SMP PREEMPT_DYNAMIC Debian 6.12.117-1 (2026-08-20)"));
	EXPECT_FALSE(uts_version_preempt_rt("#1 SMP PREEMPT_LAZY Debian 7.2.12-1 (2026-10-22)"));
	EXPECT_FALSE(uts_version_preempt_rt("#1 SMP Debian 5.10.244-1 (2026-06-01)"));
	EXPECT_FALSE(uts_version_preempt_rt("#1 SMP PREEMPT Fri Jan 1 2021"));
	/* Only the word: a build host or a date that contains it is not. */
	EXPECT_FALSE(uts_version_preempt_rt("#1 SMP xPREEMPT_RT"));
	EXPECT_FALSE(uts_version_preempt_rt("#1 SMP PREEMPT_RTX"));
	EXPECT_FALSE(uts_version_preempt_rt(""));
}

TEST_HARNESS_MAIN
