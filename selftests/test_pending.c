// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What a starving kernel thread waits to run (user/pending.c): the lines
 * of bpf/pending.bpf.c's iterators as reports show them, and what the
 * reader refuses of them. A function name reaches a report only as the
 * kernel's "%pB" of the function's address + 1 names it (offset 0x1): an
 * address (what "%pB" prints where no symbol is known) or another offset
 * (a pointer into a function: a list read while it changed) is "?".
 */
#include <errno.h>
#include <string.h>

#include "kselftest_harness.h"
#include "pending.h"

static int parse(const char *s, unsigned int tid, struct task_pending *p)
{
	return pending_parse(s, strlen(s), tid, p);
}

static void text(const struct task_pending *p, char *buf, size_t len)
{
	pending_text(p, buf, len);
}

TEST(kworker_running_and_queued)
{
	struct task_pending p;
	char buf[512];

	ASSERT_EQ(0, parse("T 42\nQ\n"
			   "R events vmstat_update+0x1/0xa0\n"
			   "W mm_percpu_wq refresh_vm_stats+0x1/0x20\n"
			   "W events_unbound flush_to_ldisc+0x1/0x1c0 [tty_x]\n"
			   "N 2\n", 42, &p));
	EXPECT_TRUE(p.worker);
	EXPECT_STREQ("vmstat_update", p.running.func);
	EXPECT_STREQ("events", p.running.wq);
	ASSERT_EQ(2, p.nr_shown);
	EXPECT_STREQ("refresh_vm_stats", p.shown[0].func);
	EXPECT_STREQ("flush_to_ldisc [tty_x]", p.shown[1].func);
	text(&p, buf, sizeof(buf));
	EXPECT_STREQ("running vmstat_update (events); queued: refresh_vm_stats (mm_percpu_wq), flush_to_ldisc [tty_x] (events_unbound)",
		     buf);
	pending_brief(&p, buf, sizeof(buf));
	EXPECT_STREQ("vmstat_update", buf);
}

TEST(nothing_queued_and_more_than_shown)
{
	struct task_pending p;
	char buf[512];

	ASSERT_EQ(0, parse("T 7\nQ\nN 0\n", 7, &p));
	text(&p, buf, sizeof(buf));
	EXPECT_STREQ("queued: none", buf);

	ASSERT_EQ(0, parse("T 7\nQ\nW - a+0x1/0x1\nN 64\n", 7, &p));
	text(&p, buf, sizeof(buf));
	EXPECT_STREQ("queued: a, at least 63 more", buf);
	ASSERT_EQ(0, parse("T 7\nQ\nW - a+0x1/0x1\nN 3\n", 7, &p));
	text(&p, buf, sizeof(buf));
	EXPECT_STREQ("queued: a, 2 more", buf);
}

/* Only a function's first byte, named: never an address or a guess. */
TEST(addresses_and_offsets_are_refused)
{
	static const char *const bad[] = {
		"0xffffffffc0a01234",		/* no symbol: an address */
		"refresh_vm_stats+0x10/0x20",	/* inside a function */
		"refresh_vm_stats+0x0/0x20",	/* ends at the previous one */
		"refresh_vm_stats+0x1/0x",	/* no size */
		"refresh_vm_stats",		/* not %pB's form */
		"a b+0x1/0x20",			/* not a symbol */
		"f+0x1/0x20 [mod",		/* unterminated module */
		"f+0x1/0x20 [m\x1b]",		/* a control byte */
		"f+0x1/0x20 trailing",
		"",
	};
	struct task_pending p;
	char line[256];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(line, sizeof(line), "T 1\nQ\nW wq %s\nN 1\n", bad[i]);
		ASSERT_EQ(0, parse(line, 1, &p));
		ASSERT_EQ(1, p.nr_shown);
		EXPECT_STREQ("?", p.shown[0].func) TH_LOG("accepted %s", bad[i]);
	}
	ASSERT_EQ(0, parse("T 1\nQ\nW wq f+0x1/0x20 [m 0123abcd]\nN 1\n", 1,
			   &p));
	EXPECT_STREQ("f [m]", p.shown[0].func);
}

/* A workqueue's name is escaped as any name; "-" is none. */
TEST(workqueue_names)
{
	struct task_pending p;

	ASSERT_EQ(0, parse("T 1\nQ\nW - f+0x1/0x1\nW a\\b f+0x1/0x1\nN 2\n",
			   1, &p));
	EXPECT_STREQ("", p.shown[0].wq);
	EXPECT_STREQ("a\\x5cb", p.shown[1].wq);
}

TEST(softirqs)
{
	struct task_pending p;
	char buf[256];

	ASSERT_EQ(0, parse("T 9\nS 10\n", 9, &p));
	EXPECT_TRUE(p.softirqs_read);
	text(&p, buf, sizeof(buf));
	EXPECT_STREQ("pending softirqs: TIMER NET_RX", buf);
	pending_brief(&p, buf, sizeof(buf));
	EXPECT_STREQ("TIMER,NET_RX", buf);
	ASSERT_EQ(0, parse("T 9\nS 0\n", 9, &p));
	text(&p, buf, sizeof(buf));
	EXPECT_STREQ("pending softirqs: none", buf);
	ASSERT_EQ(0, parse("T 9\nS 2048\n", 9, &p));
	text(&p, buf, sizeof(buf));
	EXPECT_STREQ("pending softirqs: 11", buf);
}

/* Another task's lines, or none: gone. Not a worker: nothing to say. */
TEST(other_tasks_and_plain_threads)
{
	struct task_pending p;
	char buf[64];

	EXPECT_EQ(-ESRCH, parse("T 8\nQ\nN 0\n", 9, &p));
	EXPECT_EQ(-ESRCH, parse("", 9, &p));
	ASSERT_EQ(0, parse("T 9\n", 9, &p));
	text(&p, buf, sizeof(buf));
	EXPECT_STREQ("", buf);
}

TEST(unknown_says_why)
{
	struct task_pending p = { .unknown = "the module cannot tell" };
	char buf[128];

	text(&p, buf, sizeof(buf));
	EXPECT_STREQ("pending work not read: the module cannot tell", buf);
	pending_brief(&p, buf, sizeof(buf));
	EXPECT_STREQ("", buf);
}

/* A short buffer is cut, never overrun. */
TEST(short_buffers)
{
	struct task_pending p;
	char buf[24];

	memset(buf, 'x', sizeof(buf));
	ASSERT_EQ(0, parse("T 1\nQ\nR long_workqueue_name f+0x1/0x1\n"
			   "W w aaaaaaaaaaaaaaaaaaaa+0x1/0x1\nN 9\n", 1, &p));
	text(&p, buf, 16);
	EXPECT_EQ(15, strlen(buf));
	EXPECT_EQ('x', buf[16]);
}

TEST_HARNESS_MAIN
