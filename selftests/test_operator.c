// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What an operator sees of a real starvation on this host (the victim
 * and SCHED_FIFO busy loop of starve_fixture.h, RT throttling off and
 * always restored by the fixture):
 *
 * - starvctl top in tmux, read with capture-pane: a task starvd ignores
 *   waiting past the threshold (its bar), the victim's boost and
 *   restore, and "q" leaving the terminal as it was (stty, cursor, no
 *   alternate screen);
 * - the shipped alert on a real Prometheus: Debian's prometheus (1 s
 *   scrape and evaluation, loopback, a temporary directory) scrapes
 *   node_exporter's textfile collector, fed by starvctl metrics while a
 *   log-only starvd watches the starvation; StarvdTaskStarving fires in
 *   /api/v1/alerts, and resolves once the busy loop ends.
 *
 * Every wait is for a condition, with a deadline; the servers, tmux and
 * the metrics writer are stopped by the test on every path (and die with
 * it: PR_SET_PDEATHSIG; tmux's pane command is bounded by timeout(1)).
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "lib/starve_fixture.h"

#define TMUX_SOCKET	"starvd-selftests"
#define WAIT_MS		20000	/* a hang, not a speed, fails */

/*
 * ASSERT_*() would longjmp past the helper's caller, which stops the
 * servers and tmux: the helpers fail with CHECK() and return instead.
 */
#define CHECK(cond, ...) do { \
	bool _ok = (cond); \
	EXPECT_TRUE(_ok) TH_LOG(__VA_ARGS__); \
	if (!_ok) \
		return; \
} while (0)

static char screen[1 << 16];

/* Run a shell command; its stdout in @out. The exit status, or -1. */
static int sh(char *out, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int sh(char *out, size_t len, const char *fmt, ...)
{
	char cmd[8192];
	size_t n = 0;
	va_list ap;
	FILE *p;
	int st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	if (out) {
		n = fread(out, 1, len - 1, p);
		out[n] = '\0';
	} else {
		while (fgetc(p) != EOF)
			;
	}
	st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static bool capture(void)
{
	return !sh(screen, sizeof(screen),
		   "tmux -L " TMUX_SOCKET " capture-pane -p -t top 2>&1");
}

/* A line of the screen holding all of @a, @b and @c (NULL: any). */
static bool screen_line(const char *a, const char *b, const char *c)
{
	char *l = screen, *nl;

	for (; l && *l; l = nl ? nl + 1 : NULL) {
		nl = strchr(l, '\n');
		if (nl)
			*nl = '\0';
		if ((!a || strstr(l, a)) && (!b || strstr(l, b)) &&
		    (!c || strstr(l, c))) {
			if (nl)
				*nl = '\n';
			return true;
		}
		if (nl)
			*nl = '\n';
	}
	return false;
}

static bool wait_screen(const char *a, const char *b, const char *c)
{
	uint64_t end = now_ns() + (uint64_t)WAIT_MS * NSEC_PER_MSEC;

	do {
		if (capture() && screen_line(a, b, c))
			return true;
		usleep(100000);
	} while (now_ns() < end);
	return false;
}

static void top_in_tmux(struct __test_metadata *_metadata,
			FIXTURE_DATA(starve) *self, const char *dir,
			pid_t ignored)
{
	char cmd[4096], tid[32], waiter[32], out[256], before[4096];
	char after[4096];
	pid_t v = self->v.st->tid;

	snprintf(tid, sizeof(tid), "stv-victim/%d", (int)v);
	snprintf(waiter, sizeof(waiter), "stv-ignored/%d", (int)ignored);
	snprintf(cmd, sizeof(cmd),
		 "stty -a > %s/before; timeout --foreground 120 %s top -b %s%s%s --run-dir %s -d 0.2; echo \"top exited: $?\"; stty -a > %s/after; sleep 60",
		 dir, bin_path("starvctl"), test_backend(),
		 getenv("STARVD_TEST_BPF_MODE") ? " --bpf-mode " : "",
		 getenv("STARVD_TEST_BPF_MODE") ?: "", self->d->run_dir, dir);
	CHECK(0 == sh(NULL, 0, "tmux -L " TMUX_SOCKET " -f /dev/null new-session -d -s top -x 170 -y 40 '%s'",
			cmd), "tmux new-session failed");
	/*
	 * The CPU's row, its longest waiter the task starvd ignores, its
	 * bar past the threshold (1 s). (The victim's own wait is past it
	 * only between a crossing and starvd's boost: no frame need see it.)
	 */
	CHECK(wait_screen(waiter, "]!", NULL), "%s's bar never crossed the threshold:\n%s",
	      waiter, screen);
	/*
	 * The boost (starvd boosts it): in the CPU's row ("(boosting)"), or
	 * in the recent boosts ("boosted (") once top saw one begin; the
	 * first may have begun before top started. Then its end (3 s
	 * later) and outcome.
	 */
	CHECK(wait_screen(tid, "boost", NULL), "no boost of %s shown:\n%s\nstarvd:\n%s", tid, screen,
		       self->d->err);
	CHECK(wait_screen(tid, "restored, progress: progress", NULL), "no restore of %s with progress shown:\n%s\nstarvd:\n%s",
		       tid, screen, self->d->err);
	/*
	 * What the boosted task is, as starvd's report read it: in the line
	 * of its next boost, if the first began before top started.
	 */
	EXPECT_TRUE(wait_screen(tid, "), user in ", NULL))
		TH_LOG("no kind and cgroup of %s in a boost line:\n%s", tid,
		       screen);
	/* What the operator saw, for the log. */
	for (char *l = strtok(screen, "\n"); l; l = strtok(NULL, "\n"))
		printf("# | %s\n", l);
	capture();
	EXPECT_TRUE(screen_line("starvd ", "threshold", NULL) ||
		    screen_line("threshold 1.000 s", NULL, NULL))
		TH_LOG("%s", screen);
	/* "s" resorts, "p" pauses: both say so. */
	sh(NULL, 0, "tmux -L " TMUX_SOCKET " send-keys -t top s");
	EXPECT_TRUE(wait_screen("sort: CPU", NULL, NULL)) TH_LOG("%s", screen);
	sh(NULL, 0, "tmux -L " TMUX_SOCKET " send-keys -t top p");
	EXPECT_TRUE(wait_screen("[PAUSED", NULL, NULL)) TH_LOG("%s", screen);
	/* "q": the shell's line, the terminal as it was. */
	CHECK(0 == sh(NULL, 0, "tmux -L " TMUX_SOCKET " send-keys -t top q"), "tmux send-keys failed");
	CHECK(wait_screen("top exited: 0", NULL, NULL), "%s", screen);
	EXPECT_FALSE(screen_line("LONGEST WAITER", NULL, NULL))
		TH_LOG("the view is still on the screen:\n%s", screen);
	CHECK(0 == sh(out, sizeof(out), "tmux -L " TMUX_SOCKET " display -p -t top '#{alternate_on} #{cursor_flag}'"), "tmux display failed");
	EXPECT_STREQ("0 1\n", out) TH_LOG("alternate screen, cursor: %s", out);
	snprintf(cmd, sizeof(cmd), "%s/before", dir);
	CHECK(read_file(cmd, before, sizeof(before)) > 0, "no %s", cmd);
	snprintf(cmd, sizeof(cmd), "%s/after", dir);
	CHECK(read_file(cmd, after, sizeof(after)) > 0, "no %s", cmd);
	EXPECT_STREQ(before, after);
}

TEST_F_TIMEOUT(starve, top_in_tmux, 120)
{
	struct victim_spec spec = {
		.proc_name = "stv-ignored",
		.thread_name = "stv-ignored",
		.cpu = self->cpu,
		.attr = fifo_attr(VICTIM_PRIO),
		.sleep_ns = 5 * NSEC_PER_MSEC,
	};
	char dir[] = "/tmp/starvd-top.XXXXXX";
	struct victim ignored;

	if (sh(NULL, 0, "tmux -V >/dev/null 2>&1"))
		SKIP(return, "tmux is not installed (scripts/deps.sh installs it)");
	ASSERT_TRUE(NULL != mkdtemp(dir));
	/*
	 * Beside the victim, a task starvd ignores: it waits past the
	 * threshold for as long as the busy loop runs. Both start before
	 * the loop owns the CPU.
	 */
	kill_and_reap(self->hog);
	self->hog = 0;
	ASSERT_EQ(0, victim_start(&spec, &ignored));
	self->hog = hog_before_starvd(self, HOG_PRIO);
	ASSERT_LT(0, self->hog);
	EXPECT_TRUE(victim_stuck(&ignored) && victim_stuck(&self->v));
	avoid_cpu(self->cpu);
	/*
	 * Emulated boosts (-F): each ends when its 3 s do. A SCHED_DEADLINE
	 * one that overran its runtime (a host without HRTICK_DL) is
	 * restored only once the kernel would run the task again, 20 s or
	 * more later: that is the overrun debt, not what top shows.
	 */
	START("-t", "1", "-F", "-i", "^stv-ignored$");
	WAIT_STARTED();
	top_in_tmux(_metadata, self, dir, ignored.st->tid);
	sh(NULL, 0, "tmux -L " TMUX_SOCKET " kill-server 2>/dev/null");
	sh(NULL, 0, "rm -rf %s", dir);
	kill_and_reap(self->hog);
	self->hog = 0;
	victim_stop(&ignored);
}

/* A child that dies with the test; @argv exec'd, output to @log. */
static pid_t spawn(const char *const *argv, const char *log)
{
	pid_t pid = fork();
	int fd;

	if (pid)
		return pid;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0600);
	if (fd >= 0) {
		dup2(fd, 1);
		dup2(fd, 2);
	}
	execv(argv[0], (char *const *)argv);
	_exit(127);
}

static void stop_child(pid_t *pid)
{
	int i;

	if (*pid <= 0)
		return;
	kill(*pid, SIGTERM);
	for (i = 0; i < 100 && waitpid(*pid, NULL, WNOHANG) == 0; i++)
		usleep(50000);
	if (i == 100) {
		kill(*pid, SIGKILL);
		waitpid(*pid, NULL, 0);
	}
	*pid = 0;
}

/* What starvd-metrics.timer does, every 0.5 s: starvctl metrics -o. */
static pid_t metrics_writer(const char *prom, const char *run_dir)
{
	const char *const argv[] = {
		bin_path("starvctl"), "-b", test_backend(), "--run-dir",
		run_dir, "metrics", "-o", prom, NULL
	};
	pid_t pid = fork(), w;

	if (pid)
		return pid;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	for (;;) {
		w = fork();
		if (!w) {
			execv(argv[0], (char *const *)argv);
			_exit(127);
		}
		waitpid(w, NULL, 0);
		usleep(500000);
	}
}

/* Start @argv (which listens on @port) and wait until @url answers. */
static bool serve(const char *const *argv, const char *log, const char *url,
		  pid_t *pid)
{
	uint64_t end = now_ns() + (uint64_t)WAIT_MS * NSEC_PER_MSEC;

	*pid = spawn(argv, log);
	if (*pid < 0)
		return false;
	do {
		if (waitpid(*pid, NULL, WNOHANG) == *pid) {
			*pid = 0;	/* the port was taken: another */
			return false;
		}
		if (!sh(NULL, 0, "curl -sf --max-time 2 -o /dev/null '%s'", url))
			return true;
		usleep(100000);
	} while (now_ns() < end);
	stop_child(pid);
	return false;
}

struct servers {
	pid_t writer, exporter, prometheus;
	int prom_port;
	char dir[64];
};

/* Is StarvdTaskStarving firing for the test CPU in /api/v1/alerts? */
static int starving_alert(const struct servers *s, int cpu, char *json,
			  size_t len)
{
	char want[64];
	char *a;

	if (sh(json, len, "curl -sf --max-time 2 http://127.0.0.1:%d/api/v1/alerts",
	       s->prom_port))
		return -1;
	snprintf(want, sizeof(want), "\"cpu\":\"%d\"", cpu);
	for (a = strstr(json, "\"alertname\":\"StarvdTaskStarving\""); a;
	     a = strstr(a + 1, "\"alertname\":\"StarvdTaskStarving\"")) {
		char *end = strstr(a, "\"value\"");

		if (end && memmem(a, end - a, want, strlen(want)) &&
		    memmem(a, end - a, "\"state\":\"firing\"", 16))
			return 1;
	}
	return 0;
}

static void alert_e2e(struct __test_metadata *_metadata,
		      FIXTURE_DATA(starve) *self, struct servers *s,
		      const char *exporter, const char *prometheus)
{
	char path[256], url[128], listen[64], tsdb[128], cfg[128], log[128];
	static char json[1 << 16];
	uint64_t end;
	int port, r = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/textfile", s->dir);
	CHECK(0 == mkdir(path, 0700), "mkdir %s: %m", path);
	snprintf(path, sizeof(path), "%s/textfile/starvd.prom", s->dir);
	s->writer = metrics_writer(path, self->d->run_dir);
	CHECK(0 < s->writer, "fork: %m");
	/* node_exporter, only its textfile collector, on a free port. */
	snprintf(log, sizeof(log), "%s/node_exporter.log", s->dir);
	for (port = 19170; port < 19200 && !s->exporter; port++) {
		char tf[160];
		const char *const argv[] = {
			exporter, "--collector.disable-defaults",
			"--collector.textfile", tf, listen, NULL
		};

		snprintf(tf, sizeof(tf), "--collector.textfile.directory=%s/textfile",
			 s->dir);
		snprintf(listen, sizeof(listen), "--web.listen-address=127.0.0.1:%d",
			 port);
		snprintf(url, sizeof(url), "http://127.0.0.1:%d/metrics", port);
		if (serve(argv, log, url, &s->exporter))
			break;
	}
	CHECK(0 < s->exporter, "node_exporter did not start; see %s", log);
	/* The shipped rules; for: shortened (30 s in production). */
	snprintf(cfg, sizeof(cfg), "%s/rules.yml", s->dir);
	CHECK(0 == sh(NULL, 0, "sed 's/for: 30s/for: 2s/' %s/contrib/prometheus/starvd-rules.yml > %s",
			getenv("STARVD_SRC_DIR") ?: "..", cfg), "no rules file for %s", cfg);
	snprintf(cfg, sizeof(cfg), "%s/prometheus.yml", s->dir);
	f = fopen(cfg, "w");
	CHECK(NULL != f, "%s: %m", cfg);
	fprintf(f, "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
		"rule_files:\n  - %s/rules.yml\n"
		"scrape_configs:\n  - job_name: node\n    static_configs:\n"
		"      - targets: ['127.0.0.1:%d']\n", s->dir, port);
	fclose(f);
	snprintf(tsdb, sizeof(tsdb), "--storage.tsdb.path=%s/data", s->dir);
	snprintf(log, sizeof(log), "%s/prometheus.log", s->dir);
	for (port = 19200; port < 19230 && !s->prometheus; port++) {
		char cf[160];
		const char *const argv[] = {
			prometheus, cf, tsdb, listen, NULL
		};

		snprintf(cf, sizeof(cf), "--config.file=%s", cfg);
		snprintf(listen, sizeof(listen), "--web.listen-address=127.0.0.1:%d",
			 port);
		snprintf(url, sizeof(url), "http://127.0.0.1:%d/-/ready", port);
		s->prom_port = port;
		if (serve(argv, log, url, &s->prometheus))
			break;
	}
	CHECK(0 < s->prometheus, "prometheus did not start; see %s", log);
	/* Fires while the victim starves (log-only: no rescue). */
	end = now_ns() + 40ULL * NSEC_PER_SEC;
	while (now_ns() < end &&
	       (r = starving_alert(s, self->cpu, json, sizeof(json))) != 1)
		usleep(500000);
	CHECK(r == 1, "StarvdTaskStarving did not fire for CPU %d: %s\nmetrics:\n%s",
			       self->cpu, json,
			       (sh(screen, sizeof(screen), "cat %s", path), screen));
	CHECK(victim_stuck(&self->v), "the victim ran: no starvation");
	/* The busy loop ends: the victim runs, the alert resolves. */
	kill_and_reap(self->hog);
	self->hog = 0;
	CHECK(victim_progressed(&self->v, self->v.st->count, 5000),
	      "the victim did not run once the busy loop ended");
	end = now_ns() + 40ULL * NSEC_PER_SEC;
	while (now_ns() < end &&
	       (r = starving_alert(s, self->cpu, json, sizeof(json))) != 0)
		usleep(500000);
	CHECK(0 == r, "StarvdTaskStarving still firing: %s", json);
	EXPECT_TRUE(NULL == strstr(json, "\"alertname\":\"StarvdDown\""))
		TH_LOG("%s", json);
}

TEST_F_TIMEOUT(starve, prometheus_alert_fires_and_resolves, 150)
{
	const char *exporter = getenv("STARVD_NODE_EXPORTER");
	const char *prometheus = getenv("STARVD_PROMETHEUS");
	struct servers s = { 0 };

	if (!exporter || access(exporter, X_OK) || !prometheus ||
	    access(prometheus, X_OK))
		SKIP(return, "no STARVD_NODE_EXPORTER / STARVD_PROMETHEUS (make -C selftests fetches Debian's)");
	if (sh(NULL, 0, "curl -V >/dev/null 2>&1"))
		SKIP(return, "curl is not installed (scripts/deps.sh installs it)");
	snprintf(s.dir, sizeof(s.dir), "/tmp/starvd-prom.XXXXXX");
	ASSERT_TRUE(NULL != mkdtemp(s.dir));
	avoid_cpu(self->cpu);
	START("-l", "-t", "1");
	WAIT_STARTED();
	alert_e2e(_metadata, self, &s, exporter, prometheus);
	stop_child(&s.prometheus);
	stop_child(&s.exporter);
	kill(s.writer, SIGKILL);
	waitpid(s.writer, NULL, 0);
	sh(NULL, 0, "rm -rf %s", s.dir);
}

TEST_HARNESS_MAIN
