/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * starvctl metrics: Prometheus text exposition format (version 0.0.4) for
 * node_exporter's textfile collector. Live per-CPU wait data from the
 * backend, the daemon's counters from its state file.
 */
#ifndef STARVD_METRICS_H
#define STARVD_METRICS_H

#include <stdbool.h>
#include <stdio.h>

#include <starvd/abi.h>

#include "status_file.h"

struct metrics_input {
	const struct daemon_status *daemon;	/* NULL: no daemon running */
	const char *backend;			/* starvctl's backend, or NULL */
	const struct starvd_cpu *cpus;		/* NULL: backend unreadable */
	int nr_cpus;
};

void metrics_print(FILE *f, const struct metrics_input *in);

#endif
