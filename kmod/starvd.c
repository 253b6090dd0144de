// SPDX-License-Identifier: GPL-2.0
/*
 * starvd: report runnable-but-not-running tasks over generic netlink.
 *
 * On each request the module walks the tasks under RCU and reports those
 * that are queued on a run queue but not on a CPU, with how long they have
 * waited according to the scheduler's own bookkeeping
 * (task->sched_info.last_queued, set by sched_info_enqueue() from the run
 * queue clock, cleared when the task runs), plus the task on each CPU.
 * A waiting task the scheduler did not stamp is reported too, with a wait
 * of 0 and STARVD_TASK_WAIT_LOWER_BOUND (include/starvd/abi.h says when
 * that happens): the caller, which sees it again on its next read with the
 * same context-switch count, knows how long it has waited at least.
 *
 * No tracepoint probes, no state outside a request, no allocation in
 * scheduler context: a request allocates its snapshot in process context
 * when the dump starts, charged to the caller's memory cgroup
 * (GFP_KERNEL_ACCOUNT), fills it walking the tasks in chunks (see
 * starvd_walk()) and frees it when the dump is done. A socket has at most
 * one dump in flight (netlink answers EBUSY to a second), so it makes the
 * kernel hold at most one snapshot of at most STARVD_SNAP_MAX records.
 *
 * Times: the run queue clock is sched_clock_cpu() of the queue's CPU. At
 * the start of a read the module samples sched_clock_cpu() of every
 * possible CPU together with ktime_get_ns() (CLOCK_MONOTONIC, sent as
 * read-time); a task's wait is its CPU's sample minus
 * last_queued, i.e. "waited W ns at READ_TIME". A task queued after the
 * sample is reported with a wait of 0.
 *
 * Thread and process ids are those of the initial pid namespace
 * (task_pid_nr()/task_tgid_nr()); the family is only served in init_net,
 * and only to callers with CAP_NET_ADMIN there.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/cpumask.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mm.h>
#include <linux/idr.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <net/genetlink.h>
#include <net/netlink.h>

#include <starvd/abi.h>
#include <starvd/starvd.h>

#include "compat.h"

#ifndef STARVD_MOD_VERSION
#define STARVD_MOD_VERSION "unknown"
#endif

#define STARVD_CLOCK_NAME "sched_clock_cpu"

/* Records one snapshot holds at most: 16 MiB. */
#define STARVD_SNAP_MAX		BIT(18)
/* Walks of one request before it is refused with EAGAIN. */
#define STARVD_SNAP_TRIES	4
/* Pids a walk looks at under one rcu_read_lock(). */
#define STARVD_WALK_CHUNK	256

/*
 * Fault injection for the module's tests (selftests/kmod/guest-faults.sh):
 * every walk counts twice as many matching tasks as it has room for, as
 * tasks woken in waves between the walks would make it.
 */
static bool fault_snap_overflow;
module_param(fault_snap_overflow, bool, 0644);
MODULE_PARM_DESC(fault_snap_overflow,
		 "test only: every walk finds more tasks than it has room for (default: N)");

/* One read of the tasks, taken when a dump starts. */
struct starvd_snap {
	u64 read_time;		/* CLOCK_MONOTONIC */
	unsigned int n;		/* records in rec[], every one filled */
	unsigned int pos;	/* next record (or CPU) to emit */
	struct starvd_task *rec;
	struct starvd_cpu *cpus;	/* GET_CPUS: nr_cpu_ids entries */
	int filter_cpu;		/* -1: all */
};

static struct genl_family starvd_family;

/*
 * Per-operation policies: the request attributes of each command in
 * include/starvd/starvd.yaml (selftests/kmod/abi-check.py compares them).
 * Strict validation rejects any attribute a command does not take: one
 * above the policy's size, or one the policy leaves NLA_UNSPEC. get-info
 * takes none; its policy must still exist (maxattr 1), or genetlink
 * would not look at the attributes at all.
 */
static const struct nla_policy starvd_info_policy[STARVD_A_INFO_PAD + 1] = {
};

static const struct nla_policy
starvd_cpus_policy[STARVD_A_CPUS_FILTER_CPU + 1] = {
	[STARVD_A_CPUS_FILTER_CPU]	= { .type = NLA_U32 },
};

static const struct nla_policy
starvd_tasks_policy[STARVD_A_TASKS_FILTER_MIN_WAIT + 1] = {
	[STARVD_A_TASKS_FILTER_CPU]	= { .type = NLA_U32 },
	[STARVD_A_TASKS_FILTER_MIN_WAIT] = { .type = NLA_U64 },
};

#ifndef STARVD_HAVE_OP_POLICY
/*
 * Before 5.10 one policy and maxattr serve every command (per family from
 * 5.2; per operation before, but parsed up to the family's maxattr): the
 * get-tasks one, whose attributes include get-cpus' at the same values.
 * starvd_only() then rejects what a command does not take.
 */
#define STARVD_FAMILY_POLICY	starvd_tasks_policy
#define STARVD_FAMILY_MAXATTR	STARVD_A_TASKS_FILTER_MIN_WAIT

static int starvd_only(struct nlattr **attrs, int maxattr,
		       struct netlink_ext_ack *extack)
{
	int i;

	for (i = maxattr + 1; attrs && i <= STARVD_FAMILY_MAXATTR; i++) {
		if (attrs[i]) {
			NL_SET_ERR_MSG_ATTR(extack, attrs[i],
					    "starvd: attribute not valid for this command");
			return -EINVAL;
		}
	}
	return 0;
}
#else
static int starvd_only(struct nlattr **attrs, int maxattr,
		       struct netlink_ext_ack *extack)
{
	return 0;	/* the operation's own policy did it */
}
#endif

/*
 * Every handler checks CAP_NET_ADMIN here, with the test genetlink uses
 * for GENL_ADMIN_PERM, so that a refusal says what the caller lacks.
 */
static int starvd_check_perm(const struct sk_buff *skb,
			     struct netlink_ext_ack *extack)
{
	if (netlink_capable(skb, CAP_NET_ADMIN))
		return 0;
	NL_SET_ERR_MSG(extack,
		       "starvd: CAP_NET_ADMIN required: query as root");
	return -EPERM;
}

static void starvd_fill_task(struct starvd_task *t, struct task_struct *p,
			     int cpu, bool running, u64 wait, u32 flags)
{
	t->tid = task_pid_nr(p);
	t->tgid = task_tgid_nr(p);
	t->cpu = cpu;
	t->prio = READ_ONCE(p->prio);
	t->policy = READ_ONCE(p->policy);
	t->state = running ? STARVD_TASK_RUNNING : STARVD_TASK_WAITING;
	t->flags = flags;
	t->reserved = 0;
	t->wait_ns = wait;
	t->nr_switches = READ_ONCE(p->nvcsw) + READ_ONCE(p->nivcsw);
	/* comm may change under us: copy it whole and terminate it. */
	memcpy(t->comm, p->comm, sizeof(t->comm));
	t->comm[sizeof(t->comm) - 1] = '\0';
}

/*
 * Is @p, not on a CPU, waiting for one? Queued, and, unless it is
 * TASK_RUNNING, not a sleeping fair task whose dequeue is delayed
 * (6.12+): a task preempted between set_current_state() and schedule()
 * (PREEMPT_RT, preempt=full) is queued in TASK_INTERRUPTIBLE or the like,
 * and must run before it can sleep; if it was preempted before it armed
 * what wakes it (a clock_nanosleep() before its timer was started),
 * nothing else will ever make it TASK_RUNNING. Such a wait is never
 * stamped.
 */
static bool starvd_task_waits(struct task_struct *p)
{
	if (READ_ONCE(p->on_rq) != TASK_ON_RQ_QUEUED)
		return false;
	return starvd_task_state(p) == TASK_RUNNING || !starvd_task_delayed(p);
}

/* One walk of the tasks into rec[]. */
struct starvd_walk {
	struct starvd_task *rec;
	unsigned int cap;	/* room in rec[] */
	unsigned int filled;	/* records written to rec[]: at most cap */
	unsigned int matched;	/* tasks that matched: may exceed cap */
	const u64 *clk;		/* each CPU's clock when the walk started */
	int filter_cpu;		/* -1: all */
	u64 min_wait;
};

/* Record @p in @w if it runs or waits for a CPU; under rcu_read_lock(). */
static void starvd_visit(struct starvd_walk *w, struct task_struct *p)
{
	bool running;
	u64 queued, wait = 0;
	u32 flags = 0;
	int cpu;

	/*
	 * A queued task not in TASK_RUNNING was preempted on its way to
	 * sleep: it waits too (see starvd_task_waits()).
	 */
	if (starvd_task_state(p) != TASK_RUNNING &&
	    READ_ONCE(p->on_rq) != TASK_ON_RQ_QUEUED)
		return;
	cpu = task_cpu(p);
	if (w->filter_cpu >= 0 && cpu != w->filter_cpu)
		return;
	running = starvd_task_on_cpu(p);
	if (running && starvd_task_state(p) != TASK_RUNNING)
		return;
	if (!running) {
		if (!starvd_task_waits(p))
			return;
		queued = READ_ONCE(p->sched_info.last_queued);
		if (!queued)
			flags |= STARVD_TASK_WAIT_LOWER_BOUND;
		else if (w->clk[cpu] > queued)
			wait = w->clk[cpu] - queued;
		if (queued && wait < w->min_wait)
			return;
	}
	if (w->filled < w->cap)
		starvd_fill_task(&w->rec[w->filled++], p, cpu, running, wait,
				 flags);
	w->matched++;
}

/*
 * Walk every thread, in the order of their ids in the initial pid
 * namespace, STARVD_WALK_CHUNK ids at a time: between two chunks the walk
 * leaves its RCU read-side section and may be rescheduled, and it holds
 * nothing then but the id to go on from, so a thread that exits meanwhile
 * costs nothing and one that starts with a lower id is not seen (it was
 * not there when the walk passed). Under PREEMPT_RT, where the read-side
 * section is preemptible and cond_resched() does nothing, the gaps still
 * let a grace period end while a long walk goes on. Returns 0, or -EINTR
 * when the caller is being killed.
 */
static int starvd_walk(struct starvd_walk *w)
{
	struct pid *pid = NULL;
	struct task_struct *p;
	int nr = 0, i;

	w->filled = 0;
	w->matched = 0;
	for (;;) {
		rcu_read_lock();
		for (i = 0; i < STARVD_WALK_CHUNK; i++, nr++) {
			pid = idr_get_next(&init_pid_ns.idr, &nr);
			if (!pid)
				break;
			p = pid_task(pid, PIDTYPE_PID);
			if (p)
				starvd_visit(w, p);
		}
		rcu_read_unlock();
		if (!pid)
			break;
		if (fatal_signal_pending(current))
			return -EINTR;
		cond_resched();
	}
	if (READ_ONCE(fault_snap_overflow))
		w->matched = max(w->matched, 2 * w->cap);
	return 0;
}

static void starvd_snap_free(struct starvd_snap *s)
{
	if (!s)
		return;
	kvfree(s->rec);
	kvfree(s->cpus);
	kfree(s);
}

/*
 * Take one read; process context, may sleep. A walk that finds more
 * tasks than it has room for is done again with more room, up to
 * STARVD_SNAP_TRIES walks: a snapshot holds only records that a walk
 * filled, all the tasks that walk found, or the request is refused.
 * Returns the snapshot or an ERR_PTR(): -ENOMEM, -EINTR, -EAGAIN (tasks
 * kept waking faster than the walks could follow: the caller tries
 * again), -E2BIG (more than STARVD_SNAP_MAX tasks run or wait).
 */
static struct starvd_snap *starvd_snap_take(int filter_cpu, u64 min_wait,
					    struct netlink_ext_ack *extack)
{
	struct starvd_walk w = {
		.cap = 64,
		.filter_cpu = filter_cpu,
		.min_wait = min_wait,
	};
	struct starvd_snap *s;
	unsigned int tries;
	u64 *clk;
	int cpu, ret = -ENOMEM;

	s = kzalloc(sizeof(*s), GFP_KERNEL_ACCOUNT);
	clk = kvmalloc_array(nr_cpu_ids, sizeof(*clk),
			     GFP_KERNEL_ACCOUNT | __GFP_ZERO);
	if (!s || !clk)
		goto fail;
	s->filter_cpu = filter_cpu;
	w.clk = clk;

	for (tries = 1; ; tries++) {
		kvfree(w.rec);
		w.rec = kvmalloc_array(w.cap, sizeof(*w.rec),
				       GFP_KERNEL_ACCOUNT);
		if (!w.rec) {
			ret = -ENOMEM;
			goto fail;
		}
		s->read_time = ktime_get_ns();
		for_each_possible_cpu(cpu)
			clk[cpu] = starvd_clock_cpu(cpu);
		ret = starvd_walk(&w);
		if (ret)
			goto fail;
		if (w.filled == w.matched)
			break;
		if (tries == STARVD_SNAP_TRIES) {
			if (w.matched > STARVD_SNAP_MAX) {
				NL_SET_ERR_MSG(extack,
					       "starvd: too many tasks run or wait to read them all");
				ret = -E2BIG;
			} else {
				NL_SET_ERR_MSG(extack,
					       "starvd: tasks kept waking faster than the module could read them: try again");
				ret = -EAGAIN;
			}
			goto fail;
		}
		/* More tasks matched than there was room for: grow, retry. */
		w.cap = min_t(unsigned int, w.matched + w.matched / 4 + 64,
			      STARVD_SNAP_MAX);
	}
	s->rec = w.rec;
	s->n = w.filled;
	kvfree(clk);
	return s;
fail:
	kvfree(w.rec);
	kvfree(clk);
	starvd_snap_free(s);
	return ERR_PTR(ret);
}

/* Parsed attributes of a dump request; @tb has room for all of them. */
static struct nlattr **starvd_dump_attrs(struct netlink_callback *cb,
					 struct nlattr **tb)
{
#if defined(STARVD_HAVE_GENL_INFO_DUMP)
	return genl_info_dump(cb)->attrs;
#elif defined(STARVD_HAVE_GENL_DUMPIT_INFO)
	return genl_dumpit_info(cb)->attrs;
#else
	if (nlmsg_parse(cb->nlh, GENL_HDRLEN, tb, STARVD_FAMILY_MAXATTR,
			STARVD_FAMILY_POLICY, NULL))
		return NULL;
	return tb;
#endif
}

/*
 * The filters of a dump request. get-cpus has no filter-min-wait: @attrs
 * may then end before it, and @min_wait is NULL.
 */
static int starvd_parse_filter(struct nlattr **attrs,
			       struct netlink_ext_ack *extack,
			       int *cpu, u64 *min_wait)
{
	struct nlattr *a;

	*cpu = -1;
	if (min_wait)
		*min_wait = 0;
	if (!attrs)
		return -EINVAL;
	/* get-cpus' filter-cpu has get-tasks' value: one code reads both. */
	BUILD_BUG_ON((int)STARVD_A_CPUS_FILTER_CPU !=
		     (int)STARVD_A_TASKS_FILTER_CPU);
	a = attrs[STARVD_A_TASKS_FILTER_CPU];
	if (a) {
		u32 c = nla_get_u32(a);

		if (c >= nr_cpu_ids || !cpu_possible(c)) {
			NL_SET_ERR_MSG_ATTR(extack, a, "starvd: no such CPU");
			return -EINVAL;
		}
		*cpu = c;
	}
	if (min_wait && attrs[STARVD_A_TASKS_FILTER_MIN_WAIT])
		*min_wait = nla_get_u64(attrs[STARVD_A_TASKS_FILTER_MIN_WAIT]);
	return 0;
}

static int starvd_put_task(struct sk_buff *skb, int type,
			   const struct starvd_task *t)
{
	struct nlattr *nest = nla_nest_start(skb, type);

	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u32(skb, STARVD_A_TASK_TID, t->tid) ||
	    nla_put_u32(skb, STARVD_A_TASK_TGID, t->tgid) ||
	    nla_put_s32(skb, STARVD_A_TASK_CPU, t->cpu) ||
	    nla_put_s32(skb, STARVD_A_TASK_PRIO, t->prio) ||
	    nla_put_u32(skb, STARVD_A_TASK_POLICY, t->policy) ||
	    nla_put_u32(skb, STARVD_A_TASK_STATE, t->state) ||
	    nla_put_u64_64bit(skb, STARVD_A_TASK_WAIT, t->wait_ns,
			      STARVD_A_TASK_PAD) ||
	    nla_put_u64_64bit(skb, STARVD_A_TASK_NR_SWITCHES, t->nr_switches,
			      STARVD_A_TASK_PAD) ||
	    nla_put_string(skb, STARVD_A_TASK_COMM, t->comm) ||
	    nla_put_u32(skb, STARVD_A_TASK_FLAGS, t->flags)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

static int starvd_get_info(struct sk_buff *skb, struct genl_info *info)
{
	struct sk_buff *msg;
	void *hdr;
	int ret;

	ret = starvd_header_check(info->nlhdr, info->extack);
	if (!ret)
		ret = starvd_check_perm(skb, info->extack);
	if (!ret)
		ret = starvd_only(info->attrs, 0, info->extack);
	if (ret)
		return ret;
	msg = nlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &starvd_family, 0,
				STARVD_CMD_GET_INFO);
	if (!hdr)
		goto too_big;
	if (nla_put_string(msg, STARVD_A_INFO_VERSION, STARVD_MOD_VERSION) ||
	    nla_put_u32(msg, STARVD_A_INFO_ABI_VERSION, STARVD_ABI_VERSION) ||
	    nla_put_u32(msg, STARVD_A_INFO_NR_CPUS, nr_cpu_ids) ||
	    nla_put_string(msg, STARVD_A_INFO_CLOCK, STARVD_CLOCK_NAME) ||
	    nla_put_u64_64bit(msg, STARVD_A_INFO_READ_TIME, ktime_get_ns(),
			      STARVD_A_INFO_PAD))
		goto too_big;
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
too_big:
	nlmsg_free(msg);
	return -EMSGSIZE;
}

static int starvd_dump_start(struct netlink_callback *cb, bool cpus)
{
	struct netlink_ext_ack *extack = starvd_cb_extack(cb);
	struct nlattr *tb[STARVD_A_TASKS_MAX + 1];
	struct nlattr **attrs;
	struct starvd_snap *s;
	u64 min_wait;
	int ret, cpu;
	unsigned int i;

	ret = starvd_header_check(cb->nlh, extack);
	if (!ret)
		ret = starvd_check_perm(cb->skb, extack);
	if (ret)
		return ret;
	attrs = starvd_dump_attrs(cb, tb);
	ret = starvd_only(attrs, cpus ? STARVD_A_CPUS_FILTER_CPU :
			  STARVD_A_TASKS_FILTER_MIN_WAIT, extack);
	if (ret)
		return ret;
	/* Per-CPU summaries count every waiter. */
	min_wait = 0;
	ret = starvd_parse_filter(attrs, extack, &cpu, cpus ? NULL : &min_wait);
	if (ret)
		return ret;
	s = starvd_snap_take(cpu, min_wait, extack);
	if (IS_ERR(s))
		return PTR_ERR(s);
	if (cpus) {
		s->cpus = kvmalloc_array(nr_cpu_ids, sizeof(*s->cpus),
					 GFP_KERNEL_ACCOUNT | __GFP_ZERO);
		if (!s->cpus) {
			starvd_snap_free(s);
			return -ENOMEM;
		}
		for (i = 0; i < s->n; i++) {
			const struct starvd_task *t = &s->rec[i];
			struct starvd_cpu *c = &s->cpus[t->cpu];

			if (t->state == STARVD_TASK_RUNNING) {
				c->curr = *t;
				continue;
			}
			c->nr_waiters++;
			c->max_wait_ns = max(c->max_wait_ns, t->wait_ns);
		}
		/* Start at the first CPU to report. */
		s->pos = cpu >= 0 ? cpu : cpumask_first(cpu_possible_mask);
	}
	cb->args[0] = (long)s;
	return 0;
}

static int starvd_tasks_start(struct netlink_callback *cb)
{
	return starvd_dump_start(cb, false);
}

static int starvd_cpus_start(struct netlink_callback *cb)
{
	return starvd_dump_start(cb, true);
}

#ifndef STARVD_HAVE_GENL_HDR_CHECK
/*
 * Before 6.1, a request for a dump-only command carrying one of the two
 * NLM_F_DUMP bits alone takes the do path, where genetlink answers
 * EOPNOTSUPP without the module seeing it; 6.1 on answer EINVAL
 * (ambiguous flags). This doit gives the answers 6.1 gives.
 */
static int starvd_dump_only_doit(struct sk_buff *skb, struct genl_info *info)
{
	int ret = starvd_header_check(info->nlhdr, info->extack);

	return ret ? ret : -EOPNOTSUPP;
}
#endif

static int starvd_dump_done(struct netlink_callback *cb)
{
	starvd_snap_free((struct starvd_snap *)cb->args[0]);
	cb->args[0] = 0;
	return 0;
}

static void *starvd_dump_hdr(struct sk_buff *skb, struct netlink_callback *cb,
			     u8 cmd, u64 read_time)
{
	bool cpus = cmd == STARVD_CMD_GET_CPUS;
	void *hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid,
				cb->nlh->nlmsg_seq, &starvd_family,
				NLM_F_MULTI, cmd);

	if (hdr && nla_put_u64_64bit(skb, cpus ? STARVD_A_CPUS_READ_TIME :
				     STARVD_A_TASKS_READ_TIME, read_time,
				     cpus ? STARVD_A_CPUS_PAD :
				     STARVD_A_TASKS_PAD)) {
		genlmsg_cancel(skb, hdr);
		return NULL;
	}
	return hdr;
}

/*
 * Emit records from the snapshot until the skb is full; the next call
 * resumes at s->pos. Returns the skb length, 0 when done, or -EMSGSIZE
 * if a single record does not fit in an empty skb.
 */
static int starvd_tasks_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct starvd_snap *s = (struct starvd_snap *)cb->args[0];
	int start_len = skb->len;
	void *hdr;

	for (; s->pos < s->n; s->pos++) {
		hdr = starvd_dump_hdr(skb, cb, STARVD_CMD_GET_TASKS,
				      s->read_time);
		if (!hdr)
			break;
		if (starvd_put_task(skb, STARVD_A_TASKS_TASK,
				    &s->rec[s->pos])) {
			genlmsg_cancel(skb, hdr);
			break;
		}
		genlmsg_end(skb, hdr);
	}
	if (s->pos < s->n && skb->len == start_len)
		return -EMSGSIZE;
	return skb->len;
}

static int starvd_put_cpu(struct sk_buff *skb, const struct starvd_cpu *c)
{
	if (nla_put_u32(skb, STARVD_A_CPUS_CPU, c->cpu) ||
	    nla_put_u32(skb, STARVD_A_CPUS_NR_WAITERS, c->nr_waiters) ||
	    nla_put_u64_64bit(skb, STARVD_A_CPUS_MAX_WAIT, c->max_wait_ns,
			      STARVD_A_CPUS_PAD) ||
	    nla_put_u64_64bit(skb, STARVD_A_CPUS_NR_EVENTS, c->nr_events,
			      STARVD_A_CPUS_PAD) ||
	    nla_put_u64_64bit(skb, STARVD_A_CPUS_NR_DROPPED, c->nr_dropped,
			      STARVD_A_CPUS_PAD))
		return -EMSGSIZE;
	if (c->curr.tid && starvd_put_task(skb, STARVD_A_CPUS_CURR, &c->curr))
		return -EMSGSIZE;
	return 0;
}

static int starvd_cpus_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct starvd_snap *s = (struct starvd_snap *)cb->args[0];
	int start_len = skb->len;
	void *hdr;

	while (s->pos < nr_cpu_ids) {
		s->cpus[s->pos].cpu = s->pos;
		hdr = starvd_dump_hdr(skb, cb, STARVD_CMD_GET_CPUS,
				      s->read_time);
		if (!hdr)
			break;
		if (starvd_put_cpu(skb, &s->cpus[s->pos])) {
			genlmsg_cancel(skb, hdr);
			break;
		}
		genlmsg_end(skb, hdr);
		if (s->filter_cpu >= 0)
			s->pos = nr_cpu_ids;
		else
			s->pos = cpumask_next(s->pos, cpu_possible_mask);
	}
	if (s->pos < nr_cpu_ids && skb->len == start_len)
		return -EMSGSIZE;
	return skb->len;
}

/*
 * Each operation has its policy from 5.10; from 5.2 to 5.9 the family's
 * serves all; before 5.2 each operation carries one, parsed up to the
 * family's maxattr (see starvd_only()).
 */
static const struct genl_ops starvd_ops[] = {
	{
		.cmd = STARVD_CMD_GET_INFO,
		.doit = starvd_get_info,
#if defined(STARVD_HAVE_OP_POLICY)
		.policy = starvd_info_policy,
		.maxattr = STARVD_A_INFO_PAD,
#elif !defined(STARVD_HAVE_FAMILY_POLICY)
		.policy = STARVD_FAMILY_POLICY,
#endif
	},
	{
		.cmd = STARVD_CMD_GET_CPUS,
		.start = starvd_cpus_start,
#ifndef STARVD_HAVE_GENL_HDR_CHECK
		.doit = starvd_dump_only_doit,
#endif
		.dumpit = starvd_cpus_dump,
		.done = starvd_dump_done,
#if defined(STARVD_HAVE_OP_POLICY)
		.policy = starvd_cpus_policy,
		.maxattr = STARVD_A_CPUS_FILTER_CPU,
#elif !defined(STARVD_HAVE_FAMILY_POLICY)
		.policy = STARVD_FAMILY_POLICY,
#endif
	},
	{
		.cmd = STARVD_CMD_GET_TASKS,
		.start = starvd_tasks_start,
#ifndef STARVD_HAVE_GENL_HDR_CHECK
		.doit = starvd_dump_only_doit,
#endif
		.dumpit = starvd_tasks_dump,
		.done = starvd_dump_done,
#if defined(STARVD_HAVE_OP_POLICY)
		.policy = starvd_tasks_policy,
		.maxattr = STARVD_A_TASKS_FILTER_MIN_WAIT,
#elif !defined(STARVD_HAVE_FAMILY_POLICY)
		.policy = STARVD_FAMILY_POLICY,
#endif
	},
};

static struct genl_family starvd_family __ro_after_init = {
	.name = STARVD_FAMILY_NAME,
	.version = STARVD_FAMILY_VERSION,
#ifndef STARVD_HAVE_OP_POLICY
	.maxattr = STARVD_FAMILY_MAXATTR,
#ifdef STARVD_HAVE_FAMILY_POLICY
	.policy = STARVD_FAMILY_POLICY,
#endif
#endif
	.netnsok = false,
	.parallel_ops = true,
	.module = THIS_MODULE,
	.ops = starvd_ops,
	.n_ops = ARRAY_SIZE(starvd_ops),
};

static int __init starvd_init(void)
{
	int ret = genl_register_family(&starvd_family);

	if (ret)
		pr_err("cannot register the generic netlink family %s: %d\n",
		       STARVD_FAMILY_NAME, ret);
	return ret;
}

static void __exit starvd_exit(void)
{
	genl_unregister_family(&starvd_family);
}

module_init(starvd_init);
module_exit(starvd_exit);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("starvd authors");
MODULE_DESCRIPTION("starvd: runnable-but-not-running tasks over generic netlink");
MODULE_VERSION(STARVD_MOD_VERSION);
MODULE_ALIAS_GENL_FAMILY(STARVD_FAMILY_NAME);
