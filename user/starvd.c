// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * starvd: starvation detection and avoidance daemon.
 *
 * Each wake-up reads the waiters once (filtered in the kernel), boosts the
 * ones that have waited for the threshold, and sleeps until the earliest
 * moment another one can cross it, or until a boost needs its next step.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include "backend.h"
#include "boost.h"
#include "caps.h"
#include "daemon.h"
#include "detect.h"
#include "journal.h"
#include "log.h"
#include "options.h"
#include "proc.h"
#include "report.h"
#include "state.h"
#include "throttle.h"
#include "util.h"
#include "version.h"

struct starvd {
	struct config cfg;
	struct backend backend;
	struct journal journal;
	struct booster booster;
	struct detect detect;
	struct detect_result result;
	struct task_list tasks;
	struct starvd_task *holders;	/* per CPU, tid 0: unknown */
	struct cpu_stats *stats;	/* per CPU, for starvctl */
	uint64_t next_read_ns;
	uint64_t nr_reads, nr_starving;
	/* Reads failing since fail_since_ns with read_err, 0: they work. */
	int read_err;
	uint64_t nr_failed_reads, fail_since_ns;
	uint64_t start_time;		/* CLOCK_REALTIME, s */
	char state_path[4096];		/* "": not published */
	bool state_dirty, state_failed;
	int sfd;
};

static bool skip_boosted(void *ctx, uint32_t tid)
{
	return boost_active(ctx, tid);
}

static bool ignored(const struct config *cfg, const struct starvd_task *t)
{
	char pcomm[64];

	if (regex_list_match(&cfg->ignore_threads, t->comm))
		return true;
	if (!cfg->ignore_processes.n)
		return false;
	task_comm(t->tgid, pcomm, sizeof(pcomm));
	return regex_list_match(&cfg->ignore_processes, pcomm);
}

static void collect_holders(struct starvd *d)
{
	size_t i;

	memset(d->holders, 0, d->backend.nr_cpus * sizeof(*d->holders));
	for (i = 0; i < d->tasks.n; i++) {
		const struct starvd_task *t = &d->tasks.v[i];

		if (t->state == STARVD_TASK_RUNNING && t->cpu >= 0 &&
		    t->cpu < d->backend.nr_cpus)
			d->holders[t->cpu] = *t;
	}
}

/*
 * What keeps @t off its CPU: the highest-priority other task runnable
 * there (kernel prio: lower is higher), the one on the CPU on a tie.
 * Usually that is the task on the CPU; but a SCHED_OTHER task that the
 * kernel's fair server runs for a moment behind a real-time busy loop is
 * on the CPU without outranking anything: the busy loop it preempted,
 * waiting for a few milliseconds, is what starves a real-time task. (Named
 * as the holder, it also made the SCHED_FIFO emulation run the task at
 * priority 1, below the busy loop.) Tasks starvd is boosting are not
 * holders either: their priority is starvd's, for a moment.
 */
static const struct starvd_task *holder_of(const struct starvd *d,
					   const struct starvd_task *t)
{
	const struct starvd_task *h = NULL, *w;
	size_t i;

	if (t->cpu < 0 || t->cpu >= d->backend.nr_cpus)
		return NULL;
	w = &d->holders[t->cpu];
	if (w->tid && !boost_active(&d->booster, w->tid))
		h = w;
	for (i = 0; i < d->tasks.n; i++) {
		w = &d->tasks.v[i];
		if (w->state == STARVD_TASK_WAITING && w->cpu == t->cpu &&
		    w->tid != t->tid && (!h || w->prio < h->prio) &&
		    !boost_active(&d->booster, w->tid))
			h = w;
	}
	return h;
}

static void handle_starving(struct starvd *d, const struct starvd_task *t,
			    uint64_t now)
{
	bool on_cpu = t->cpu >= 0 && t->cpu < d->backend.nr_cpus;
	const struct starvd_task *h = NULL;
	uint64_t failures = d->booster.nr_failures;
	struct cpu_stats none, *st = on_cpu ? &d->stats[t->cpu] : &none;

	if (ignored(&d->cfg, t))
		return;
	h = holder_of(d, t);
	d->nr_starving++;
	st->starving++;
	d->state_dirty = true;
	report_starving(t, d->tasks.read_time_ns, h, d->cfg.log_only,
			d->cfg.kstack);
	if (d->cfg.log_only)
		return;
	if (!boost_start(&d->booster, t, h ? h->prio : -1, now)) {
		st->boosts++;
		detect_forget(&d->detect, t->tid);
	}
	st->failures += d->booster.nr_failures - failures;
}

/* Rewrite <run-dir>/state for starvctl status and metrics. */
static void publish_state(struct starvd *d)
{
	struct daemon_state s = {
		.pid = getpid(),
		.start_time = d->start_time,
		.updated_ns = now_ns(),
		.threshold_ns = d->cfg.threshold_ns,
		.runtime_ns = d->cfg.boost_runtime_ns,
		.period_ns = d->cfg.boost_period_ns,
		.duration_ns = d->cfg.boost_duration_ns,
		.nr_cpus = d->backend.nr_cpus,
		.cpu = d->stats,
		.nr_boosting = d->booster.n,
	};
	struct boost_info *bi;
	size_t i;
	int ret;

	d->state_dirty = false;
	if (!d->state_path[0])
		return;
	bi = calloc(d->booster.n + 1, sizeof(*bi));
	if (!bi)
		return;
	snprintf(s.version, sizeof(s.version), "%s", STARVD_VERSION);
	snprintf(s.backend, sizeof(s.backend), "%s", d->backend.desc);
	snprintf(s.cpus, sizeof(s.cpus), "all");
	if (!d->cfg.monitor_all)
		cpuset_format(&d->cfg.cpus, s.cpus, sizeof(s.cpus));
	snprintf(s.boost_mode, sizeof(s.boost_mode), "%s",
		 d->cfg.log_only ? "log-only" :
		 d->cfg.force_fifo || d->booster.dl_unavailable ? "fifo" :
		 "deadline");
	for (i = 0; i < d->booster.n; i++) {
		const struct boost *bo = &d->booster.v[i];

		bi[i] = (struct boost_info) {
			.tid = bo->task.tid,
			.cpu = bo->task.cpu,
			.start_ns = bo->end_ns - d->cfg.boost_duration_ns,
			.end_ns = bo->end_ns,
		};
		snprintf(bi[i].policy, sizeof(bi[i].policy), "%s",
			 bo->fifo ? "SCHED_FIFO" : "SCHED_DEADLINE");
		memcpy(bi[i].comm, bo->task.comm, sizeof(bi[i].comm) - 1);
	}
	s.boosting = bi;
	ret = state_write(d->state_path, &s);
	free(bi);
	if (ret && !d->state_failed)
		log_err("cannot write %s: %s; starvctl status and metrics will not see this starvd",
			d->state_path, strerror(-ret));
	d->state_failed = ret != 0;
}

static int scan(struct starvd *d)
{
	struct read_filter f = {
		.cpus = d->cfg.monitor_all ? NULL : &d->cfg.cpus,
	};
	size_t i;
	int ret;

	ret = backend_read_tasks(&d->backend, &f, &d->tasks);
	if (ret)
		return ret;
	d->nr_reads++;
	collect_holders(d);
	detect_scan(&d->detect, &d->tasks, skip_boosted, &d->booster,
		    &d->result);
	for (i = 0; i < d->result.n; i++)
		handle_starving(d, &d->tasks.v[d->result.starving[i]],
				now_ns());
	if (d->cfg.granularity_ns)
		d->next_read_ns = d->tasks.read_time_ns + d->cfg.granularity_ns;
	else
		d->next_read_ns = d->result.next_wake_ns;
	return 0;
}

static void log_status(struct starvd *d)
{
	char cpus[256] = "all";

	if (!d->cfg.monitor_all)
		cpuset_format(&d->cfg.cpus, cpus, sizeof(cpus));
	log_msg("status: backend %s, CPUs %s, threshold %.3f s, %zu boost(s) in progress, %llu reads, %llu starving, %llu boosts, %llu boost failures",
		d->backend.desc, cpus,
		(double)d->cfg.threshold_ns / NSEC_PER_SEC, d->booster.n,
		(unsigned long long)d->nr_reads,
		(unsigned long long)d->nr_starving,
		(unsigned long long)d->booster.nr_boosts,
		(unsigned long long)d->booster.nr_failures);
	if (d->read_err)
		log_msg("status: reads failing for %.1f s (%llu attempts): %s%s%s",
			(double)(now_ns() - d->fail_since_ns) / NSEC_PER_SEC,
			(unsigned long long)d->nr_failed_reads,
			strerror(-d->read_err), d->backend.why[0] ? ": " : "",
			d->backend.why);
}

/* Publish <run-dir>/state; without it starvd works, unseen by starvctl. */
static void open_state(struct starvd *d)
{
	int ret = mkdir_p(d->cfg.run_dir);

	d->start_time = time(NULL);
	if (ret) {
		log_err("cannot create %s: %s; starvctl status and metrics will not see this starvd (use --run-dir to choose another directory)",
			d->cfg.run_dir, strerror(-ret));
		return;
	}
	snprintf(d->state_path, sizeof(d->state_path), "%s/" STATE_FILE,
		 d->cfg.run_dir);
	publish_state(d);
}

/* Sleep until @deadline or a signal; returns the signal number or 0. */
static int wait_until(struct starvd *d, uint64_t deadline)
{
	struct pollfd pfd = { .fd = d->sfd, .events = POLLIN };
	struct signalfd_siginfo si;
	struct timespec ts;
	uint64_t now = now_ns(), delta;

	delta = deadline > now ? deadline - now : 0;
	ts.tv_sec = delta / NSEC_PER_SEC;
	ts.tv_nsec = delta % NSEC_PER_SEC;
	if (ppoll(&pfd, 1, &ts, NULL) <= 0)
		return 0;
	if (read(d->sfd, &si, sizeof(si)) != sizeof(si))
		return 0;
	return si.ssi_signo;
}

/*
 * Failed reads are retried with a backoff from 100 ms to 5 s (the module
 * may be reloaded, e.g. by a DKMS upgrade). The failure is logged once,
 * with what to do, and again only if the error changes; the recovery once.
 */
#define READ_BACKOFF_MIN_MS	100
#define READ_BACKOFF_MAX_MS	5000

static void read_failed(struct starvd *d, int ret, uint64_t now)
{
	d->nr_failed_reads++;
	if (ret == d->read_err)
		return;
	if (!d->read_err)
		d->fail_since_ns = now;
	d->read_err = ret;
	log_err("reading the waiters from the %s backend failed: %s%s%s; nothing is detected meanwhile; retrying every %.1f to %.0f s, logged again only if the error changes",
		d->backend.desc, strerror(-ret), d->backend.why[0] ? ": " : "",
		d->backend.why, READ_BACKOFF_MIN_MS / 1000.0,
		READ_BACKOFF_MAX_MS / 1000.0);
}

static void read_recovered(struct starvd *d, uint64_t now)
{
	log_msg("reading the waiters from the %s backend works again, after %llu failed attempts in %.1f s",
		d->backend.desc, (unsigned long long)d->nr_failed_reads,
		(double)(now - d->fail_since_ns) / NSEC_PER_SEC);
	d->read_err = 0;
	d->nr_failed_reads = 0;
}

static int run(struct starvd *d)
{
	uint64_t deadline;
	int sig, ret, backoff_ms = READ_BACKOFF_MIN_MS;

	d->next_read_ns = 0;
	for (;;) {
		uint64_t now = now_ns();

		/* A task whose boost ended may starve again: look now. */
		if (boost_run(&d->booster, now)) {
			d->next_read_ns = now;
			d->state_dirty = true;
		}
		if (now >= d->next_read_ns) {
			ret = scan(d);
			if (ret) {
				read_failed(d, ret, now);
				d->next_read_ns = now + backoff_ms * NSEC_PER_MSEC;
				if (backoff_ms < READ_BACKOFF_MAX_MS)
					backoff_ms *= 2;
			} else {
				if (d->read_err)
					read_recovered(d, now);
				backoff_ms = READ_BACKOFF_MIN_MS;
			}
		}
		if (d->state_dirty)
			publish_state(d);
		deadline = boost_next_event(&d->booster);
		if (d->next_read_ns < deadline)
			deadline = d->next_read_ns;
		sig = wait_until(d, deadline);
		if (sig == SIGUSR1) {
			log_status(d);
			publish_state(d);
		} else if (sig) {
			return sig;
		}
	}
}

static int setup_signals(struct starvd *d)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGUSR1);
	if (sigprocmask(SIG_BLOCK, &set, NULL))
		return -errno;
	d->sfd = signalfd(-1, &set, SFD_CLOEXEC);
	return d->sfd < 0 ? -errno : 0;
}

/* Put back every task a previous starvd left boosted (it was killed). */
static void recover_journal(struct starvd *d)
{
	struct journal_entry *v;
	size_t n, i;
	int ret;

	if (journal_load(&d->journal, &v, &n))
		return;
	for (i = 0; i < n; i++) {
		ret = restore_task(v[i].tid, v[i].comm, v[i].start_time,
				   &v[i].saved, &v[i].applied,
				   "left boosted by a previous starvd");
		if (ret == -ESRCH)
			log_msg("pid %d (%s) from the boost journal is gone",
				v[i].tid, v[i].comm);
		journal_remove(&d->journal, v[i].tid);
	}
	free(v);
}

/* --restore: what a killed starvd left boosted, e.g. from ExecStopPost. */
static int restore_only(struct starvd *d)
{
	int ret = journal_open(&d->journal, d->cfg.run_dir);

	if (ret) {
		log_err("cannot open the boost journal in %s/boosts: %s",
			d->cfg.run_dir, strerror(-ret));
		return EXIT_FAILURE;
	}
	recover_journal(d);
	journal_close(&d->journal);
	config_free(&d->cfg);
	return EXIT_SUCCESS;
}

/* stalld refuses to run with RT throttling on unless it is managed. */
static int check_throttling(const struct config *cfg)
{
	long us;
	int ret;

	ret = rt_runtime_read(&us);
	if (ret) {
		log_err("cannot read %s: %s", RT_RUNTIME_PATH, strerror(-ret));
		return -1;
	}
	if (us < 0) {
		log_msg("RT throttling is off (kernel.sched_rt_runtime_us=-1)");
		return 0;
	}
	if (cfg->systemd || cfg->log_only) {
		log_msg("RT throttling is on (kernel.sched_rt_runtime_us=%ld)%s",
			us, cfg->systemd ? ", managed by the service" :
			", fine for --log_only");
		return 0;
	}
	log_err("RT throttling is on (kernel.sched_rt_runtime_us=%ld): SCHED_DEADLINE boosts of pinned tasks are refused while it is. Turn it off with 'sysctl -w kernel.sched_rt_runtime_us=-1', or pass -S/--systemd if the service manages it.",
		us);
	return -1;
}

static void log_start(const struct starvd *d)
{
	char cpus[256] = "all", rt[32], per[32];

	if (!d->cfg.monitor_all)
		cpuset_format(&d->cfg.cpus, cpus, sizeof(cpus));
	format_ns(d->cfg.boost_runtime_ns, rt, sizeof(rt));
	format_ns(d->cfg.boost_period_ns, per, sizeof(per));
	log_msg("starvd %s: backend %s, monitoring CPUs %s, threshold %.3f s, %s, boost %s/%s for %.3f s%s",
		STARVD_VERSION, d->backend.desc, cpus,
		(double)d->cfg.threshold_ns / NSEC_PER_SEC,
		d->cfg.granularity_ns ? "fixed granularity" :
		"waking on threshold crossings", rt, per,
		(double)d->cfg.boost_duration_ns / NSEC_PER_SEC,
		d->cfg.log_only ? " (log only)" :
		d->cfg.force_fifo ? " (SCHED_FIFO emulation)" : "");
}

int main(int argc, char **argv)
{
	struct boost_params bp;
	struct log_config lc;
	struct starvd d = { .sfd = -1 };
	char err[1024];
	int ret, sig, status = EXIT_FAILURE;

	switch (parse_options(argc, argv, cpus_possible(), &d.cfg, err,
			      sizeof(err))) {
	case PARSE_EXIT:
		return EXIT_SUCCESS;
	case PARSE_ERROR:
		fprintf(stderr, "starvd: %s\n", err);
		return 2;
	case PARSE_OK:
		break;
	}
	lc = (struct log_config) {
		.to_stderr = d.cfg.foreground || d.cfg.verbose,
		.to_syslog = d.cfg.log_syslog || !d.cfg.foreground,
		.to_kmsg = d.cfg.log_kmsg,
		.json = d.cfg.json,
		.verbose = d.cfg.verbose,
	};
	log_init(&(struct log_config){ .to_stderr = true });
	if (d.cfg.restore_only)
		return restore_only(&d);
	if (caps_check_start(&d.cfg) || check_throttling(&d.cfg))
		return EXIT_FAILURE;

	ret = backend_open(&d.backend, d.cfg.backend, d.cfg.bpf_mode, err,
			   sizeof(err));
	if (ret) {
		log_err("%s", err);
		return EXIT_FAILURE;
	}
	if (!d.cfg.log_only) {
		ret = journal_open(&d.journal, d.cfg.run_dir);
		if (ret) {
			log_err("cannot create the boost journal in %s/boosts: %s (use --run-dir to choose another directory)",
				d.cfg.run_dir, strerror(-ret));
			goto out_backend;
		}
		if (!on_memory_fs(d.cfg.run_dir))
			log_msg("note: %s is not on tmpfs: every boost waits for the journal's fsync, which can take long when kernel threads starve; use a tmpfs --run-dir (/run normally is one)",
				d.cfg.run_dir);
	}
	if (!d.cfg.foreground) {
		ret = daemonize();
		if (ret) {
			log_err("cannot daemonize: %s", strerror(-ret));
			goto out_journal;
		}
	}
	log_init(&lc);
	if (d.cfg.pidfile) {
		ret = pidfile_write(d.cfg.pidfile);
		if (ret) {
			log_err("-P/--pidfile: cannot write %s: %s",
				d.cfg.pidfile, strerror(-ret));
			goto out_journal;
		}
	}
	if (setup_signals(&d) || protect_self(&d.cfg) ||
	    caps_drop(&d.cfg, &d.backend))
		goto out_pidfile;
	/* Boost steps are tens of microseconds: no timer slack. */
	prctl(PR_SET_TIMERSLACK, 1UL);

	d.holders = calloc(d.backend.nr_cpus, sizeof(*d.holders));
	d.stats = calloc(d.backend.nr_cpus, sizeof(*d.stats));
	if (!d.holders || !d.stats)
		goto out_pidfile;
	bp = (struct boost_params) {
		.runtime_ns = d.cfg.boost_runtime_ns,
		.period_ns = d.cfg.boost_period_ns,
		.duration_ns = d.cfg.boost_duration_ns,
		.force_fifo = d.cfg.force_fifo,
	};
	booster_init(&d.booster, &bp, d.cfg.log_only ? NULL : &d.journal);
	detect_init(&d.detect, d.cfg.threshold_ns);
	if (!d.cfg.log_only)
		recover_journal(&d);
	log_start(&d);
	if (d.backend.note[0])
		log_msg("%s", d.backend.note);
	open_state(&d);
	if (!d.cfg.log_only && d.cfg.boost_duration_ns < d.cfg.boost_period_ns)
		log_msg("note: -d/--boost_duration is shorter than -p/--boost_period: a task boosted again soon after a boost may get no runtime until its previous SCHED_DEADLINE period ends");
	daemon_ready();

	sig = run(&d);
	log_msg("received %s, restoring %zu boosted task(s) and exiting",
		strsignal(sig), d.booster.n);
	boost_stop_all(&d.booster);
	status = EXIT_SUCCESS;

	if (d.state_path[0])
		unlink(d.state_path);
	booster_free(&d.booster);
	detect_free(&d.detect);
	detect_result_free(&d.result);
	task_list_free(&d.tasks);
out_pidfile:
	free(d.holders);
	free(d.stats);
	pidfile_remove(d.cfg.pidfile);
out_journal:
	if (!d.cfg.log_only)
		journal_close(&d.journal);
out_backend:
	backend_close(&d.backend);
	config_free(&d.cfg);
	log_close();
	return status;
}
