/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The capability sets of this process, read and named: which capabilities
 * it holds, and in words which it lacks and why. caps.h decides what to
 * keep; backend.c says what a backend lacks to open.
 */
#ifndef STARVD_CAPSET_H
#define STARVD_CAPSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A capability (CAP_* of <linux/capability.h>) as a bit of a mask. */
#define CAP_BIT(c)	(1ULL << (c))

/* The capabilities the running kernel knows (CAP_BPF came in 5.8). */
int capset_nr(void);

/* This process's effective and permitted sets, as CAP_BIT() masks. */
uint64_t capset_effective(void);
uint64_t capset_permitted(void);

/* "CAP_BPF", "CAP_BPF and CAP_PERFMON", "CAP_A, CAP_B and CAP_C". */
void capset_names(uint64_t mask, char *buf, size_t len);

/*
 * Why this process lacks @missing: "this process lacks CAP_BPF (it runs
 * as uid 65534, not as root)", or as root, that its bounding set or its
 * effective set does not hold them.
 */
void capset_explain(uint64_t missing, char *buf, size_t len);

/*
 * Does this process lack some of @need (CAP_BIT() masks), with not all of
 * @alt to do instead (e.g. CAP_BPF and CAP_PERFMON, or CAP_SYS_ADMIN)? If
 * so, @buf says which and why ("this process lacks CAP_BPF and
 * CAP_PERFMON (it runs as uid 65534, not as root)") and it returns true;
 * false and "" otherwise. A kernel that does not know a capability of
 * @need lacks @alt instead.
 */
bool capset_explain_missing(uint64_t need, uint64_t alt, char *buf,
			    size_t len);

#endif
