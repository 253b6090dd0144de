// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * CPU lists (-c, -a, /sys/devices/system/cpu/{possible,online}): the
 * input is the list. A list accepted for a small machine is accepted, the
 * same, for the largest; an accepted list formats back to a list that
 * parses to the same set; a list formatted into a buffer too small for it
 * never reads back as a different valid list.
 */
#include <errno.h>

#include "cpuset.h"
#include "fuzz.h"
#include "util.h"

#define SMALL_NR_CPUS	4
/* "NNNN," for every CPU, and the NUL. */
#define FULL_LEN	(STARVD_MAX_CPUS * 5 + 1)

static void check_parse(const char *list, int nr_cpus, struct cpuset *set,
			int *ret)
{
	int bad = -2, c;

	*ret = cpuset_parse(list, nr_cpus, set, &bad);
	FUZZ_CHECK(*ret == 0 || *ret == -EINVAL || *ret == -ENODEV);
	if (*ret == -ENODEV)
		FUZZ_CHECK(bad >= nr_cpus && bad < STARVD_MAX_CPUS);
	else
		FUZZ_CHECK(bad == -1);
	if (*ret)
		return;
	FUZZ_CHECK(cpuset_count(set) > 0);
	for (c = nr_cpus; c < STARVD_MAX_CPUS; c++)
		FUZZ_CHECK(!cpuset_test(set, c));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const size_t small_lens[] = { 1, 2, 4, 7, 16, 64, 256 };
	static struct cpuset set, big, back;
	static char full[FULL_LEN], small[256];
	char *list = fuzz_string(data, size);
	int ret, big_ret;
	size_t i;

	check_parse(list, SMALL_NR_CPUS, &set, &ret);
	check_parse(list, STARVD_MAX_CPUS, &big, &big_ret);
	if (!ret) {
		FUZZ_CHECK(!big_ret);
		FUZZ_CHECK(!memcmp(&set, &big, sizeof(set)));
	}
	if (!big_ret) {
		cpuset_format(&big, full, sizeof(full));
		FUZZ_CHECK(strlen(full) < sizeof(full) - 1);
		check_parse(full, STARVD_MAX_CPUS, &back, &ret);
		FUZZ_CHECK(!ret);
		FUZZ_CHECK(!memcmp(&big, &back, sizeof(big)));
		for (i = 0; i < ARRAY_SIZE(small_lens); i++) {
			cpuset_format(&big, small, small_lens[i]);
			FUZZ_CHECK(strlen(small) < small_lens[i]);
			if (!cpuset_parse(small, STARVD_MAX_CPUS, &back, NULL))
				FUZZ_CHECK(!memcmp(&big, &back, sizeof(big)));
		}
	}
	free(list);
	return 0;
}
