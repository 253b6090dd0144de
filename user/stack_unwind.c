// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * User frames of a holder stack (stack_unwind.h): libdwfl unwinding the
 * copied stack through dwfl_attach_state(), with callbacks that read
 * only the copy, and naming each frame from its module.
 */
#include <stdio.h>

#include "stack_unwind.h"

#if !defined(STARVD_NO_LIBDW) && defined(__x86_64__)
#include <dlfcn.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <gelf.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/*
 * libdw is loaded, not linked: starvd locks its memory, and libdw with
 * the libraries it needs (liblzma, libbz2) is about 900 KiB that only
 * holder stacks with user frames use. Its functions, and libelf's, are
 * called through dw_NAME, resolved in libdw.so.1 and its dependencies.
 */
#define LIBDW_SONAME	"libdw.so.1"
#define DW_FUNCS(X) \
	X(dwfl_begin) X(dwfl_end) X(dwfl_errmsg) X(dwfl_report_begin) \
	X(dwfl_report_end) X(dwfl_linux_proc_report) \
	X(dwfl_linux_proc_find_elf) X(dwfl_attach_state) \
	X(dwfl_getthread_frames) X(dwfl_thread_state_registers) \
	X(dwfl_frame_pc) X(dwfl_addrmodule) X(dwfl_module_info) \
	X(dwfl_module_getelf) X(dwfl_module_build_id) \
	X(dwfl_module_addrinfo) X(elf_begin) X(elf_getphdrnum) \
	X(gelf_getphdr)
#define DW_PTR(f)	static typeof(f) *dw_##f;
DW_FUNCS(DW_PTR)

static pthread_once_t dw_once = PTHREAD_ONCE_INIT;
static char dw_why[256];	/* why it is not loaded; "": it is */

static void dw_load(void)
{
#define DW_SYM(f)	{ #f, (void **)&dw_##f },
	static const struct {
		const char *name;
		void **fn;
	} sym[] = { DW_FUNCS(DW_SYM) };
	void *h = dlopen(LIBDW_SONAME, RTLD_NOW | RTLD_LOCAL);
	unsigned int i;

	for (i = 0; h && i < sizeof(sym) / sizeof(sym[0]); i++) {
		*sym[i].fn = dlsym(h, sym[i].name);
		if (!*sym[i].fn)
			break;
	}
	/* Loaded, it stays for the daemon's life. */
	if (h && i == sizeof(sym) / sizeof(sym[0]))
		return;
	snprintf(dw_why, sizeof(dw_why),
		 "not taken: cannot load %s (%s): install elfutils' libdw (the package libdw1 or elfutils-libs) and restart starvd",
		 LIBDW_SONAME, dlerror());
	/* Without it (dw_why says why) none of its functions is called. */
	if (h)
		dlclose(h);
}

struct stack_unwinder {
	Dwfl *dwfl;		/* the holder's mappings */
	pid_t tid;
	struct stack_sample *smp;	/* the one being unwound */
	bool attached;		/* dwfl_attach_state() done */
	bool beyond;		/* a read past the copy was refused */
};

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	struct stack_unwinder *u = arg;

	if (*thread_argp)
		return 0;
	*thread_argp = arg;
	return u->tid;
}

/* The holder's memory: only the copy of its stack. */
static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result,
			void *arg)
{
	struct stack_unwinder *u = arg;
	uint64_t sp = u->smp->regs[STACK_REG_SP];

	if (addr < sp || addr + sizeof(*result) > sp + u->smp->stack_size) {
		u->beyond |= addr >= sp;
		return false;
	}
	memcpy(result, u->smp->stack + (addr - sp), sizeof(*result));
	return true;
}

/* perf's x86_64 order (stack_sample.h) to DWARF's. */
static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	struct stack_unwinder *u = arg;
	const uint64_t *r = u->smp->regs;
	Dwarf_Word dw[17] = {
		r[0], r[3], r[2], r[1], r[4], r[5], r[6], r[7],
		r[9], r[10], r[11], r[12], r[13], r[14], r[15], r[16],
		r[8],
	};

	return dw_dwfl_thread_state_registers(thread, 0, 17, dw);
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
	.next_thread = next_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

static int frame_cb(Dwfl_Frame *state, void *arg)
{
	struct stack_unwinder *u = arg;
	Dwarf_Addr pc;

	if (!dw_dwfl_frame_pc(state, &pc, NULL))
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
	int fd = dw_dwfl_linux_proc_find_elf(mod, userdata, name, base,
					  file_name, elfp);

	if (fd >= 0 && !*elfp)
		*elfp = dw_elf_begin(fd, ELF_C_READ, NULL);
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
	Dwfl *dwfl = dw_dwfl_begin(&proc_callbacks);
	int ret;

	if (!dwfl) {
		snprintf(note, len, "libdwfl: %s", dw_dwfl_errmsg(-1));
		return NULL;
	}
	dw_dwfl_report_begin(dwfl);
	ret = dw_dwfl_linux_proc_report(dwfl, tgid);
	dw_dwfl_report_end(dwfl, NULL, NULL);
	if (ret) {
		snprintf(note, len, "cannot read /proc/%d/maps: %s", tgid,
			 ret > 0 ? strerror(ret) : dw_dwfl_errmsg(-1));
		dw_dwfl_end(dwfl);
		return NULL;
	}
	return dwfl;
}

struct stack_unwinder *stack_unwinder_open(pid_t tgid, pid_t tid,
					   char *note, size_t len)
{
	struct stack_unwinder *u;

	if (!stack_unwind_supported()) {
		snprintf(note, len, "%s", dw_why);
		return NULL;
	}
	u = calloc(1, sizeof(*u));
	if (!u) {
		snprintf(note, len, "%s", strerror(ENOMEM));
		return NULL;
	}
	u->tid = tid;
	u->dwfl = report_maps(tgid, note, len);
	if (!u->dwfl) {
		free(u);
		return NULL;
	}
	return u;
}

/*
 * Each dwfl_getthread_frames() starts again from set_initial_registers(),
 * for the sample in @u: the Dwfl is attached once, for all samples.
 */
void stack_unwind(struct stack_unwinder *u, struct stack_sample *smp)
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
	    !dw_dwfl_attach_state(u->dwfl, NULL, u->tid, &thread_callbacks, u)) {
		snprintf(smp->user_note, sizeof(smp->user_note),
			 "not unwound: %s", dw_dwfl_errmsg(-1));
		return;
	}
	u->attached = true;
	ret = dw_dwfl_getthread_frames(u->dwfl, u->tid, frame_cb, u);
	if (ret < 0)
		snprintf(smp->user_note, sizeof(smp->user_note),
			 "%u frame(s) unwound, then stopped: %s (the copy is the %" PRIu64 " bytes above the stack pointer)",
			 smp->nr_user, dw_dwfl_errmsg(-1), smp->stack_size);
	else if (ret > 0)
		snprintf(smp->user_note, sizeof(smp->user_note),
			 "the first %u frames shown", smp->nr_user);
	else if (u->beyond)
		/* libdwfl ends as at the outermost frame: say it was not. */
		snprintf(smp->user_note, sizeof(smp->user_note),
			 "%u frame(s) unwound, then stopped: the next frame is beyond the %" PRIu64 " bytes of stack copied above the stack pointer",
			 smp->nr_user, smp->stack_size);
}

/* Where @rel (an address in @elf's own layout) is in the file. */
static uint64_t file_offset(Elf *elf, uint64_t rel)
{
	size_t i, n;

	if (!elf || dw_elf_getphdrnum(elf, &n))
		return UINT64_MAX;
	for (i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (dw_gelf_getphdr(elf, i, &ph) && ph.p_type == PT_LOAD &&
		    rel >= ph.p_vaddr && rel < ph.p_vaddr + ph.p_filesz)
			return ph.p_offset + (rel - ph.p_vaddr);
	}
	return UINT64_MAX;
}

void stack_unwind_name(struct stack_unwinder *u, uint64_t pc, bool first,
		       struct stack_frame *f)
{
	/* A return address is past its call: look up the call. */
	uint64_t look = first ? pc : pc - 1;
	Dwfl_Module *m = dw_dwfl_addrmodule(u->dwfl, look);
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
	file = dw_dwfl_module_info(m, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
	snprintf(f->module, sizeof(f->module), "%s", file ? file : "");
	elf = dw_dwfl_module_getelf(m, &bias);
	if (elf) {
		f->elf_addr = pc - bias;
		f->file_offset = file_offset(elf, pc - bias);
	}
	nb = dw_dwfl_module_build_id(m, &bid, &bid_vaddr);
	for (i = 0; i < nb && i < (int)(sizeof(f->build_id) - 1) / 2; i++)
		snprintf(f->build_id + 2 * i, 3, "%02x", bid[i]);
	name = dw_dwfl_module_addrinfo(m, look, &off, &sym, NULL, NULL, NULL);
	if (name) {
		snprintf(f->symbol, sizeof(f->symbol), "%s", name);
		f->offset = off + (pc - look);
		f->size = sym.st_size;
	}
}

void stack_unwinder_close(struct stack_unwinder *u)
{
	if (!u)
		return;
	dw_dwfl_end(u->dwfl);
	free(u);
}

bool stack_unwind_supported(void)
{
	pthread_once(&dw_once, dw_load);
	return !dw_why[0];
}

const char *stack_unwind_why_not(void)
{
	return stack_unwind_supported() ? "" : dw_why;
}
#else
bool stack_unwind_supported(void)
{
	return false;
}

const char *stack_unwind_why_not(void)
{
	return "not taken: this starvd was built without libdw (LIBDW=0), or for an architecture other than x86_64, the only one whose user stacks it unwinds";
}

struct stack_unwinder *stack_unwinder_open(pid_t tgid, pid_t tid,
					   char *note, size_t len)
{
	snprintf(note, len, "this starvd unwinds no user stack");
	return NULL;
}

void stack_unwind(struct stack_unwinder *u, struct stack_sample *smp)
{
}

void stack_unwind_name(struct stack_unwinder *u, uint64_t pc, bool first,
		       struct stack_frame *f)
{
}

void stack_unwinder_close(struct stack_unwinder *u)
{
}
#endif
