// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What a starving task is there to do (user/task_role.c), read from a
 * /proc tree made here: the kind a kernel thread's name says, never a
 * user task's; an IRQ thread's IRQ, actions and affinity; and what the
 * kernel command line already does for the task's CPU.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "task_role.h"

/* flags 0x208040: PF_KTHREAD set; 0x400100: a user task's. */
#define KTHREAD_FLAGS	"2129984"
#define USER_FLAGS	"4194560"

static void put(const char *dir, const char *name, const char *text)
{
	char path[1100];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* /proc/TID/stat of a task named @comm with @flags. */
static void task(const char *proc, int tid, const char *comm,
		 const char *flags)
{
	char dir[512], stat[600];

	snprintf(dir, sizeof(dir), "%s/%d", proc, tid);
	mkdir(dir, 0755);
	snprintf(stat, sizeof(stat),
		 "%d (%s) R 2 0 0 0 -1 %s 0 0 0 0 0 0 0 0 -51 0 1 0 42 0 0\n",
		 tid, comm, flags);
	put(dir, "stat", stat);
}

FIXTURE(proc) {
	char dir[64];
};

FIXTURE_SETUP(proc)
{
	char irq[128];

	snprintf(self->dir, sizeof(self->dir), "/tmp/starvd-role-XXXXXX");
	ASSERT_TRUE(mkdtemp(self->dir) != NULL);
	snprintf(irq, sizeof(irq), "%s/irq", self->dir);
	mkdir(irq, 0755);
	snprintf(irq, sizeof(irq), "%s/irq/25", self->dir);
	mkdir(irq, 0755);
	put(irq, "smp_affinity_list", "1\n");
	put(irq, "effective_affinity_list", "1\n");
	snprintf(irq, sizeof(irq), "%s/irq/25/virtio0-requests", self->dir);
	mkdir(irq, 0755);
	put(self->dir, "cmdline", "BOOT_IMAGE=/vmlinuz rcu_nocbs=1 nohz_full=2-3 quiet\n");
}

FIXTURE_TEARDOWN(proc)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", self->dir);
	ASSERT_EQ(0, system(cmd));
}

static struct starvd_task named(int tid, const char *comm, int cpu)
{
	struct starvd_task t = { .tid = tid, .tgid = tid, .cpu = cpu };

	snprintf(t.comm, sizeof(t.comm), "%s", comm);
	return t;
}

TEST_F(proc, irq_thread)
{
	struct starvd_task t = named(77, "irq/25-virtio0-", 1);
	struct task_role r;

	task(self->dir, 77, t.comm, KTHREAD_FLAGS);
	ASSERT_EQ(0, task_role_read(self->dir, &t, &r));
	EXPECT_EQ(ROLE_IRQ, r.kind);
	EXPECT_STREQ("irq_thread", task_role_name(r.kind));
	EXPECT_EQ(25, r.irq);
	EXPECT_STREQ("virtio0-requests", r.actions);
	EXPECT_STREQ("1", r.affinity);
	EXPECT_STREQ("1", r.effective);
	EXPECT_STREQ("threaded handler of IRQ 25 (virtio0-requests), affinity 1, effective 1: /proc/irq/25/smp_affinity_list moves it; no irqaffinity= on the command line",
		     r.about);
}

/* A user task cannot pass for a kernel thread by its name. */
TEST_F(proc, a_name_is_not_a_kernel_thread)
{
	struct starvd_task t = named(78, "irq/25-virtio0-", 1);
	struct task_role r;

	task(self->dir, 78, t.comm, USER_FLAGS);
	ASSERT_EQ(0, task_role_read(self->dir, &t, &r));
	EXPECT_EQ(ROLE_USER, r.kind);
	EXPECT_EQ(-1, r.irq);
	EXPECT_STREQ("", r.about);
	EXPECT_STREQ("", r.actions);
}

TEST_F(proc, rcuc_and_the_command_line)
{
	struct starvd_task t = named(32, "rcuc/1", 1);
	struct task_role r;

	task(self->dir, 32, t.comm, KTHREAD_FLAGS);
	ASSERT_EQ(0, task_role_read(self->dir, &t, &r));
	EXPECT_EQ(ROLE_RCUC, r.kind);
	EXPECT_TRUE(strstr(r.about, "CPU 1 is in rcu_nocbs=") != NULL) TH_LOG("%s", r.about);
	EXPECT_TRUE(strstr(r.about, "CPU 1 is not in nohz_full=") != NULL) TH_LOG("%s", r.about);
	/* Gone: an error, and nothing said. */
	t.tid = 99;
	EXPECT_GT(0, task_role_read(self->dir, &t, &r));
	EXPECT_EQ(ROLE_USER, r.kind);
}

/* A kworker's /proc comm names the workqueue of its last work. */
TEST_F(proc, kworker_and_its_workqueue)
{
	struct starvd_task t = named(53, "kworker/1:1", 1);
	struct task_role r;
	char dir[512];

	task(self->dir, 53, t.comm, KTHREAD_FLAGS);
	snprintf(dir, sizeof(dir), "%s/53", self->dir);
	put(dir, "comm", "kworker/1:1-mm_percpu_wq\n");
	ASSERT_EQ(0, task_role_read(self->dir, &t, &r));
	EXPECT_EQ(ROLE_KWORKER, r.kind);
	EXPECT_STREQ("mm_percpu_wq", r.workqueue);
	EXPECT_TRUE(strstr(r.about, "(workqueue of its last work: mm_percpu_wq)") != NULL)
		TH_LOG("%s", r.about);
	/* Running one: "+"; a name's bytes are escaped. */
	put(dir, "comm", "kworker/1:1+ev\x1bnts\n");
	ASSERT_EQ(0, task_role_read(self->dir, &t, &r));
	EXPECT_STREQ("ev\\x1bnts", r.workqueue);
	/* None yet: nothing said of it. */
	put(dir, "comm", "kworker/1:1\n");
	ASSERT_EQ(0, task_role_read(self->dir, &t, &r));
	EXPECT_STREQ("", r.workqueue);
}

TEST(kinds)
{
	EXPECT_EQ(ROLE_KWORKER, task_role_kind("kworker/1:2", true));
	EXPECT_EQ(ROLE_KWORKER_UNBOUND, task_role_kind("kworker/u8:0", true));
	EXPECT_EQ(ROLE_KSOFTIRQD, task_role_kind("ksoftirqd/1", true));
	EXPECT_EQ(ROLE_KTIMERS, task_role_kind("ktimers/1", true));
	EXPECT_EQ(ROLE_RCU_NOCB, task_role_kind("rcuop/3", true));
	EXPECT_EQ(ROLE_IRQ_WORK, task_role_kind("irq_work/1", true));
	EXPECT_EQ(ROLE_KTHREAD, task_role_kind("kcompactd0", true));
	EXPECT_EQ(ROLE_USER, task_role_kind("kworker/1:2", false));
}

TEST(command_line_cpu_lists)
{
	const char *c = "ro isolcpus=domain,managed_irq,2-3 rcu_nocbs nohz_full=5 xirqaffinity=1";

	EXPECT_EQ(1, cmdline_lists_cpu(c, "isolcpus", 2));
	EXPECT_EQ(0, cmdline_lists_cpu(c, "isolcpus", 1));
	EXPECT_EQ(1, cmdline_lists_cpu(c, "rcu_nocbs", 7));
	EXPECT_EQ(1, cmdline_lists_cpu(c, "nohz_full", 5));
	EXPECT_EQ(-1, cmdline_lists_cpu(c, "irqaffinity", 1));
	/* The last one counts, as the kernel reads them. */
	EXPECT_EQ(0, cmdline_lists_cpu("nohz_full=1 nohz_full=2", "nohz_full", 1));
	EXPECT_EQ(0, cmdline_lists_cpu("nohz_full=garbage", "nohz_full", 1));
	EXPECT_EQ(-1, cmdline_lists_cpu("", "nohz_full", 1));
}

TEST_HARNESS_MAIN
