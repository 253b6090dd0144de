// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * make bench: what starvd costs and how fast it reacts, as ratios measured
 * in one run (machines are noisy; absolute numbers are for context only).
 *
 *  1. the hot path: context-switch throughput (pipe ping-pong on one CPU)
 *     with nothing attached, an empty program on sched_switch, starvd in
 *     sched_info mode (which attaches nothing) and in tracking mode;
 *  2. ns per run of each attached program (BPF_STATS_RUN_TIME) next to an
 *     empty program on the same tracepoint;
 *  3. detection latency: from the real start of a starvation to its
 *     boost, minus the threshold (and what the boost journal costs);
 *     the clock calibration's error: the time the reader takes after its
 *     switch-in, measured against a switch-in stamp from a program;
 *  4. cost of one read of the waiters with 100 and 10,000 extra threads;
 *  5. starvd's own CPU time over BENCH_IDLE_S seconds (default 60) with
 *     10,000 extra threads at a 60 s threshold;
 *  6. what a boost really gives: the CPU time a starving spinner got per
 *     boosted period (its schedstat) over the configured runtime, with
 *     SCHED_DEADLINE (HRTICK_DL on where starvd can turn it on) and with
 *     the SCHED_FIFO emulation. "bench overrun" runs only this one (the
 *     guests: make bench-vm);
 *  7. what one holder stack (--stacks) costs starvd in CPU time, and how
 *     long from the request to the named stack, also for a holder with
 *     10,000 threads; the perf events left open after captures (none)
 *     and 1.'s rate right after a capture ("bench stacks": only this
 *     one).
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <poll.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "backend.h"
#include "hrtick.h"
#include "journal.h"
#include "bench.skel.h"
#include "lib/daemon_proc.h"
#include "lib/workload.h"
#include "proc.h"
#include "stack.h"
#include "util.h"

#define ROUNDS		8	/* each configuration twice in each position */
#define PINGPONGS	100000

enum { CFG_NONE, CFG_EMPTY, CFG_SCHED_INFO, CFG_TRACKING, NR_CFG };
static const char *const cfg_name[NR_CFG] = {
	"nothing attached", "empty program on sched_switch",
	"starvd sched_info mode", "starvd tracking mode",
};

struct attached {
	struct backend b;
	struct bench_bpf *empty;
	struct bpf_link *links[2];
};

static int attach(int cfg, struct attached *a)
{
	char err[512];
	int mode = cfg == CFG_SCHED_INFO ? STARVD_MODE_SCHED_INFO :
					   STARVD_MODE_TRACKING;

	memset(a, 0, sizeof(*a));
	if (cfg == CFG_SCHED_INFO || cfg == CFG_TRACKING) {
		if (backend_open(&a->b, BACKEND_BPF, mode, err, sizeof(err))) {
			fprintf(stderr, "bench: %s\n", err);
			return -1;
		}
	} else if (cfg == CFG_EMPTY) {
		a->empty = bench_bpf__open_and_load();
		if (!a->empty)
			return -1;
		a->links[0] = bpf_program__attach(a->empty->progs.empty_switch);
		if (!a->links[0])
			return -1;
	}
	return 0;
}

/* Both empty programs: the floor under tracking mode's two hot ones. */
static int attach_empty_both(struct attached *a)
{
	if (attach(CFG_EMPTY, a))
		return -1;
	a->links[1] = bpf_program__attach(a->empty->progs.empty_wakeup);
	return a->links[1] ? 0 : -1;
}

static void detach(struct attached *a)
{
	size_t i;

	if (a->b.ops)
		backend_close(&a->b);
	for (i = 0; i < ARRAY_SIZE(a->links); i++)
		bpf_link__destroy(a->links[i]);
	bench_bpf__destroy(a->empty);
}

static void pin_self(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

/*
 * Round trips per second between two processes on one CPU. Both are
 * children: the bench itself holds the BPF programs and stays asleep
 * meanwhile, as starvd would.
 */
static double pingpong(int cpu, int n)
{
	int ab[2], ba[2], res[2], i;
	double rate = 0;
	uint64_t t0;
	char c = 0;
	pid_t a, b;

	if (pipe(ab) || pipe(ba) || pipe(res))
		return 0;
	a = fork();
	if (a == 0) {
		pin_self(cpu);
		for (i = 0; i < n; i++)
			if (read(ab[0], &c, 1) != 1 || write(ba[1], &c, 1) != 1)
				_exit(1);
		_exit(0);
	}
	b = fork();
	if (b == 0) {
		pin_self(cpu);
		t0 = now_ns();
		for (i = 0; i < n; i++)
			if (write(ab[1], &c, 1) != 1 || read(ba[0], &c, 1) != 1)
				_exit(1);
		rate = (double)n * NSEC_PER_SEC / (now_ns() - t0);
		_exit(write(res[1], &rate, sizeof(rate)) != sizeof(rate));
	}
	if (read(res[0], &rate, sizeof(rate)) != sizeof(rate))
		rate = 0;
	waitpid(a, NULL, 0);
	waitpid(b, NULL, 0);
	for (i = 0; i < 2; i++) {
		close(ab[i]);
		close(ba[i]);
		close(res[i]);
	}
	return rate;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return v[n / 2];
}

static void bench_switch_rate(int cpu)
{
	double rate[NR_CFG][ROUNDS], base;
	struct attached a;
	int r, c, i;

	printf("\n1. The hot path: context-switch throughput (pipe ping-pong on CPU %d, %d round trips, median of %d rotated rounds)\n",
	       cpu, PINGPONGS, ROUNDS);
	/*
	 * Each round starts with the next configuration, so that none is
	 * always measured right after a detach or first in a round.
	 */
	for (r = 0; r < ROUNDS; r++)
		for (i = 0; i < NR_CFG; i++) {
			c = (r + i) % NR_CFG;
			if (attach(c, &a))
				exit(1);
			rate[c][r] = pingpong(cpu, PINGPONGS);
			detach(&a);
		}
	base = median(rate[CFG_NONE], ROUNDS);
	for (c = 0; c < NR_CFG; c++) {
		double m = median(rate[c], ROUNDS);

		printf("   %-32s %9.0f round trips/s  %.3fx\n", cfg_name[c], m,
		       m / base);
	}
}

static void print_prog_stats(const char *names)
{
	struct bpf_prog_info info;
	__u32 id = 0, len;
	int fd;

	while (!bpf_prog_get_next_id(id, &id)) {
		fd = bpf_prog_get_fd_by_id(id);
		if (fd < 0)
			continue;
		memset(&info, 0, sizeof(info));
		len = sizeof(info);
		if (!bpf_obj_get_info_by_fd(fd, &info, &len) &&
		    strstr(names, info.name) && info.run_cnt)
			printf("   %-20s %10llu runs  %6.1f ns/run\n", info.name,
			       (unsigned long long)info.run_cnt,
			       (double)info.run_time_ns / info.run_cnt);
		close(fd);
	}
}

/*
 * Tracking mode next to the empty programs (sched_info mode attaches
 * none): what each of its programs costs per run.
 */
static void bench_prog_cost(int cpu)
{
	int stats = bpf_enable_stats(BPF_STATS_RUN_TIME);
	struct attached a, empty;

	printf("\n2. Cost per run of each program (BPF_STATS_RUN_TIME, %d round trips, next to empty programs; sched_info mode attaches none)\n",
	       PINGPONGS);
	if (stats < 0) {
		printf("   not measured: cannot enable BPF run-time stats: %s\n",
		       strerror(errno));
		return;
	}
	if (attach_empty_both(&empty) || attach(CFG_TRACKING, &a))
		exit(1);
	pingpong(cpu, PINGPONGS);
	printf("   %s:\n", cfg_name[CFG_TRACKING]);
	print_prog_stats("track_switch track_wakeup track_wakeup_new track_migrate empty_switch empty_wakeup");
	detach(&a);
	detach(&empty);
	close(stats);
}

static void *idle_thread(void *arg)
{
	pause();
	return NULL;
}

static int spawn_threads(int n)
{
	pthread_attr_t attr;
	pthread_t th;
	int i;

	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	for (i = 0; i < n; i++)
		if (pthread_create(&th, &attr, idle_thread, NULL))
			return i;
	return n;
}

static double read_ms(struct backend *b)
{
	struct task_list l = {};
	uint64_t t0 = now_ns();
	int i;

	for (i = 0; i < 20; i++)
		backend_read_tasks(b, NULL, &l);
	task_list_free(&l);
	return (double)(now_ns() - t0) / 20 / NSEC_PER_MSEC;
}

static void bench_read_and_idle(void)
{
	const char *idle_s = getenv("BENCH_IDLE_S");
	int secs = idle_s ? atoi(idle_s) : 60;
	/* 60 s, as measured before the default became stalld's 20 s. */
	const char *const args[] = { "-f", "-b", "bpf", "--run-dir",
				     TEST_RUN_DIR, "-t", "60", NULL };
	struct daemon_proc *d = calloc(1, sizeof(*d));
	struct backend b;
	char err[512];
	double small, big;
	uint64_t cpu0, cpu1;

	if (backend_open(&b, BACKEND_BPF, STARVD_MODE_SCHED_INFO, err,
			 sizeof(err)))
		exit(1);
	spawn_threads(100);
	small = read_ms(&b);
	printf("\n4. One read of the waiters (task iterator, sched_info mode)\n   with 100 extra threads:    %8.3f ms\n",
	       small);
	spawn_threads(9900);
	big = read_ms(&b);
	printf("   with 10,000 extra threads: %8.3f ms  (%.0fx)\n", big,
	       big / small);
	backend_close(&b);

	printf("\n5. starvd's own CPU time over %d s, 10,000 extra threads, threshold 60 s\n",
	       secs);
	if (daemon_start(d, args))
		exit(1);
	/* From the end of start-up, over one read per threshold. */
	daemon_wait_output(d, "monitoring CPUs", 10000);
	cpu0 = task_exec_ns(d->pid);
	sleep(secs + 1);
	cpu1 = task_exec_ns(d->pid);
	daemon_stop(d, SIGTERM, 5000);
	printf("   %.3f ms of CPU in %d s = %.5f%% of one CPU (start-up excluded)\n",
	       (double)(cpu1 - cpu0) / NSEC_PER_MSEC, secs + 1,
	       100.0 * (cpu1 - cpu0) / ((double)(secs + 1) * NSEC_PER_SEC));
	free(d);
}

/* A boost journals before it changes a policy: what that costs here. */
static void journal_cost(const char *dir)
{
	struct journal_entry e = { .tid = 1, .comm = "bench" };
	struct journal j;
	uint64_t t0;
	int i;

	if (journal_open(&j, dir))
		return;
	t0 = now_ns();
	for (i = 0; i < 20; i++) {
		journal_add(&j, &e);
		journal_remove(&j, e.tid);
	}
	printf("   journal entry written (fsync'd) and removed in %s: %.3f ms\n",
	       dir, (double)(now_ns() - t0) / 20 / NSEC_PER_MSEC);
	journal_close(&j);
}

/*
 * sched_info mode calibrates the scheduler clock with the CLOCK_MONOTONIC
 * time a reader takes after it woke (after sampling its switch counts,
 * as user/backend_bpf.c does) for the moment the kernel switched it in:
 * it is late by the difference, measured here against a stamp taken at
 * the switch-in by a sched_switch program (this bench's only).
 */
#define CALIB_WAKES	200

static void bench_calibration(void)
{
	struct bench_bpf *skel = bench_bpf__open_and_load();
	struct timespec ms = { 0, NSEC_PER_MSEC };
	double late[CALIB_WAKES];
	struct bpf_link *link;
	struct rusage ru;
	uint64_t t;
	int i, n = 0;

	printf("   clock calibration: reader's CLOCK_MONOTONIC after a 1 ms sleep - its switch-in (%d wakes)\n",
	       CALIB_WAKES);
	if (!skel)
		return;
	skel->bss->target_tid = syscall(SYS_gettid);
	link = bpf_program__attach(skel->progs.stamp_switch);
	for (i = 0; link && i < CALIB_WAKES; i++) {
		clock_nanosleep(CLOCK_MONOTONIC, 0, &ms, NULL);
		getrusage(RUSAGE_THREAD, &ru);
		t = now_ns();
		if (skel->bss->switch_in_ns && t >= skel->bss->switch_in_ns)
			late[n++] = (double)(t - skel->bss->switch_in_ns) /
				    NSEC_PER_USEC;
	}
	if (n) {
		qsort(late, n, sizeof(*late), cmp_double);
		printf("   late by %.1f us (min), %.1f us (median), %.1f us (max): reported wait starts are late by as much\n",
		       late[0], late[n / 2], late[n - 1]);
	}
	bpf_link__destroy(link);
	bench_bpf__destroy(skel);
}

static void bench_latency(int cpu)
{
	struct victim_spec spec = {
		.proc_name = "stv-victim", .thread_name = "stv-victim",
		.cpu = cpu, .attr = fifo_attr(10), .sleep_ns = 5 * NSEC_PER_MSEC,
	};
	/*
	 * Boosts that always give runtime (ten periods each), so that each
	 * episode is a new wait; the journal on tmpfs, as /run is normally.
	 */
	const char *const args[] = { "-t", "1", "-d", "1", "-p", "100000000",
				     "-r", "100000", "--run-dir",
				     "/dev/shm/starvd-bench", NULL };
	struct daemon_proc *d = calloc(1, sizeof(*d));
	char line[2048];
	struct victim v;
	int64_t real_start, reported, lat, worst = 0;
	pid_t hog;
	int i;

	printf("\n3. Detection latency (boost time - real start of the wait - threshold 1 s)\n");
	if (victim_start(&spec, &v))
		exit(1);
	hog = hog_start(cpu, 50, 30);
	daemon_start(d, args);
	for (i = 0; i < 5; i++) {
		if (daemon_wait_event(d, "starving", v.st->tid, 10000, line,
				      sizeof(line)))
			break;
		real_start = victim_wait_start(&v, spec.sleep_ns,
					       json_int(line, "read_time_ns"));
		reported = json_int(line, "wait_start_ns");
		if (daemon_wait_event(d, "boost", v.st->tid, 10000, line,
				      sizeof(line)))
			break;
		lat = json_int(line, "time_ns") - real_start - NSEC_PER_SEC;
		if (lat > worst)
			worst = lat;
		printf("   episode %d: %.2f ms (reported start of the wait %+.2f ms from the real one)\n",
		       i + 1, (double)lat / NSEC_PER_MSEC,
		       (double)(reported - real_start) / NSEC_PER_MSEC);
	}
	printf("   worst: %.2f ms (stalld: up to its granularity, 5 s by default, on top)\n",
	       (double)worst / NSEC_PER_MSEC);
	bench_calibration();
	journal_cost(TEST_RUN_DIR);
	journal_cost("/dev/shm/starvd-bench");
	daemon_stop(d, SIGTERM, 5000);
	kill_and_reap(hog);
	victim_stop(&v);
	free(d);
}

/*
 * Section 6's busy loop and boosted spinner: SCHED_FIFO @prio on @cpu for
 * @max_s seconds, noting in @g each time it was off the CPU for more than
 * GAP_MIN_NS (when, how long). The spinner runs only when boosted: its
 * runs are between its gaps, and the busy loop's gap around a run of it
 * is what its user feels of that boost. Gaps of the busy loop around no
 * run of the spinner are the machine's own (a virtual CPU the host
 * preempts), left out.
 */
#define GAP_MIN_NS	5000
#define GAPS_MAX	65536
struct gaps {
	volatile int ready;		/* it has run: the first run is seen */
	volatile uint64_t n;
	struct { volatile uint64_t at, len; } g[GAPS_MAX];
};

static pid_t gap_loop_start(const char *name, int cpu, int prio, int max_s,
			    struct gaps *g)
{
	struct sched_attr a = fifo_attr(prio);
	uint64_t end, t, last;
	pid_t pid = fork();

	if (pid)
		return pid;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	prctl(PR_SET_NAME, name);
	if (sched_setattr_tid(0, &a) || pin(0, cpu))
		_exit(1);
	last = now_ns();
	end = last + (uint64_t)max_s * NSEC_PER_SEC;
	g->ready = 1;
	while ((t = now_ns()) < end) {
		if (t - last > GAP_MIN_NS && g->n < GAPS_MAX) {
			g->g[g->n].at = last;
			g->g[g->n].len = t - last;
			g->n++;
		}
		last = t;
	}
	_exit(0);
}

/*
 * The busy loop's longest gap (@hog) around a run of the spinner (@spin)
 * that began within [@from, @to); 0 if none.
 */
static uint64_t longest_interruption(const struct gaps *hog,
				     const struct gaps *spin,
				     uint64_t from, uint64_t to)
{
	uint64_t i, j, run, max = 0;

	for (i = 0; i < spin->n; i++) {
		run = spin->g[i].at + spin->g[i].len;	/* a run began */
		if (run < from || run >= to)
			continue;
		for (j = 0; j < hog->n; j++)
			if (hog->g[j].at <= run &&
			    run < hog->g[j].at + hog->g[j].len &&
			    hog->g[j].len > max)
				max = hog->g[j].len;
	}
	return max;
}

/*
 * One mode of section 6: a SCHED_FIFO 10 spinner behind a SCHED_FIFO 50
 * busy loop, boosted 20 us per 1 s for 3 s at a time (no escalation: a
 * spinner never blocks, and the point is what one configured runtime
 * costs the busy loop). Per boost: the spinner's CPU time per period (its
 * schedstat, from the restore event) over the runtime, and the busy
 * loop's longest interruption during the boost. The longest outside any
 * boost is the machine's own noise, for comparison.
 */
static void overrun_mode(int cpu, const char *name, bool fifo)
{
	const char *args[] = { "-t", "1", "-d", "3", "-p", "1000000000",
			       "-r", "20000", "--no-escalation", "-a", "0",
			       "--run-dir", "/dev/shm/starvd-bench", NULL, NULL };
	struct daemon_proc *d = calloc(1, sizeof(*d));
	double ratio, sum = 0, worst = 0, gap_sum = 0, gap_worst = 0;
	uint64_t t_boost, t_restore, gap;
	struct gaps *g;
	char line[2048], policy[32];
	pid_t hog, spinner;
	int i, n = 0;

	g = mmap(NULL, 2 * sizeof(*g), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (g == MAP_FAILED)
		exit(1);
	if (fifo)
		args[13] = "-F";
	avoid_cpu(cpu);
	spinner = gap_loop_start("stv-spinner", cpu, 10, 40, &g[1]);
	while (!g[1].ready)
		usleep(1000);
	hog = gap_loop_start("stv-hog", cpu, 50, 40, &g[0]);
	daemon_start(d, args);
	for (i = 0; i < 4; i++) {
		if (daemon_wait_event(d, "boost", spinner, 15000, line,
				      sizeof(line))) {
			printf("   %s: no boost of the spinner in 15 s; starvd said:\n%s\n",
			       name, d->err);
			break;
		}
		json_str(line, "policy", policy, sizeof(policy));
		/* The event follows the first raise: a millisecond's slack. */
		t_boost = json_int(line, "time_ns") - NSEC_PER_MSEC;
		if (daemon_wait_event(d, "restore", spinner, 15000, line,
				      sizeof(line)))
			break;
		t_restore = json_int(line, "time_ns") + NSEC_PER_MSEC;
		gap = longest_interruption(&g[0], &g[1], t_boost, t_restore);
		/* 3 s boosts of 1 s periods: 3 periods each. */
		ratio = (double)json_int(line, "ran_ns") / 3 /
			json_int(line, "runtime_ns");
		printf("   %s boost %d (%s): %.1f us per period = %.2fx the runtime; busy loop interrupted for at most %.1f us\n",
		       name, i + 1, policy,
		       (double)json_int(line, "ran_ns") / 3 / 1000, ratio,
		       gap / 1e3);
		sum += ratio;
		if (ratio > worst)
			worst = ratio;
		gap_sum += gap;
		if (gap > gap_worst)
			gap_worst = gap;
		n++;
	}
	if (n) {
		printf("   %s: mean %.2fx, worst %.2fx the configured 20 us per period%s\n",
		       name, sum / n, worst,
		       daemon_output_has(d, HRTICK_OUT_OF_REACH) ||
		       daemon_output_has(d, HRTICK_CANNOT) ?
		       " (HRTICK_DL could not be turned on: throttled at the tick)" :
		       fifo ? "" : " (HRTICK_DL on while boosting)");
		printf("   %s: busy loop's longest interruption per boost: mean %.1f us, worst %.1f us\n",
		       name, gap_sum / n / 1e3, gap_worst / 1e3);
	}
	daemon_stop(d, SIGTERM, 5000);
	kill_and_reap(hog);
	kill_and_reap(spinner);
	munmap(g, 2 * sizeof(*g));
	free(d);
}

static void bench_overrun(int cpu)
{
	printf("\n6. What a boost gives and costs (CPU time of a boosted spinner per period / configured runtime; the busy loop's longest interruption per boost)\n");
	overrun_mode(cpu, "SCHED_DEADLINE", false);
	overrun_mode(cpu, "SCHED_FIFO emulation", true);
}

static uint64_t process_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

/* The perf events this process holds open (anon_inode:[perf_event]). */
static int perf_fds(void)
{
	char path[64], target[64];
	int fd, n = 0;

	for (fd = 0; fd < 1024; fd++) {
		ssize_t len;

		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		len = readlink(path, target, sizeof(target) - 1);
		if (len <= 0)
			continue;
		target[len] = '\0';
		n += !strcmp(target, "anon_inode:[perf_event]");
	}
	return n;
}

/* One capture of @h by @s, waited for; NULL if none came. */
static struct holder_stack *capture_one(struct stacks *s,
					const struct starvd_task *h,
					const struct starvd_task *v)
{
	struct pollfd p = { .fd = stacks_poll_fd(s), .events = POLLIN };
	struct holder_stack *hs;
	int tries = 10;

	if (!stacks_request(s, h, v))
		return NULL;
	while (!(hs = stacks_take(s)) && tries--)
		poll(&p, 1, 1000);
	return hs;
}

/*
 * A SCHED_FIFO 10 spinner on @cpu, as the holders starvd samples are,
 * with @threads idle threads beside it; returned once they are made and
 * it spins on @cpu (a SCHED_OTHER one may wait there longer than a
 * capture samples, behind a busy machine's other tasks).
 */
static pid_t spinner_start(int cpu, int threads)
{
	struct sched_attr a = fifo_attr(10);
	int ready[2];
	pid_t pid;
	char c = 0;

	if (pipe(ready))
		return -1;
	pid = fork();
	if (pid) {
		close(ready[1]);
		if (pid < 0 || read(ready[0], &c, 1) != 1)
			c = 0;
		close(ready[0]);
		return c ? pid : -1;
	}
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	close(ready[0]);
	spawn_threads(threads);
	c = !pin(0, cpu) && !sched_setattr_tid(0, &a);
	if (write(ready[1], &c, 1) != 1 || !c)
		_exit(1);
	close(ready[1]);
	for (;;)
		;
}

/*
 * The median CPU time (ms) of @n captures of @h by @s, -1 if one did not
 * come back; the median time to the stack in @wall_ms, the last one's
 * frames in @frames.
 */
static double capture_cpu_ms(struct stacks *s, const struct starvd_task *h,
			     const struct starvd_task *v, int n,
			     double *wall_ms, unsigned int *frames)
{
	double cpu_ms[10], wall[10];
	struct holder_stack *hs;
	int i;

	*frames = 0;
	for (i = 0; i < n && i < 10; i++) {
		uint64_t c0 = process_cpu_ns(), t0 = now_ns();

		hs = capture_one(s, h, v);
		cpu_ms[i] = (double)(process_cpu_ns() - c0) / NSEC_PER_MSEC;
		wall[i] = (double)(now_ns() - t0) / NSEC_PER_MSEC;
		if (!hs)
			return -1;
		*frames = hs->nr_kernel + hs->nr_user;
		free(hs);
	}
	*wall_ms = median(wall, i);
	return median(cpu_ms, i);
}

/*
 * 7. What one holder stack costs starvd (--stacks, user/stack*.c): the
 * same code, on a process spinning on @cpu; CPU time of the whole
 * process (the capture thread's, the main thread only waits). Then
 * what stays: the perf events left open, and the context-switch rate
 * of 1. right after a capture against no capture at all, in rotated
 * rounds (the spinner stopped meanwhile, after running as long before
 * either).
 */
static void bench_stack_capture(int cpu)
{
	struct starvd_task h = { .cpu = cpu, .comm = "bench-spin" };
	struct starvd_task v = { .tid = 1, .comm = "bench" };
	struct stacks *s = stacks_open(true);
	double cpu_ms, wall_ms, rate[2][ROUNDS], base;
	unsigned int frames = 0;
	int i, r, c, n = 10, left;
	pid_t pid, many;

	pid = spinner_start(cpu, 0);
	if (pid < 0) {
		printf("   cannot start the spinner\n");
		stacks_close(s);
		return;
	}
	h.tid = h.tgid = pid;
	printf("\n7. One holder stack (--stacks) of a SCHED_FIFO 10 spinner: 4 samples at 1 ms, kernel and user frames named\n");
	if (!s || stacks_start(s)) {
		printf("   cannot start the capture thread\n");
		kill_and_reap(pid);
		return;
	}
	cpu_ms = capture_cpu_ms(s, &h, &v, n, &wall_ms, &frames);
	if (cpu_ms < 0) {
		printf("   no stack came back\n");
		goto out;
	}
	printf("   starvd's CPU time per capture: %.2f ms (median of %d), %.2f ms from request to stack, %u frames\n",
	       cpu_ms, n, wall_ms, frames);
	left = perf_fds();
	for (r = 0; r < ROUNDS; r++)
		for (i = 0; i < 2; i++) {
			c = (r + i) % 2;
			/* The spinner runs as long before either. */
			kill(pid, SIGCONT);
			if (c) {
				free(capture_one(s, &h, &v));
				left += perf_fds();
			} else {
				usleep(wall_ms * 1000);
			}
			kill(pid, SIGSTOP);
			rate[c][r] = pingpong(cpu, PINGPONGS);
		}
	base = median(rate[0], ROUNDS);
	printf("   perf events open after %d captures: %d\n", n + ROUNDS, left);
	printf("   hot path (1.): %-32s %9.0f round trips/s  %.3fx\n",
	       "no capture", base, 1.0);
	printf("   hot path (1.): %-32s %9.0f round trips/s  %.3fx\n",
	       "right after a capture", median(rate[1], ROUNDS),
	       median(rate[1], ROUNDS) / base);
	/* Reading the holder's maps grows with them: 10,000 threads. */
	kill_and_reap(pid);
	pid = 0;
	many = spinner_start(cpu, 9999);
	if (many < 0) {
		printf("   cannot start a holder with 10,000 threads\n");
		goto out;
	}
	h.tid = h.tgid = many;
	cpu_ms = capture_cpu_ms(s, &h, &v, n, &wall_ms, &frames);
	printf("   a holder with 10,000 threads (20,000 lines of maps): %.2f ms of CPU per capture, %.2f ms to the stack, %u frames\n",
	       cpu_ms, wall_ms, frames);
	kill_and_reap(many);
out:
	stacks_close(s);
	if (pid) {
		kill(pid, SIGCONT);
		kill_and_reap(pid);
	}
}

int main(int argc, char **argv)
{
	int cpu = test_cpu();
	long saved;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 1 && !strcmp(argv[1], "overrun")) {
		if (rt_throttle_off(&saved))
			exit(1);
		bench_overrun(cpu);
		rt_throttle_restore(saved);
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "stacks")) {
		bench_stack_capture(cpu);
		return 0;
	}
	printf("starvd benchmarks (%d CPUs, kernel BPF programs measured in this run)\n",
	       cpus_possible());
	bench_switch_rate(cpu);
	bench_prog_cost(cpu);
	/* starvd runs only with RT throttling off (bench.sh restores it). */
	if (rt_throttle_off(&saved))
		exit(1);
	bench_latency(cpu);
	bench_read_and_idle();
	bench_overrun(cpu);
	rt_throttle_restore(saved);
	/*
	 * 7. in a process of its own: this one has 10,000 threads since 4.,
	 * whose stacks a forked spinner would map (20,000 lines of maps
	 * for every unwinding).
	 */
	execl("/proc/self/exe", argv[0], "stacks", (char *)NULL);
	perror("bench: exec for 7.");
	return 1;
}
