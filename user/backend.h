/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Backends give the daemon and starvctl the same records, whether they
 * come from the BPF programs or from the kernel module over netlink.
 */
#ifndef STARVD_BACKEND_H
#define STARVD_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include <starvd/abi.h>

#include "capset.h"
#include "cpuset.h"
#include "options.h"
#include "pending.h"
#include "task_list.h"

struct read_filter {
	const struct cpuset *cpus;	/* NULL: all CPUs */
	uint64_t min_wait_ns;
};

struct backend;

struct backend_ops {
	const char *name;
	/*
	 * The capabilities the backend needs, as CAP_BIT() masks, for
	 * caps.c: to open it, all of open_caps (or all of open_caps_alt
	 * instead); for each read after start-up, read_caps, and besides
	 * them the first of read_caps_tries (fewest first) with which a read
	 * works: which one depends on the kernel. read_caps_why says in the
	 * log what they are kept for.
	 */
	uint64_t open_caps, open_caps_alt;
	uint64_t read_caps;
	const uint64_t *read_caps_tries;
	size_t nr_read_caps_tries;
	const char *read_caps_why;
	/* 0, or -errno with a message for the user in err. */
	int (*open)(struct backend *b, unsigned int bpf_mode,
		    char *err, size_t errlen);
	int (*read_tasks)(struct backend *b, const struct read_filter *f,
			  struct task_list *out);
	/*
	 * What task @tid was there to do (pending.h): the softirqs pending
	 * on its CPU if @softirqs, else its work. 0, -ESRCH if it is gone,
	 * or -errno with out->unknown set. NULL: the backend cannot tell,
	 * and no_pending says why, for the report.
	 */
	int (*read_pending)(struct backend *b, unsigned int tid, bool softirqs,
			    struct task_pending *out);
	const char *no_pending;
	/* Per-CPU event counters: fills nr_events/nr_dropped for each cpu. */
	int (*read_counters)(struct backend *b, struct starvd_cpu *cpus,
			     int nr_cpus);
	void (*close)(struct backend *b);
};

struct backend {
	const struct backend_ops *ops;
	void *priv;
	int nr_cpus;
	/* The open backend as logged and published: "bpf (sched_info mode)" */
	char display_name[64];
	/*
	 * Set by backend_open() when it fell back from the backend asked for
	 * (-b auto, -b sched_debug): what it uses instead and why, for the
	 * daemon's log; "" otherwise.
	 */
	char fallback_note[640];
	/* Set by a failed read when it knows: what is wrong, what to do. */
	char read_error_hint[384];
	/*
	 * Set by backend_open() before ops->open(): which of ops->open_caps
	 * this process lacks, and why (capset_explain_missing()); "" if none.
	 */
	char lacking_caps[384];
};

extern const struct backend_ops bpf_backend_ops;
extern const struct backend_ops netlink_backend_ops;

/*
 * Open the backend @kind asks for; BACKEND_AUTO tries BPF, then the
 * kernel module. On failure err says what is wrong and what to do.
 */
int backend_open(struct backend *b, enum backend_kind kind,
		 unsigned int bpf_mode, char *err, size_t errlen);
void backend_close(struct backend *b);

static inline int backend_read_tasks(struct backend *b,
				     const struct read_filter *f,
				     struct task_list *out)
{
	return b->ops->read_tasks(b, f, out);
}

/* ops->read_pending, or out->unknown from ops->no_pending. */
int backend_read_pending(struct backend *b, unsigned int tid, bool softirqs,
			 struct task_pending *out);

/*
 * Per-CPU summaries of one read: waiters, longest wait, holder, counters.
 * @cpus has b->nr_cpus entries, indexed by CPU.
 */
int backend_read_cpus(struct backend *b, const struct task_list *l,
		      struct starvd_cpu *cpus);

/* One read of everything, tasks and counters, discarded: 0 if it works. */
int backend_try_read(struct backend *b);

#endif
