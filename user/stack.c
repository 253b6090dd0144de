// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Holder stacks (stack.h): perf samples of the holder, named; their
 * lines are stack_render.c's.
 *
 * Why perf_event_open() and not a BPF program: the kernel already does
 * what is needed (a timer interrupting the holder on its CPU, the
 * callchain, the copy of the user stack and registers that
 * perf --call-graph=dwarf uses), on every kernel starvd
 * supports and on both backends, BPF or not; a BPF perf_event program
 * would add an object, a load and a verifier to get the same bytes.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "ksym.h"
#include "stack.h"
#include "util.h"

#if !defined(STARVD_NO_LIBDW) && defined(__x86_64__)
#define HAVE_UNWIND 1
#include <elfutils/libdwfl.h>
#include <gelf.h>
#else
#define HAVE_UNWIND 0
#endif

#define SAMPLE_PERIOD_NS	1000000	/* one sample a millisecond */
#define NR_SAMPLES		4	/* taken, at most */
#define SAMPLE_WAIT_MS		50	/* the holder may not run at all */
#define SAMPLE_POLL_MS		2	/* the ring is read this often */
#define USER_STACK_BYTES	16384	/* copied from the holder's SP up */
#define RING_PAGES		32	/* data pages: a few samples */
#define MAX_QUEUED		8

/* x86_64: perf_regs.h's AX..IP and R8..R15 */
#define USER_REGS_MASK		0xff01ffULL
#define NR_USER_REGS		17

struct sample {
	unsigned int nr_kernel;
	uint64_t kernel[STACK_MAX_FRAMES];
	uint64_t abi;			/* PERF_SAMPLE_REGS_ABI_* */
	uint64_t regs[NR_USER_REGS];
	uint64_t stack_size;		/* bytes valid in stack */
	unsigned char *stack;
	uint64_t user[STACK_MAX_FRAMES];	/* unwound */
	unsigned int nr_user;
	char user_note[256];
};

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
	struct cpu_event *events;	/* one a CPU sampled so far */
	unsigned int nr_events;
#if HAVE_UNWIND
	Dwfl *dwfl;	/* the holder's mappings, during one capture */
#endif
};

static int perf_open(struct perf_event_attr *a, pid_t tid, int cpu)
{
	return syscall(SYS_perf_event_open, a, tid, cpu, -1,
		       PERF_FLAG_FD_CLOEXEC);
}

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

/* --- reading the ring --- */

struct ring {
	struct perf_event_mmap_page *meta;
	unsigned char *data;
	size_t size;		/* of data, a power of two */
};

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
			pid_t tid, bool user, struct sample *smp)
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
 * The samples of @tid in the ring, at most NR_SAMPLES: parsed into @smp,
 * or only counted if @smp is NULL.
 */
static unsigned int read_samples(const struct ring *r, pid_t tid, bool user,
				 struct sample *smp)
{
	uint64_t head = __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE);
	uint64_t pos = r->meta->data_tail;
	unsigned int n = 0;
	unsigned char *rec = smp ? malloc(65536) : NULL;

	if (smp && !rec)
		return 0;
	while (pos < head && n < NR_SAMPLES) {
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

static struct cpu_event *cpu_event(struct stacks *s, int cpu, int *err)
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

	for (i = 0; i < s->nr_events; i++)
		if (s->events[i].cpu == cpu)
			return &s->events[i];
	grown = realloc(s->events, (s->nr_events + 1) * sizeof(*grown));
	if (!grown) {
		*err = -ENOMEM;
		return NULL;
	}
	s->events = grown;
	e = &s->events[s->nr_events];
	if (s->user) {
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
	s->nr_events++;
	return e;
}

/* All of the ring read: the kernel may write over it. */
static void ring_consume(const struct ring *r)
{
	uint64_t head = __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE);

	__atomic_store_n(&r->meta->data_tail, head, __ATOMIC_RELEASE);
}

/*
 * Sample @tid on @cpu for a few milliseconds; the samples in @smp, their
 * number returned, -errno if the event cannot be opened.
 */
static int sample_task(struct stacks *s, pid_t tid, int cpu,
		       struct sample *smp)
{
	struct cpu_event *e;
	unsigned int waited;
	int n = 0;

	e = cpu_event(s, cpu, &n);
	if (!e)
		return n;
	ring_consume(&e->r);
	ioctl(e->fd, PERF_EVENT_IOC_ENABLE, 0);
	for (waited = 0; waited < SAMPLE_WAIT_MS; waited += SAMPLE_POLL_MS) {
		usleep(SAMPLE_POLL_MS * 1000);
		if (read_samples(&e->r, tid, s->user, NULL) >= NR_SAMPLES)
			break;
	}
	ioctl(e->fd, PERF_EVENT_IOC_DISABLE, 0);
	n = read_samples(&e->r, tid, s->user, smp);
	ring_consume(&e->r);
	return n;
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
static void name_kernel(struct stacks *s, const struct sample *smp,
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

/* --- user frames: DWARF unwinding of the copied stack (libdwfl) --- */

#if HAVE_UNWIND
struct unwind {
	Dwfl *dwfl;
	pid_t tid;
	struct sample *smp;	/* the one being unwound */
	bool attached;		/* dwfl_attach_state() done */
	bool beyond;		/* a read past the copy was refused */
};

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	struct unwind *u = arg;

	if (*thread_argp)
		return 0;
	*thread_argp = arg;
	return u->tid;
}

/* The holder's memory: only the copy of its stack. */
static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result,
			void *arg)
{
	struct unwind *u = arg;
	uint64_t sp = u->smp->regs[7];

	if (addr < sp || addr + sizeof(*result) > sp + u->smp->stack_size) {
		u->beyond |= addr >= sp;
		return false;
	}
	memcpy(result, u->smp->stack + (addr - sp), sizeof(*result));
	return true;
}

/* perf's x86_64 order (AX BX CX DX SI DI BP SP IP R8..R15) to DWARF's. */
static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	struct unwind *u = arg;
	const uint64_t *r = u->smp->regs;
	Dwarf_Word dw[17] = {
		r[0], r[3], r[2], r[1], r[4], r[5], r[6], r[7],
		r[9], r[10], r[11], r[12], r[13], r[14], r[15], r[16],
		r[8],
	};

	return dwfl_thread_state_registers(thread, 0, 17, dw);
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
	.next_thread = next_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

static int frame_cb(Dwfl_Frame *state, void *arg)
{
	struct unwind *u = arg;
	Dwarf_Addr pc;

	if (!dwfl_frame_pc(state, &pc, NULL))
		return DWARF_CB_ABORT;
	u->smp->user[u->smp->nr_user++] = pc;
	return u->smp->nr_user < STACK_MAX_FRAMES ? DWARF_CB_OK :
						    DWARF_CB_ABORT;
}

/*
 * The holder's binaries, opened by libdwfl's own finder, then read with
 * ELF_C_READ: left to itself libdwfl maps each file whole, and starvd's
 * mlockall(MCL_FUTURE) would then read in and lock all of it, however
 * large; read, only the headers and the sections used (.eh_frame, the
 * symbols, the build ID note) are.
 */
static int find_elf(Dwfl_Module *mod, void **userdata, const char *name,
		    Dwarf_Addr base, char **file_name, Elf **elfp)
{
	int fd = dwfl_linux_proc_find_elf(mod, userdata, name, base,
					  file_name, elfp);

	if (fd >= 0 && !*elfp)
		*elfp = elf_begin(fd, ELF_C_READ, NULL);
	return fd;
}

/*
 * Separate debug files are not looked for: libdwfl can only map those
 * whole (above), and one can be many times the size of its program.
 * Frames are named from the binaries' own symbols, else given as build
 * ID and offset, which a debuginfod client or eu-addr2line takes.
 */
static int find_no_debuginfo(Dwfl_Module *mod, void **userdata,
			     const char *name, Dwarf_Addr base,
			     const char *file_name, const char *debuglink,
			     GElf_Word crc, char **debuginfo_file_name)
{
	return -1;
}

static const Dwfl_Callbacks proc_callbacks = {
	.find_elf = find_elf,
	.find_debuginfo = find_no_debuginfo,
};

/* The holder's mappings; NULL (and why in @note) if unreadable. */
static Dwfl *report_maps(pid_t tgid, char *note, size_t len)
{
	Dwfl *dwfl = dwfl_begin(&proc_callbacks);
	int ret;

	if (!dwfl) {
		snprintf(note, len, "libdwfl: %s", dwfl_errmsg(-1));
		return NULL;
	}
	dwfl_report_begin(dwfl);
	ret = dwfl_linux_proc_report(dwfl, tgid);
	dwfl_report_end(dwfl, NULL, NULL);
	if (ret) {
		snprintf(note, len, "cannot read /proc/%d/maps: %s", tgid,
			 ret > 0 ? strerror(ret) : dwfl_errmsg(-1));
		dwfl_end(dwfl);
		return NULL;
	}
	return dwfl;
}

/*
 * Unwind @smp with @u's Dwfl, attached once: each dwfl_getthread_frames()
 * starts again from set_initial_registers(), for the sample in @u.
 */
static void unwind_sample(struct unwind *u, struct sample *smp)
{
	int ret;

	if (smp->abi != PERF_SAMPLE_REGS_ABI_64) {
		snprintf(smp->user_note, sizeof(smp->user_note),
			 "not unwound: a 32-bit task");
		return;
	}
	u->smp = smp;
	u->beyond = false;
	if (!u->attached &&
	    !dwfl_attach_state(u->dwfl, NULL, u->tid, &thread_callbacks, u)) {
		snprintf(smp->user_note, sizeof(smp->user_note),
			 "not unwound: %s", dwfl_errmsg(-1));
		return;
	}
	u->attached = true;
	ret = dwfl_getthread_frames(u->dwfl, u->tid, frame_cb, u);
	if (ret < 0)
		snprintf(smp->user_note, sizeof(smp->user_note),
			 "%u frame(s) unwound, then stopped: %s (the copy is the %" PRIu64 " bytes above the stack pointer)",
			 smp->nr_user, dwfl_errmsg(-1), smp->stack_size);
	else if (ret > 0)
		snprintf(smp->user_note, sizeof(smp->user_note),
			 "the first %u frames shown", smp->nr_user);
	else if (u->beyond)
		/* libdwfl ends as at the outermost frame: say it was not. */
		snprintf(smp->user_note, sizeof(smp->user_note),
			 "%u frame(s) unwound, then stopped: the next frame is beyond the %" PRIu64 " bytes of stack copied above the stack pointer",
			 smp->nr_user, smp->stack_size);
}
#endif

/*
 * Unwind each sample's user stack, with one report of the holder's
 * mappings (s->dwfl, kept for naming): reading them costs more than the
 * unwinding where a holder maps much (10,000 threads: 20,000 lines).
 */
static void unwind_user(struct stacks *s, const struct starvd_task *t,
			struct sample *smp, unsigned int n,
			struct holder_stack *h)
{
#if HAVE_UNWIND
	struct unwind u = { .tid = t->tid };
	char note[256] = "";
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (smp[i].abi == PERF_SAMPLE_REGS_ABI_NONE) {
			snprintf(smp[i].user_note, sizeof(smp[i].user_note),
				 "none (a kernel thread)");
			continue;
		}
		if (!s->dwfl && !note[0])
			s->dwfl = report_maps(t->tgid, note, sizeof(note));
		if (!s->dwfl) {
			snprintf(smp[i].user_note, sizeof(smp[i].user_note),
				 "not shown: %s", note);
			add_once(s, h, &s->said_maps, "user frames of other users' tasks need CAP_SYS_PTRACE (reading /proc/PID/maps): %s",
				 note);
			continue;
		}
		u.dwfl = s->dwfl;
		unwind_sample(&u, &smp[i]);
	}
#endif
}

#if HAVE_UNWIND
/* Where @rel (an address in @elf's own layout) is in the file. */
static uint64_t file_offset(Elf *elf, uint64_t rel)
{
	size_t i, n;

	if (!elf || elf_getphdrnum(elf, &n))
		return UINT64_MAX;
	for (i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, i, &ph) && ph.p_type == PT_LOAD &&
		    rel >= ph.p_vaddr && rel < ph.p_vaddr + ph.p_filesz)
			return ph.p_offset + (rel - ph.p_vaddr);
	}
	return UINT64_MAX;
}

static void name_user_frame(Dwfl *dwfl, uint64_t pc, bool first,
			    struct stack_frame *f)
{
	/* A return address is past its call: look up the call. */
	uint64_t look = first ? pc : pc - 1;
	Dwfl_Module *m = dwfl_addrmodule(dwfl, look);
	const unsigned char *bid;
	GElf_Addr bid_vaddr, bias;
	const char *name, *file;
	GElf_Off off;
	GElf_Sym sym;
	Elf *elf;
	int i, nb;

	f->file_offset = UINT64_MAX;
	if (!m)
		return;
	file = dwfl_module_info(m, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
	snprintf(f->module, sizeof(f->module), "%s", file ? file : "");
	elf = dwfl_module_getelf(m, &bias);
	if (elf) {
		f->elf_addr = pc - bias;
		f->file_offset = file_offset(elf, pc - bias);
	}
	nb = dwfl_module_build_id(m, &bid, &bid_vaddr);
	for (i = 0; i < nb && i < (int)(sizeof(f->build_id) - 1) / 2; i++)
		snprintf(f->build_id + 2 * i, 3, "%02x", bid[i]);
	name = dwfl_module_addrinfo(m, look, &off, &sym, NULL, NULL, NULL);
	if (name) {
		snprintf(f->symbol, sizeof(f->symbol), "%s", name);
		f->offset = off + (pc - look);
		f->size = sym.st_size;
	}
}
#endif

/* Name the frames of @smp, the sample shown. */
static void name_user(struct stacks *s, const struct sample *smp,
		      struct holder_stack *h)
{
#if HAVE_UNWIND
	unsigned int i;

	h->nr_user = smp->nr_user;
	for (i = 0; i < smp->nr_user; i++) {
		h->user[i].file_offset = UINT64_MAX;
		if (s->dwfl)
			name_user_frame(s->dwfl, smp->user[i], !i,
					&h->user[i]);
	}
	if (s->dwfl)
		dwfl_end(s->dwfl);
	s->dwfl = NULL;
#endif
}

static bool same_stack(const struct sample *a, const struct sample *b)
{
	return a->nr_kernel == b->nr_kernel && a->nr_user == b->nr_user &&
	       !memcmp(a->kernel, b->kernel, a->nr_kernel * sizeof(uint64_t)) &&
	       !memcmp(a->user, b->user, a->nr_user * sizeof(uint64_t));
}

/* The stack most samples have; the later one of a tie. */
static unsigned int most_common(const struct sample *smp, unsigned int n,
				unsigned int *count)
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
	struct sample smp[NR_SAMPLES];
	unsigned int i, best;
	int n;

	n = sample_task(s, h->holder.tid, h->holder.cpu, smp);
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
			 h->holder.cpu, SAMPLE_WAIT_MS);
		return;
	}
	if (s->user)
		unwind_user(s, &h->holder, smp, n, h);
	best = most_common(smp, n, &h->nr_same);
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
	for (i = 0; i < (unsigned int)n; i++)
		free(smp[i].stack);
}

static void *worker(void *arg)
{
	struct stacks *s = arg;
	struct holder_stack *h;
	uint64_t one = 1;

	/*
	 * The kernel's symbols, read now rather than for the first stack:
	 * seconds in an emulated guest, which other holders' stacks queued
	 * first would each have paid for.
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
	return HAVE_UNWIND;
}

struct stacks *stacks_open(bool user)
{
	struct stacks *s = calloc(1, sizeof(*s));
	int fd;

	if (!s)
		return NULL;
	/* Without an unwinder no stack is copied: nothing to read it. */
	s->user = user && HAVE_UNWIND;
	s->user_off = !user ? "not taken (--no-user-stacks)" :
		      "not taken: this starvd was built without libdw (LIBDW=0), or for an architecture other than x86_64, the only one whose user stacks it unwinds";
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
	pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&attr, SCHED_OTHER);
	pthread_attr_setschedparam(&attr, &sp);
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	ret = -pthread_create(&s->thread, &attr, worker, s);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	s->started = !ret;
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
	/* On PREEMPT_RT each close waits for an RCU grace period. */
	for (i = 0; i < s->nr_events; i++) {
		munmap(s->events[i].map, s->events[i].len);
		close(s->events[i].fd);
	}
	free(s->events);
	if (s->efd >= 0)
		close(s->efd);
	ksyms_close(s->ksyms);
	free(s);
}

