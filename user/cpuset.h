/* SPDX-License-Identifier: GPL-2.0-or-later */
/* CPU lists ("0-3,8,10-11") as used by -c and -a. */
#ifndef STARVD_CPUSET_H
#define STARVD_CPUSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define STARVD_MAX_CPUS 8192

struct cpuset {
	uint64_t bits[STARVD_MAX_CPUS / 64];
};

/*
 * Parse @list into @set. Every CPU must be below @nr_cpus; on error
 * @bad_cpu (if not NULL) holds the first CPU that does not exist, or -1
 * when the list is malformed.
 */
int cpuset_parse(const char *list, int nr_cpus, struct cpuset *set,
		 int *bad_cpu);
bool cpuset_test(const struct cpuset *set, int cpu);
void cpuset_set(struct cpuset *set, int cpu);
int cpuset_count(const struct cpuset *set);
/*
 * Format as a compact list into @buf; a list too long for @len is cut
 * between CPUs and ends with "..." ("0-3,8,..."), which is not a list.
 */
void cpuset_format(const struct cpuset *set, char *buf, size_t len);

/* Number of possible CPUs (highest possible CPU id + 1). */
int cpus_possible(void);
/* Is @cpu online now? Reads sysfs: in a loop over CPUs, use cpus_online(). */
bool cpu_online(int cpu);
/* The CPUs online now (all of them when that cannot be read). */
void cpus_online(struct cpuset *set);

#endif
