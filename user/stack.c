// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Holder stacks (stack.h): the capture thread, its queue, and what it
 * says about a capture. The pieces: stack_sample.c samples the holder,
 * ksym.c names the kernel frames, stack_unwind.c unwinds and names the
 * user frames, stack_render.c gives the lines.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "ksym.h"
#include "stack.h"
#include "stack_sample.h"
#include "stack_unwind.h"

#define MAX_QUEUED		8

struct stacks {
	bool user;
	const char *user_off;	/* the user note when !user */
	struct ksyms *ksyms;	/* the kernel's symbols, read by the worker */
	int kallsyms_err;	/* why /proc/kallsyms did not open, or 0 */
	int efd;
	pthread_t thread;
	bool started;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool stop;
	/* Under lock: requests, and stacks done. */
	struct holder_stack *queue[MAX_QUEUED];
	unsigned int nr_queued;
	struct holder_stack *done[MAX_QUEUED];
	unsigned int nr_done;
	/* The worker's own. */
	bool said_perf, said_kallsyms, said_table, said_maps;
	struct stack_sampler *sampler;
	struct stack_unwinder *unwinder;	/* during one capture */
};

static void __attribute__((format(printf, 4, 5)))
add_once(struct stacks *s, struct holder_stack *h, bool *said,
	 const char *fmt, ...)
{
	size_t off = strlen(h->once_note);
	va_list ap;

	if (*said || off + 2 >= sizeof(h->once_note))
		return;
	*said = true;
	if (off) {
		memcpy(h->once_note + off, ". ", 3);
		off += 2;
	}
	va_start(ap, fmt);
	vsnprintf(h->once_note + off, sizeof(h->once_note) - off, fmt, ap);
	va_end(ap);
}

/* --- kernel symbols --- */

/*
 * Why ksyms_name() named no frame (@ret < 0), for the stack's note, and
 * what would name them, for the daemon's once note.
 */
static const char *unnamed_why(const struct stacks *s, int ret,
			       const char **cure)
{
	if (ret == -ENODATA) {
		*cure = "start starvd with CAP_SYSLOG (the unit: the drop-in of starvd(8), \"The systemd unit\") and kernel.kptr_restrict at 0 or 1 to name them";
		return "/proc/kallsyms hides kernel addresses from starvd (it started without CAP_SYSLOG, or kernel.kptr_restrict is 2)";
	}
	if (ret == -EBADF && s->kallsyms_err) {
		*cure = "mount /proc, and restart starvd";
		return "starvd could not open /proc/kallsyms when it started";
	}
	*cure = "raise starvd's LimitMEMLOCK= or MemoryMax=, and restart it";
	return "no memory to name them";
}

/*
 * Name the kernel frames of @smp. A frame is shown by its symbol, never
 * by its address (stack.h): where none can be named, none is shown, the
 * stack's note says why and the daemon's note, once, what to do.
 */
static void name_kernel(struct stacks *s, const struct stack_sample *smp,
			struct holder_stack *h)
{
	struct ksym w[STACK_MAX_FRAMES] = {};
	unsigned int i, n = smp->nr_kernel;
	const char *why, *cure;
	char err[64] = "";
	int ret;

	for (i = 0; i < n; i++)
		w[i].addr = smp->kernel[i];
	ret = n ? ksyms_name(s->ksyms, w, n, &s->stop) : 0;
	if (ret < 0) {
		why = unnamed_why(s, ret, &cure);
		if (s->kallsyms_err)
			snprintf(err, sizeof(err), " (%s)",
				 strerror(s->kallsyms_err));
		snprintf(h->kernel_note, sizeof(h->kernel_note),
			 "%u frame(s) not shown: %s", n, why);
		add_once(s, h, &s->said_kallsyms,
			 "kernel frames of holder stacks are not shown: %s%s; %s",
			 why, err, cure);
		return;
	}
	if (n && ksyms_table_error(s->ksyms))
		add_once(s, h, &s->said_table,
			 "each stack's kernel frames cost a pass over /proc/kallsyms: starvd could not keep its symbols (%s); %s",
			 strerror(-ksyms_table_error(s->ksyms)),
			 ksyms_table_error(s->ksyms) == -ENOMEM ?
			 "raise starvd's LimitMEMLOCK= or MemoryMax=, and restart it" :
			 "check that /proc/modules is readable");
	h->nr_kernel = n;
	for (i = 0; i < n; i++) {
		struct stack_frame *f = &h->kernel[i];

		/* Unnamed (below every symbol, or starvd stopping): "?". */
		if (!w[i].name[0])
			continue;
		snprintf(f->symbol, sizeof(f->symbol), "%s", w[i].name);
		snprintf(f->module, sizeof(f->module), "%s", w[i].module);
		f->offset = w[i].addr - w[i].start;
		f->size = w[i].size;
	}
}

/* --- user frames (stack_unwind.h) --- */

/*
 * Unwind each sample's user stack, with one report of the holder's
 * mappings (s->unwinder, kept for naming): reading them costs more than
 * the unwinding where a holder maps much (10,000 threads: 20,000 lines).
 */
static void unwind_user(struct stacks *s, const struct starvd_task *t,
			struct stack_sample *smp, unsigned int n,
			struct holder_stack *h)
{
	char note[256] = "";
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (smp[i].abi == PERF_SAMPLE_REGS_ABI_NONE) {
			snprintf(smp[i].user_note, sizeof(smp[i].user_note),
				 "none (a kernel thread)");
			continue;
		}
		if (!s->unwinder && !note[0])
			s->unwinder = stack_unwinder_open(t->tgid, t->tid, note,
							  sizeof(note));
		if (!s->unwinder) {
			snprintf(smp[i].user_note, sizeof(smp[i].user_note),
				 "not shown: %s", note);
			add_once(s, h, &s->said_maps, "user frames of other users' tasks need CAP_SYS_PTRACE (reading /proc/PID/maps): %s",
				 note);
			continue;
		}
		stack_unwind(s->unwinder, &smp[i]);
	}
}

/* Name the frames of @smp, the sample shown. */
static void name_user(struct stacks *s, const struct stack_sample *smp,
		      struct holder_stack *h)
{
	unsigned int i;

	h->nr_user = smp->nr_user;
	for (i = 0; i < smp->nr_user; i++) {
		h->user[i].file_offset = UINT64_MAX;
		if (s->unwinder)
			stack_unwind_name(s->unwinder, smp->user[i], !i,
					  &h->user[i]);
	}
	stack_unwinder_close(s->unwinder);
	s->unwinder = NULL;
}

/* Does this thread hold what perf_event_open() asks of it? */
static bool perfmon_held(void)
{
	cap_flag_value_t pm = CAP_CLEAR, admin = CAP_CLEAR;
	cap_t c = cap_get_proc();

	if (!c)
		return false;
	if (CAP_IS_SUPPORTED(CAP_PERFMON))
		cap_get_flag(c, CAP_PERFMON, CAP_EFFECTIVE, &pm);
	cap_get_flag(c, CAP_SYS_ADMIN, CAP_EFFECTIVE, &admin);
	cap_free(c);
	return pm == CAP_SET || admin == CAP_SET;
}

static void capture(struct stacks *s, struct holder_stack *h)
{
	struct stack_sample smp[STACK_NR_SAMPLES];
	unsigned int best;
	int n;

	n = stack_sample(s->sampler, h->holder.tid, h->holder.cpu, smp);
	if (n < 0) {
		snprintf(h->kernel_note, sizeof(h->kernel_note),
			 "not sampled: perf_event_open: %s", strerror(-n));
		if ((n == -EACCES || n == -EPERM) && !perfmon_held())
			add_once(s, h, &s->said_perf, "holder stacks are not shown: sampling another task needs CAP_PERFMON (CAP_SYS_ADMIN before Linux 5.8, and where kernel.perf_event_paranoid is 3, the default of Debian's kernels): %s",
				 strerror(-n));
		else if (n == -EACCES || n == -EPERM)
			add_once(s, h, &s->said_perf, "holder stacks are not shown: perf_event_open() is refused (%s) although starvd holds what it asks for (CAP_PERFMON, or CAP_SYS_ADMIN where kernel.perf_event_paranoid is 3): a seccomp filter? The shipped starvd.service allows no perf_event_open(): add the drop-in of starvd(8), \"The systemd unit\"",
				 strerror(-n));
		return;
	}
	h->nr_samples = n;
	if (!n) {
		snprintf(h->kernel_note, sizeof(h->kernel_note),
			 "no sample: the holder did not run on CPU %d in %d ms",
			 h->holder.cpu, STACK_SAMPLE_WAIT_MS);
		return;
	}
	if (s->user)
		unwind_user(s, &h->holder, smp, n, h);
	best = stack_most_common(smp, n, &h->nr_same);
	name_kernel(s, &smp[best], h);
	if (!smp[best].nr_kernel)
		snprintf(h->kernel_note, sizeof(h->kernel_note),
			 "none: it ran in user space");
	if (!s->user)
		snprintf(h->user_note, sizeof(h->user_note), "%s",
			 s->user_off);
	else
		snprintf(h->user_note, sizeof(h->user_note), "%s",
			 smp[best].user_note);
	name_user(s, &smp[best], h);
	stack_samples_free(smp, n);
}

static void *worker(void *arg)
{
	struct stacks *s = arg;
	struct holder_stack *h;
	uint64_t one = 1;

	/*
	 * The kernel's symbols, read now rather than for the first stack:
	 * seconds in an emulated guest, which the first holder's stack, and
	 * those queued after it, would each have paid for.
	 */
	ksyms_name(s->ksyms, NULL, 0, &s->stop);
	pthread_mutex_lock(&s->lock);
	for (;;) {
		while (!s->stop && !s->nr_queued)
			pthread_cond_wait(&s->cond, &s->lock);
		if (s->stop)
			break;
		h = s->queue[0];
		memmove(s->queue, s->queue + 1,
			--s->nr_queued * sizeof(s->queue[0]));
		pthread_mutex_unlock(&s->lock);
		capture(s, h);
		pthread_mutex_lock(&s->lock);
		if (s->nr_done < MAX_QUEUED)
			s->done[s->nr_done++] = h;
		else
			free(h);
		/* An eventfd counter: cannot fail here. */
		(void)!write(s->efd, &one, sizeof(one));
	}
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

bool stacks_unwind_supported(void)
{
	return stack_unwind_supported();
}

struct stacks *stacks_open(bool user)
{
	struct stacks *s = calloc(1, sizeof(*s));
	int fd;

	if (!s)
		return NULL;
	/* Without an unwinder no stack is copied: nothing to read it. */
	s->user = user && stack_unwind_supported();
	s->sampler = stack_sampler_open(s->user);
	if (!s->sampler) {
		free(s);
		return NULL;
	}
	s->user_off = !user ? "not taken (--no-user-stacks)" :
		      stack_unwind_why_not();
	s->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	fd = open("/proc/kallsyms", O_RDONLY | O_CLOEXEC);
	s->kallsyms_err = fd < 0 ? errno : 0;
	s->ksyms = ksyms_open(fd, open("/proc/modules", O_RDONLY | O_CLOEXEC));
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->cond, NULL);
	/* A daemon asks no network server for debug information. */
	unsetenv("DEBUGINFOD_URLS");
	return s;
}

int stacks_start(struct stacks *s)
{
	struct sched_param sp = { 0 };
	pthread_attr_t attr;
	sigset_t all, old;
	int ret;

	if (s->efd < 0)
		return -EMFILE;
	/* SCHED_OTHER: naming takes milliseconds the loop must not wait. */
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, STACKS_THREAD_STACK);
	pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&attr, SCHED_OTHER);
	pthread_attr_setschedparam(&attr, &sp);
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	ret = -pthread_create(&s->thread, &attr, worker, s);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	s->started = !ret;
	if (s->started)
		pthread_setname_np(s->thread, "starvd-stacks");
	return ret;
}

bool stacks_request(struct stacks *s, const struct starvd_task *holder,
		    const struct starvd_task *victim)
{
	struct holder_stack *h;
	bool queued = false;

	if (!s || !s->started || !holder || !holder->tid || holder->cpu < 0)
		return false;
	h = calloc(1, sizeof(*h));
	if (!h)
		return false;
	h->holder = *holder;
	h->victim = *victim;
	pthread_mutex_lock(&s->lock);
	if (s->nr_queued < MAX_QUEUED) {
		s->queue[s->nr_queued++] = h;
		queued = true;
		pthread_cond_signal(&s->cond);
	}
	pthread_mutex_unlock(&s->lock);
	if (!queued)
		free(h);
	return queued;
}

int stacks_poll_fd(const struct stacks *s)
{
	return s && s->started ? s->efd : -1;
}

struct holder_stack *stacks_take(struct stacks *s)
{
	struct holder_stack *h = NULL;
	uint64_t v;

	if (!s || !s->started)
		return NULL;
	pthread_mutex_lock(&s->lock);
	if (s->nr_done) {
		h = s->done[0];
		memmove(s->done, s->done + 1,
			--s->nr_done * sizeof(s->done[0]));
	}
	/* Nothing left: clear the counter (EAGAIN if already clear). */
	if (!s->nr_done)
		(void)!read(s->efd, &v, sizeof(v));
	pthread_mutex_unlock(&s->lock);
	return h;
}

void stacks_close(struct stacks *s)
{
	unsigned int i;

	if (!s)
		return;
	if (s->started) {
		pthread_mutex_lock(&s->lock);
		__atomic_store_n(&s->stop, true, __ATOMIC_RELAXED);
		pthread_cond_signal(&s->cond);
		pthread_mutex_unlock(&s->lock);
		pthread_join(s->thread, NULL);
	}
	for (i = 0; i < s->nr_queued; i++)
		free(s->queue[i]);
	for (i = 0; i < s->nr_done; i++)
		free(s->done[i]);
	stack_sampler_close(s->sampler);
	if (s->efd >= 0)
		close(s->efd);
	ksyms_close(s->ksyms);
	free(s);
}
