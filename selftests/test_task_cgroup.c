// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A task's workload (user/task_cgroup.c): the cgroup path in the text of
 * /proc/TID/cgroup, on the unified hierarchy and on systemd's v1 one, and
 * the container id a path names, for the container runtimes and layouts
 * starvd's users run.
 */
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "task_cgroup.h"

#define ID "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

TEST(path_of_the_unified_hierarchy)
{
	char p[64];

	ASSERT_TRUE(cgroup_parse("0::/system.slice/dpdk.service\n", p, sizeof(p)));
	EXPECT_STREQ("/system.slice/dpdk.service", p);
	/* Hybrid: the unified line wins over systemd's v1 one. */
	ASSERT_TRUE(cgroup_parse("12:cpu,cpuacct:/a\n1:name=systemd:/v1\n0::/v2\n",
				 p, sizeof(p)));
	EXPECT_STREQ("/v2", p);
	/* Legacy v1 only: systemd's named hierarchy. */
	ASSERT_TRUE(cgroup_parse("5:memory:/m\n1:name=systemd:/user.slice/x:y.scope\n",
				 p, sizeof(p)));
	EXPECT_STREQ("/user.slice/x:y.scope", p);
	/* A path may hold ':'; a line that only looks like one does not count. */
	ASSERT_TRUE(cgroup_parse("0::/a:b::c\n", p, sizeof(p)));
	EXPECT_STREQ("/a:b::c", p);
	EXPECT_FALSE(cgroup_parse("10::/not-unified\n3:cpu:/c\n", p, sizeof(p)));
	EXPECT_FALSE(cgroup_parse("", p, sizeof(p)));
	/* Cut to fit, never past the buffer. */
	ASSERT_TRUE(cgroup_parse("0::/0123456789\n", p, 6));
	EXPECT_STREQ("/0123", p);
}

TEST(container_ids)
{
	char id[CONTAINER_ID_LEN + 1];
	static const char *const named[] = {
		"/system.slice/docker-" ID ".scope",
		"/docker/" ID,
		"/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1234.slice/cri-containerd-" ID ".scope",
		"/kubepods.slice/kubepods-pod5678.slice/crio-" ID ".scope",
		"/machine.slice/libpod-" ID ".scope/container",
		"/kubepods/besteffort/pod1234/" ID,
	};
	static const char *const unnamed[] = {
		"/system.slice/dpdk.service",
		"/user.slice/user-1000.slice/session-2.scope",
		"/docker-" ID "0.scope",	/* 65 digits */
		"/docker-0123456789abcdef.scope",
		"/docker-" "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdeg" ".scope",
		"/",
		"",
	};
	size_t i;

	for (i = 0; i < sizeof(named) / sizeof(named[0]); i++) {
		memset(id, 0, sizeof(id));
		EXPECT_TRUE(cgroup_container_id(named[i], id)) TH_LOG("%s", named[i]);
		EXPECT_STREQ(ID, id) TH_LOG("%s", named[i]);
	}
	for (i = 0; i < sizeof(unnamed) / sizeof(unnamed[0]); i++)
		EXPECT_FALSE(cgroup_container_id(unnamed[i], id))
			TH_LOG("unnamed[%zu]", i);
}

/* This process: /proc answers, and the path is escaped, printable ASCII. */
TEST(this_task)
{
	struct task_cgroup cg;
	size_t i;

	ASSERT_EQ(0, task_cgroup_read(getpid(), &cg));
	for (i = 0; cg.path[i]; i++)
		EXPECT_TRUE(cg.path[i] >= 0x20 && cg.path[i] < 0x7f);
	EXPECT_GT(0, task_cgroup_read(-1, &cg));
	EXPECT_STREQ("", cg.path);
}

TEST_HARNESS_MAIN
