// SPDX-License-Identifier: GPL-2.0-or-later
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpuset.h"
#include "util.h"

bool cpuset_test(const struct cpuset *set, int cpu)
{
	if (cpu < 0 || cpu >= STARVD_MAX_CPUS)
		return false;
	return set->bits[cpu / 64] & (1ULL << (cpu % 64));
}

void cpuset_set(struct cpuset *set, int cpu)
{
	if (cpu >= 0 && cpu < STARVD_MAX_CPUS)
		set->bits[cpu / 64] |= 1ULL << (cpu % 64);
}

int cpuset_count(const struct cpuset *set)
{
	int i, n = 0;

	for (i = 0; i < (int)ARRAY_SIZE(set->bits); i++)
		n += __builtin_popcountll(set->bits[i]);
	return n;
}

static int parse_cpu(const char **p, long *cpu)
{
	char *end;

	if (!isdigit((unsigned char)**p))
		return -EINVAL;
	errno = 0;
	*cpu = strtol(*p, &end, 10);
	if (errno || *cpu >= STARVD_MAX_CPUS)
		return -ERANGE;
	*p = end;
	return 0;
}

int cpuset_parse(const char *list, int nr_cpus, struct cpuset *set,
		 int *bad_cpu)
{
	const char *p = list;
	long lo, hi, c;

	memset(set, 0, sizeof(*set));
	if (bad_cpu)
		*bad_cpu = -1;
	if (!list || !*list)
		return -EINVAL;
	for (;;) {
		if (parse_cpu(&p, &lo))
			return -EINVAL;
		hi = lo;
		if (*p == '-') {
			p++;
			if (parse_cpu(&p, &hi) || hi < lo)
				return -EINVAL;
		}
		if (hi >= nr_cpus) {
			if (bad_cpu)
				*bad_cpu = lo >= nr_cpus ? lo : nr_cpus;
			return -ENODEV;
		}
		for (c = lo; c <= hi; c++)
			cpuset_set(set, c);
		if (*p == '\0')
			return 0;
		if (*p++ != ',')
			return -EINVAL;
	}
}

/* Whole "a" or "a-b" items while they fit in @len; false if some did not. */
static bool format_items(const struct cpuset *set, char *buf, size_t len)
{
	size_t off = 0;
	char item[32];
	int c, end, n;

	buf[0] = '\0';
	for (c = 0; c < STARVD_MAX_CPUS; c = end + 1) {
		end = c;
		if (!cpuset_test(set, c))
			continue;
		while (cpuset_test(set, end + 1))
			end++;
		if (end == c)
			n = snprintf(item, sizeof(item), "%s%d", off ? "," : "",
				     c);
		else
			n = snprintf(item, sizeof(item), "%s%d-%d",
				     off ? "," : "", c, end);
		if (off + n >= len)
			return false;
		memcpy(buf + off, item, n + 1);
		off += n;
	}
	return true;
}

void cpuset_format(const struct cpuset *set, char *buf, size_t len)
{
	static const char more[] = ",...";

	if (!len || format_items(set, buf, len))
		return;
	/*
	 * Cut between CPUs and say so: "0-3,1" for "0-3,10-11" would read as
	 * another valid list.
	 */
	if (len < sizeof(more)) {
		buf[0] = '\0';
		return;
	}
	format_items(set, buf, len - (sizeof(more) - 1));
	strcat(buf, buf[0] ? more : more + 1);
}

int cpus_possible(void)
{
	struct cpuset set;
	char buf[256];
	int c;

	if (read_line("/sys/devices/system/cpu/possible", buf, sizeof(buf)) ||
	    cpuset_parse(buf, STARVD_MAX_CPUS, &set, NULL))
		return 1;
	for (c = STARVD_MAX_CPUS - 1; c > 0; c--)
		if (cpuset_test(&set, c))
			break;
	return c + 1;
}

void cpus_online(struct cpuset *set)
{
	char buf[1024];

	if (read_line("/sys/devices/system/cpu/online", buf, sizeof(buf)) ||
	    cpuset_parse(buf, STARVD_MAX_CPUS, set, NULL))
		memset(set->bits, 0xff, sizeof(set->bits));
}

bool cpu_online(int cpu)
{
	struct cpuset set;

	cpus_online(&set);
	return cpuset_test(&set, cpu);
}
