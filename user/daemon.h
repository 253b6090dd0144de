/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Process plumbing: daemonizing, pidfile, protecting starvd itself. */
#ifndef STARVD_DAEMON_H
#define STARVD_DAEMON_H

#include "options.h"

/*
 * Fork into the background. The parent returns only in the child; it
 * exits once the child calls daemon_ready() (status 0) or dies (1).
 */
int daemonize(void);
void daemon_ready(void);

/*
 * Write the PID to @path: a file of starvd's uid, writable by no one else,
 * never through a symbolic link (run_dir.h): one that is not is left as
 * it is. 0 or -errno, explained in @err.
 */
int pidfile_write(const char *path, char *err, size_t len);
void pidfile_remove(const char *path);

/*
 * Affinity (-a) for starvd itself, before anything else it does: 0, or -1
 * after logging why it cannot be applied.
 */
int pin_self(const struct config *cfg);

/*
 * Have malloc() give each block of 128 KiB or more a mapping of its own,
 * unmapped when freed (daemon.c says why): first thing, before the BPF
 * objects are loaded.
 */
void malloc_map_large_blocks(void);
/*
 * Lock starvd's memory, every page it maps from now on too, with
 * malloc_map_large_blocks(). 0 or -errno.
 */
int lock_memory(void);
/*
 * Memory locking (--mlock) and a SCHED_DEADLINE
 * reservation (-R) for starvd itself. Returns -1 after logging a message
 * when a requested protection cannot be applied.
 */
int protect_self(const struct config *cfg);
/*
 * Where the calling thread of starvd runs now: its only CPU (-1: it may
 * run on several) and its SCHED_FIFO or SCHED_RR priority (0: another
 * policy). Read at each decision that depends on it, never kept: taskset,
 * tuned or a cpuset change may move a running starvd.
 */
void own_scheduling(int *only_cpu, int *rt_prio);

#endif
