/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Everything starvd reports about a task, defined once. A caller fills one
 * struct event and calls event_log(), which renders it once per format:
 * the text line (stalld's words where stalld has a line for it: scrapers
 * match them) to stderr/syslog/kmsg, and with --json one JSON object on
 * stdout. Every JSON event has "event", "time_ns" (CLOCK_MONOTONIC) and
 * the task as json_put_task() names it (tid, tgid, comm, cpu, policy,
 * priority: its policy once the event is done), then its own fields:
 *
 * starving    read_time_ns, wait_start_ns, wait_ns, wait_lower_bound
 *             (the wait's real start is unknown, and earlier: abi.h's
 *             STARVD_TASK_WAIT_LOWER_BOUND), log_only, holder (a task
 *             object or null), and stack with -k; cgroup and
 *             container_id of the task and (in its object) the holder:
 *             null in the root cgroup and for kernel threads
 *             (task_cgroup.h); role: kind, about, and for an IRQ's
 *             thread irq, irq_actions, irq_affinity and
 *             irq_effective_affinity (task_role.h), and pending: for
 *             a kworker running (function, workqueue), queued (the
 *             first few) and queued_count, for ksoftirqd softirqs (a
 *             list of vector names), or unknown (why it was not read)
 *             (pending.h); or null
 * ignored     list ("threads" or "processes"), process (with -I)
 * boost       runtime_ns, period_ns, duration_ns
 * escalate    runtime_ns, previous_runtime_ns, base_runtime_ns, cap_ns,
 *             period_ns
 * deescalate  runtime_ns (the configured one, which it gets again)
 * restore     nice, switches, ran_ns, runtime_ns, outcome ("progress",
 *             "no_progress", "unknown"), reason
 * holder_stack
 *             the task is the holder; victim (a task object), samples,
 *             samples_with_this_stack, kernel_stack and user_stack (arrays
 *             of frames, innermost first, never with their address
 *             (stack.h): symbol (null: none known), offset and size from
 *             it; kernel: module ("" the kernel itself); user: file,
 *             build_id, elf_address and file_offset, for eu-addr2line), and
 *             kernel_stack_note, user_stack_note: why a stack is short
 *             or missing, or null; truncated when frames were left out
 *             to fit the line. The text is one line and one a frame.
 */
#ifndef STARVD_EVENT_H
#define STARVD_EVENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <starvd/abi.h>

#include "escalate.h"
#include "sched_attr.h"

enum event_kind {
	EVENT_STARVING,		/* waited past the threshold */
	EVENT_IGNORED,		/* starving, but an ignore list matches */
	EVENT_BOOST,		/* a boost was applied */
	EVENT_ESCALATE,		/* this boost gets more than the last */
	EVENT_DEESCALATE,	/* it keeps up: back to the configured -r */
	EVENT_RESTORE,		/* a boost ended, the task got its policy back */
	EVENT_HOLDER_STACK,	/* where the holder of a starving CPU ran */
};

struct holder_stack;
struct task_cgroup;
struct task_pending;
struct task_role;

struct event {
	enum event_kind kind;
	/* The task (for restore: as it was found; its policy is "saved"). */
	struct starvd_task task;
	union {
		struct {
			uint64_t read_time_ns;	/* task.wait_ns refers to it */
			const struct starvd_task *holder;	/* or NULL */
			bool log_only;		/* reported, never boosted */
			const char *stack;	/* -k: "a <- b", or NULL */
			/* The task's and the holder's cgroups, or NULL. */
			const struct task_cgroup *cgroup, *holder_cgroup;
			/* What the task is there to do, or NULL. */
			const struct task_role *role;
			/* What it waits to run, read with role; or NULL. */
			const struct task_pending *pending;
		} starving;
		struct {
			const char *process;	/* -I matched; NULL: -i */
		} ignored;
		struct {
			/* The attributes applied (FIFO: its priority). */
			const struct sched_attr *applied;
			uint64_t runtime_ns, period_ns, duration_ns;
		} boost;
		struct {
			uint64_t runtime_ns, previous_ns, base_ns, cap_ns;
			uint64_t period_ns;
		} escalate;
		struct {
			uint64_t runtime_ns;
		} deescalate;
		struct {
			const struct sched_attr *saved;	/* restored to */
			const struct boost_delta *delta;
			uint64_t runtime_ns;		/* the boost's */
			const char *reason;		/* why it ended */
		} restore;
		struct {
			const struct holder_stack *stack;
			unsigned int max_frames;	/* of each kind */
		} holder_stack;
	};
};

/* Render @ev as text and (with --json) JSON, and log both (log.h). */
void event_log(const struct event *ev);
/* The renderers event_log() uses, for the tests. */
void event_text(const struct event *ev, char *buf, size_t len);
/* The JSON line, in @buf; -ENOMEM or -ENOSPC. */
int event_json(const struct event *ev, uint64_t time_ns, char *buf,
	       size_t len);

#endif
