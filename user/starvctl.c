// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * starvctl: query the wait data starvd works from, for people (tables)
 * and monitoring agents (--json). Exit status: 0 ok, 1 backend error,
 * 2 usage error.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backend.h"
#include "cpuset.h"
#include "log.h"
#include "metrics.h"
#include "report.h"
#include "sched_attr.h"
#include "starvctl_args.h"
#include "state.h"
#include "util.h"
#include "version.h"

static int __attribute__((format(printf, 1, 2)))
usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "starvctl: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (see starvctl --help)\n");
	return 2;
}

static void print_task_json(const struct starvd_task *t)
{
	char comm[64];

	json_escape(t->comm, comm, sizeof(comm));
	printf("{\"tid\":%u,\"tgid\":%u,\"comm\":\"%s\",\"cpu\":%d,\"policy\":\"%s\",\"priority\":%d,\"state\":\"%s\",\"wait_ns\":%llu,\"switches\":%llu}",
	       t->tid, t->tgid, comm, t->cpu, policy_name(t->policy),
	       prio_to_user(t->policy, t->prio),
	       t->state == STARVD_TASK_RUNNING ? "running" : "waiting",
	       (unsigned long long)t->wait_ns,
	       (unsigned long long)t->nr_switches);
}

static int cmd_tasks(const struct ctl *c, struct backend *b,
		     const struct task_list *l)
{
	size_t i, n = 0;

	if (c->json)
		printf("{\"backend\":\"%s\",\"read_time_ns\":%llu,\"tasks\":[",
		       b->desc, (unsigned long long)l->read_time_ns);
	else
		printf("%7s %7s %4s %-14s %5s %12s  %s\n", "TID", "TGID",
		       "CPU", "POLICY", "PRIO", "WAITED(s)", "COMM");
	for (i = 0; i < l->n; i++) {
		const struct starvd_task *t = &l->v[i];

		if (t->state != STARVD_TASK_WAITING)
			continue;
		if (c->json) {
			printf("%s", n++ ? "," : "");
			print_task_json(t);
		} else {
			printf("%7u %7u %4d %-14s %5d %12.6f  %s\n", t->tid,
			       t->tgid, t->cpu, policy_name(t->policy),
			       prio_to_user(t->policy, t->prio),
			       (double)t->wait_ns / NSEC_PER_SEC, t->comm);
		}
	}
	if (c->json)
		printf("]}\n");
	return 0;
}

static int cmd_cpus(const struct ctl *c, struct backend *b,
		    const struct task_list *l)
{
	struct starvd_cpu *cpus = calloc(b->nr_cpus, sizeof(*cpus));
	struct cpuset online;
	char holder[96];
	int i, n = 0, ret;

	if (!cpus)
		return -ENOMEM;
	ret = backend_read_cpus(b, l, cpus);
	if (ret)
		goto out;
	cpus_online(&online);
	if (c->json)
		printf("{\"backend\":\"%s\",\"read_time_ns\":%llu,\"cpus\":[",
		       b->desc, (unsigned long long)l->read_time_ns);
	else
		printf("%4s %7s %12s %12s %8s  %s\n", "CPU", "WAITERS",
		       "LONGEST(s)", "EVENTS", "DROPPED", "ON CPU");
	for (i = 0; i < b->nr_cpus; i++) {
		const struct starvd_cpu *s = &cpus[i];

		if ((c->cpu >= 0 && i != c->cpu) || !cpuset_test(&online, i))
			continue;
		if (c->json) {
			printf("%s{\"cpu\":%d,\"waiters\":%u,\"max_wait_ns\":%llu,\"events\":%llu,\"dropped\":%llu,\"curr\":",
			       n++ ? "," : "", i, s->nr_waiters,
			       (unsigned long long)s->max_wait_ns,
			       (unsigned long long)s->nr_events,
			       (unsigned long long)s->nr_dropped);
			if (s->curr.tid)
				print_task_json(&s->curr);
			else
				printf("null");
			printf("}");
			continue;
		}
		if (s->curr.tid)
			format_holder(&s->curr, holder, sizeof(holder));
		else
			snprintf(holder, sizeof(holder), "idle");
		printf("%4d %7u %12.6f %12llu %8llu  %s\n", i, s->nr_waiters,
		       (double)s->max_wait_ns / NSEC_PER_SEC,
		       (unsigned long long)s->nr_events,
		       (unsigned long long)s->nr_dropped, holder);
	}
	if (c->json)
		printf("]}\n");
out:
	free(cpus);
	return ret;
}

static int cmd_info(const struct ctl *c, struct backend *b,
		    const struct task_list *l)
{
	if (c->json)
		printf("{\"version\":\"%s\",\"abi_version\":%d,\"backend\":\"%s\",\"nr_cpus\":%d,\"clock\":\"CLOCK_MONOTONIC\",\"read_time_ns\":%llu}\n",
		       STARVD_VERSION, STARVD_ABI_VERSION, b->desc, b->nr_cpus,
		       (unsigned long long)l->read_time_ns);
	else
		printf("starvctl %s\nbackend: %s\nABI version: %d\nCPUs: %d\nclock: CLOCK_MONOTONIC\n",
		       STARVD_VERSION, b->desc, STARVD_ABI_VERSION,
		       b->nr_cpus);
	return 0;
}

/*
 * The running daemon's state: 0, or -ENOENT (none wrote one), -ESRCH (the
 * one that did is gone), another -errno for an unreadable file; each
 * already explained on stderr unless @quiet.
 */
static int read_daemon(const struct ctl *c, struct daemon_state *s,
		       bool quiet)
{
	char path[4096];
	int ret;

	snprintf(path, sizeof(path), "%s/" STATE_FILE, c->run_dir);
	ret = state_read(path, s);
	if (ret == -ENOENT) {
		if (!quiet)
			fprintf(stderr, "starvctl: starvd is not running (no %s): start it with 'systemctl start starvd', or pass --run-dir if it runs with another\n",
				path);
		return ret;
	}
	if (ret) {
		fprintf(stderr, "starvctl: cannot read the daemon's state %s: %s%s\n",
			path, strerror(-ret),
			ret == -EACCES ? " (run as root)" : "");
		return ret;
	}
	if (!state_daemon_alive(s)) {
		if (!quiet)
			fprintf(stderr, "starvctl: starvd is not running: pid %d, which wrote %s, is gone (killed?); 'starvd --restore' puts back any task it left boosted\n",
				(int)s->pid, path);
		state_free(s);
		return -ESRCH;
	}
	return 0;
}

static void status_json(const struct daemon_state *s, uint64_t now)
{
	struct cpu_stats sum = { 0 };
	char esc[512];
	size_t i;
	int n = 0;

	for (i = 0; i < (size_t)s->nr_cpus; i++) {
		sum.starving += s->cpu[i].starving;
		sum.boosts += s->cpu[i].boosts;
		sum.failures += s->cpu[i].failures;
	}
	printf("{\"running\":true,\"pid\":%d,\"version\":", (int)s->pid);
	json_escape(s->version, esc, sizeof(esc));
	printf("\"%s\",\"start_time\":%llu,\"backend\":", esc,
	       (unsigned long long)s->start_time);
	json_escape(s->backend, esc, sizeof(esc));
	printf("\"%s\",\"cpus\":", esc);
	json_escape(s->cpus, esc, sizeof(esc));
	printf("\"%s\",\"boost_mode\":", esc);
	json_escape(s->boost_mode, esc, sizeof(esc));
	printf("\"%s\",\"threshold_ns\":%llu,\"runtime_ns\":%llu,\"period_ns\":%llu,\"duration_ns\":%llu,",
	       esc, (unsigned long long)s->threshold_ns,
	       (unsigned long long)s->runtime_ns,
	       (unsigned long long)s->period_ns,
	       (unsigned long long)s->duration_ns);
	printf("\"starving\":%llu,\"boosts\":%llu,\"failures\":%llu,\"per_cpu\":[",
	       (unsigned long long)sum.starving,
	       (unsigned long long)sum.boosts,
	       (unsigned long long)sum.failures);
	for (i = 0; i < (size_t)s->nr_cpus; i++) {
		const struct cpu_stats *st = &s->cpu[i];

		if (!st->starving && !st->boosts && !st->failures)
			continue;
		printf("%s{\"cpu\":%zu,\"starving\":%llu,\"boosts\":%llu,\"failures\":%llu}",
		       n++ ? "," : "", i, (unsigned long long)st->starving,
		       (unsigned long long)st->boosts,
		       (unsigned long long)st->failures);
	}
	printf("],\"boosting\":[");
	for (i = 0; i < s->nr_boosting; i++) {
		const struct boost_info *b = &s->boosting[i];

		json_escape(b->comm, esc, sizeof(esc));
		printf("%s{\"tid\":%u,\"comm\":\"%s\",\"cpu\":%d,\"policy\":\"%s\",\"remaining_ns\":%llu}",
		       i ? "," : "", b->tid, esc, b->cpu, b->policy,
		       (unsigned long long)(b->end_ns > now ?
					    b->end_ns - now : 0));
	}
	printf("]}\n");
}

static void status_text(const struct daemon_state *s, uint64_t now)
{
	char rt[32], per[32], dur[32];
	long up = (long)(time(NULL) - s->start_time);
	struct cpuset online;
	size_t i;

	format_ns(s->runtime_ns, rt, sizeof(rt));
	format_ns(s->period_ns, per, sizeof(per));
	format_ns(s->duration_ns, dur, sizeof(dur));
	printf("starvd %s running, pid %d, up %ldh%02ldm%02lds\n", s->version,
	       (int)s->pid, up / 3600, up / 60 % 60, up % 60);
	printf("backend:   %s\nCPUs:      %s\nthreshold: %.3f s\n",
	       s->backend, s->cpus, (double)s->threshold_ns / NSEC_PER_SEC);
	if (!strcmp(s->boost_mode, "log-only"))
		printf("boosts:    none (log only)\n");
	else
		printf("boosts:    %s, %s every %s for %s\n",
		       !strcmp(s->boost_mode, "fifo") ?
		       "SCHED_FIFO emulation" : "SCHED_DEADLINE", rt, per,
		       dur);
	printf("%4s %10s %10s %10s\n", "CPU", "STARVING", "BOOSTS",
	       "FAILURES");
	cpus_online(&online);
	for (i = 0; i < (size_t)s->nr_cpus; i++) {
		const struct cpu_stats *st = &s->cpu[i];

		if (st->starving || st->boosts || st->failures ||
		    cpuset_test(&online, i))
			printf("%4zu %10llu %10llu %10llu\n", i,
			       (unsigned long long)st->starving,
			       (unsigned long long)st->boosts,
			       (unsigned long long)st->failures);
	}
	printf("boosts in progress: %zu\n", s->nr_boosting);
	if (!s->nr_boosting)
		return;
	printf("%7s %4s %-15s %9s  %s\n", "TID", "CPU", "POLICY", "LEFT(s)",
	       "COMM");
	for (i = 0; i < s->nr_boosting; i++) {
		const struct boost_info *b = &s->boosting[i];

		printf("%7u %4d %-15s %9.3f  %s\n", b->tid, b->cpu, b->policy,
		       b->end_ns > now ?
		       (double)(b->end_ns - now) / NSEC_PER_SEC : 0.0,
		       b->comm);
	}
}

static int cmd_status(const struct ctl *c)
{
	struct daemon_state s;
	int ret;

	ret = read_daemon(c, &s, c->json);
	if (ret) {
		if (c->json)
			printf("{\"running\":false}\n");
		return 1;
	}
	if (c->json)
		status_json(&s, now_ns());
	else
		status_text(&s, now_ns());
	state_free(&s);
	return 0;
}

/* The live per-CPU wait data; NULL (explained on stderr) if unreadable. */
static struct starvd_cpu *read_cpus(const struct ctl *c, struct backend *b,
				    bool *opened)
{
	struct read_filter f = { 0 };
	struct task_list l = { 0 };
	struct starvd_cpu *cpus;
	char err[1024];
	int ret;

	*opened = false;
	ret = backend_open(b, c->backend, c->bpf_mode, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "starvctl: %s\n", err);
		return NULL;
	}
	*opened = true;
	cpus = calloc(b->nr_cpus, sizeof(*cpus));
	if (!cpus)
		return NULL;
	ret = backend_read_tasks(b, &f, &l);
	if (!ret)
		ret = backend_read_cpus(b, &l, cpus);
	task_list_free(&l);
	if (ret) {
		fprintf(stderr, "starvctl: reading from the %s backend failed: %s\n",
			b->desc, strerror(-ret));
		free(cpus);
		return NULL;
	}
	return cpus;
}

static void fill_metrics(FILE *f, const void *arg)
{
	metrics_print(f, arg);
}

/* Always prints a complete exposition; exit 1 if the backend failed. */
static int cmd_metrics(const struct ctl *c)
{
	struct daemon_state s;
	struct metrics_input in = { 0 };
	struct starvd_cpu *cpus;
	struct backend b = { 0 };
	bool opened;
	int ret;

	if (!read_daemon(c, &s, true))
		in.daemon = &s;
	cpus = read_cpus(c, &b, &opened);
	in.backend = opened ? b.desc : NULL;
	in.cpus = cpus;
	in.nr_cpus = b.nr_cpus;
	if (c->output) {
		ret = write_file_atomic(c->output, fill_metrics, &in);
		if (ret)
			fprintf(stderr, "starvctl: --output %s: %s\n",
				c->output, strerror(-ret));
	} else {
		metrics_print(stdout, &in);
		ret = 0;
	}
	free(cpus);
	if (opened)
		backend_close(&b);
	if (in.daemon)
		state_free(&s);
	return ret || !cpus ? 1 : 0;
}

static const struct {
	const char *name;
	int (*fn)(const struct ctl *c, struct backend *b,
		  const struct task_list *l);
} commands[] = {
	{ "info", cmd_info },
	{ "cpus", cmd_cpus },
	{ "tasks", cmd_tasks },
};

int main(int argc, char **argv)
{
	struct task_list l = {};
	struct cpuset one = {};
	struct read_filter f = {};
	struct backend b;
	struct ctl c;
	char err[1024];
	size_t i;
	int ret;

	switch (ctl_parse_args(argc, argv, cpus_possible(), &c, err,
			       sizeof(err))) {
	case PARSE_EXIT:
		return 0;
	case PARSE_ERROR:
		fprintf(stderr, "starvctl: %s\n", err);
		return 2;
	case PARSE_OK:
		break;
	}
	if (!c.command)
		return usage_error("expected one command: info, cpus, tasks, status or metrics");
	if (c.output && strcmp(c.command, "metrics"))
		return usage_error("--output is for the metrics command");
	if (!strcmp(c.command, "status"))
		return cmd_status(&c);
	if (!strcmp(c.command, "metrics"))
		return cmd_metrics(&c);
	for (i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strcmp(c.command, commands[i].name))
			break;
	if (i == ARRAY_SIZE(commands))
		return usage_error("unknown command '%s'", c.command);

	ret = backend_open(&b, c.backend, c.bpf_mode, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "starvctl: %s\n", err);
		return 1;
	}
	if (c.cpu >= 0) {
		cpuset_set(&one, c.cpu);
		f.cpus = &one;
	}
	f.min_wait_ns = c.min_wait_ns;
	ret = backend_read_tasks(&b, &f, &l);
	if (!ret)
		ret = commands[i].fn(&c, &b, &l);
	if (ret)
		fprintf(stderr, "starvctl: reading from the %s backend failed: %s\n",
			b.desc, strerror(-ret));
	task_list_free(&l);
	backend_close(&b);
	return ret ? 1 : 0;
}
