// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "escape.h"
#include "event.h"
#include "holder.h"
#include "json.h"
#include "log.h"
#include "stack.h"
#include "task_cgroup.h"
#include "pending.h"
#include "task_role.h"
#include "util.h"

static const char *const names[] = {
	[EVENT_STARVING] = "starving", [EVENT_IGNORED] = "ignored",
	[EVENT_BOOST] = "boost", [EVENT_ESCALATE] = "escalate",
	[EVENT_DEESCALATE] = "deescalate", [EVENT_RESTORE] = "restore",
	[EVENT_HOLDER_STACK] = "holder_stack",
};

static const char *outcome_name(enum boost_outcome o)
{
	return o == OUTCOME_PROGRESS ? "progress" :
	       o == OUTCOME_NO_PROGRESS ? "no_progress" : "unknown";
}

/* " cgroup P (container ID)" of one task, if it has one. */
static size_t cgroup_text(const char *who, const struct task_cgroup *cg,
			  char *buf, size_t len)
{
	int n;

	if (!cg || !cg->path[0])
		return 0;
	n = snprintf(buf, len, "%s cgroup %s%s%.12s%s", who, cg->path,
		     cg->container[0] ? " (container " : "", cg->container,
		     cg->container[0] ? ")" : "");
	return n < 0 ? 0 : (size_t)n < len ? (size_t)n : len - 1;
}

/* After stalld's words: the workloads of the task and of its holder. */
static void cgroups_text(const struct task_cgroup *task,
			 const struct task_cgroup *holder, char *buf,
			 size_t len)
{
	size_t n = cgroup_text(",", task, buf, len);

	cgroup_text(", holder in", holder, buf + n, len - n);
}

/* stalld's line, then what stalld cannot tell: the exact wait, whom. */
static void starving_text(const struct event *ev, char *buf, size_t len)
{
	const struct starvd_task *t = &ev->task, *h = ev->starving.holder;
	const char *stack = ev->starving.stack;
	const struct task_role *r = ev->starving.role;
	const char *about = r && r->about[0] ? r->about : NULL;
	char behind[128] = "", where[2 * CGROUP_PATH_LEN + 128] = "";
	char waits[1024] = "";

	if (h && h->tid)
		format_holder(h, behind, sizeof(behind));
	cgroups_text(ev->starving.cgroup, ev->starving.holder_cgroup, where,
		     sizeof(where));
	if (ev->starving.pending)
		pending_text(ev->starving.pending, waits, sizeof(waits));
	snprintf(buf, len,
		 "%s-%u starved on CPU %d for %llu seconds (waited %s%.3f s%s%s)%s%s%s%s%s%s%s%s%s%s",
		 esc_name(t->comm), t->tid, t->cpu,
		 (unsigned long long)(t->wait_ns / NSEC_PER_SEC),
		 t->flags & STARVD_TASK_WAIT_LOWER_BOUND ? "at least " : "",
		 (double)t->wait_ns / NSEC_PER_SEC,
		 *behind ? ", behind " : "", behind,
		 ev->starving.log_only ? " [log only]" : "", where,
		 about ? " [" : "", about ? about : "", about ? "]" : "",
		 *waits ? " [" : "", waits, *waits ? "]" : "",
		 stack && *stack ? " stack: " : "", stack ? stack : "");
}

static void boost_text(const struct event *ev, char *buf, size_t len)
{
	const struct starvd_task *t = &ev->task;
	char rt[32], per[32], dur[32];

	format_ns(ev->boost.runtime_ns, rt, sizeof(rt));
	format_ns(ev->boost.period_ns, per, sizeof(per));
	format_ns(ev->boost.duration_ns, dur, sizeof(dur));
	if (ev->boost.applied->sched_policy == SCHED_FIFO)
		snprintf(buf, len,
			 "boosted pid %u (%s) (cpu %d) using SCHED_FIFO (priority %u for %s every %s, for %s)",
			 t->tid, esc_name(t->comm), t->cpu,
			 ev->boost.applied->sched_priority, rt, per, dur);
	else
		snprintf(buf, len,
			 "boosted pid %u (%s) (cpu %d) using SCHED_DEADLINE (%s/%s for %s)",
			 t->tid, esc_name(t->comm), t->cpu, rt, per, dur);
}

static void escalate_text(const struct event *ev, char *buf, size_t len)
{
	char now_rt[32], last_rt[32], per[32], cap[32];

	format_ns(ev->escalate.runtime_ns, now_rt, sizeof(now_rt));
	format_ns(ev->escalate.previous_ns, last_rt, sizeof(last_rt));
	format_ns(ev->escalate.period_ns, per, sizeof(per));
	format_ns(ev->escalate.cap_ns, cap, sizeof(cap));
	snprintf(buf, len,
		 "escalating pid %u (%s) (cpu %d): its last boost (%s/%s) ended before it could block; this one gets %s/%s (cap %s)",
		 ev->task.tid, esc_name(ev->task.comm), ev->task.cpu, last_rt,
		 per, now_rt, per, cap);
}

static void restore_text(const struct event *ev, char *buf, size_t len)
{
	const struct boost_delta *d = ev->restore.delta;
	char to[64], what[96];

	if (d->outcome == OUTCOME_UNKNOWN)
		snprintf(what, sizeof(what), "it exited as the boost ended");
	else
		snprintf(what, sizeof(what),
			 "%llu context switches during the boost%s",
			 (unsigned long long)d->switches,
			 d->outcome == OUTCOME_NO_PROGRESS ?
			 ", never blocked" : "");
	sched_attr_format(ev->restore.saved, to, sizeof(to));
	snprintf(buf, len, "restored pid %u (%s) to %s (%s; %s)",
		 ev->task.tid, esc_name(ev->task.comm), to, ev->restore.reason,
		 what);
}

void event_text(const struct event *ev, char *buf, size_t len)
{
	const struct starvd_task *t = &ev->task;
	char rt[32];

	switch (ev->kind) {
	case EVENT_STARVING:
		starving_text(ev, buf, len);
		break;
	case EVENT_IGNORED:
		if (ev->ignored.process)
			snprintf(buf, len,
				 "Ignoring the thread %s (spawned by %s) from consideration for boosting",
				 esc_name(t->comm),
				 esc_name(ev->ignored.process));
		else
			snprintf(buf, len,
				 "Ignoring the thread %s from consideration for boosting",
				 esc_name(t->comm));
		break;
	case EVENT_BOOST:
		boost_text(ev, buf, len);
		break;
	case EVENT_ESCALATE:
		escalate_text(ev, buf, len);
		break;
	case EVENT_DEESCALATE:
		format_ns(ev->deescalate.runtime_ns, rt, sizeof(rt));
		snprintf(buf, len,
			 "pid %u (%s) keeps up without boosts: its next boost gets the configured %s again",
			 t->tid, esc_name(t->comm), rt);
		break;
	case EVENT_RESTORE:
		restore_text(ev, buf, len);
		break;
	case EVENT_HOLDER_STACK:
		stack_line(ev->holder_stack.stack, 0, buf, len);
		break;
	}
}

/* The user's value of @a's priority: RT priority, or nice. */
static int attr_priority(const struct sched_attr *a)
{
	if (a->sched_policy == SCHED_FIFO || a->sched_policy == SCHED_RR)
		return a->sched_priority;
	if (a->sched_policy == SCHED_DEADLINE)
		return 0;
	return a->sched_nice;
}

/* The task's policy once the event is done: @a's. */
static void put_policy(struct json_object *o, const struct sched_attr *a)
{
	json_put_str(o, "policy", policy_name(a->sched_policy));
	json_put_int(o, "priority", attr_priority(a));
}

/* "cgroup" and "container_id", null where there is none. */
static void put_cgroup(struct json_object *o, const struct task_cgroup *cg)
{
	bool path = cg && cg->path[0], id = path && cg->container[0];

	json_put(o, "cgroup", path ? json_object_new_string(cg->path) : NULL);
	json_put(o, "container_id",
		 id ? json_object_new_string(cg->container) : NULL);
}

static struct json_object *work_json(const struct pending_work *w)
{
	struct json_object *o = json_object_new_object();

	if (o) {
		json_put_str(o, "function", w->func);
		json_put(o, "workqueue",
			 w->wq[0] ? json_object_new_string(w->wq) : NULL);
	}
	return o;
}

/* "pending": what a kworker or ksoftirqd waits to run (pending.h). */
static struct json_object *pending_json(const struct task_pending *p)
{
	struct json_object *o = json_object_new_object(), *a;
	unsigned int i;

	if (!o)
		return NULL;
	if (p->unknown) {
		json_put_str(o, "unknown", p->unknown);
	} else if (p->softirqs_read) {
		a = json_object_new_array();
		for (i = 0; a && i < 32; i++) {
			const char *name = pending_softirq_name(i);

			if (p->softirqs & (1U << i))
				json_object_array_add(a, name ?
					json_object_new_string(name) :
					json_object_new_int(i));
		}
		json_put(o, "softirqs", a);
	} else if (p->worker) {
		json_put(o, "running", p->running.func[0] ?
			 work_json(&p->running) : NULL);
		a = json_object_new_array();
		for (i = 0; a && i < p->nr_shown; i++)
			json_object_array_add(a, work_json(&p->shown[i]));
		json_put(o, "queued", a);
		json_put_u64(o, "queued_count", p->nr_queued);
	}
	return o;
}

/* "role": what the task is there to do (task_role.h), or null. */
static void put_role(struct json_object *o, const struct task_role *r,
		     const struct task_pending *p)
{
	struct json_object *ro = r ? json_object_new_object() : NULL;

	if (ro) {
		json_put_str(ro, "kind", task_role_name(r->kind));
		if (r->about[0])
			json_put_str(ro, "about", r->about);
		if (r->workqueue[0])
			json_put_str(ro, "workqueue", r->workqueue);
		if (r->kind == ROLE_IRQ) {
			json_put_int(ro, "irq", r->irq);
			json_put_str(ro, "irq_actions", r->actions);
			json_put_str(ro, "irq_affinity", r->affinity);
			json_put_str(ro, "irq_effective_affinity",
				     r->effective);
		}
		if (p)
			json_put(ro, "pending", pending_json(p));
	}
	json_put(o, "role", ro);
}

static void starving_json(struct json_object *o, const struct event *ev)
{
	const struct starvd_task *h = ev->starving.holder;
	uint64_t read = ev->starving.read_time_ns;
	struct json_object *ho = NULL;

	json_put_u64(o, "read_time_ns", read);
	json_put_u64(o, "wait_start_ns", read - ev->task.wait_ns);
	json_put_u64(o, "wait_ns", ev->task.wait_ns);
	json_put_bool(o, "wait_lower_bound",
		      ev->task.flags & STARVD_TASK_WAIT_LOWER_BOUND);
	json_put_bool(o, "log_only", ev->starving.log_only);
	put_cgroup(o, ev->starving.cgroup);
	put_role(o, ev->starving.role, ev->starving.pending);
	if (h && h->tid) {
		ho = json_object_new_object();
		if (ho) {
			json_put_task(ho, h);
			put_cgroup(ho, ev->starving.holder_cgroup);
		}
	}
	json_put(o, "holder", ho);
	if (ev->starving.stack)
		json_put_str(o, "stack", ev->starving.stack);
}

static void put_hex(struct json_object *o, const char *key, uint64_t v)
{
	char hex[24];

	snprintf(hex, sizeof(hex), "0x%llx", (unsigned long long)v);
	json_put_str(o, key, hex);
}

static struct json_object *frames_json(const struct stack_frame *f,
				       unsigned int n, bool user)
{
	struct json_object *a = json_object_new_array(), *fo;
	unsigned int i;

	for (i = 0; a && i < n; i++) {
		fo = json_object_new_object();
		if (!fo)
			break;
		if (f[i].symbol[0])
			json_put_str(fo, "symbol", f[i].symbol);
		else
			json_put(fo, "symbol", NULL);
		json_put_u64(fo, "offset", f[i].offset);
		json_put_u64(fo, "size", f[i].size);
		json_put_str(fo, user ? "file" : "module", f[i].module);
		if (user) {
			json_put_str(fo, "build_id", f[i].build_id);
			put_hex(fo, "elf_address", f[i].elf_addr);
			if (f[i].file_offset != UINT64_MAX)
				put_hex(fo, "file_offset", f[i].file_offset);
			else
				json_put(fo, "file_offset", NULL);
		}
		json_object_array_add(a, fo);
	}
	return a;
}

static void put_note(struct json_object *o, const char *key, const char *s)
{
	if (*s)
		json_put_str(o, key, s);
	else
		json_put(o, key, NULL);
}

static void holder_stack_json(struct json_object *o, const struct event *ev)
{
	const struct holder_stack *h = ev->holder_stack.stack;
	unsigned int max = ev->holder_stack.max_frames ?: STACK_MAX_FRAMES;
	unsigned int nk = h->nr_kernel < max ? h->nr_kernel : max;
	unsigned int nu = h->nr_user < max ? h->nr_user : max;
	struct json_object *v = json_object_new_object();

	if (v)
		json_put_task(v, &h->victim);
	json_put(o, "victim", v);
	json_put_u64(o, "samples", h->nr_samples);
	json_put_u64(o, "samples_with_this_stack", h->nr_same);
	json_put(o, "kernel_stack", frames_json(h->kernel, nk, false));
	json_put(o, "user_stack", frames_json(h->user, nu, true));
	put_note(o, "kernel_stack_note", h->kernel_note);
	put_note(o, "user_stack_note", h->user_note);
	json_put_bool(o, "truncated", nk < h->nr_kernel || nu < h->nr_user);
}

static void kind_json(struct json_object *o, const struct event *ev)
{
	const struct boost_delta *d;

	switch (ev->kind) {
	case EVENT_STARVING:
		starving_json(o, ev);
		break;
	case EVENT_IGNORED:
		json_put_str(o, "list", ev->ignored.process ? "processes" :
							      "threads");
		if (ev->ignored.process)
			json_put_name(o, "process", ev->ignored.process);
		break;
	case EVENT_BOOST:
		put_policy(o, ev->boost.applied);
		json_put_u64(o, "runtime_ns", ev->boost.runtime_ns);
		json_put_u64(o, "period_ns", ev->boost.period_ns);
		json_put_u64(o, "duration_ns", ev->boost.duration_ns);
		break;
	case EVENT_ESCALATE:
		json_put_u64(o, "runtime_ns", ev->escalate.runtime_ns);
		json_put_u64(o, "previous_runtime_ns", ev->escalate.previous_ns);
		json_put_u64(o, "base_runtime_ns", ev->escalate.base_ns);
		json_put_u64(o, "cap_ns", ev->escalate.cap_ns);
		json_put_u64(o, "period_ns", ev->escalate.period_ns);
		break;
	case EVENT_DEESCALATE:
		json_put_u64(o, "runtime_ns", ev->deescalate.runtime_ns);
		break;
	case EVENT_RESTORE:
		d = ev->restore.delta;
		put_policy(o, ev->restore.saved);
		json_put_int(o, "nice", ev->restore.saved->sched_nice);
		json_put_u64(o, "switches", d->switches);
		json_put_u64(o, "ran_ns", d->ran_ns);
		json_put_u64(o, "runtime_ns", ev->restore.runtime_ns);
		json_put_str(o, "outcome", outcome_name(d->outcome));
		json_put_str(o, "reason", ev->restore.reason);
		break;
	case EVENT_HOLDER_STACK:
		holder_stack_json(o, ev);
		break;
	}
}

int event_json(const struct event *ev, uint64_t time_ns, char *buf,
	       size_t len)
{
	struct json_object *o = json_object_new_object();
	const char *s;
	int ret = 0;

	if (!o)
		return -ENOMEM;
	json_put_str(o, "event", names[ev->kind]);
	json_put_u64(o, "time_ns", time_ns);
	json_put_task(o, &ev->task);
	kind_json(o, ev);
	s = json_line(o);
	if (!s)
		ret = -ENOMEM;
	else if (strlen(s) >= len)
		ret = -ENOSPC;
	else
		strcpy(buf, s);
	json_object_put(o);
	return ret;
}

/* The JSON of a holder stack, with fewer frames until it fits. */
static int stack_json(const struct event *ev, uint64_t time_ns, char *buf,
		      size_t len)
{
	struct event e = *ev;
	int ret;

	e.holder_stack.max_frames = STACK_MAX_FRAMES;
	do {
		ret = event_json(&e, time_ns, buf, len);
		e.holder_stack.max_frames /= 2;
	} while (ret == -ENOSPC && e.holder_stack.max_frames);
	return ret;
}

void event_log(const struct event *ev)
{
	char text[LOG_TEXT_LEN], json[LOG_JSON_LEN];
	unsigned int i;
	int ret;

	event_text(ev, text, sizeof(text));
	if (!log_json())
		ret = -1;
	else if (ev->kind == EVENT_HOLDER_STACK)
		ret = stack_json(ev, now_ns(), json, sizeof(json));
	else
		ret = event_json(ev, now_ns(), json, sizeof(json));
	if (ret)
		json[0] = '\0';
	log_event(text, json);
	if (ev->kind != EVENT_HOLDER_STACK)
		return;
	/* Then one frame a line, as the kernel prints a stack. */
	for (i = 1; stack_line(ev->holder_stack.stack, i, text, sizeof(text));
	     i++)
		log_event(text, "");
}
