// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Samples of a holder (stack_sample.h): a perf event per CPU and its ring.
 *
 * Why perf_event_open() and not a BPF program: the kernel already does
 * what is needed (a timer interrupting the holder on its CPU, the
 * callchain, the copy of the user stack and registers that
 * perf --call-graph=dwarf uses), on every kernel starvd
 * supports and on both backends, BPF or not; a BPF perf_event program
 * would add an object, a load and a verifier to get the same bytes.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "stack_sample.h"

#define SAMPLE_PERIOD_NS	1000000	/* one sample a millisecond */
#define SAMPLE_POLL_MS		2	/* the ring is read this often */
#define USER_STACK_BYTES	16384	/* copied from the holder's SP up */
#define RING_PAGES		32	/* data pages: a few samples */

/* x86_64: perf_regs.h's AX..IP and R8..R15 (STACK_NR_USER_REGS) */
#define USER_REGS_MASK		0xff01ffULL

struct ring {
	struct perf_event_mmap_page *meta;
	unsigned char *data;
	size_t size;		/* of data, a power of two */
};

/*
 * The sampling event of one CPU, opened at its first capture and kept
 * until starvd stops: a software cpu-clock event counting the CPU, not
 * a task, and its ring.
 *
 * Why the CPU: the first event bound to a task makes the kernel switch
 * its scheduler hooks on and wait for an RCU grace period
 * (account_event()), and on PREEMPT_RT a grace period waits for the
 * rcuc/N thread of every CPU, among them the one starved on @cpu. An
 * event on a CPU needs no hook; the holder is what runs there, and the
 * samples of any other task are dropped unread.
 * Why kept: on PREEMPT_RT closing a perf event waits for a grace period
 * too (irq_work_sync()), so the capture would again wait for the
 * starvation it describes. Kept open, the event costs nothing while
 * disabled: its timer runs only while it is enabled.
 */
struct cpu_event {
	int cpu;
	int fd;
	struct ring r;
	void *map;
	size_t len;
};

struct stack_sampler {
	bool user;
	struct cpu_event *events;	/* one a CPU sampled so far */
	unsigned int nr_events;
};

static int perf_open(struct perf_event_attr *a, pid_t tid, int cpu)
{
	return syscall(SYS_perf_event_open, a, tid, cpu, -1,
		       PERF_FLAG_FD_CLOEXEC);
}

/* --- reading the ring --- */

/* Copy @len bytes at ring position @pos to @out. */
static void ring_copy(const struct ring *r, uint64_t pos, void *out,
		      size_t len)
{
	size_t at = pos & (r->size - 1), first = r->size - at;

	if (first > len)
		first = len;
	memcpy(out, r->data + at, first);
	memcpy((char *)out + first, r->data, len - first);
}

/* @len bytes at *@p into @dst, if @end allows; *@p moves past them. */
static bool take(const unsigned char **p, const unsigned char *end,
		 void *dst, size_t len)
{
	if (len > (size_t)(end - *p))
		return false;
	memcpy(dst, *p, len);
	*p += len;
	return true;
}

/*
 * What a PERF_RECORD_SAMPLE of @tid says, from @p (past its header) to
 * @end; -ESRCH for a sample of another task.
 */
static int parse_sample(const unsigned char *p, const unsigned char *end,
			pid_t tid, bool user, struct stack_sample *smp)
{
	uint32_t ids[2];	/* PERF_SAMPLE_TID: pid, tid */
	uint64_t nr, i, v, size;

	if (!take(&p, end, ids, sizeof(ids)))
		return -EINVAL;
	if ((pid_t)ids[1] != tid)
		return -ESRCH;
	if (!take(&p, end, &nr, sizeof(nr)))
		return -EINVAL;
	for (i = 0; i < nr; i++) {
		if (!take(&p, end, &v, sizeof(v)))
			return -EINVAL;
		if (v >= (uint64_t)PERF_CONTEXT_MAX)
			continue;	/* a context marker */
		if (smp->nr_kernel < STACK_MAX_FRAMES)
			smp->kernel[smp->nr_kernel++] = v;
	}
	if (!user)
		return 0;
	if (!take(&p, end, &smp->abi, sizeof(smp->abi)) ||
	    (smp->abi != PERF_SAMPLE_REGS_ABI_NONE &&
	     !take(&p, end, smp->regs, sizeof(smp->regs))) ||
	    !take(&p, end, &size, sizeof(size)))
		return -EINVAL;
	if (!size)		/* no user stack (a kernel thread) */
		return 0;
	if (size + 8 > (size_t)(end - p))
		return -EINVAL;
	smp->stack = malloc(size);
	if (!smp->stack)
		return -ENOMEM;
	take(&p, end, smp->stack, size);
	/* How much of it the kernel could copy. */
	take(&p, end, &smp->stack_size, sizeof(smp->stack_size));
	if (smp->stack_size > size)
		smp->stack_size = size;
	return 0;
}

/*
 * The samples of @tid in the ring, at most STACK_NR_SAMPLES: parsed into
 * @smp, or only counted if @smp is NULL.
 */
static unsigned int read_samples(const struct ring *r, pid_t tid, bool user,
				 struct stack_sample *smp)
{
	uint64_t head = __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE);
	uint64_t pos = r->meta->data_tail;
	unsigned int n = 0;
	unsigned char *rec = smp ? malloc(65536) : NULL;

	if (smp && !rec)
		return 0;
	while (pos < head && n < STACK_NR_SAMPLES) {
		struct perf_event_header hdr;
		uint32_t ids[2];

		ring_copy(r, pos, &hdr, sizeof(hdr));
		if (hdr.size < sizeof(hdr) + sizeof(ids) ||
		    pos + hdr.size > head)
			break;
		if (hdr.type == PERF_RECORD_SAMPLE && !smp) {
			ring_copy(r, pos + sizeof(hdr), ids, sizeof(ids));
			n += (pid_t)ids[1] == tid;
		} else if (hdr.type == PERF_RECORD_SAMPLE) {
			ring_copy(r, pos, rec, hdr.size);
			memset(&smp[n], 0, sizeof(smp[n]));
			if (!parse_sample(rec + sizeof(hdr), rec + hdr.size,
					  tid, user, &smp[n]))
				n++;
			else
				free(smp[n].stack);
		}
		pos += hdr.size;
	}
	free(rec);
	return n;
}

/* All of the ring read: the kernel may write over it. */
static void ring_consume(const struct ring *r)
{
	uint64_t head = __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE);

	__atomic_store_n(&r->meta->data_tail, head, __ATOMIC_RELEASE);
}

/* --- the events --- */

static struct cpu_event *cpu_event(struct stack_sampler *sp, int cpu,
				   int *err)
{
	struct perf_event_attr a = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(a),
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.sample_period = SAMPLE_PERIOD_NS,
		.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_CALLCHAIN,
		.disabled = 1,
		.exclude_hv = 1,
		/* User frames come from the copied stack, never from FPs. */
		.exclude_callchain_user = 1,
		/*
		 * Never a wakeup: it is an irq_work, which on PREEMPT_RT
		 * irq_work/N runs, starved on @cpu like rcuc/N. The ring is
		 * read at intervals instead.
		 */
		.watermark = 1,
		.sample_max_stack = STACK_MAX_FRAMES,
	};
	long page = sysconf(_SC_PAGESIZE);
	struct cpu_event *e, *grown;
	unsigned int i;

	for (i = 0; i < sp->nr_events; i++)
		if (sp->events[i].cpu == cpu)
			return &sp->events[i];
	grown = realloc(sp->events, (sp->nr_events + 1) * sizeof(*grown));
	if (!grown) {
		*err = -ENOMEM;
		return NULL;
	}
	sp->events = grown;
	e = &sp->events[sp->nr_events];
	if (sp->user) {
		a.sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
		a.sample_regs_user = USER_REGS_MASK;
		a.sample_stack_user = USER_STACK_BYTES;
	}
	a.wakeup_watermark = RING_PAGES * page;	/* never reached */
	e->cpu = cpu;
	e->len = (1 + RING_PAGES) * page;
	e->fd = perf_open(&a, -1, cpu);
	if (e->fd < 0) {
		*err = -errno;
		return NULL;
	}
	e->map = mmap(NULL, e->len, PROT_READ | PROT_WRITE, MAP_SHARED,
		      e->fd, 0);
	if (e->map == MAP_FAILED) {
		*err = -errno;
		close(e->fd);
		return NULL;
	}
	e->r = (struct ring){ .meta = e->map,
			      .data = (unsigned char *)e->map + page,
			      .size = RING_PAGES * page };
	sp->nr_events++;
	return e;
}

struct stack_sampler *stack_sampler_open(bool user)
{
	struct stack_sampler *sp = calloc(1, sizeof(*sp));

	if (sp)
		sp->user = user;
	return sp;
}

int stack_sample(struct stack_sampler *sp, pid_t tid, int cpu,
		 struct stack_sample *smp)
{
	struct cpu_event *e;
	unsigned int waited;
	int n = 0;

	e = cpu_event(sp, cpu, &n);
	if (!e)
		return n;
	ring_consume(&e->r);
	ioctl(e->fd, PERF_EVENT_IOC_ENABLE, 0);
	for (waited = 0; waited < STACK_SAMPLE_WAIT_MS;
	     waited += SAMPLE_POLL_MS) {
		usleep(SAMPLE_POLL_MS * 1000);
		if (read_samples(&e->r, tid, sp->user, NULL) >=
		    STACK_NR_SAMPLES)
			break;
	}
	ioctl(e->fd, PERF_EVENT_IOC_DISABLE, 0);
	n = read_samples(&e->r, tid, sp->user, smp);
	ring_consume(&e->r);
	return n;
}

void stack_samples_free(struct stack_sample *smp, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		free(smp[i].stack);
}

static bool same_stack(const struct stack_sample *a,
		       const struct stack_sample *b)
{
	return a->nr_kernel == b->nr_kernel && a->nr_user == b->nr_user &&
	       !memcmp(a->kernel, b->kernel, a->nr_kernel * sizeof(uint64_t)) &&
	       !memcmp(a->user, b->user, a->nr_user * sizeof(uint64_t));
}

unsigned int stack_most_common(const struct stack_sample *smp,
			       unsigned int n, unsigned int *count)
{
	unsigned int i, j, best = 0, most = 0;

	for (i = 0; i < n; i++) {
		unsigned int c = 0;

		for (j = 0; j < n; j++)
			c += same_stack(&smp[i], &smp[j]);
		if (c >= most) {
			most = c;
			best = i;
		}
	}
	*count = most;
	return best;
}

void stack_sampler_close(struct stack_sampler *sp)
{
	unsigned int i;

	if (!sp)
		return;
	for (i = 0; i < sp->nr_events; i++) {
		munmap(sp->events[i].map, sp->events[i].len);
		close(sp->events[i].fd);
	}
	free(sp->events);
	free(sp);
}
