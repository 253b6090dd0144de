/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What a starving kernel thread was there to do, read from the kernel's
 * own structures when it is reported (bpf/pending.bpf.c, through the BPF
 * backend): for a workqueue worker, the work item it was running when it
 * was preempted and the items queued for it and its pool, each as its
 * function and workqueue; for ksoftirqd/N, the softirqs pending on CPU N.
 *
 * Function names come from the kernel's "%pB" of the function's address
 * plus one, which names the function holding the byte before: only the
 * name of a function that starts exactly at the address read
 * ("name+0x1/0x..." with an optional " [module]") is kept, so neither an
 * address nor the name of a function the list did not point at reaches
 * a report. Nothing is attached between reports; the kernel module's
 * backend cannot read workqueue pools, and says so (unknown).
 */
#ifndef STARVD_PENDING_H
#define STARVD_PENDING_H

#include <stdbool.h>
#include <stddef.h>

#define PENDING_SHOWN	8	/* MAX_SHOWN in bpf/pending.bpf.c */
#define PENDING_COUNTED	64	/* MAX_COUNT there: counts stop at it */

struct pending_work {
	char func[96];		/* "refresh_vm_stats", "fn [module]"; "?" */
	char wq[32];		/* its workqueue; "" if it cannot be told */
};

struct task_pending {
	/* NULL: read; else why it could not be (for the report). */
	const char *unknown;
	bool softirqs_read;		/* softirqs holds the CPU's mask */
	unsigned int softirqs;		/* bit N: vector N pending */
	bool worker;			/* a workqueue worker, pool read */
	struct pending_work running;	/* func "": not in a work item */
	unsigned int nr_shown;
	struct pending_work shown[PENDING_SHOWN];
	unsigned int nr_queued;		/* up to PENDING_COUNTED */
};

/*
 * Parse the iterator's @len bytes at @buf for @tid into @p (pending.bpf.c
 * gives the format). 0, or -ESRCH if the task was not found.
 */
int pending_parse(const char *buf, size_t len, unsigned int tid,
		  struct task_pending *p);
/* The kernel's name of softirq vector @nr ("NET_RX"), NULL if none. */
const char *pending_softirq_name(unsigned int nr);
/* The report's words for @p: "" when there is nothing to say. */
void pending_text(const struct task_pending *p, char *buf, size_t len);
/* A short form for status and top: the first function or vector. */
void pending_brief(const struct task_pending *p, char *buf, size_t len);

#endif
