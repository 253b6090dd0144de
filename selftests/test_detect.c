// SPDX-License-Identifier: GPL-2.0-or-later
/* Detection arithmetic: crossings, next wake-up, episodes. */
#include "kselftest_harness.h"

#include "detect.h"
#include "util.h"

#define T0	(1000 * NSEC_PER_SEC)
#define THRESH	(20 * NSEC_PER_SEC)

static void add(struct task_list *l, uint32_t tid, uint64_t wait,
		uint64_t switches, uint32_t state)
{
	struct starvd_task t = {
		.tid = tid, .cpu = 1, .wait_ns = wait,
		.nr_switches = switches, .state = state,
	};

	task_list_add(l, &t);
}

static uint32_t boosted_tid;

static bool skip_boosted(void *ctx, uint32_t tid)
{
	return tid == boosted_tid;
}

TEST(nothing_waits_sleep_a_threshold)
{
	struct task_list l = { .read_time_ns = T0 };
	struct detect_result r = {};
	struct detect d;

	detect_init(&d, THRESH);
	add(&l, 1, 0, 5, STARVD_TASK_RUNNING);
	detect_scan(&d, &l, NULL, NULL, &r);
	EXPECT_EQ(0, r.n);
	EXPECT_EQ(T0 + THRESH, r.next_wake_ns);
	detect_free(&d);
	detect_result_free(&r);
	task_list_free(&l);
}

TEST(wake_at_earliest_crossing)
{
	struct task_list l = { .read_time_ns = T0 };
	struct detect_result r = {};
	struct detect d;

	detect_init(&d, THRESH);
	add(&l, 1, 3 * NSEC_PER_SEC, 1, STARVD_TASK_WAITING);
	add(&l, 2, 15 * NSEC_PER_SEC, 1, STARVD_TASK_WAITING);
	add(&l, 3, 1 * NSEC_PER_SEC, 1, STARVD_TASK_WAITING);
	detect_scan(&d, &l, NULL, NULL, &r);
	EXPECT_EQ(0, r.n);
	EXPECT_EQ(T0 + 5 * NSEC_PER_SEC, r.next_wake_ns);
	detect_free(&d);
	detect_result_free(&r);
	task_list_free(&l);
}

TEST(crossing_exactly_at_threshold_starves)
{
	struct task_list l = { .read_time_ns = T0 };
	struct detect_result r = {};
	struct detect d;

	detect_init(&d, THRESH);
	add(&l, 1, THRESH - 1, 1, STARVD_TASK_WAITING);
	add(&l, 2, THRESH, 1, STARVD_TASK_WAITING);
	detect_scan(&d, &l, NULL, NULL, &r);
	ASSERT_EQ(1, r.n);
	EXPECT_EQ(2, l.v[r.starving[0]].tid);
	EXPECT_EQ(T0 + 1, r.next_wake_ns);
	detect_free(&d);
	detect_result_free(&r);
	task_list_free(&l);
}

/* One report per episode; a new wait after running is a new episode. */
TEST(episodes)
{
	struct task_list l = { .read_time_ns = T0 };
	struct detect_result r = {};
	struct detect d;

	detect_init(&d, THRESH);
	add(&l, 7, THRESH + 5, 10, STARVD_TASK_WAITING);
	detect_scan(&d, &l, NULL, NULL, &r);
	EXPECT_EQ(1, r.n);
	/* Same wait, later read: not again, and it does not drive wake-ups. */
	l.read_time_ns += NSEC_PER_SEC;
	l.v[0].wait_ns += NSEC_PER_SEC;
	detect_scan(&d, &l, NULL, NULL, &r);
	EXPECT_EQ(0, r.n);
	EXPECT_EQ(l.read_time_ns + THRESH, r.next_wake_ns);
	/* It ran (switch count moved) and starved again: new episode. */
	l.v[0].nr_switches = 11;
	detect_scan(&d, &l, NULL, NULL, &r);
	EXPECT_EQ(1, r.n);
	/* Gone from the read: forgotten. */
	l.n = 0;
	detect_scan(&d, &l, NULL, NULL, &r);
	EXPECT_EQ(0, d.n);
	detect_free(&d);
	detect_result_free(&r);
	task_list_free(&l);
}

/* A boost that did not let it run: reported again once forgotten. */
TEST(forgotten_episode_reported_again)
{
	struct task_list l = { .read_time_ns = T0 };
	struct detect_result r = {};
	struct detect d;

	detect_init(&d, THRESH);
	add(&l, 7, THRESH, 10, STARVD_TASK_WAITING);
	detect_scan(&d, &l, NULL, NULL, &r);
	EXPECT_EQ(1, r.n);
	detect_forget(&d, 7);
	detect_forget(&d, 8);	/* unknown: nothing happens */
	l.v[0].wait_ns += NSEC_PER_SEC;
	detect_scan(&d, &l, NULL, NULL, &r);
	EXPECT_EQ(1, r.n);
	detect_free(&d);
	detect_result_free(&r);
	task_list_free(&l);
}

TEST(boosted_tasks_are_skipped)
{
	struct task_list l = { .read_time_ns = T0 };
	struct detect_result r = {};
	struct detect d;

	detect_init(&d, THRESH);
	add(&l, 9, THRESH * 2, 1, STARVD_TASK_WAITING);
	boosted_tid = 9;
	detect_scan(&d, &l, skip_boosted, NULL, &r);
	EXPECT_EQ(0, r.n);
	EXPECT_EQ(T0 + THRESH, r.next_wake_ns);
	boosted_tid = 0;
	detect_free(&d);
	detect_result_free(&r);
	task_list_free(&l);
}

/*
 * -l: as stalld, a task that keeps waiting is reported again every
 * threshold; the next wake-up is the repeat's crossing; a run ends it.
 */
TEST(log_only_repeats_every_threshold)
{
	struct task_list l = { .read_time_ns = T0 };
	struct detect_result r = {};
	struct detect d;

	detect_init(&d, THRESH);
	add(&l, 7, THRESH + 5, 10, STARVD_TASK_WAITING);
	detect_scan(&d, &l, NULL, NULL, &r);
	ASSERT_EQ(1, r.n);
	detect_repeat(&d, 7, THRESH + 5 + THRESH);
	/* 1 s later: not yet; wake when the repeat is due. */
	l.read_time_ns += NSEC_PER_SEC;
	l.v[0].wait_ns += NSEC_PER_SEC;
	detect_scan(&d, &l, NULL, NULL, &r);
	EXPECT_EQ(0, r.n);
	EXPECT_EQ(l.read_time_ns + THRESH - NSEC_PER_SEC, r.next_wake_ns);
	/* Due: reported again, once, until armed again. */
	l.read_time_ns += THRESH - NSEC_PER_SEC;
	l.v[0].wait_ns += THRESH - NSEC_PER_SEC;
	detect_scan(&d, &l, NULL, NULL, &r);
	EXPECT_EQ(1, r.n);
	detect_scan(&d, &l, NULL, NULL, &r);
	EXPECT_EQ(0, r.n);
	detect_repeat(&d, 7, l.v[0].wait_ns + THRESH);
	/* It ran: a new wait under the threshold is not reported. */
	l.v[0].nr_switches = 11;
	l.v[0].wait_ns = NSEC_PER_SEC;
	detect_scan(&d, &l, NULL, NULL, &r);
	EXPECT_EQ(0, r.n);
	EXPECT_EQ(l.read_time_ns + THRESH - NSEC_PER_SEC, r.next_wake_ns);
	detect_free(&d);
	detect_result_free(&r);
	task_list_free(&l);
}

TEST_HARNESS_MAIN
