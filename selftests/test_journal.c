// SPDX-License-Identifier: GPL-2.0-or-later
/* The boost journal: format, atomic files, reload. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "boost.h"
#include "journal.h"
#include "proc.h"
#include "sched_attr.h"
#include "util.h"

static struct journal_entry sample(pid_t tid)
{
	struct journal_entry e = {
		.tid = tid,
		.start_time = 123456,
		.saved = { .sched_policy = 0, .sched_nice = -5,
			   .sched_flags = SCHED_FLAG_RESET_ON_FORK },
		.applied = { .sched_policy = SCHED_DEADLINE,
			     .sched_runtime = 20000,
			     .sched_deadline = 1000000000,
			     .sched_period = 1000000000 },
	};

	strcpy(e.comm, "kworker/1:2 x");
	return e;
}

TEST(format_round_trip)
{
	struct journal_entry e = sample(42), back;
	char buf[512];

	ASSERT_LT(0, journal_format(&e, buf, sizeof(buf)));
	ASSERT_EQ(0, journal_parse(buf, &back));
	EXPECT_EQ(42, back.tid);
	EXPECT_EQ(123456, back.start_time);
	EXPECT_STREQ("kworker/1:2 x", back.comm);
	EXPECT_TRUE(sched_attr_same(&e.saved, &back.saved));
	EXPECT_TRUE(sched_attr_same(&e.applied, &back.applied));
	EXPECT_EQ(-5, back.saved.sched_nice);
}

TEST(corrupt_entries_rejected)
{
	struct journal_entry e;

	EXPECT_NE(0, journal_parse("", &e));
	EXPECT_NE(0, journal_parse("starvd-journal 1\ntid 5\n", &e));
	EXPECT_NE(0, journal_parse("garbage", &e));
}

static int parse_with(const char *tid, const char *start, const char *saved)
{
	struct journal_entry e;
	char buf[512];

	snprintf(buf, sizeof(buf),
		 "starvd-journal 1\ntid %s\nstart %s\nsaved %s\n"
		 "applied 6 0 0 0 20000 1000000000 1000000000\ncomm x\n",
		 tid, start, saved);
	return journal_parse(buf, &e);
}

/*
 * sscanf() takes "tid 4294967297" for pid 1, "-1" for a policy, and
 * spaces and signs the format never writes.
 */
TEST(out_of_range_numbers_rejected)
{
	EXPECT_EQ(0, parse_with("5", "1", "0 0 -20 0 0 0 0"));
	EXPECT_EQ(0, parse_with("2147483647", "18446744073709551615",
				"4294967295 18446744073709551615 19 99 1 2 3"));
	EXPECT_NE(0, parse_with("4294967297", "1", "0 0 0 0 0 0 0"));
	EXPECT_NE(0, parse_with("2147483648", "1", "0 0 0 0 0 0 0"));
	EXPECT_NE(0, parse_with("0", "1", "0 0 0 0 0 0 0"));
	EXPECT_NE(0, parse_with("-5", "1", "0 0 0 0 0 0 0"));
	EXPECT_NE(0, parse_with("+5", "1", "0 0 0 0 0 0 0"));
	EXPECT_NE(0, parse_with("05", "1", "0 0 0 0 0 0 0"));
	EXPECT_NE(0, parse_with(" 5", "1", "0 0 0 0 0 0 0"));
	EXPECT_NE(0, parse_with("5", "1", "0 0 -0 0 0 0 0"));
	EXPECT_NE(0, parse_with("5", "1", "0  0 0 0 0 0 0"));
	EXPECT_NE(0, parse_with("5", "18446744073709551616", "0 0 0 0 0 0 0"));
	EXPECT_NE(0, parse_with("5", "-1", "0 0 0 0 0 0 0"));
	EXPECT_NE(0, parse_with("5", "1", "-1 0 0 0 0 0 0"));
	EXPECT_NE(0, parse_with("5", "1", "4294967296 0 0 0 0 0 0"));
	EXPECT_NE(0, parse_with("5", "1", "0 0 20 0 0 0 0"));
	EXPECT_NE(0, parse_with("5", "1", "0 0 -21 0 0 0 0"));
	EXPECT_NE(0, parse_with("5", "1", "0 0 0 100 0 0 0"));
	EXPECT_NE(0, parse_with("5", "1", "0 0 0 0 0 0"));
	EXPECT_NE(0, parse_with("5", "1", "0 0 0 0 0 0 0 0"));
}

TEST(add_load_remove)
{
	char dir[] = "/tmp/starvd-journal.XXXXXX", cmd[128];
	struct journal_entry a = sample(100), b = sample(200), *v;
	struct journal j;
	size_t n;

	ASSERT_TRUE(NULL != mkdtemp(dir));
	ASSERT_EQ(0, journal_open(&j, dir));
	ASSERT_EQ(0, journal_add(&j, &a));
	ASSERT_EQ(0, journal_add(&j, &b));
	ASSERT_EQ(0, journal_load(&j, &v, &n));
	EXPECT_EQ(2, n);
	free(v);
	ASSERT_EQ(0, journal_remove(&j, 100));
	ASSERT_EQ(0, journal_remove(&j, 100));	/* already gone: fine */
	ASSERT_EQ(0, journal_load(&j, &v, &n));
	ASSERT_EQ(1, n);
	EXPECT_EQ(200, v[0].tid);
	free(v);
	journal_close(&j);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	EXPECT_EQ(0, system(cmd));
}

TEST(start_time_identifies_a_live_task)
{
	EXPECT_NE(0, task_start_time(getpid()));
	EXPECT_EQ(0, task_start_time(0x7ffffff0));
}

/*
 * A boosted task that exits is not restored, not even while a zombie: it
 * never runs again, and the kernel has already taken a SCHED_DEADLINE
 * task's bandwidth off at its death (a second policy change would take
 * it off again). Restoring it would fail, or worse, and say "cannot".
 */
TEST(exited_task_is_not_restored)
{
	struct sched_attr saved = { .size = sizeof(saved) }, applied, cur;
	struct task_id id;
	int status;
	pid_t child;

	applied = saved;
	applied.sched_nice = 5;
	child = fork();
	ASSERT_LE(0, child);
	if (child == 0)
		_exit(sched_setattr_tid(0, &applied) ? 1 : 0);
	/* A zombie until reaped: waitid() with WNOWAIT leaves it one. */
	ASSERT_EQ(0, waitid(P_PID, child, &(siginfo_t){ 0 },
			    WEXITED | WNOWAIT));
	ASSERT_TRUE(task_exited(child));
	ASSERT_EQ(0, sched_getattr_tid(child, &cur));
	ASSERT_TRUE(sched_attr_same(&cur, &applied));
	task_id_of(&id, child, task_start_time(child));
	EXPECT_EQ(-ESRCH, restore_task(&id, "stv-zombie", &saved, &applied,
				       "test"));
	ASSERT_EQ(0, sched_getattr_tid(child, &cur));
	EXPECT_TRUE(sched_attr_same(&cur, &applied));
	ASSERT_EQ(child, waitpid(child, &status, 0));
	EXPECT_EQ(0, status);
	EXPECT_TRUE(task_exited(child));
	EXPECT_FALSE(task_exited(getpid()));
}

/*
 * A thread may name itself with any bytes but NUL, newlines and ')'
 * included: /proc/<tid>/stat and comm show them raw. Such a task is alive
 * and restored like any other (a reader stopping at the first newline
 * takes it for gone and leaves it boosted).
 */
TEST(task_with_hostile_name_is_restored)
{
	static const char name[] = "a\n) Z 1\n\x1b[2J\r";
	struct sched_attr saved = { .size = sizeof(saved) }, applied, cur;
	struct task_id id;
	char comm[64];
	int status;
	pid_t child;

	applied = saved;
	applied.sched_nice = 5;
	child = fork();
	ASSERT_LE(0, child);
	if (child == 0) {
		if (prctl(PR_SET_NAME, name) ||
		    sched_setattr_tid(0, &applied))
			_exit(1);
		pause();
		_exit(0);
	}
	/* Named and changed once its nice is 5. */
	do {
		usleep(1000);
		ASSERT_EQ(0, sched_getattr_tid(child, &cur));
	} while (!sched_attr_same(&cur, &applied));
	task_comm(child, comm, sizeof(comm));
	EXPECT_STREQ(name, comm);
	EXPECT_FALSE(task_exited(child));
	EXPECT_NE(0, task_start_time(child));
	ASSERT_EQ(0, task_id_open(&id, child));
	EXPECT_EQ(0, restore_task(&id, comm, &saved, &applied, "test"));
	task_id_close(&id);
	ASSERT_EQ(0, sched_getattr_tid(child, &cur));
	EXPECT_TRUE(sched_attr_same(&cur, &saved));
	kill(child, SIGKILL);
	ASSERT_EQ(child, waitpid(child, &status, 0));
}

/* What fill_check() found: the names in the directory while it wrote. */
struct fill_seen {
	const char *dir;
	int names;
};

static void fill_check(FILE *f, const void *arg)
{
	struct fill_seen *seen = (struct fill_seen *)arg;
	struct dirent *de;
	DIR *d = opendir(seen->dir);

	fputs("whole\n", f);
	seen->names = 0;
	while (d && (de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			seen->names++;
	if (d)
		closedir(d);
}

/*
 * A file being written has no name (O_TMPFILE): a writer killed
 * mid-write leaves nothing in the directory. Published, it has its own
 * name and nothing else is left.
 */
TEST(atomic_file_unnamed_until_committed)
{
	char dir[] = "/tmp/starvd-atomic.XXXXXX", path[64], buf[16];
	struct fill_seen seen = { .dir = dir, .names = -1 };
	struct dirent *de;
	int names = 0;
	FILE *f;
	DIR *d;

	ASSERT_TRUE(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/state", dir);
	ASSERT_EQ(0, write_file_atomic(path, fill_check, &seen));
	EXPECT_EQ(0, seen.names);
	/* Again, over the first: the old file is all a reader sees. */
	ASSERT_EQ(0, write_file_atomic(path, fill_check, &seen));
	EXPECT_EQ(1, seen.names);
	f = fopen(path, "r");
	ASSERT_TRUE(f != NULL);
	EXPECT_TRUE(fgets(buf, sizeof(buf), f) != NULL);
	fclose(f);
	EXPECT_STREQ("whole\n", buf);
	d = opendir(dir);
	ASSERT_TRUE(d != NULL);
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			names++;
	closedir(d);
	EXPECT_EQ(1, names);
	unlink(path);
	rmdir(dir);
}

TEST_HARNESS_MAIN
