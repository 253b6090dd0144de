/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sched_setattr(2)/sched_getattr(2) and names for scheduling policies. */
#ifndef STARVD_SCHED_ATTR_H
#define STARVD_SCHED_ATTR_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifndef SCHED_DEADLINE
#define SCHED_DEADLINE 6
#endif
#ifndef SCHED_FLAG_RESET_ON_FORK
#define SCHED_FLAG_RESET_ON_FORK 0x01
#endif
/* A kernel prio (struct starvd_task's) below this is a real-time task's. */
#define MAX_RT_PRIO	100

/*
 * struct sched_attr is the system's where it has one: <linux/sched/types.h>
 * defines it with SCHED_ATTR_SIZE_VER0, and glibc 2.41's <sched.h> includes
 * that header or defines both itself. glibc 2.36 and older have neither:
 * this is the kernel's VER1 layout (56 bytes).
 */
#ifndef SCHED_ATTR_SIZE_VER0
struct sched_attr {
	uint32_t size;
	uint32_t sched_policy;
	uint64_t sched_flags;
	int32_t sched_nice;
	uint32_t sched_priority;
	uint64_t sched_runtime;
	uint64_t sched_deadline;
	uint64_t sched_period;
	uint32_t sched_util_min;
	uint32_t sched_util_max;
};
#endif

int sched_getattr_tid(pid_t tid, struct sched_attr *attr);
int sched_setattr_tid(pid_t tid, const struct sched_attr *attr);
/*
 * Set @to on a task now @cur, a SCHED_DEADLINE one that @to takes out of
 * the class, with no bandwidth left behind for the kernel to lose track
 * of (sched_attr.c says how).
 */
int sched_setattr_leave_deadline(pid_t tid, const struct sched_attr *cur,
				 const struct sched_attr *to);

/* The attributes that define how a task is scheduled, util clamps aside. */
bool sched_attr_same(const struct sched_attr *a, const struct sched_attr *b);

const char *policy_name(unsigned int policy);
/* "SCHED_FIFO 50", "SCHED_OTHER nice 0", "SCHED_DEADLINE 20us/1s". */
void sched_attr_format(const struct sched_attr *a, char *buf, size_t len);
/* Kernel prio (0..139) to the user-visible value of the policy. */
int prio_to_user(unsigned int policy, int prio);
/* Human duration: "20us", "1s", "1.5ms". */
void format_ns(uint64_t ns, char *buf, size_t len);

#endif
