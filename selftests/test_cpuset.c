// SPDX-License-Identifier: GPL-2.0-or-later
/* CPU list parsing and formatting. */
#include <errno.h>

#include "kselftest_harness.h"

#include "cpuset.h"

TEST(ranges_and_singles)
{
	struct cpuset s;
	char buf[64];

	ASSERT_EQ(0, cpuset_parse("0-2,5,7-8", 16, &s, NULL));
	EXPECT_EQ(6, cpuset_count(&s));
	EXPECT_TRUE(cpuset_test(&s, 2));
	EXPECT_FALSE(cpuset_test(&s, 3));
	cpuset_format(&s, buf, sizeof(buf));
	EXPECT_STREQ("0-2,5,7-8", buf);
}

TEST(cpu_beyond_machine)
{
	struct cpuset s;
	int bad;

	EXPECT_EQ(-ENODEV, cpuset_parse("1,9", 4, &s, &bad));
	EXPECT_EQ(9, bad);
	EXPECT_EQ(-ENODEV, cpuset_parse("2-6", 4, &s, &bad));
	EXPECT_EQ(4, bad);
}

TEST(malformed)
{
	static const char *const bad[] = {
		"", ",", "1,", "a", "1-", "-1", "3-1", "1 2", "1;2", "99999999",
	};
	struct cpuset s;
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *list = bad[i];

		EXPECT_NE(0, cpuset_parse(list, 8, &s, NULL))
			TH_LOG("list %u accepted: '%s'", i, list ? list : "");
	}
}

/*
 * Found by fuzzing: a list cut to fit a buffer ("0-3,1" for "0-3,10-11")
 * read back as another valid list.
 */
TEST(format_cut_between_cpus)
{
	struct cpuset s, back;
	char buf[8];

	ASSERT_EQ(0, cpuset_parse("0-3,10-11", 16, &s, NULL));
	cpuset_format(&s, buf, 6);
	EXPECT_STREQ("...", buf);
	cpuset_format(&s, buf, sizeof(buf));
	EXPECT_STREQ("0-3,...", buf);
	EXPECT_NE(0, cpuset_parse(buf, 16, &back, NULL));
	cpuset_format(&s, buf, 2);
	EXPECT_STREQ("", buf);
	ASSERT_EQ(0, cpuset_parse("1-2", 16, &s, NULL));
	cpuset_format(&s, buf, 4);
	EXPECT_STREQ("1-2", buf);
}

TEST(machine_has_cpus)
{
	EXPECT_LE(1, cpus_possible());
	EXPECT_TRUE(cpu_online(0));
}

TEST_HARNESS_MAIN
