// SPDX-License-Identifier: GPL-2.0
/*
 * starvd BPF programs.
 *
 * The wait data is read on demand by a task iterator (iter/task) that
 * reports, filtered in the kernel, the tasks that are runnable but not on
 * a CPU and the task holding each CPU. In the default mode the start of a
 * wait is the scheduler's own task->sched_info.last_queued, so the only
 * program on the scheduler hot path is a small sched_switch hook that
 * keeps a per-CPU event count and, when the reader is switched in, the
 * CLOCK_MONOTONIC time of that switch, from which a read calibrates the
 * scheduler clock. Where sched_info is not maintained, the tracking
 * mode records the start of each wait from tracepoints in a preallocated
 * hash table keyed by tid: O(1) per event.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include <starvd/abi.h>

#include "cpu_state.h"

#define TASK_RUNNING		0
#define TASK_ON_RQ_QUEUED	1
#define MAX_CPUS		8192

char LICENSE[] SEC("license") = "GPL";

/* enum starvd_bpf_mode, set by the loader before load. */
__u32 mode;

/* task_struct of the thread that reads the iterator, set by each read. */
__u64 reader_task;

/* Set by the reader before each read; one reader per loaded object. */
__u64 cpu_mask[MAX_CPUS / 64];
__u64 min_wait_ns;
bool cpu_filter;		/* false: every CPU */

/* Time every wait of the current read refers to. */
static __u64 read_now;
/*
 * CLOCK_MONOTONIC - scheduler clock, calibrated at the start of a read;
 * 0 until a calibration succeeded, then kept when one cannot be made.
 */
__s64 read_offset;

/* Per-CPU: each CPU writes only its own copy, no shared cache lines. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct cpu_state);
} cpu_states SEC(".maps");

struct wait_start {
	__u64 start_ns;		/* CLOCK_MONOTONIC */
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);	/* the loader sizes it in tracking mode */
	__type(key, __u32);
	__type(value, struct wait_start);
} waits SEC(".maps");

/* Kernels before 5.14 call the task state "state". */
struct task_struct___pre514 {
	long state;
} __attribute__((preserve_access_index));

/* x86 kernels before 5.16 keep the CPU in the task itself. */
struct task_struct___pre516 {
	unsigned int cpu;
} __attribute__((preserve_access_index));

static __always_inline long task_state(struct task_struct *t)
{
	struct task_struct___pre514 *old = (void *)t;

	if (bpf_core_field_exists(t->__state))
		return BPF_CORE_READ(t, __state);
	return BPF_CORE_READ(old, state);
}

static __always_inline int task_cpu(struct task_struct *t)
{
	struct task_struct___pre516 *old = (void *)t;

	if (bpf_core_field_exists(t->thread_info.cpu))
		return BPF_CORE_READ(t, thread_info.cpu);
	return BPF_CORE_READ(old, cpu);
}

static __always_inline struct cpu_state *this_cpu_state(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&cpu_states, &zero);
}

static __always_inline bool cpu_monitored(int cpu)
{
	__u32 idx = (__u32)cpu / 64;

	if (!cpu_filter)
		return true;
	if (idx >= MAX_CPUS / 64)
		return false;
	return cpu_mask[idx] & (1ULL << (cpu & 63));
}

SEC("tp_btf/sched_switch")
int BPF_PROG(on_switch, bool preempt, struct task_struct *prev,
	     struct task_struct *next)
{
	struct cpu_state *s = this_cpu_state();

	if (!s)
		return 0;
	s->nr_events++;
	/* A pointer compare: next's fields may not be in the cache. */
	if ((__u64)next == reader_task) {
		s->switch_ns = bpf_ktime_get_ns();
		s->switch_pcount = BPF_CORE_READ(next, sched_info.pcount);
	}
	return 0;
}

/* Tracking mode: a wait starts on wakeup or preemption, ends on switch-in. */
static __always_inline void wait_begin(struct task_struct *p)
{
	struct wait_start w = { .start_ns = bpf_ktime_get_ns() };
	__u32 tid = p->pid;

	if (bpf_map_update_elem(&waits, &tid, &w, BPF_ANY)) {
		struct cpu_state *s = this_cpu_state();

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
	if (w)
		w->start_ns = bpf_ktime_get_ns();
	return 0;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(track_exit, struct task_struct *p)
{
	__u32 tid = p->pid;

	bpf_map_delete_elem(&waits, &tid);
	return 0;
}

/* Start of @t's current wait in CLOCK_MONOTONIC ns, 0 if not known. */
static __always_inline __u64 wait_start_ns(struct task_struct *t)
{
	__u64 queued;

	if (mode == STARVD_MODE_TRACKING) {
		struct wait_start seed = { .start_ns = read_now };
		__u32 tid = t->pid;
		struct wait_start *w = bpf_map_lookup_elem(&waits, &tid);

		if (w)
			return w->start_ns;
		/*
		 * Queued since before the programs were attached: it has
		 * waited at least since now. Track it from here.
		 */
		bpf_map_update_elem(&waits, &tid, &seed, BPF_NOEXIST);
		return read_now;
	}
	queued = BPF_CORE_READ(t, sched_info.last_queued);
	return queued && read_offset ? queued + read_offset : 0;
}

/*
 * The reader's last switch-in happened on this CPU: on_switch recorded its
 * CLOCK_MONOTONIC time, and the scheduler stamped the same moment into the
 * reader's sched_info.last_arrival from the run-queue clock (the one
 * last_queued uses) -- but only when the reader had been queued, which
 * also bumps sched_info.pcount: the pair is valid when pcount moved by
 * exactly one. Retry if a switch slips in between the reads; 0 if the
 * pair cannot be trusted.
 */
static __always_inline __s64 calibrate(void)
{
	struct task_struct *me = bpf_get_current_task_btf();
	struct cpu_state *s = this_cpu_state();
	__u64 sw, pcount, arrival;
	int i;

	if (!s)
		return 0;
	for (i = 0; i < 3; i++) {
		sw = s->switch_ns;
		pcount = s->switch_pcount;
		arrival = BPF_CORE_READ(me, sched_info.last_arrival);
		if (sw != s->switch_ns)
			continue;
		if (sw && arrival &&
		    BPF_CORE_READ(me, sched_info.pcount) == pcount + 1)
			return sw - arrival;
		return 0;
	}
	return 0;
}

SEC("iter/task")
int dump_tasks(struct bpf_iter__task *ctx)
{
	struct seq_file *seq = ctx->meta->seq;
	struct task_struct *t = ctx->task;
	struct starvd_task rec = {};
	__u64 start;

	if (ctx->meta->seq_num == 0) {
		struct starvd_read_hdr hdr = {
			.abi_version = STARVD_ABI_VERSION,
			.mode = mode,
		};

		read_now = bpf_ktime_get_ns();
		reader_task = bpf_get_current_task();
		if (mode == STARVD_MODE_SCHED_INFO) {
			__s64 offset = calibrate();

			if (offset)
				read_offset = offset;
		}
		hdr.read_time_ns = read_now;
		bpf_seq_write(seq, &hdr, sizeof(hdr));
	}
	if (!t || task_state(t) != TASK_RUNNING)
		return 0;

	rec.cpu = task_cpu(t);
	if (!cpu_monitored(rec.cpu))
		return 0;

	if (BPF_CORE_READ(t, on_cpu)) {
		rec.state = STARVD_TASK_RUNNING;
	} else {
		if (BPF_CORE_READ(t, on_rq) != TASK_ON_RQ_QUEUED)
			return 0;
		start = wait_start_ns(t);
		if (!start)
			return 0;
		rec.wait_ns = start < read_now ? read_now - start : 0;
		if (rec.wait_ns < min_wait_ns)
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
