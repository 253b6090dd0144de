// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The binaries as a user meets them: errors that say what to do and exit
 * non-zero, RT throttling policy, daemon mode and pidfile, starvctl.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "lib/daemon_proc.h"
#include "lib/workload.h"
#include "cpuset.h"
#include "throttle.h"
#include "util.h"

TEST(bad_options_exit_2_and_name_the_option)
{
	char out[4096];

	EXPECT_EQ(2, RUN(out, bin_path("starvd"), "-t", "0"));
	EXPECT_TRUE(NULL != strstr(out, "-t/--starving_threshold")) TH_LOG("%s", out);
	EXPECT_EQ(2, RUN(out, bin_path("starvd"), "-c", "4096"));
	EXPECT_TRUE(NULL != strstr(out, "CPU 4096 does not exist")) TH_LOG("%s", out);
	EXPECT_EQ(2, RUN(out, bin_path("starvd"), "-r", "5", "-p", "4"));
	EXPECT_TRUE(NULL != strstr(out, "-r/--boost_runtime")) TH_LOG("%s", out);
	EXPECT_EQ(2, RUN(out, bin_path("starvd"), "-P", "/no/such/dir/p"));
	EXPECT_TRUE(NULL != strstr(out, "-P/--pidfile")) TH_LOG("%s", out);
	EXPECT_EQ(0, RUN(out, bin_path("starvd"), "--help"));
	EXPECT_TRUE(NULL != strstr(out, "--starving_threshold"));
	EXPECT_TRUE(NULL != strstr(out, "Usage: starvd [options]\n")) TH_LOG("%s", out);
	/* Printed as it is, not as a printf format. */
	EXPECT_TRUE(NULL != strstr(out, "PCT% of a CPU")) TH_LOG("%s", out);
	EXPECT_TRUE(NULL == strstr(out, "%%"));
	EXPECT_EQ(0, RUN(out, bin_path("starvd"), "-V"));
	EXPECT_TRUE(NULL != strstr(out, "starvd "));
}

TEST(starvctl_usage_errors)
{
	char out[4096];

	EXPECT_EQ(2, RUN(out, bin_path("starvctl")));
	EXPECT_EQ(2, RUN(out, bin_path("starvctl"), "frobnicate"));
	EXPECT_TRUE(NULL != strstr(out, "frobnicate"));
	EXPECT_EQ(2, RUN(out, bin_path("starvctl"), "--cpu", "4096", "tasks"));
	EXPECT_TRUE(NULL != strstr(out, "does not exist")) TH_LOG("%s", out);
	EXPECT_EQ(2, RUN(out, bin_path("starvctl"), "-m", "soon", "tasks"));
	EXPECT_EQ(2, RUN(out, bin_path("starvctl"), "-b", "debugfs", "info"));
}

static void stdout_to_dev_full(void *arg)
{
	int fd = open("/dev/full", O_WRONLY);

	if (fd >= 0)
		dup2(fd, 1);
}

/* An answer that could not be written is not a success. */
TEST(starvctl_write_error_is_an_error)
{
	const char *const argv[] = { bin_path("starvctl"), "--help", NULL };
	char out[4096];

	ASSERT_EQ(0, access("/dev/full", W_OK));
	EXPECT_EQ(1, run_capture_as(argv, out, sizeof(out), stdout_to_dev_full,
				    NULL)) TH_LOG("%s", out);
	EXPECT_TRUE(NULL != strstr(out, "cannot write the output to stdout: No space left on device"))
		TH_LOG("%s", out);
}

FIXTURE(root) {
	long saved_rt;
	bool changed;
};

FIXTURE_SETUP(root)
{
	if (geteuid())
		SKIP(return, "needs root");
	ASSERT_EQ(0, rt_runtime_read(&self->saved_rt));
	self->changed = true;
}

FIXTURE_TEARDOWN(root)
{
	if (self->changed)
		rt_throttle_restore(self->saved_rt);
}

/*
 * Through rt_throttle_restore(): a task killed while boosted by an
 * earlier test can leave the kernel's SCHED_DEADLINE total wrapped, and
 * a write then fails once with EBUSY (docs/kernel-behaviours.md,
 * "DEADLINE bandwidth left behind after a task leaves the class").
 */
static int set_rt(long us)
{
	return rt_throttle_restore(us);
}

/*
 * As stalld: without -S starvd turns RT throttling off itself and puts it
 * back when it exits; with -S (the service manages it) it refuses to run
 * while it is on; with -l it leaves it alone.
 */
TEST_F(root, rt_throttling_as_stalld)
{
	struct daemon_proc *d = calloc(1, sizeof(*d));
	const char *const own[] = { "-t", "5", NULL };
	const char *const log_only[] = { "-S", "-l", "-t", "5", NULL };
	char out[4096];
	long us;

	set_rt(950000);
	EXPECT_EQ(1, RUN(out, bin_path("starvd"), "-f", "-S", "-b",
			 test_backend(), "--run-dir", "/tmp/starvd-cli"));
	EXPECT_TRUE(NULL != strstr(out, "RT throttling is on!")) TH_LOG("%s", out);
	EXPECT_TRUE(NULL != strstr(out, "--rt-throttling off")) TH_LOG("%s", out);
	/* Without -S: off while it runs, back after. */
	ASSERT_EQ(0, daemon_start(d, own));
	ASSERT_TRUE(daemon_wait_output(d, "monitoring CPUs", 5000)) TH_LOG("%s", d->err);
	EXPECT_TRUE(daemon_output_has(d, "RT Throttling disabled"));
	ASSERT_EQ(0, rt_runtime_read(&us));
	EXPECT_EQ(-1, us);
	EXPECT_EQ(0, daemon_stop(d, SIGTERM, 5000));
	EXPECT_TRUE(daemon_output_has(d, "RT Throttling runtime restored to 950000"))
		TH_LOG("%s", d->err);
	ASSERT_EQ(0, rt_runtime_read(&us));
	EXPECT_EQ(950000, us);
	/* -l: left alone, even with -S. */
	ASSERT_EQ(0, daemon_start(d, log_only));
	ASSERT_TRUE(daemon_wait_output(d, "monitoring CPUs", 5000)) TH_LOG("%s", d->err);
	EXPECT_TRUE(daemon_output_has(d, "RT throttling left as it is"));
	ASSERT_EQ(0, rt_runtime_read(&us));
	EXPECT_EQ(950000, us);
	EXPECT_EQ(0, daemon_stop(d, SIGTERM, 5000));
	free(d);
}

static bool alive(pid_t pid)
{
	return kill(pid, 0) == 0;
}

TEST_F(root, daemon_writes_final_pid_and_stops_on_sigterm)
{
	char dir[] = "/tmp/starvd-pid.XXXXXX", pidfile[64], out[4096], buf[32];
	pid_t pid;
	int i;

	set_rt(-1);
	ASSERT_TRUE(NULL != mkdtemp(dir));
	snprintf(pidfile, sizeof(pidfile), "%s/starvd.pid", dir);
	ASSERT_EQ(0, RUN(out, bin_path("starvd"), "-P", pidfile, "-b",
			 test_backend(), "--run-dir", dir, "-t", "5"))
		TH_LOG("%s", out);
	ASSERT_EQ(0, read_line(pidfile, buf, sizeof(buf)));
	pid = atoi(buf);
	ASSERT_LT(1, pid);
	EXPECT_TRUE(alive(pid));
	snprintf(out, sizeof(out), "/proc/%d/comm", pid);
	ASSERT_EQ(0, read_line(out, buf, sizeof(buf)));
	EXPECT_STREQ("starvd", buf);
	kill(pid, SIGTERM);
	for (i = 0; i < 500 && alive(pid); i++)
		usleep(10000);
	EXPECT_FALSE(alive(pid));
	EXPECT_NE(0, access(pidfile, F_OK)) TH_LOG("pidfile left behind");
	rmdir(dir);
}

TEST_F(root, sigusr1_logs_status)
{
	struct daemon_proc *d = calloc(1, sizeof(*d));
	const char *const args[] = { "-t", "5", NULL };

	set_rt(-1);
	ASSERT_EQ(0, daemon_start(d, args));
	daemon_drain(d, 1000);
	kill(d->pid, SIGUSR1);
	daemon_drain(d, 1000);
	EXPECT_TRUE(daemon_output_has(d, "status: backend"));
	EXPECT_EQ(0, daemon_stop(d, SIGTERM, 5000));
	free(d);
}

TEST_F(root, starvctl_json)
{
	char out[65536], want[64];
	int c;

	ASSERT_EQ(0, RUN(out, bin_path("starvctl"), "-b", test_backend(),
			 "--json", "cpus")) TH_LOG("%s", out);
	EXPECT_EQ(0, strncmp(out, "{\"backend\":", 11)) TH_LOG("%s", out);
	for (c = 0; c < cpus_possible(); c++) {
		if (!cpu_online(c))
			continue;
		snprintf(want, sizeof(want), "{\"cpu\":%d,", c);
		EXPECT_TRUE(NULL != strstr(out, want)) TH_LOG("%s", out);
	}
	ASSERT_EQ(0, RUN(out, bin_path("starvctl"), "-b", test_backend(),
			 "--json", "tasks"));
	EXPECT_TRUE(NULL != strstr(out, "\"tasks\":[")) TH_LOG("%s", out);
	ASSERT_EQ(0, RUN(out, bin_path("starvctl"), "-b", test_backend(),
			 "info"));
	EXPECT_TRUE(NULL != strstr(out, "CLOCK_MONOTONIC"));
}

static void on_test_cpu(void *arg)
{
	pin(0, test_cpu());
}

/*
 * starvd pins itself (-a) before it loads anything: loading BPF programs
 * leaves work for the kernel on the CPU that loads them (libbpf's probe
 * programs are freed by an RCU callback and a kworker there), and the CPU
 * a busy loop takes has no room for it. Started on the test CPU, its
 * first sched_setaffinity() must come before its first bpf(). It stops
 * by itself after the load: its pidfile cannot be written (in /proc). In
 * tracking mode: sched_info mode's clock calibration needs a reader that
 * is not switched out between taking the time and reading, and strace
 * stops it at every bpf().
 */
TEST_F(root, pins_itself_before_loading_bpf)
{
	char dir[] = "/tmp/starvd-strace.XXXXXX", trace[64], boosts[64];
	char out[8192];
	char rt_now[32];
	static char log[1 << 16];	/* the first bpf() is near the start */
	const char *first_pin, *first_bpf;
	ssize_t n;
	int fd;
	const char *const argv[] = {
		"strace", "-f", "-qq", "-o", trace,
		"-e", "trace=sched_setaffinity,bpf",
		bin_path("starvd"), "-f", "-S", "-a", "0", "-b", "bpf",
		"--bpf-mode", "tracking", "--run-dir", dir,
		"-P", "/proc/starvd.pid", "-t", "60", NULL
	};

	if (strcmp(test_backend(), "bpf"))
		SKIP(return, "about the BPF backend's load");
	if (access("/sys/kernel/btf/vmlinux", R_OK))
		SKIP(return, "the kernel has no BTF: the BPF backend cannot load");
	if (system("strace -V >/dev/null 2>&1"))
		SKIP(return, "strace is not installed (scripts/deps.sh installs it)");
	/* -S: the service's, nothing saved in the run directory */
	ASSERT_EQ(0, set_rt(-1));
	ASSERT_TRUE(NULL != mkdtemp(dir));
	snprintf(trace, sizeof(trace), "%s/trace", dir);
	EXPECT_EQ(1, run_capture_as(argv, out, sizeof(out), on_test_cpu, NULL))
		TH_LOG("%s", out);
	/* Say whether RT throttling is on now (a write of someone else's). */
	EXPECT_TRUE(NULL != strstr(out, "cannot write /proc/starvd.pid"))
		TH_LOG("%s\nkernel.sched_rt_runtime_us now: %s", out,
		       read_line(RT_RUNTIME_PATH, rt_now, sizeof(rt_now)) ?
		       "unreadable" : rt_now);
	fd = open(trace, O_RDONLY);
	ASSERT_LE(0, fd) TH_LOG("strace wrote no %s", trace);
	n = read(fd, log, sizeof(log) - 1);
	close(fd);
	unlink(trace);
	snprintf(boosts, sizeof(boosts), "%s/boosts", dir);
	rmdir(boosts);
	rmdir(dir);
	ASSERT_LT(0, n);
	log[n] = '\0';
	first_pin = strstr(log, "sched_setaffinity(0,");
	first_bpf = strstr(log, "bpf(");
	ASSERT_TRUE(NULL != first_bpf) TH_LOG("no bpf() call:\n%s", log);
	EXPECT_TRUE(first_pin && first_pin < first_bpf)
		TH_LOG("bpf() before sched_setaffinity():\n%.2000s", log);
}

/* Without the module, the netlink backend says how to get it. */
TEST_F(root, missing_module_says_what_to_do)
{
	char out[4096];

	if (!access("/sys/module/starvd", F_OK))
		SKIP(return, "the starvd module is loaded");
	EXPECT_EQ(1, RUN(out, bin_path("starvctl"), "-b", "netlink", "info"));
	EXPECT_TRUE(NULL != strstr(out, "modprobe starvd")) TH_LOG("%s", out);
	set_rt(-1);
	EXPECT_EQ(1, RUN(out, bin_path("starvd"), "-f", "-b", "netlink",
			 "--run-dir", "/tmp/starvd-cli"));
	EXPECT_TRUE(NULL != strstr(out, "modprobe starvd")) TH_LOG("%s", out);
}

TEST_HARNESS_MAIN
