// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * starvctl advise (user/advise.c): from episodes as starvd keeps them,
 * the change for each kind of starving task, its evidence, and commands
 * made only of numbers, CPU lists and fixed words, or a unit name a
 * shell reads as one word.
 */
#include <stdio.h>
#include <string.h>

#include "kselftest_harness.h"

#include "advise.h"

#define IRQ25(t, start) \
	"{\"unix_time\":" #t ",\"event\":\"starving\",\"tid\":93,\"comm\":\"irq/25-virtio0-\"," \
	"\"cpu\":1,\"wait_start_ns\":" #start ",\"cgroup\":null,\"role\":{\"kind\":\"irq_thread\"," \
	"\"irq\":25,\"irq_actions\":\"virtio0-requests\"},\"holder\":{\"priority\":50}}"

#define TASK(kind, tid, cpu, cgroup) \
	"{\"unix_time\":100,\"event\":\"starving\",\"tid\":" #tid ",\"comm\":\"t\",\"cpu\":" #cpu \
	",\"wait_start_ns\":1,\"cgroup\":" cgroup ",\"role\":{\"kind\":\"" kind "\"}," \
	"\"holder\":{\"priority\":49}}"

FIXTURE(adv) {
	struct advise a;
	struct cpuset online;
};

FIXTURE_SETUP(adv)
{
	ASSERT_EQ(0, advise_init(&self->a));
	ASSERT_EQ(0, cpuset_parse("0-3", STARVD_MAX_CPUS, &self->online, NULL));
}

FIXTURE_TEARDOWN(adv)
{
	advise_free(&self->a);
}

static const struct advise_change *find(const struct advise *a,
					const char *change)
{
	size_t i;

	for (i = 0; i < a->nr_changes; i++)
		if (!strcmp(a->changes[i].change, change))
			return &a->changes[i];
	return NULL;
}

/* An IRQ's thread: move the IRQ to the CPUs without episodes. */
TEST_F(adv, irq_thread_moves_its_irq)
{
	const struct advise_change *c;

	ASSERT_EQ(0, advise_add_line(&self->a, IRQ25(1000, 10)));
	/* A later report of the same wait is the same episode. */
	ASSERT_EQ(0, advise_add_line(&self->a, IRQ25(1005, 10)));
	ASSERT_EQ(0, advise_add_line(&self->a, IRQ25(1030, 99)));
	ASSERT_EQ(0, advise_add_line(&self->a, TASK("kworker", 40, 3, "null")));
	advise_build(&self->a, &self->online);
	EXPECT_STREQ("0,2", self->a.housekeeping);
	c = find(&self->a, "move_irq");
	ASSERT_TRUE(c != NULL);
	EXPECT_EQ(2, c->episodes);
	EXPECT_EQ(25, c->irq);
	EXPECT_EQ(1000, c->first);
	EXPECT_EQ(1030, c->last);
	EXPECT_STREQ("Move IRQ 25 (virtio0-requests) off CPU 1", c->title);
	EXPECT_STREQ("echo 0,2 > /proc/irq/25/smp_affinity_list", c->command);
	EXPECT_STREQ("irqaffinity=0,2", c->boot);
	c = find(&self->a, "isolate_per_cpu_work");
	ASSERT_TRUE(c != NULL);
	EXPECT_STREQ("", c->command);
	EXPECT_STREQ("isolcpus=domain,managed_irq,3 nohz_full=3", c->boot);
}

/* Every online CPU starved: nowhere to move anything, no command. */
TEST_F(adv, no_housekeeping_cpu_no_command)
{
	const struct advise_change *c;

	ASSERT_EQ(0, advise_add_line(&self->a, IRQ25(1000, 10)));
	ASSERT_EQ(0, advise_add_line(&self->a, TASK("user", 41, 0, "null")));
	ASSERT_EQ(0, advise_add_line(&self->a, TASK("user", 42, 2, "null")));
	ASSERT_EQ(0, advise_add_line(&self->a, TASK("user", 43, 3, "null")));
	advise_build(&self->a, &self->online);
	EXPECT_STREQ("", self->a.housekeeping);
	c = find(&self->a, "move_irq");
	ASSERT_TRUE(c != NULL);
	EXPECT_STREQ("", c->command);
	EXPECT_STREQ("", c->boot);
}

TEST_F(adv, rcu_and_unbound_work)
{
	const struct advise_change *c;

	ASSERT_EQ(0, advise_add_line(&self->a, TASK("rcuc", 32, 1, "null")));
	ASSERT_EQ(0, advise_add_line(&self->a, TASK("kworker_unbound", 50, 2, "null")));
	advise_build(&self->a, &self->online);
	c = find(&self->a, "offload_rcu");
	ASSERT_TRUE(c != NULL);
	EXPECT_STREQ("rcu_nocbs=1 nohz_full=1", c->boot);
	EXPECT_TRUE(strstr(c->note, "rcutree.kthread_prio=50") != NULL) TH_LOG("%s", c->note);
	c = find(&self->a, "move_unbound_work");
	ASSERT_TRUE(c != NULL);
	/* CPUs 0 and 3: the workqueue cpumask's hex. */
	EXPECT_STREQ("echo 9 > /sys/devices/virtual/workqueue/cpumask", c->command);
}

/* A cgroup's name is anyone's: only a plain unit name makes a command. */
TEST_F(adv, user_tasks_and_hostile_cgroup_names)
{
	const struct advise_change *c;
	size_t i;

	ASSERT_EQ(0, advise_add_line(&self->a, TASK("user", 60, 1, "\"/system.slice/app.service\"")));
	ASSERT_EQ(0, advise_add_line(&self->a, TASK("user", 61, 1, "\"/x/a;reboot.service\"")));
	ASSERT_EQ(0, advise_add_line(&self->a, TASK("user", 62, 1, "\"/x/$(reboot).service\"")));
	ASSERT_EQ(0, advise_add_line(&self->a, TASK("user", 63, 1, "\"/x/a\\\\x0a.service\"")));
	advise_build(&self->a, &self->online);
	ASSERT_EQ(4, self->a.nr_changes);
	for (i = 0; i < self->a.nr_changes; i++) {
		c = &self->a.changes[i];
		if (!strcmp(c->cgroup, "/system.slice/app.service")) {
			EXPECT_STREQ("systemctl set-property --runtime app.service AllowedCPUs=0,2-3",
				     c->command);
		} else {
			EXPECT_STREQ("", c->command) TH_LOG("%s", c->cgroup);
		}
	}
}

TEST_F(adv, what_is_not_an_episode)
{
	EXPECT_EQ(1, advise_add_line(&self->a, "garbage"));
	EXPECT_EQ(1, advise_add_line(&self->a, "{\"event\":\"boost\",\"tid\":1}"));
	EXPECT_EQ(1, advise_add_line(&self->a, "{\"unix_time\":1,\"event\":\"starving\",\"tid\":1,\"cpu\":99999,\"wait_start_ns\":1}"));
	EXPECT_EQ(3, self->a.skipped);
	advise_build(&self->a, &self->online);
	EXPECT_EQ(0, self->a.nr_changes);
}

TEST_HARNESS_MAIN
