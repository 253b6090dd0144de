// SPDX-License-Identifier: GPL-2.0
/*
 * starvd BPF programs.
 *
 * The wait data is read on demand by a task iterator (iter/task) that
 * reports, filtered in the kernel, the tasks that are runnable but not on
 * a CPU and the task holding each CPU. In the default mode the start of a
 * wait is the scheduler's own task->sched_info.last_queued and nothing is
 * attached to the scheduler: each read calibrates the scheduler clock from
 * the reader's own last switch-in (see calibrate()). Where sched_info is
 * not maintained, the tracking mode records the start of each wait from
 * tracepoints in a preallocated hash table keyed by tid: O(1) per event.
 *
 * Kernel interfaces used, with the release that added them (the oldest
 * kernel this object can load on is the newest of these):
 * BTF-typed raw tracepoints (tp_btf, tracking mode only) 5.5, the task
 * iterator and bpf_seq_write() 5.8. Task fields are read with CO-RE; no
 * kernel symbol, kfunc or helper added after 5.8 is used (not
 * bpf_get_current_task_btf(), 5.11).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include <starvd/abi.h>

#include "starvd_bpf.h"
#include "task_core.h"

#define TASK_RUNNING		0
#define TASK_ON_RQ_QUEUED	1

char LICENSE[] SEC("license") = "GPL";

/*
 * Load-time settings: written by the loader through the skeleton before
 * the load, then frozen (.rodata), so the verifier sees their values and
 * drops the code of the other mode: tracking mode loads on kernels whose
 * BTF has no sched_info.last_queued.
 */
const volatile __u32 mode = STARVD_MODE_SCHED_INFO; /* starvd_bpf_mode */

/* Per-read inputs, and what the programs write (starvd_bpf.h). */
struct starvd_bpf_input input;
struct starvd_bpf_state prog_state;

/* Tracking mode, per CPU: each CPU writes only its own copy. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct starvd_bpf_cpu);
} track_counts SEC(".maps");

struct wait_start {
	__u64 start_ns;		/* CLOCK_MONOTONIC */
	__u32 seeded;		/* queued before the programs saw it */
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);	/* the loader sizes it in tracking mode */
	__type(key, __u32);
	__type(value, struct wait_start);
} waits SEC(".maps");

static __always_inline bool cpu_monitored(int cpu)
{
	__u32 idx = (__u32)cpu / 64;

	if (!input.cpu_filter)
		return true;
	if (idx >= STARVD_BPF_MAX_CPUS / 64)
		return false;
	return input.cpu_mask[idx] & (1ULL << (cpu & 63));
}

/* Tracking mode: a wait starts on wakeup or preemption, ends on switch-in. */
static __always_inline void wait_begin(struct task_struct *p)
{
	struct wait_start w = { .start_ns = bpf_ktime_get_ns() };
	__u32 tid = p->pid;

	if (bpf_map_update_elem(&waits, &tid, &w, BPF_ANY)) {
		__u32 zero = 0;
		struct starvd_bpf_cpu *s;

		s = bpf_map_lookup_elem(&track_counts, &zero);

		if (s)
			s->nr_dropped++;
	}
}

SEC("tp_btf/sched_switch")
int BPF_PROG(track_switch, bool preempt, struct task_struct *prev,
	     struct task_struct *next)
{
	__u32 tid = next->pid;

	bpf_map_delete_elem(&waits, &tid);
	if (task_state(prev) == TASK_RUNNING && prev->pid)
		wait_begin(prev);
	return 0;
}

SEC("tp_btf/sched_wakeup")
int BPF_PROG(track_wakeup, struct task_struct *p)
{
	wait_begin(p);
	return 0;
}

SEC("tp_btf/sched_wakeup_new")
int BPF_PROG(track_wakeup_new, struct task_struct *p)
{
	wait_begin(p);
	return 0;
}

/* Like last_queued, a migration restarts the wait on the new CPU. */
SEC("tp_btf/sched_migrate_task")
int BPF_PROG(track_migrate, struct task_struct *p, int dest_cpu)
{
	struct wait_start *w;
	__u32 tid = p->pid;

	w = bpf_map_lookup_elem(&waits, &tid);
	if (w) {
		w->start_ns = bpf_ktime_get_ns();
		w->seeded = 0;
	}
	return 0;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(track_exit, struct task_struct *p)
{
	__u32 tid = p->pid;

	bpf_map_delete_elem(&waits, &tid);
	return 0;
}

/*
 * Start of @t's current wait in CLOCK_MONOTONIC ns, 0 if not known; sets
 * STARVD_TASK_WAIT_LOWER_BOUND in @flags when the start is only a bound.
 */
static __always_inline __u64 wait_start_ns(struct task_struct *t,
					   __u32 *flags)
{
	__u64 queued;

	if (mode == STARVD_MODE_TRACKING) {
		struct wait_start seed = {
			.start_ns = prog_state.read_ns,
			.seeded = 1,
		};
		__u32 tid = t->pid;
		struct wait_start *w = bpf_map_lookup_elem(&waits, &tid);

		if (w) {
			if (w->seeded)
				*flags |= STARVD_TASK_WAIT_LOWER_BOUND;
			return w->start_ns;
		}
		/*
		 * Queued since before the programs were attached: it has
		 * waited at least since now. Track it from here.
		 */
		bpf_map_update_elem(&waits, &tid, &seed, BPF_NOEXIST);
		*flags |= STARVD_TASK_WAIT_LOWER_BOUND;
		return prog_state.read_ns;
	}
	/* Unstamped (see abi.h), or the clock not calibrated yet. */
	queued = BPF_CORE_READ(t, sched_info.last_queued);
	if (!queued || !prog_state.offset) {
		*flags |= STARVD_TASK_WAIT_LOWER_BOUND;
		return 0;
	}
	return queued + prog_state.offset;
}

/*
 * The scheduler clock (last_queued's) against CLOCK_MONOTONIC, without a
 * hook: when the reader was switched in after a wait, the scheduler
 * stamped that moment into its sched_info.last_arrival and bumped its
 * sched_info.pcount; the reader took input.now_ns in userspace after
 * that. The pair is used when, since the previous read, the reader was
 * switched out exactly once and voluntarily (it slept: nvcsw + 1, nivcsw
 * unchanged) and switched in exactly once (pcount + 1: the wake from
 * that sleep), and not switched out since it sampled its switch counts
 * before now_ns. The offset is then late by the time from the wake to
 * now_ns (the wake-to-read path, microseconds), never early.
 */
static __always_inline void calibrate(void)
{
	struct task_struct *me = (void *)bpf_get_current_task();
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	__u64 pcount = BPF_CORE_READ(me, sched_info.pcount);
	__u64 arrival = BPF_CORE_READ(me, sched_info.last_arrival);
	__u64 nvcsw = BPF_CORE_READ(me, nvcsw);
	__u64 nivcsw = BPF_CORE_READ(me, nivcsw);
	struct starvd_bpf_state *st = &prog_state;

	if (tid == st->reader_tid && pcount == st->reader_pcount + 1 &&
	    nvcsw == st->reader_nvcsw + 1 && nivcsw == st->reader_nivcsw &&
	    nvcsw + nivcsw == input.nr_switches && arrival && input.now_ns)
		st->offset = input.now_ns - arrival;
	st->reader_tid = tid;
	st->reader_pcount = pcount;
	st->reader_nvcsw = nvcsw;
	st->reader_nivcsw = nivcsw;
}

/*
 * Is @t, not on a CPU, waiting for one? As the module's
 * starvd_task_waits(): queued, and, unless TASK_RUNNING, not a sleeping
 * fair task whose dequeue is delayed (6.12+): a task preempted between
 * set_current_state() and schedule() must run before it can sleep, and
 * if it had not armed what wakes it yet, nothing else makes it runnable.
 */
static __always_inline bool task_waits(struct task_struct *t)
{
	if (task_on_rq(t) != TASK_ON_RQ_QUEUED)
		return false;
	return task_state(t) == TASK_RUNNING ||
	       !bpf_core_field_exists(t->se.sched_delayed) ||
	       !BPF_CORE_READ(t, se.sched_delayed);
}

SEC("iter/task")
int dump_tasks(struct bpf_iter__task *ctx)
{
	struct seq_file *seq = ctx->meta->seq;
	struct task_struct *t = ctx->task;
	struct starvd_task rec = {};
	__u64 start, now;

	if (ctx->meta->seq_num == 0) {
		struct starvd_read_hdr hdr = {
			.abi_version = STARVD_ABI_VERSION,
			.mode = mode,
		};

		prog_state.read_ns = bpf_ktime_get_ns();
		if (mode == STARVD_MODE_SCHED_INFO)
			calibrate();
		hdr.read_time_ns = prog_state.read_ns;
		bpf_seq_write(seq, &hdr, sizeof(hdr));
	}
	/* Not runnable, and not queued on the way to sleep either. */
	if (!t || (task_state(t) != TASK_RUNNING &&
		   task_on_rq(t) != TASK_ON_RQ_QUEUED))
		return 0;

	rec.cpu = task_cpu(t);
	if (!cpu_monitored(rec.cpu))
		return 0;

	if (task_on_cpu(t)) {
		if (task_state(t) != TASK_RUNNING)
			return 0;
		rec.state = STARVD_TASK_RUNNING;
	} else {
		if (!task_waits(t))
			return 0;
		start = wait_start_ns(t, &rec.flags);
		now = prog_state.read_ns;
		rec.wait_ns = start && start < now ? now - start : 0;
		if (rec.wait_ns < input.min_wait_ns &&
		    !(rec.flags & STARVD_TASK_WAIT_LOWER_BOUND))
			return 0;
		rec.state = STARVD_TASK_WAITING;
	}

	rec.tid = t->pid;
	rec.tgid = t->tgid;
	rec.prio = t->prio;
	rec.policy = t->policy;
	rec.nr_switches = t->nvcsw + t->nivcsw;
	__builtin_memcpy(rec.comm, t->comm, sizeof(rec.comm));
	bpf_seq_write(seq, &rec, sizeof(rec));
	return 0;
}
