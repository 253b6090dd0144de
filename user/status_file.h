/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The status file: what the running daemon publishes for starvctl status
 * and metrics, <run-dir>/state (that name on disk is kept, for starvctl
 * of other releases). In the code "status" means this file; "state" is a
 * task's in a record (abi.h) and the BPF programs' (prog_state). A small
 * JSON object (json-c: no thread name can forge a field of it) the daemon
 * rewrites (atomic rename) whenever a counter or a boost changes and
 * removes when it exits. Not fsync'd: it describes a running daemon and
 * means nothing after a reboot.
 *
 * The comm fields hold a task's name as the kernel has it, any bytes:
 * escape it (escape.h's esc_name()) to print it.
 */
#ifndef STARVD_STATUS_FILE_H
#define STARVD_STATUS_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define STATUS_FILE	"state"

/*
 * What a starving task is, as its report read it (task_role.h,
 * task_cgroup.h, pending.h): its kind, an IRQ thread's IRQ, its cgroup,
 * and what a kworker or ksoftirqd waited to run.
 */
#define TASK_KIND_LEN	24
#define TASK_WAITS_LEN	48

#define TASK_CGROUP_LEN	256

struct task_what {
	char kind[TASK_KIND_LEN];	/* task_role_name(), "unknown"; "" none */
	int irq;			/* an IRQ thread's IRQ, else -1 */
	/*
	 * Escaped; "" the root cgroup. A longer path is "..." and its
	 * end: the workload's name (task_what_cut()).
	 */
	char cgroup[TASK_CGROUP_LEN];
	/*
	 * pending_brief(): the work function it runs or the first queued
	 * ("refresh_vm_stats"), or the pending softirqs ("TIMER,NET_RX");
	 * "" if none or not read. Printable ASCII.
	 */
	char waits[TASK_WAITS_LEN];
};

/* @path (escaped) into @w->cgroup, its end if it does not fit. */
void task_what_cut(struct task_what *w, const char *path);

/* A CPU's last starving task. */
struct starved_info {
	uint32_t tid;		/* 0: none yet */
	char comm[16];
	struct task_what what;
};

/* Episodes of one kind of task: a bounded set, task_role_name()'s. */
#define STATUS_KINDS	16

struct kind_count {
	char kind[TASK_KIND_LEN];	/* "": a free slot */
	uint64_t n;
};

struct cpu_stats {
	uint64_t starving;	/* starvation events */
	uint64_t boosts;
	uint64_t failures;	/* boosts that could not be applied */
	/* Starvation episodes (one wait of one task), by kind of task. */
	struct kind_count episodes[STATUS_KINDS];
	struct starved_info last;
};

/*
 * Count an episode of a task of @kind in @st; a kind beyond
 * STATUS_KINDS is counted as the last slot's.
 */
void cpu_stats_episode(struct cpu_stats *st, const char *kind);

struct boost_info {
	uint32_t tid;
	int cpu;
	char policy[16];	/* SCHED_DEADLINE or SCHED_FIFO */
	uint64_t start_ns, end_ns;	/* CLOCK_MONOTONIC */
	char comm[16];
	struct task_what what;	/* kind "": no report of it is kept */
};

/* A task whose next boost gets more than the configured runtime. */
struct escalated_info {
	uint32_t tid;
	int cpu;
	uint64_t runtime_ns;	/* its next boost's runtime */
	char comm[16];
};

struct daemon_status {
	pid_t pid;
	uint64_t start_time;	/* CLOCK_REALTIME, seconds */
	uint64_t updated_ns;	/* CLOCK_MONOTONIC of the last write */
	char version[16];
	char backend[64];	/* backend->display_name */
	char cpus[256];		/* monitored CPUs, "all" or a list */
	char boost_mode[16];	/* deadline, fifo or log-only */
	uint64_t threshold_ns;
	uint64_t runtime_ns, period_ns, duration_ns;
	int nr_cpus;
	struct cpu_stats *cpu;	/* nr_cpus entries */
	size_t nr_boosting;
	struct boost_info *boosting;
	/* Escalation (escalate.h): cap_ns 0 when it is off. */
	uint64_t cap_ns, nr_escalations, max_runtime_ns;
	size_t nr_escalated;
	struct escalated_info *escalated;
};

/* Write @s to @path atomically; -errno on error. */
int status_file_write(const char *path, const struct daemon_status *s);
/*
 * Parse a status file's text; fills @s (status_file_free() it); -EINVAL
 * if bad (a text status file of starvd 0.1.0 included).
 */
int status_file_parse(const char *buf, struct daemon_status *s);
/* Read and parse @path; -errno (-ENOENT: no daemon wrote one). */
int status_file_read(const char *path, struct daemon_status *s);
void status_file_free(struct daemon_status *s);

/*
 * The CPUs with a counter above 0, as a JSON array of {cpu, starving,
 * boosts, failures, episodes, last} (the status file's and starvctl
 * status --json's): episodes an object of counts by kind, last the
 * CPU's last starving task {tid, comm, kind, irq, cgroup} (irq only for
 * an IRQ thread) or null. @sum, if not NULL, gets the totals of the
 * three counters over every CPU. NULL without memory.
 */
struct json_object;
struct json_object *status_cpus_json(const struct daemon_status *s,
				     struct cpu_stats *sum);
/*
 * The boosts in progress, as a JSON array of {tid, comm, cpu, policy,
 * kind, irq, cgroup} (kind and cgroup null when unknown, irq only for an
 * IRQ thread) and start_ns, end_ns (the status file's) or, if @now is
 * not 0, the time remaining at @now (starvctl status --json's).
 */
struct json_object *status_boosting_json(const struct daemon_status *s,
					 uint64_t now);

/*
 * The daemon's configuration into @o: backend, cpus, boost_mode,
 * threshold_ns, runtime_ns, period_ns, duration_ns (the status file's
 * and starvctl status --json's).
 */
void status_config_json(struct json_object *o, const struct daemon_status *s);

/*
 * @w for a table: "kind" or "irq_thread 25", "-" when unknown, into
 * @buf (@len bytes).
 */
const char *task_what_kind(const struct task_what *w, char *buf,
			   size_t len);
/* " (waits to run X)" after a task, "" when nothing was read of it. */
const char *task_what_waits(const struct task_what *w, char *buf,
			    size_t len);
/*
 * @w's cgroup for a table, into @buf (@len bytes): "/" for the root,
 * "-" unknown, a path too long as "..." and its end (the workload's name).
 */
const char *task_what_cgroup(const struct task_what *w, char *buf,
			     size_t len);

/* Is the process that wrote @s still running as starvd (or stalld)? */
bool status_daemon_alive(const struct daemon_status *s);

#endif
