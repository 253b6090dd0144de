// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * starvctl: query the wait data starvd works from, for people (tables)
 * and monitoring agents (--json). Exit status: 0 ok, 1 backend error,
 * 2 usage error.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "cpuset.h"
#include "log.h"
#include "report.h"
#include "sched_attr.h"
#include "util.h"
#include "version.h"

struct ctl {
	enum backend_kind backend;
	unsigned int bpf_mode;
	bool json;
	int cpu;		/* -1: all */
	uint64_t min_wait_ns;
};

static const char usage_text[] =
"Usage: starvctl [options] info|cpus|tasks\n"
"  info                 backend and clock in use\n"
"  cpus                 per-CPU waiters, longest wait and the task on the CPU\n"
"  tasks                tasks that are runnable but not running\n"
"Options:\n"
"  -c, --cpu N          only CPU N\n"
"  -m, --min-wait S     only waits of at least S seconds (decimals allowed)\n"
"  -j, --json           JSON output\n"
"  -b, --backend NAME   auto (default), bpf or netlink\n"
"      --bpf-mode MODE  auto, sched_info or tracking\n"
"  -V, --version, -h, --help\n";

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
	char holder[96];
	int i, n = 0, ret;

	if (!cpus)
		return -ENOMEM;
	ret = backend_read_cpus(b, l, cpus);
	if (ret)
		goto out;
	if (c->json)
		printf("{\"backend\":\"%s\",\"read_time_ns\":%llu,\"cpus\":[",
		       b->desc, (unsigned long long)l->read_time_ns);
	else
		printf("%4s %7s %12s %12s %8s  %s\n", "CPU", "WAITERS",
		       "LONGEST(s)", "EVENTS", "DROPPED", "ON CPU");
	for (i = 0; i < b->nr_cpus; i++) {
		const struct starvd_cpu *s = &cpus[i];

		if ((c->cpu >= 0 && i != c->cpu) || !cpu_online(i))
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

static const struct {
	const char *name;
	int (*fn)(const struct ctl *c, struct backend *b,
		  const struct task_list *l);
} commands[] = {
	{ "info", cmd_info },
	{ "cpus", cmd_cpus },
	{ "tasks", cmd_tasks },
};

static int parse_args(int argc, char **argv, struct ctl *c)
{
	static const struct option opts[] = {
		{ "cpu", required_argument, NULL, 'c' },
		{ "min-wait", required_argument, NULL, 'm' },
		{ "json", no_argument, NULL, 'j' },
		{ "backend", required_argument, NULL, 'b' },
		{ "bpf-mode", required_argument, NULL, 'B' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int nr_cpus = cpus_possible(), opt;
	long v;

	while ((opt = getopt_long(argc, argv, "c:m:jb:Vh", opts, NULL)) != -1) {
		switch (opt) {
		case 'c':
			if (parse_int(optarg, 0, nr_cpus - 1, &v)) {
				fprintf(stderr, "starvctl: --cpu: CPU '%s' does not exist (this machine has CPUs 0-%d)\n",
					optarg, nr_cpus - 1);
				return 2;
			}
			c->cpu = v;
			break;
		case 'm':
			if (parse_seconds(optarg, &c->min_wait_ns))
				return usage_error("--min-wait: '%s' is not a positive number of seconds",
						   optarg);
			break;
		case 'j':
			c->json = true;
			break;
		case 'b':
			if (parse_backend_name(optarg, &c->backend))
				return usage_error("--backend: " BACKEND_NAMES_HELP,
						   optarg);
			break;
		case 'B':
			if (parse_bpf_mode_name(optarg, &c->bpf_mode))
				return usage_error("--bpf-mode: " BPF_MODE_NAMES_HELP,
						   optarg);
			break;
		case 'V':
			printf("starvctl %s\n", STARVD_VERSION);
			exit(0);
		case 'h':
			fputs(usage_text, stdout);
			exit(0);
		default:
			return usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct ctl c = { .cpu = -1 };
	struct task_list l = {};
	struct cpuset one = {};
	struct read_filter f = {};
	struct backend b;
	char err[1024];
	size_t i;
	int ret;

	ret = parse_args(argc, argv, &c);
	if (ret)
		return ret;
	if (optind != argc - 1)
		return usage_error("expected one command: info, cpus or tasks");
	for (i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strcmp(argv[optind], commands[i].name))
			break;
	if (i == ARRAY_SIZE(commands))
		return usage_error("unknown command '%s'", argv[optind]);

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
