/* SPDX-License-Identifier: GPL-2.0-or-later */
/* RT throttling (kernel.sched_rt_runtime_us). */
#ifndef STARVD_THROTTLE_H
#define STARVD_THROTTLE_H

#define RT_RUNTIME_PATH "/proc/sys/kernel/sched_rt_runtime_us"

/* Current sched_rt_runtime_us (-1: throttling off); -errno on error. */
int rt_runtime_read(long *us);

#endif
