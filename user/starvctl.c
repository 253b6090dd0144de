// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * starvctl: query the wait data starvd works from, for people (tables)
 * and monitoring agents (--json). Exit status: 0 ok, 1 backend error
 * (or the output could not be written), 2 usage error.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "advise.h"
#include "backend.h"
#include "cpuset.h"
#include "episodes.h"
#include "escape.h"
#include "holder.h"
#include "json.h"
#include "log.h"
#include "metrics.h"
#include "sched_attr.h"
#include "stack.h"
#include "starvctl_args.h"
#include "status_file.h"
#include "top.h"
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

/* A task as the backend read it: who it is, whether it waits, how long. */
static struct json_object *task_json(const struct starvd_task *t)
{
	struct json_object *o = json_object_new_object();

	if (!o)
		return NULL;
	json_put_task(o, t);
	json_put_str(o, "state", t->state == STARVD_TASK_RUNNING ?
				 "running" : "waiting");
	json_put_u64(o, "wait_ns", t->wait_ns);
	json_put_bool(o, "wait_lower_bound",
		      t->flags & STARVD_TASK_WAIT_LOWER_BOUND);
	json_put_u64(o, "switches", t->nr_switches);
	return o;
}

/* Print @o on a line and free it; -ENOMEM if json-c could not build it. */
static int print_json(struct json_object *o)
{
	const char *s = o ? json_line(o) : NULL;

	if (s)
		printf("%s\n", s);
	json_object_put(o);
	return s ? 0 : -ENOMEM;
}

/* The object every backend reply starts with. */
static struct json_object *reply_json(const struct backend *b,
				      const struct task_list *l)
{
	struct json_object *o = json_object_new_object();

	if (o) {
		json_put_str(o, "backend", b->display_name);
		json_put_u64(o, "read_time_ns", l->read_time_ns);
	}
	return o;
}

static int show_tasks(const struct ctl *c, struct backend *b,
		      const struct task_list *l)
{
	struct json_object *o = NULL, *arr = NULL;
	size_t i;

	if (c->json) {
		o = reply_json(b, l);
		arr = json_object_new_array();
		if (!o || !arr) {
			json_object_put(o);
			json_object_put(arr);
			return -ENOMEM;
		}
		json_put(o, "tasks", arr);
	} else {
		printf("%7s %7s %4s %-14s %5s %12s  %s\n", "TID", "TGID",
		       "CPU", "POLICY", "PRIO", "WAITED(s)", "COMM");
	}
	for (i = 0; i < l->n; i++) {
		const struct starvd_task *t = &l->v[i];
		char waited[32];

		if (t->state != STARVD_TASK_WAITING)
			continue;
		if (c->json) {
			json_object_array_add(arr, task_json(t));
			continue;
		}
		/* ">=": the source did not see the wait start (abi.h). */
		snprintf(waited, sizeof(waited), "%s%.6f",
			 t->flags & STARVD_TASK_WAIT_LOWER_BOUND ? ">=" : "",
			 (double)t->wait_ns / NSEC_PER_SEC);
		printf("%7u %7u %4d %-14s %5d %12s  %s\n", t->tid, t->tgid,
		       t->cpu, policy_name(t->policy),
		       prio_to_user(t->policy, t->prio), waited,
		       esc_name(t->comm));
	}
	return c->json ? print_json(o) : 0;
}

static struct json_object *cpu_json(int cpu, const struct starvd_cpu *s)
{
	struct json_object *o = json_object_new_object();

	if (!o)
		return NULL;
	json_put_int(o, "cpu", cpu);
	json_put_u64(o, "waiters", s->nr_waiters);
	json_put_u64(o, "max_wait_ns", s->max_wait_ns);
	json_put_u64(o, "dropped", s->nr_dropped);
	json_put(o, "curr", s->curr.tid ? task_json(&s->curr) : NULL);
	return o;
}

static int show_cpus(const struct ctl *c, struct backend *b,
		     const struct task_list *l)
{
	struct starvd_cpu *cpus = calloc(b->nr_cpus, sizeof(*cpus));
	struct json_object *o = NULL, *arr = NULL;
	struct cpuset online;
	char holder[128];
	int i, ret;

	if (!cpus)
		return -ENOMEM;
	ret = backend_read_cpus(b, l, cpus);
	if (ret)
		goto out;
	cpus_online(&online);
	if (c->json) {
		o = reply_json(b, l);
		arr = json_object_new_array();
		if (!o || !arr) {
			json_object_put(arr);
			ret = -ENOMEM;
			goto out;
		}
		json_put(o, "cpus", arr);
	} else {
		printf("%4s %7s %12s %8s  %s\n", "CPU", "WAITERS",
		       "LONGEST(s)", "DROPPED", "ON CPU");
	}
	for (i = 0; i < b->nr_cpus; i++) {
		const struct starvd_cpu *s = &cpus[i];

		if ((c->cpu >= 0 && i != c->cpu) || !cpuset_test(&online, i))
			continue;
		if (c->json) {
			json_object_array_add(arr, cpu_json(i, s));
			continue;
		}
		if (s->curr.tid)
			format_holder(&s->curr, holder, sizeof(holder));
		else
			snprintf(holder, sizeof(holder), "idle");
		printf("%4d %7u %12.6f %8llu  %s\n", i, s->nr_waiters,
		       (double)s->max_wait_ns / NSEC_PER_SEC,
		       (unsigned long long)s->nr_dropped, holder);
	}
	if (c->json) {
		ret = print_json(o);
		o = NULL;
	}
out:
	json_object_put(o);
	free(cpus);
	return ret;
}

static int show_info(const struct ctl *c, struct backend *b,
		     const struct task_list *l)
{
	struct json_object *o;

	if (!c->json) {
		printf("starvctl %s\nbackend: %s\nABI version: %d\nCPUs: %d\nclock: CLOCK_MONOTONIC\n",
		       STARVD_VERSION, b->display_name, STARVD_ABI_VERSION,
		       b->nr_cpus);
		return 0;
	}
	o = json_object_new_object();
	if (!o)
		return -ENOMEM;
	json_put_str(o, "version", STARVD_VERSION);
	json_put_int(o, "abi_version", STARVD_ABI_VERSION);
	json_put_str(o, "backend", b->display_name);
	json_put_int(o, "nr_cpus", b->nr_cpus);
	json_put_str(o, "clock", "CLOCK_MONOTONIC");
	json_put_u64(o, "read_time_ns", l->read_time_ns);
	return print_json(o);
}

/* Refused for want of privileges: nothing is known of the daemon then. */
static bool denied(int err)
{
	return err == -EACCES || err == -EPERM;
}

/*
 * The running daemon's state: 0, or -ENOENT (none wrote one), -ESRCH (the
 * one that did is gone), another -errno for an unreadable file; each
 * already explained on stderr unless @quiet.
 */
static int read_daemon(const struct ctl *c, struct daemon_status *s,
		       bool quiet)
{
	char path[4096];
	int ret;

	snprintf(path, sizeof(path), "%s/" STATUS_FILE, c->run_dir);
	ret = status_file_read(path, s);
	if (ret == -ENOENT) {
		if (!quiet)
			fprintf(stderr, "starvctl: starvd is not running (no %s): start it with 'systemctl start starvd', or pass --run-dir if it runs with another\n",
				path);
		return ret;
	}
	if (denied(ret)) {
		fprintf(stderr, "starvctl: cannot read the daemon's state %s: permission denied: only root reads starvd's run directory; run starvctl %s as root (e.g. with sudo)\n",
			path, c->command);
		return ret;
	}
	if (ret) {
		fprintf(stderr, "starvctl: cannot read the daemon's state %s: %s\n",
			path, strerror(-ret));
		return ret;
	}
	if (!status_daemon_alive(s)) {
		if (!quiet)
			fprintf(stderr, "starvctl: starvd is not running: pid %d, which wrote %s, is gone (killed?); 'starvd --restore' puts back any task it left boosted\n",
				(int)s->pid, path);
		status_file_free(s);
		return -ESRCH;
	}
	return 0;
}

static struct json_object *per_cpu_json(const struct daemon_status *s,
					 struct json_object *o)
{
	struct cpu_stats sum;
	struct json_object *arr = status_cpus_json(s, &sum);

	json_put_u64(o, "starving", sum.starving);
	json_put_u64(o, "boosts", sum.boosts);
	json_put_u64(o, "failures", sum.failures);
	return arr;
}

static struct json_object *escalation_json(const struct daemon_status *s)
{
	struct json_object *o = json_object_new_object(), *arr, *e;
	size_t i;

	if (!o)
		return NULL;
	json_put_bool(o, "enabled", s->cap_ns != 0);
	json_put_u64(o, "cap_ns", s->cap_ns);
	json_put_u64(o, "escalations", s->nr_escalations);
	json_put_u64(o, "max_runtime_ns", s->max_runtime_ns);
	arr = json_object_new_array();
	for (i = 0; arr && i < s->nr_escalated; i++) {
		e = json_object_new_object();
		if (!e)
			break;
		json_put_u64(e, "tid", s->escalated[i].tid);
		json_put_name(e, "comm", s->escalated[i].comm);
		json_put_int(e, "cpu", s->escalated[i].cpu);
		json_put_u64(e, "runtime_ns", s->escalated[i].runtime_ns);
		json_object_array_add(arr, e);
	}
	json_put(o, "escalated", arr);
	return o;
}

static int status_json(const struct daemon_status *s, uint64_t now)
{
	struct json_object *o = json_object_new_object();

	if (!o)
		return -ENOMEM;
	json_put_bool(o, "running", 1);
	json_put_int(o, "pid", s->pid);
	json_put_str(o, "version", s->version);
	json_put_u64(o, "start_time", s->start_time);
	status_config_json(o, s);
	json_put(o, "per_cpu", per_cpu_json(s, o));
	json_put(o, "boosting", status_boosting_json(s, now));
	json_put(o, "escalation", escalation_json(s));
	return print_json(o);
}

/* Escalation: the counters, and the tasks whose next boost gets more. */
static void escalation_text(const struct daemon_status *s)
{
	char cap[32], max[32], rt[32];
	size_t i;

	if (!strcmp(s->boost_mode, "log-only"))
		return;
	if (!s->cap_ns) {
		printf("escalation: off (--no-escalation)\n");
		return;
	}
	format_ns(s->cap_ns, cap, sizeof(cap));
	format_ns(s->max_runtime_ns, max, sizeof(max));
	printf("escalation: up to %s per period; %llu escalations, largest runtime granted %s\n",
	       cap, (unsigned long long)s->nr_escalations,
	       s->max_runtime_ns ? max : "none yet");
	if (!s->nr_escalated)
		return;
	printf("%7s %4s %-15s  %s\n", "TID", "CPU", "NEXT RUNTIME", "COMM");
	for (i = 0; i < s->nr_escalated; i++) {
		const struct escalated_info *e = &s->escalated[i];

		format_ns(e->runtime_ns, rt, sizeof(rt));
		printf("%7u %4d %-15s  %s\n", e->tid, e->cpu, rt,
		       esc_name(e->comm));
	}
}

/*
 * A task's "KIND CGROUP  COMM" columns, into @buf (WHAT_LEN bytes):
 * "comm/tid" when @tid is not 0 (as top shows a task), then what a
 * kworker or ksoftirqd waited to run; "-" for a CPU with no starving
 * task.
 */
#define WHAT_LEN	(16 + 1 + 32 + 2 + ESC_NAME_LEN + 16 + 16 + \
			 TASK_WAITS_LEN)

static const char *what_text(uint32_t tid, const char *comm,
			     const struct task_what *w, char *buf)
{
	char kind[17], cgroup[33];

	if (tid == 0 && !comm[0]) {
		snprintf(buf, WHAT_LEN, "%-16s %-32s  -", "-", "-");
		return buf;
	}
	snprintf(buf, WHAT_LEN, "%-16s %-32s  %s", task_what_kind(w, kind,
		 sizeof(kind)), task_what_cgroup(w, cgroup, sizeof(cgroup)),
		 esc_name(comm));
	if (tid)
		snprintf(buf + strlen(buf), WHAT_LEN - strlen(buf), "/%u",
			 tid);
	task_what_waits(w, buf + strlen(buf), WHAT_LEN - strlen(buf));
	return buf;
}

/* Starvation episodes (one wait of one task) by CPU and kind of task. */
static void episodes_text(const struct daemon_status *s)
{
	const struct kind_count *k;
	bool any = false;
	int i, j;

	for (i = 0; i < s->nr_cpus; i++) {
		for (j = 0; j < STATUS_KINDS; j++) {
			k = &s->cpu[i].episodes[j];
			if (!k->kind[0])
				continue;
			if (!any)
				printf("episodes by kind of task:\n");
			printf("%s", j ? ", " : "");
			if (!j)
				printf("  CPU %d: ", i);
			printf("%s %llu", k->kind, (unsigned long long)k->n);
			any = true;
		}
		if (s->cpu[i].episodes[0].kind[0])
			printf("\n");
	}
}

static void status_text(const struct daemon_status *s, uint64_t now)
{
	char rt[32], per[32], dur[32], what[WHAT_LEN];
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
	printf("%4s %10s %10s %10s  %-16s %-32s  %s\n", "CPU", "STARVING",
	       "BOOSTS", "FAILURES", "LAST KIND", "LAST CGROUP",
	       "LAST STARVING");
	cpus_online(&online);
	for (i = 0; i < (size_t)s->nr_cpus; i++) {
		const struct cpu_stats *st = &s->cpu[i];

		if (st->starving || st->boosts || st->failures ||
		    st->last.tid || cpuset_test(&online, i))
			printf("%4zu %10llu %10llu %10llu  %s\n", i,
			       (unsigned long long)st->starving,
			       (unsigned long long)st->boosts,
			       (unsigned long long)st->failures,
			       what_text(st->last.tid, st->last.comm,
					 &st->last.what, what));
	}
	episodes_text(s);
	escalation_text(s);
	printf("boosts in progress: %zu\n", s->nr_boosting);
	if (!s->nr_boosting)
		return;
	printf("%7s %4s %-15s %9s  %-16s %-32s  %s\n", "TID", "CPU", "POLICY",
	       "LEFT(s)", "KIND", "CGROUP", "COMM");
	for (i = 0; i < s->nr_boosting; i++) {
		const struct boost_info *b = &s->boosting[i];

		printf("%7u %4d %-15s %9.3f  %s\n", b->tid, b->cpu, b->policy,
		       b->end_ns > now ?
		       (double)(b->end_ns - now) / NSEC_PER_SEC : 0.0,
		       what_text(0, b->comm, &b->what, what));
	}
}

static int cmd_status(const struct ctl *c)
{
	struct daemon_status s;
	int ret;

	ret = read_daemon(c, &s, c->json);
	if (ret) {
		if (c->json && !denied(ret))
			printf("{\"running\":false}\n");
		return 1;
	}
	if (c->json)
		ret = status_json(&s, now_ns());
	else
		status_text(&s, now_ns());
	status_file_free(&s);
	return ret ? 1 : 0;
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
			b->display_name, strerror(-ret));
		free(cpus);
		return NULL;
	}
	return cpus;
}

static void fill_metrics(FILE *f, const void *arg)
{
	metrics_print(f, arg);
}

/*
 * Always prints a complete exposition, exit 1 if the backend failed;
 * nothing, exit 1, if the daemon's state is refused (not root).
 */
static int cmd_metrics(const struct ctl *c)
{
	struct daemon_status s;
	struct metrics_input in = { 0 };
	struct starvd_cpu *cpus;
	struct backend b = { 0 };
	bool opened;
	int ret;

	ret = read_daemon(c, &s, true);
	/* Not "starvd_up 0": whether it runs is not known. */
	if (denied(ret))
		return 1;
	if (!ret)
		in.daemon = &s;
	cpus = read_cpus(c, &b, &opened);
	in.backend = opened ? b.display_name : NULL;
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
		status_file_free(&s);
	return ret || !cpus ? 1 : 0;
}

/*
 * The last holder stack of each CPU (or -c's), as starvd kept it
 * (stack.h): its JSON event with --json, else its lines.
 */
static int cmd_stacks(const struct ctl *c)
{
	char path[4200], *buf = malloc(1 << 16), *text;
	int cpu, n = cpus_possible(), found = 0, ret;
	struct stat st;
	char when[64];

	if (!buf)
		return 1;
	for (cpu = 0; cpu < n; cpu++) {
		if (c->cpu >= 0 && cpu != c->cpu)
			continue;
		snprintf(path, sizeof(path), "%s/" STACK_FILE_PREFIX "%d",
			 c->run_dir, cpu);
		ret = read_file(path, buf, 1 << 16);
		if (ret < 0 || stat(path, &st))
			continue;
		text = strchr(buf, '\n');
		if (!text)
			continue;
		*text++ = '\0';
		if (c->json) {
			printf("%s\n", buf);
		} else {
			strftime(when, sizeof(when), "%F %T",
				 localtime(&st.st_mtime));
			printf("%sCPU %d, sampled %s:\n%s", found ? "\n" : "",
			       cpu, when, text);
		}
		found++;
	}
	free(buf);
	if (!found)
		fprintf(stderr, "starvctl: no holder stack in %s (starvd keeps one per CPU with --stacks or -v, from its first starvation on)\n",
			c->run_dir);
	return found ? 0 : 1;
}

static int add_episode(const char *line, void *arg)
{
	advise_add_line(arg, line);
	return 0;
}

static int cmd_advise(const struct ctl *c)
{
	struct advise a;
	struct cpuset online;
	char err[4096];
	int ret;

	if (advise_init(&a)) {
		fprintf(stderr, "starvctl: out of memory\n");
		return 1;
	}
	ret = episodes_each(c->run_dir, add_episode, &a, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "starvctl: %s\n", err);
		advise_free(&a);
		return 1;
	}
	cpus_online(&online);
	advise_build(&a, &online);
	if (c->json)
		advise_print_json(&a, stdout);
	else
		advise_print_text(&a, stdout);
	if (a.skipped)
		fprintf(stderr, "starvctl: %zu line(s) of %s/" EPISODES_FILE " not understood, left out\n",
			a.skipped, c->run_dir);
	advise_free(&a);
	return 0;
}

/*
 * One read of the backend's tasks (-c's CPU, -m's waits), shown by @show:
 * 0, or 1 after saying on stderr what failed.
 */
static int on_tasks(const struct ctl *c,
		    int (*show)(const struct ctl *c, struct backend *b,
				const struct task_list *l))
{
	struct task_list l = {};
	struct cpuset one = {};
	struct read_filter f = {};
	struct backend b;
	char err[1024];
	int ret;

	ret = backend_open(&b, c->backend, c->bpf_mode, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "starvctl: %s\n", err);
		return 1;
	}
	if (c->cpu >= 0) {
		cpuset_set(&one, c->cpu);
		f.cpus = &one;
	}
	f.min_wait_ns = c->min_wait_ns;
	ret = backend_read_tasks(&b, &f, &l);
	if (!ret)
		ret = show(c, &b, &l);
	if (ret)
		fprintf(stderr, "starvctl: reading from the %s backend failed: %s\n",
			b.display_name, strerror(-ret));
	task_list_free(&l);
	backend_close(&b);
	return ret ? 1 : 0;
}

static int cmd_info(const struct ctl *c)
{
	return on_tasks(c, show_info);
}

static int cmd_cpus(const struct ctl *c)
{
	return on_tasks(c, show_cpus);
}

static int cmd_tasks(const struct ctl *c)
{
	return on_tasks(c, show_tasks);
}

/*
 * starvctl's commands, as --help lists them: each returns the exit
 * status, having said on stderr what failed.
 */
static const struct command {
	const char *name;
	int (*run)(const struct ctl *c);
	const char *help;
} commands[] = {
	{ "info", cmd_info, "backend and clock in use" },
	{ "cpus", cmd_cpus,
	  "per-CPU waiters, longest wait and the task on the CPU" },
	{ "tasks", cmd_tasks, "tasks that are runnable but not running" },
	{ "status", cmd_status,
	  "the running starvd: backend, CPUs, boosts, counters" },
	{ "metrics", cmd_metrics,
	  "Prometheus text format (node_exporter textfile)" },
	{ "top", cmd_top, "live full-screen view of the waits and boosts" },
	{ "stacks", cmd_stacks,
	  "per CPU, where the holder of its last episode ran" },
	{ "advise", cmd_advise,
	  "changes that would have prevented the episodes seen" },
};

static const struct command *find_command(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strcmp(name, commands[i].name))
			return &commands[i];
	return NULL;
}

/* The command names joined by @sep, the last two by @last. */
static void command_names(char *buf, size_t len, const char *sep,
			  const char *last)
{
	size_t i, off = 0, n = ARRAY_SIZE(commands);

	buf[0] = '\0';
	for (i = 0; i < n && off < len; i++)
		off += snprintf(buf + off, len - off, "%s%s",
				!i ? "" : i == n - 1 ? last : sep,
				commands[i].name);
}

static void usage(void)
{
	char names[128];
	size_t i;

	command_names(names, sizeof(names), "|", "|");
	printf("Usage: starvctl [options] %s\n", names);
	for (i = 0; i < ARRAY_SIZE(commands); i++)
		printf("  %-20s %s\n", commands[i].name, commands[i].help);
	fputs(ctl_options_help, stdout);
}

static int run(int argc, char **argv)
{
	const struct command *cmd;
	struct ctl c;
	char err[1024];

	switch (ctl_parse_args(argc, argv, cpus_possible(), &c, err,
			       sizeof(err))) {
	case PARSE_EXIT:
		if (c.help)
			usage();
		return 0;
	case PARSE_ERROR:
		fprintf(stderr, "starvctl: %s\n", err);
		return 2;
	case PARSE_OK:
		break;
	}
	if (!c.command) {
		command_names(err, sizeof(err), ", ", " or ");
		return usage_error("expected one command: %s", err);
	}
	if (c.output && strcmp(c.command, "metrics"))
		return usage_error("--output is for the metrics command");
	cmd = find_command(c.command);
	if (!cmd)
		return usage_error("unknown command '%s'", c.command);
	return cmd->run(&c);
}

int main(int argc, char **argv)
{
	int ret = run(argc, argv);

	/*
	 * An agent reading a half-written answer must not see success: what
	 * stdio still holds is written now, and a failed write (closed pipe
	 * with SIGPIPE ignored, full disk) is an error of its own.
	 */
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "starvctl: cannot write the output to stdout: %s\n",
			ferror(stdout) && errno ? strerror(errno) : "write error");
		return ret ? ret : 1;
	}
	return ret;
}
