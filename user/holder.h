/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The holder of a starving CPU (the task on it) as every line names it:
 * reports, holder stacks, starvctl's tables and top.
 */
#ifndef STARVD_HOLDER_H
#define STARVD_HOLDER_H

#include <stddef.h>

#include <starvd/abi.h>

/* "dpdk-worker-4051, SCHED_FIFO 50", the name escaped (escape.h) */
void format_holder(const struct starvd_task *h, char *buf, size_t len);

#endif
