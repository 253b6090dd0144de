// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * starvd as a drop-in for stalld: run through a "stalld" link, with
 * stalld-style invocations, it logs as stalld, writes stalld's pidfile,
 * turns RT throttling off and puts it back (after a SIGKILL too, with
 * --restore), reports again every granularity with -l, says stalld's
 * lines (and no other line says "starved"), survives SIGHUP, falls back
 * from -b sched_debug;
 * and the installed stalld.service with a stalld-style
 * /etc/sysconfig/stalld passes systemd-analyze verify.
 */
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "lib/starve_fixture.h"
#include "throttle.h"

static char link_dir[] = "/tmp/starvd-stalld.XXXXXX";
static char stalld[PATH_MAX];
static pid_t creator;

/* Every daemon of this program runs as "stalld" (daemon_start()). */
static void __attribute__((constructor)) make_link(void)
{
	char target[PATH_MAX];

	creator = getpid();
	if (!realpath(bin_path("starvd"), target) || !mkdtemp(link_dir))
		return;
	snprintf(stalld, sizeof(stalld), "%s/stalld", link_dir);
	if (symlink(target, stalld))
		stalld[0] = '\0';
	else
		setenv("STARVD_TEST_DAEMON", stalld, 1);
}

static void __attribute__((destructor)) remove_link(void)
{
	if (getpid() != creator)
		return;
	if (stalld[0])
		unlink(stalld);
	rmdir(link_dir);
}

static void set_rt(long us)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%ld", us);
	write_string(RT_RUNTIME_PATH, buf);
}

static long get_rt(void)
{
	long us = -2;

	rt_runtime_read(&us);
	return us;
}

static long saved_rt(void)
{
	char buf[32];

	if (read_line(TEST_RUN_DIR "/" RT_SAVED_FILE, buf, sizeof(buf)))
		return -2;
	return atol(buf);
}

/* No line of @s starts with "starvd:": every one is stalld's. */
static bool all_lines_stalld(const char *s)
{
	const char *p;

	for (p = s; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (*p && strncmp(p, "stalld: ", 8))
			return false;
	return true;
}

FIXTURE(compat) {
	long saved_rt;
	struct daemon_proc *d;
	char dir[64];
};

FIXTURE_SETUP(compat)
{
	if (geteuid())
		SKIP(return, "needs root");
	ASSERT_NE(0, stalld[0]) TH_LOG("cannot make the stalld link");
	ASSERT_EQ(0, rt_runtime_read(&self->saved_rt));
	self->d = calloc(1, sizeof(*self->d));
	ASSERT_TRUE(NULL != self->d);
	snprintf(self->dir, sizeof(self->dir), "/tmp/starvd-compat.XXXXXX");
	ASSERT_TRUE(NULL != mkdtemp(self->dir));
	/* Throttling on, as a stalld machine boots. */
	set_rt(950000);
}

FIXTURE_TEARDOWN(compat)
{
	char cmd[128];

	if (self->d && self->d->pid)
		daemon_stop(self->d, SIGKILL, 2000);
	unlink(TEST_RUN_DIR "/" RT_SAVED_FILE);
	rt_throttle_restore(self->saved_rt);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", self->dir);
	if (self->dir[0] && system(cmd))
		TH_LOG("cannot remove %s", self->dir);
	free(self->d);
}

/* Has starvd -v printed stalld's line for a check? */
static bool checked(const struct daemon_proc *d)
{
	return daemon_output_has(d, " waiting tasks") ||
	       daemon_output_has(d, "all CPUs had idle time, skipping parse");
}

TEST_F_TIMEOUT(compat, logs_pidfile_throttling_sighup, 60)
{
	char pidfile[128], buf[32], kmsg[4096];
	const char *args[] = { "-v", "-k", "-t", "5", "-P", pidfile, NULL };
	bool in_kmsg = false;
	int fd, i;
	ssize_t n;

	snprintf(pidfile, sizeof(pidfile), "%s/stalld.pid", self->dir);
	fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd >= 0)
		lseek(fd, 0, SEEK_END);
	ASSERT_EQ(0, daemon_start(self->d, args));
	ASSERT_TRUE(daemon_wait_output(self->d, "monitoring CPUs", EVENT_MS))
		TH_LOG("%s", self->d->err);
	/* stalld's names and words. */
	EXPECT_TRUE(all_lines_stalld(self->d->err)) TH_LOG("%s", self->d->err);
	EXPECT_TRUE(daemon_output_has(self->d, "stalld: RT Throttling disabled"));
	/*
	 * -v: what stalld prints on each check, after the first read (which
	 * may come well after the start-up lines in a slow guest).
	 */
	for (i = 0; i < 100 && !checked(self->d); i++)
		daemon_drain(self->d, 100);
	EXPECT_TRUE(checked(self->d)) TH_LOG("%s", self->d->err);
	/* A check that found no waiter: stalld's line for each CPU too. */
	if (daemon_output_has(self->d, "all CPUs had idle time"))
		EXPECT_TRUE(daemon_output_has(self->d,
			"stalld: cpu 0 had idle time! skipping next phase"))
			TH_LOG("%s", self->d->err);
	/* Off while it runs; the value found saved for --restore. */
	EXPECT_EQ(-1, get_rt());
	EXPECT_EQ(950000, saved_rt());
	ASSERT_EQ(0, read_line(pidfile, buf, sizeof(buf)));
	EXPECT_EQ(self->d->pid, atoi(buf));
	/* -k: the kernel log has stalld's prefix. */
	for (i = 0; fd >= 0 && i < 100 && !in_kmsg; i++) {
		n = read(fd, kmsg, sizeof(kmsg) - 1);
		if (n < 0 && errno == EAGAIN) {
			usleep(10000);
			continue;
		}
		if (n > 0) {
			kmsg[n] = '\0';
			in_kmsg = strstr(kmsg, ";stalld: ") != NULL;
		}
	}
	if (fd >= 0) {
		EXPECT_TRUE(in_kmsg) TH_LOG("no 'stalld: ' line in /dev/kmsg");
		close(fd);
	}
	/* SIGHUP: logs reopened, still running. */
	kill(self->d->pid, SIGHUP);
	EXPECT_TRUE(daemon_wait_output(self->d, "stalld: received SIGHUP",
				       EVENT_MS)) TH_LOG("%s", self->d->err);
	daemon_drain(self->d, 300);
	EXPECT_EQ(0, kill(self->d->pid, 0)) TH_LOG("SIGHUP stopped it");
	EXPECT_EQ(0, daemon_stop(self->d, SIGTERM, 5000));
	EXPECT_TRUE(daemon_output_has(self->d,
				      "stalld: RT Throttling runtime restored to 950000"))
		TH_LOG("%s", self->d->err);
	EXPECT_EQ(950000, get_rt());
	EXPECT_EQ(-2, saved_rt());
	EXPECT_NE(0, access(pidfile, F_OK)) TH_LOG("pidfile left behind");
}

/* A SIGKILL leaves RT throttling off; --restore (ExecStopPost) fixes it. */
TEST_F_TIMEOUT(compat, throttling_after_sigkill, 60)
{
	const char *const args[] = { "-t", "5", NULL };
	char out[4096];

	ASSERT_EQ(0, daemon_start(self->d, args));
	ASSERT_TRUE(daemon_wait_output(self->d, "monitoring CPUs", EVENT_MS))
		TH_LOG("%s", self->d->err);
	daemon_stop(self->d, SIGKILL, 5000);
	EXPECT_EQ(-1, get_rt());
	EXPECT_EQ(950000, saved_rt());
	/* A new one keeps what the killed one found. */
	ASSERT_EQ(0, daemon_start(self->d, args));
	ASSERT_TRUE(daemon_wait_output(self->d, "monitoring CPUs", EVENT_MS))
		TH_LOG("%s", self->d->err);
	EXPECT_TRUE(daemon_output_has(self->d, "950000, is kept"))
		TH_LOG("%s", self->d->err);
	daemon_stop(self->d, SIGKILL, 5000);
	self->d->pid = 0;
	EXPECT_EQ(950000, saved_rt());
	EXPECT_EQ(0, RUN(out, stalld, "--restore", "--run-dir", TEST_RUN_DIR))
		TH_LOG("%s", out);
	EXPECT_TRUE(NULL != strstr(out, "stalld: RT Throttling runtime restored to 950000"))
		TH_LOG("%s", out);
	EXPECT_EQ(950000, get_rt());
	EXPECT_EQ(-2, saved_rt());
	/* Nothing saved: --restore leaves it. */
	EXPECT_EQ(0, RUN(out, stalld, "--restore", "--run-dir", TEST_RUN_DIR));
	EXPECT_EQ(950000, get_rt());
}

/* -S: the service turns it off first (throttlectl); refused while on. */
TEST_F(compat, systemd_mode_and_throttlectl)
{
	char out[4096];

	EXPECT_EQ(1, RUN(out, stalld, "-f", "-S", "-b", test_backend(),
			 "--run-dir", TEST_RUN_DIR));
	EXPECT_TRUE(NULL != strstr(out, "stalld: RT throttling is on! stalld cannot run"))
		TH_LOG("%s", out);
	EXPECT_EQ(950000, get_rt());
	EXPECT_EQ(0, RUN(out, stalld, "--rt-throttling", "off", "--run-dir",
			 TEST_RUN_DIR)) TH_LOG("%s", out);
	EXPECT_EQ(-1, get_rt());
	EXPECT_EQ(0, RUN(out, stalld, "--rt-throttling", "show"));
	EXPECT_TRUE(NULL != strstr(out, "RT Throttling is disabled")) TH_LOG("%s", out);
	EXPECT_EQ(0, RUN(out, stalld, "--rt-throttling", "on", "--run-dir",
			 TEST_RUN_DIR)) TH_LOG("%s", out);
	EXPECT_EQ(950000, get_rt());
	EXPECT_EQ(0, RUN(out, stalld, "--rt-throttling", "show"));
	EXPECT_TRUE(NULL != strstr(out, "RT Throttling is enabled")) TH_LOG("%s", out);
}

/* stalld's "-b sched_debug" without the module: BPF, saying what to do. */
TEST_F(compat, sched_debug_without_module_falls_back)
{
	const char *const args[] = { "-l", "-t", "5", "-b", "sched_debug", NULL };

	if (!access("/sys/module/starvd", F_OK))
		SKIP(return, "the starvd module is loaded");
	if (strcmp(test_backend(), "bpf"))
		SKIP(return, "no BPF backend to fall back to here");
	ASSERT_EQ(0, daemon_start(self->d, args));
	ASSERT_TRUE(daemon_wait_output(self->d, "monitoring CPUs", EVENT_MS))
		TH_LOG("%s", self->d->err);
	EXPECT_TRUE(daemon_output_has(self->d, "backend bpf"));
	EXPECT_TRUE(daemon_output_has(self->d, "install starvd-dkms"))
		TH_LOG("%s", self->d->err);
	EXPECT_TRUE(daemon_output_has(self->d, "-b auto"));
	EXPECT_EQ(0, daemon_stop(self->d, SIGTERM, 5000));
}

/*
 * -l: reported again at every granularity while it keeps waiting, with
 * the time waited so far (stalld: 3, 4, 5 s with -g 1 -t 3), not once a
 * threshold.
 */
TEST_F_TIMEOUT(starve, log_only_reports_every_granularity, 40)
{
	const int64_t granularity = NSEC_PER_SEC, threshold = 3 * NSEC_PER_SEC;
	pid_t tid = self->v.st->tid;
	uint64_t stuck = self->v.st->count;
	int64_t waited[3];
	int i;

	START("-t", "3", "-g", "1", "-l");
	for (i = 0; i < 3; i++) {
		WAIT_EVENT("starving", tid);
		waited[i] = json_int(self->line, "wait_ns");
	}
	/* The same wait, a granularity more each time, not a threshold. */
	for (i = 1; i < 3; i++) {
		EXPECT_LE(waited[i - 1] + granularity, waited[i]);
		EXPECT_GT(waited[i - 1] + threshold, waited[i])
			TH_LOG("reported again after %.3f s, not at the next read",
			       (double)(waited[i] - waited[i - 1]) / NSEC_PER_SEC);
	}
	EXPECT_EQ(stuck, self->v.st->count) TH_LOG("-l let it run");
	EXPECT_FALSE(daemon_output_has(self->d, "\"boost\""));
	EXPECT_EQ(0, daemon_stop(self->d, SIGTERM, 5000));
}

/*
 * Each line of @err (a starvd run) that says "starved" is stalld's
 * report, "stalld: COMM-TID starved on CPU N for S seconds", of a wait of
 * at least @threshold_s: a script counting starvations counts only these.
 */
static void expect_starved_only_in_reports(struct __test_metadata *_metadata,
					   const char *err, int threshold_s)
{
	const char *line, *end, *p;
	int n = 0, cpu, secs, len;
	char copy[1024];

	for (line = err; *line; line = *end ? end + 1 : end) {
		end = strchrnul(line, '\n');
		len = end - line < (int)sizeof(copy) ? end - line :
		      (int)sizeof(copy) - 1;
		memcpy(copy, line, len);
		copy[len] = '\0';
		if (!strstr(copy, "starved"))
			continue;
		p = strstr(copy, " starved on CPU ");
		n++;
		EXPECT_TRUE(p && !strncmp(copy, "stalld: ", 8) &&
			    sscanf(p, " starved on CPU %d for %d seconds",
				   &cpu, &secs) == 2 &&
			    secs >= threshold_s)
			TH_LOG("not a starvation report of at least %d s: %s",
			       threshold_s, copy);
	}
	EXPECT_LT(0, n) TH_LOG("no starvation report:\n%s", err);
}

static void expect_said(struct __test_metadata *_metadata,
			const struct daemon_proc *d, const char *what)
{
	EXPECT_TRUE(daemon_output_has(d, what))
		TH_LOG("no '%s' in:\n%s", what, d->err);
}

/*
 * A verbose run through boosts and escalations: every line is stalld's
 * (its start-up lines among them, and at half the threshold with -M,
 * "might starve"), a boost repeated at once for a task its last boost did
 * not let finish is no starvation report, and no other line says
 * "starved".
 */
TEST_F_TIMEOUT(starve, verbose_lines_are_stalld_lines, 60)
{
	struct victim_spec burner = {
		.proc_name = "stv-proc",
		.thread_name = "stv-burner",
		.cpu = self->cpu,
		.attr = fifo_attr(VICTIM_PRIO),
		.sleep_ns = 5 * NSEC_PER_MSEC,
		/* Never done: no boost lets it block. */
		.burn_ns = 3600 * NSEC_PER_SEC,
	};
	static const char *const said[] = {
		"stalld: single threaded mode\n",
		"stalld: using SCHED_DEADLINE for boosting\n",
		"stalld: self-affinity: adding cpu 0\n",
		"stalld: DL-server ",
		" might starve on CPU ",
		"stalld: stalld shutting down\n",
	};
	char might[64];
	size_t i;
	pid_t tid;

	/* The burner replaces the sleeping victim, the loop comes after. */
	kill_and_reap(self->hog);
	self->hog = 0;
	victim_stop(&self->v);
	START("-v", "-M", "-t", "2", "-d", "0.3");
	WAIT_STARTED();
	ASSERT_EQ(0, victim_start(&burner, &self->v));
	tid = self->v.st->tid;
	self->hog = hog_start(self->cpu, HOG_PRIO, HOG_MAX_S);
	ASSERT_LT(0, self->hog);
	WAIT_EVENT("boost", tid);
	/* Its boost ends, it still waits: boosted again at once. */
	WAIT_EVENT("escalate", tid);
	WAIT_EVENT("boost", tid);
	EXPECT_EQ(0, daemon_stop(self->d, SIGTERM, 5000));
	EXPECT_TRUE(all_lines_stalld(self->d->err)) TH_LOG("%s", self->d->err);
	for (i = 0; i < ARRAY_SIZE(said); i++)
		expect_said(_metadata, self->d, said[i]);
	snprintf(might, sizeof(might), "stv-burner-%d might starve on CPU %d",
		 (int)tid, self->cpu);
	expect_said(_metadata, self->d, might);
	expect_starved_only_in_reports(_metadata, self->d->err, 2);
}

/* -R: stalld's line, with the reservation's runtime and period. */
TEST_F_TIMEOUT(starve, reservation_line, 40)
{
	START("-R", "20", "-l", "-t", "5");
	WAIT_STARTED();
	expect_said(_metadata, self->d,
		    "stalld: successfully set 20% SCHED_DEADLINE reservation runtime/period = 200000000/1000000000\n");
	EXPECT_EQ(0, daemon_stop(self->d, SIGTERM, 5000));
}

static int count(const char *s, const char *what)
{
	int n = 0;

	for (; (s = strstr(s, what)); s++)
		n++;
	return n;
}

static void expect_ignoring_line(struct __test_metadata *_metadata,
				 FIXTURE_DATA(starve) *self, const char *want)
{
	pid_t tid = self->v.st->tid;
	uint64_t stuck = self->v.st->count;

	WAIT_EVENT("starving", tid);
	WAIT_EVENT("ignored", tid);
	/*
	 * Once per episode, never boosted (other tasks queued behind the
	 * busy loop, kworkers of the machine, may be).
	 */
	EXPECT_EQ(-ETIMEDOUT, daemon_wait_event(self->d, NULL, tid, 2000,
						self->line,
						sizeof(self->line)))
		TH_LOG("%s", self->line);
	EXPECT_TRUE(daemon_output_has(self->d, want)) TH_LOG("%s", self->d->err);
	EXPECT_EQ(1, count(self->d->err, "Ignoring the thread"))
		TH_LOG("%s", self->d->err);
	EXPECT_EQ(stuck, self->v.st->count);
	EXPECT_EQ(0, daemon_stop(self->d, SIGTERM, 5000));
}

TEST_F_TIMEOUT(starve, ignore_threads_line, 40)
{
	START("-v", "-t", "0.5", "-i", "foo,^stv-vic");
	expect_ignoring_line(_metadata, self,
			     "stalld: Ignoring the thread stv-victim from consideration for boosting");
}

TEST_F_TIMEOUT(starve, ignore_processes_line, 40)
{
	START("-v", "-t", "0.5", "-I", "^stv-proc$");
	expect_ignoring_line(_metadata, self,
			     "stalld: Ignoring the thread stv-victim (spawned by stv-proc) from consideration for boosting");
}

/* @path contains @s. */
static bool file_has(const char *path, const char *s)
{
	static char buf[16384];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return strstr(buf, s) != NULL;
}

/* Its help and its usage errors name stalld, as a stalld user typed it. */
TEST(help_and_usage_errors_say_stalld)
{
	char out[8192];

	if (!stalld[0])
		SKIP(return, "no stalld link in %s", link_dir);
	EXPECT_EQ(0, RUN(out, stalld, "--help"));
	EXPECT_TRUE(NULL != strstr(out, "Usage: stalld [options]\n"))
		TH_LOG("%s", out);
	EXPECT_EQ(2, RUN(out, stalld, "-x"));
	EXPECT_TRUE(NULL != strstr(out,
		"stalld: unknown option '-x' (see stalld --help)"))
		TH_LOG("%s", out);
	EXPECT_EQ(2, RUN(out, stalld, "--threshold"));
	EXPECT_TRUE(NULL != strstr(out, "(see stalld --help)")) TH_LOG("%s", out);
}

/*
 * Does the unit file at @path set @key ("CPUSchedulingPolicy=")? Keys
 * start a line, after blanks; '#' and ';' lines are comments. -errno if
 * it cannot be read.
 */
static int unit_sets(const char *path, const char *key)
{
	char line[4096];
	const char *p;
	int ret = 0;
	FILE *f = fopen(path, "re");

	if (!f)
		return -errno;
	while (!ret && fgets(line, sizeof(line), f)) {
		p = line + strspn(line, " \t");
		ret = !strncmp(p, key, strlen(key));
	}
	fclose(f);
	return ret;
}

/*
 * stalld dropped CPUSchedulingPolicy=fifo from its unit twice: under
 * CONFIG_RT_GROUP_SCHED the service's cgroup has no real-time runtime,
 * systemd's SCHED_FIFO is refused and the service does not start. starvd
 * sets its own priority and falls back (test_privileges, rt_cgroup): no
 * unit may set the policy again. The installed units are checked in
 * installed_stalld_service.
 */
static void expect_no_policy(struct __test_metadata *_metadata,
			     const char *unit)
{
	int ret = unit_sets(unit, "CPUSchedulingPolicy=");

	EXPECT_EQ(0, ret) TH_LOG("%s: %s", unit, ret > 0 ?
				 "sets CPUSchedulingPolicy=, which keeps the service from starting on kernels with CONFIG_RT_GROUP_SCHED: leave the policy to starvd (--priority)" :
				 strerror(-ret));
}

TEST(units_leave_the_policy_to_starvd)
{
	glob_t g;
	size_t i;

	if (glob("../systemd/*.service", 0, NULL, &g))
		SKIP(return, "not run from the source tree's selftests/ (no ../systemd/*.service)");
	for (i = 0; i < g.gl_pathc; i++)
		expect_no_policy(_metadata, g.gl_pathv[i]);
	globfree(&g);
}

/* A machine's existing /etc/sysconfig/stalld, as TuneD or an operator writes it. */
static const char stalld_style_conf[] =
	"CLIST=\"-c 0\"\nAGGR=-A\nBP=\"-p 1000000000\"\nBR=\"-r 20000\"\n"
	"BD=\"-d 3\"\nIT=\"-i ksoftirqd.*,rcuc.*\"\nIP=\"-I dpdk-testpmd\"\n"
	"THRESH=\"-t 20\"\nLOGGING=\"--log_only --log_kmsg\"\n"
	"FG=--foreground\nPF=\"--pidfile /run/stalld/stalld.pid\"\n"
	"BE=\"-b sched_debug\"\n";

static void fill_conf(FILE *f, const void *arg)
{
	fputs(arg, f);
}

/*
 * make install-stalld-compat into a temporary root: the link, throttlectl,
 * stalld.service under stalld's names, an existing /etc/sysconfig/stalld
 * kept; the unit passes systemd-analyze verify and the config's
 * variables, expanded as the unit's ExecStart does, are a valid command.
 */
TEST(installed_stalld_service)
{
	char root[] = "/tmp/starvd-compat-root.XXXXXX", bindir[PATH_MAX];
	char cmd[3 * PATH_MAX], path[PATH_MAX + 64], target[PATH_MAX];
	char out[16384];
	static const char *const vars[] = {
		"$CLIST", "$AGGR", "$BP", "$BR", "$BD", "$THRESH", "$LOGGING",
		"$FG", "$PF", "$IT", "$IP", "$BE",
	};
	bool made_run = false;
	size_t i;
	ssize_t n;

	/* make and systemd-analyze can take its 30 s in a loaded guest. */
	if (getenv("STARVD_VM_GUEST"))
		SKIP(return, "what make installs is the same on every kernel: it is checked on the host");
	if (system("make --version >/dev/null 2>&1"))
		SKIP(return, "make is not installed: nothing to install with");
	if (access("../Makefile", R_OK))
		SKIP(return, "not run from the source tree's selftests/");
	ASSERT_TRUE(NULL != realpath(bin_path("."), bindir));
	ASSERT_TRUE(NULL != mkdtemp(root));
	snprintf(path, sizeof(path), "%s/etc/sysconfig", root);
	ASSERT_EQ(0, mkdir_p(path));
	snprintf(path, sizeof(path), "%s/etc/sysconfig/stalld", root);
	ASSERT_EQ(0, write_file_atomic(path, fill_conf, stalld_style_conf));
	/* -o all: the binaries under test, as they are. */
	snprintf(cmd, sizeof(cmd),
		 "mkdir -p %s/o && make -s -C .. -o all install-stalld-compat BIN=%s O=%s/o PREFIX=%s/usr SYSCONFDIR=%s/etc 2>&1",
		 root, bindir, root, root, root);
	ASSERT_EQ(0, system(cmd)) TH_LOG("%s failed", cmd);

	snprintf(path, sizeof(path), "%s/usr/bin/stalld", root);
	n = readlink(path, target, sizeof(target) - 1);
	ASSERT_LT(0, n);
	target[n] = '\0';
	EXPECT_STREQ("starvd", target);
	snprintf(path, sizeof(path), "%s/usr/bin/throttlectl", root);
	EXPECT_EQ(0, access(path, X_OK));
	snprintf(path, sizeof(path), "%s/etc/sysconfig/stalld", root);
	EXPECT_TRUE(file_has(path, "-i ksoftirqd.*,rcuc.*")) TH_LOG("overwritten");

	snprintf(path, sizeof(path), "%s/usr/lib/systemd/system/stalld.service",
		 root);
	EXPECT_TRUE(file_has(path, "\nEnvironmentFile=-/etc/sysconfig/stalld\n"));
	EXPECT_FALSE(file_has(path, "/etc/default/starvd"));
	EXPECT_TRUE(file_has(path, "\nConflicts=starvd.service\n"));
	EXPECT_TRUE(file_has(path, "\nRuntimeDirectory=stalld\n"));
	EXPECT_TRUE(file_has(path, "/usr/bin/stalld --systemd"));
	/* Syslog is opt-in (stalld 1.27.1): the unit opts in. */
	EXPECT_TRUE(file_has(path, " --log_syslog ")) TH_LOG("no -s in the unit");
	EXPECT_TRUE(file_has(path, "/usr/bin/stalld --rt-throttling off"));
	EXPECT_TRUE(file_has(path, "/usr/bin/stalld --restore"));
	EXPECT_FALSE(file_has(path, "/run/starvd"));
	for (i = 0; i < ARRAY_SIZE(vars); i++) {
		const char *v = vars[i];

		EXPECT_TRUE(file_has(path, v)) TH_LOG("%s missing", v);
	}
	snprintf(cmd, sizeof(cmd), "%s/usr/lib/systemd/system/starvd.service",
		 root);
	EXPECT_TRUE(file_has(cmd, "\nConflicts=stalld.service\n"));
	expect_no_policy(_metadata, path);
	expect_no_policy(_metadata, cmd);

	if (!system("systemd-analyze --version >/dev/null 2>&1")) {
		EXPECT_EQ(0, RUN(out, "systemd-analyze", "verify", "--man=no",
				 path)) TH_LOG("%s", out);
	} else {
		TH_LOG("systemd-analyze not installed: unit not verified");
	}

	/* The config as the unit expands it: parsed and valid. */
	if (access("/run/stalld", F_OK) && !mkdir("/run/stalld", 0700))
		made_run = true;
	snprintf(cmd, sizeof(cmd),
		 ". %s/etc/sysconfig/stalld && exec %s/usr/bin/stalld --systemd $CLIST $AGGR $BP $BR $BD $THRESH $LOGGING $FG $PF $IT $IP $BE --rt-throttling show",
		 root, root);
	EXPECT_EQ(0, RUN(out, "/bin/sh", "-c", cmd)) TH_LOG("%s", out);
	EXPECT_TRUE(NULL != strstr(out, "Runtime: ")) TH_LOG("%s", out);
	if (made_run)
		rmdir("/run/stalld");
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	EXPECT_EQ(0, system(cmd));
}

TEST_HARNESS_MAIN
