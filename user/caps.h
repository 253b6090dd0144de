/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Capabilities: starvd needs many to start (loading BPF programs, locking
 * its memory, scheduling itself) and few to run. These check what
 * starting needs and drop what the run loop does not use; capset.h reads
 * and names the sets.
 */
#ifndef STARVD_CAPS_H
#define STARVD_CAPS_H

#include "backend.h"
#include "options.h"

/*
 * Before anything else: boosting other tasks needs CAP_SYS_NICE, unless
 * starvd only reports (-l). Returns -1 after saying what to do when the
 * process lacks it.
 */
int caps_check_start(const struct config *cfg);

/*
 * Once the backend, the journal and protect_self() are set up, keep only
 * the capabilities the run loop uses: CAP_SYS_NICE (boosts; not with -l),
 * CAP_SYS_ADMIN + CAP_SYS_PTRACE + CAP_DAC_READ_SEARCH (--kstack),
 * CAP_IPC_LOCK (--mlock), and what the backend declares its reads need
 * (struct backend_ops: CAP_NET_ADMIN for the module; for BPF, CAP_BPF or
 * CAP_SYS_ADMIN only if a read fails without it, on kernels before 6.5
 * with unprivileged BPF disabled). Everything else
 * leaves the effective, permitted, inheritable, ambient and (given
 * CAP_SETPCAP) bounding sets; no_new_privs is set. Logs what it kept.
 * Returns -1 after logging when it cannot.
 */
int caps_drop(const struct config *cfg, struct backend *b);

#endif
