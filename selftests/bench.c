// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * make bench: what starvd costs and how fast it reacts, as ratios measured
 * in one run (machines are noisy; absolute numbers are for context only).
 *
 *  1. context-switch throughput (pipe ping-pong on one CPU) with nothing
 *     attached, starvd's programs in each BPF mode, and empty programs;
 *  2. ns per run of each attached program (BPF_STATS_RUN_TIME) next to an
 *     empty program on the same tracepoint;
 *  3. detection latency: from the real start of a starvation to its
 *     boost, minus the threshold (and what the boost journal costs);
 *  4. cost of one read of the waiters with 100 and 10,000 extra threads;
 *  5. starvd's own CPU time over BENCH_IDLE_S seconds (default 60) with
 *     10,000 extra threads at the default threshold.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "backend.h"
#include "journal.h"
#include "bench.skel.h"
#include "lib/daemon_proc.h"
#include "lib/workload.h"
#include "proc.h"
#include "util.h"

#define ROUNDS		5
#define PINGPONGS	100000

enum { CFG_NONE, CFG_SCHED_INFO, CFG_TRACKING, CFG_EMPTY, NR_CFG };
static const char *const cfg_name[NR_CFG] = {
	"nothing attached", "starvd sched_info mode", "starvd tracking mode",
	"empty programs (switch+wakeup)",
};

struct attached {
	struct backend b;
	struct bench_bpf *empty;
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
		if (!a->empty || bench_bpf__attach(a->empty))
			return -1;
	}
	return 0;
}

static void detach(struct attached *a)
{
	if (a->b.ops)
		backend_close(&a->b);
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
 * children: the bench itself holds the BPF reader, whose switch-ins
 * on_switch timestamps, and stays asleep meanwhile as starvd would.
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
	int r, c;

	printf("\n1. Context-switch throughput (pipe ping-pong on CPU %d, %d round trips, median of %d interleaved rounds)\n",
	       cpu, PINGPONGS, ROUNDS);
	for (r = 0; r < ROUNDS; r++)
		for (c = 0; c < NR_CFG; c++) {
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

/* One mode at a time next to the empty programs, so neither evicts the
 * other's cache lines. */
static void bench_prog_cost(int cpu)
{
	static const int modes[] = { CFG_SCHED_INFO, CFG_TRACKING };
	int stats = bpf_enable_stats(BPF_STATS_RUN_TIME);
	struct attached a, empty;
	size_t i;

	printf("\n2. Cost per run of each program (BPF_STATS_RUN_TIME, %d round trips, each mode next to the empty programs)\n",
	       PINGPONGS);
	if (stats < 0) {
		printf("   not measured: cannot enable BPF run-time stats: %s\n",
		       strerror(errno));
		return;
	}
	for (i = 0; i < ARRAY_SIZE(modes); i++) {
		if (attach(CFG_EMPTY, &empty) || attach(modes[i], &a))
			exit(1);
		pingpong(cpu, PINGPONGS);
		printf("   %s:\n", cfg_name[modes[i]]);
		print_prog_stats("on_switch track_switch track_wakeup track_wakeup_new track_migrate empty_switch empty_wakeup");
		detach(&a);
		detach(&empty);
	}
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
	const char *const args[] = { "-f", "-b", "bpf", "--run-dir",
				     TEST_RUN_DIR, NULL };
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

	printf("\n5. starvd's own CPU time over %d s, 10,000 extra threads, default threshold (60 s)\n",
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
	journal_cost(TEST_RUN_DIR);
	journal_cost("/dev/shm/starvd-bench");
	daemon_stop(d, SIGTERM, 5000);
	kill_and_reap(hog);
	victim_stop(&v);
	free(d);
}

int main(void)
{
	int cpu = test_cpu();
	long saved;

	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("starvd benchmarks (%d CPUs, kernel BPF programs measured in this run)\n",
	       cpus_possible());
	bench_switch_rate(cpu);
	bench_prog_cost(cpu);
	/* starvd runs only with RT throttling off (bench.sh restores it). */
	if (rt_throttle_off(&saved))
		exit(1);
	bench_latency(cpu);
	bench_read_and_idle();
	rt_throttle_restore(saved);
	return 0;
}
