/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Starvation reports: who waited, where, for how long, behind whom. */
#ifndef STARVD_REPORT_H
#define STARVD_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <starvd/abi.h>

/*
 * "comm-tid starved on CPU n for s seconds (...)", stalld's wording first.
 * @holder may be NULL (unknown). @log_only marks a report without boost.
 */
void report_starving(const struct starvd_task *t, uint64_t read_time_ns,
		     const struct starvd_task *holder, bool log_only,
		     bool kstack);

/* "dpdk-worker-4051, SCHED_FIFO 50" */
void format_holder(const struct starvd_task *h, char *buf, size_t len);

#endif
