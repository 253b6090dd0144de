// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Progress-aware boosts with real starvation: a SCHED_FIFO 10
 * worker on the test CPU, behind the fixture's busy loop, needs WORK_NS of
 * CPU time per item before it blocks (think of an IRQ thread's completion
 * or a NAPI budget), far more than one 20 us boost gives. starvd must raise
 * the runtime of its next boosts (never above the cap), the work must get
 * done, the worker must be back at -r once it keeps up, and
 * --no-escalation must give exactly -r every time. Counts and events only.
 * SCHED_FIFO emulation (-F): it gives what it measures, whereas without
 * HRTICK_DL a SCHED_DEADLINE boost runs to the next tick (the guests cover
 * that mode: selftests/kmod/guest-escalate.sh).
 */
#include <sched.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>

#include "kselftest_harness.h"

#include "lib/starve_fixture.h"

#define WORK_NS		(5 * NSEC_PER_MSEC)
#define PERIOD		"100000000"		/* cap: 5% = 5 ms */
#define CAP_NS		(5 * NSEC_PER_MSEC)

struct worker {
	pid_t pid;
	volatile pid_t *tid;
	volatile uint64_t *done;	/* items completed */
	volatile uint64_t *gate;	/* 0: finish the item, then wait */
	volatile uint64_t *waiting;	/* it waits at the gate */
};

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

/*
 * Items of WORK_NS of CPU time each, 5 ms of sleep in between, while the
 * gate is open; at a closed gate it finishes its item and waits, asleep.
 */
static int worker_start(int cpu, struct worker *w)
{
	struct timespec nap = { .tv_nsec = 5 * NSEC_PER_MSEC };
	struct timespec poll = { .tv_nsec = NSEC_PER_MSEC };
	struct sched_attr a = fifo_attr(VICTIM_PRIO);
	volatile uint64_t *shm;
	cpu_set_t set;

	shm = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shm == MAP_FAILED)
		return -1;
	w->tid = (volatile pid_t *)&shm[0];
	w->done = &shm[1];
	w->gate = &shm[2];
	w->waiting = &shm[3];
	*w->gate = 1;
	w->pid = fork();
	if (w->pid < 0)
		return -1;
	if (w->pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		prctl(PR_SET_NAME, "stv-worker");
		/* The priority first, then the CPU, never the other way. */
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (sched_setattr_tid(0, &a) ||
		    sched_setaffinity(0, sizeof(set), &set))
			_exit(1);
		*w->tid = syscall(SYS_gettid);
		for (;;) {
			uint64_t start;

			*w->waiting = !*w->gate;
			while (!*w->gate)
				nanosleep(&poll, NULL);
			*w->waiting = 0;
			start = thread_cpu_ns();
			while (thread_cpu_ns() - start < WORK_NS)
				;
			(*w->done)++;
			nanosleep(&nap, NULL);
		}
	}
	while (!*w->tid)
		usleep(1000);
	return 0;
}

/*
 * The test CPU's busy loop, started while the worker waits at its gate,
 * which then opens: the worker's next item begins behind the loop, with
 * none of its CPU time done, so only boosts can finish it (and a 20 us
 * one cannot: its premise holds by construction, not by timing).
 */
static pid_t hog_behind_gate(FIXTURE_DATA(starve) *self, struct worker *w,
			     int max_s)
{
	pid_t hog;

	*w->gate = 0;
	while (!*w->waiting)
		usleep(1000);
	cpu_wait_quiet(self->cpu);
	hog = hog_start(self->cpu, HOG_PRIO, max_s);
	*w->gate = 1;
	return hog;
}

/* The next event of @tid among boost, restore, escalate, deescalate. */
static int next_event(FIXTURE_DATA(starve) *self, pid_t tid, char *ev,
		      size_t len)
{
	int ret;

	do {
		ret = daemon_wait_event(self->d, NULL, 0, 20000, self->line,
					sizeof(self->line));
		if (ret)
			return ret;
		json_str(self->line, "event", ev, len);
	} while (json_int(self->line, "tid") != tid);
	return 0;
}

TEST_F_TIMEOUT(starve, escalates_until_the_work_gets_done, 90)
{
	uint64_t done_before, max_rt = 0, prev;
	int escalations = 0, boosts = 0;
	bool progressed = false;
	struct worker w;
	char ev[32];
	pid_t tid;

	kill_and_reap(self->hog);
	ASSERT_EQ(0, worker_start(self->cpu, &w));
	self->hog = hog_behind_gate(self, &w, 60);
	ASSERT_LT(0, self->hog);
	tid = *w.tid;
	done_before = *w.done;
	START("-t", "0.5", "-d", "0.5", "-F", "-p", PERIOD, "-r", "20000");
	/* Until a boost lets it finish an item (blocks). */
	while (!progressed && boosts < 30) {
		ASSERT_EQ(0, next_event(self, tid, ev, sizeof(ev)))
			TH_LOG("no event for the worker; stderr:\n%s",
			       self->d->err);
		if (!strcmp(ev, "boost")) {
			boosts++;
			ASSERT_GE(CAP_NS, json_int(self->line, "runtime_ns"));
			if ((uint64_t)json_int(self->line, "runtime_ns") > max_rt)
				max_rt = json_int(self->line, "runtime_ns");
		} else if (!strcmp(ev, "escalate")) {
			escalations++;
			prev = json_int(self->line, "previous_runtime_ns");
			EXPECT_EQ(prev * 2 > CAP_NS ? CAP_NS : prev * 2,
				  (uint64_t)json_int(self->line, "runtime_ns"));
		} else if (!strcmp(ev, "restore")) {
			json_str(self->line, "outcome", ev, sizeof(ev));
			progressed = !strcmp(ev, "progress");
		}
	}
	TH_LOG("%d boosts, %d escalations, up to %llu ns", boosts,
	       escalations, (unsigned long long)max_rt);
	EXPECT_TRUE(progressed) TH_LOG("no boost let the worker finish an item");
	EXPECT_LT(0, escalations);
	EXPECT_LT(20000ULL, max_rt);
	EXPECT_LT(done_before, *w.done);
	/* The busy loop ends: the worker keeps up, back at -r. */
	kill_and_reap(self->hog);
	self->hog = 0;
	do {
		ASSERT_EQ(0, next_event(self, tid, ev, sizeof(ev)))
			TH_LOG("never back at -r; stderr:\n%s", self->d->err);
	} while (strcmp(ev, "deescalate"));
	EXPECT_EQ(20000, json_int(self->line, "runtime_ns"));
	EXPECT_EQ(0, daemon_stop(self->d, SIGTERM, 5000));
	kill_and_reap(w.pid);
}

TEST_F_TIMEOUT(starve, no_escalation_is_stalld, 60)
{
	int restores = 0, noprog = 0;
	struct worker w;
	char ev[32];
	pid_t tid;

	kill_and_reap(self->hog);
	ASSERT_EQ(0, worker_start(self->cpu, &w));
	self->hog = hog_behind_gate(self, &w, 40);
	ASSERT_LT(0, self->hog);
	tid = *w.tid;
	START("-t", "0.5", "-d", "0.5", "-F", "-p", PERIOD, "-r", "20000",
	      "--no-escalation");
	while (restores < 4) {
		ASSERT_EQ(0, next_event(self, tid, ev, sizeof(ev)))
			TH_LOG("after %d restores; stderr:\n%s", restores,
			       self->d->err);
		EXPECT_STRNE("escalate", ev);
		if (!strcmp(ev, "boost"))
			EXPECT_EQ(20000, json_int(self->line, "runtime_ns"));
		if (!strcmp(ev, "restore")) {
			restores++;
			json_str(self->line, "outcome", ev, sizeof(ev));
			noprog += !strcmp(ev, "no_progress");
		}
	}
	/* It did need more: the test would prove nothing otherwise. */
	EXPECT_LT(0, noprog);
	EXPECT_EQ(0, daemon_stop(self->d, SIGTERM, 5000));
	kill_and_reap(w.pid);
}

/*
 * A SCHED_DEADLINE boost that overran (without HRTICK_DL: to the next
 * tick) moved the task's CBS deadline overrun/runtime periods ahead, and
 * further SCHED_DEADLINE boosts gave it nothing for as long
 * ("0 context switches during the boost"). Every boost must give CPU time.
 */
TEST_F_TIMEOUT(starve, every_boost_gives_cpu_time, 60)
{
	struct victim_spec spec = {
		.proc_name = "stv-spinner", .thread_name = "stv-spinner",
		.cpu = self->cpu, .attr = fifo_attr(VICTIM_PRIO), .sleep_ns = 0,
	};
	struct victim spinner;
	char policy[32];
	pid_t tid;
	int i;

	add_victim(_metadata, self, &spec, &spinner);
	tid = spinner.st->tid;
	START("-t", "0.5", "-d", "0.3", "-p", PERIOD, "-r", "20000",
	      "--no-escalation");
	for (i = 0; i < 3; i++) {
		WAIT_EVENT("boost", tid);
		json_str(self->line, "policy", policy, sizeof(policy));
		WAIT_EVENT("restore", tid);
		TH_LOG("boost %d (%s): ran %lld ns", i + 1, policy,
		       (long long)json_int(self->line, "ran_ns"));
		EXPECT_LT(0, json_int(self->line, "ran_ns"))
			TH_LOG("boost %d (%s) gave no CPU time", i + 1, policy);
	}
	EXPECT_EQ(0, daemon_stop(self->d, SIGTERM, 5000));
	kill_and_reap(self->hog);
	self->hog = 0;
	victim_stop(&spinner);
}

TEST_HARNESS_MAIN
