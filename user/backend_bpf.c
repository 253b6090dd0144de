// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * BPF backend: loads bpf/starvd.bpf.c through its skeleton and reads the
 * waiters with one pass of the task iterator.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include <linux/capability.h>

#include "backend.h"
#include "starvd_bpf.h"
#include "starvd.skel.h"
#include "softirqs.skel.h"
#include "util.h"


#define TRACKING_TABLE_SIZE 32768

struct bpf_backend {
	struct starvd_bpf *skel;
	struct bpf_link *iter_link;
	char *buf;
	size_t buf_cap;
	/* The report's readers (pending.h), or why each is missing. */
	struct bpf_link *work_link, *softirqs_link;
	struct softirqs_bpf *softirqs;
	char no_work[160], no_softirqs[192], read_error[96];
};

static int libbpf_quiet(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	if (level == LIBBPF_WARN && getenv("STARVD_LIBBPF_DEBUG"))
		return vfprintf(stderr, fmt, ap);
	return 0;
}

/*
 * The kernel BTF the programs are relocated against: the running
 * kernel's, or for tests STARVD_BTF_PATH, e.g. the running kernel's minus
 * some fields, to load the object as on a kernel without them.
 */
static const char *btf_custom_path(void)
{
	const char *path = getenv("STARVD_BTF_PATH");

	return path && *path ? path : NULL;
}

static bool struct_has_member(const struct btf *btf, const char *type,
			      const char *member)
{
	int id = btf__find_by_name_kind(btf, type, BTF_KIND_STRUCT), i;
	const struct btf_type *t;
	const struct btf_member *m;

	if (id <= 0)
		return false;
	t = btf__type_by_id(btf, id);
	m = btf_members(t);
	for (i = 0; i < btf_vlen(t); i++, m++)
		if (!strcmp(btf__name_by_offset(btf, m->name_off), member))
			return true;
	return false;
}

/*
 * What the programs need from the kernel, from its BTF: 0 with whether
 * it keeps task->sched_info.last_queued (CONFIG_SCHED_INFO), or -ENOTSUP
 * with the missing feature in err (one line, for -b auto's note).
 */
static int probe_kernel(bool *has_sched_info, char *err, size_t errlen)
{
	const char *path = btf_custom_path();
	struct btf *btf = path ? btf__parse(path, NULL) :
				 btf__load_vmlinux_btf();
	int ret = 0;

	if (libbpf_get_error(btf)) {
		snprintf(err, errlen,
			 "the kernel lacks BTF (%s: CONFIG_DEBUG_INFO_BTF, Linux 5.4 or later)",
			 path ? path : "/sys/kernel/btf/vmlinux");
		return -ENOTSUP;
	}
	if (btf__find_by_name_kind(btf, "bpf_iter__task",
				   BTF_KIND_STRUCT) <= 0) {
		snprintf(err, errlen,
			 "the kernel lacks the BPF task iterator (added in Linux 5.8)");
		ret = -ENOTSUP;
	}
	*has_sched_info = struct_has_member(btf, "sched_info", "last_queued");
	btf__free(btf);
	return ret;
}

/* Load-time settings (.rodata) and the programs of @mode. */
static void configure(struct starvd_bpf *skel, unsigned int mode)
{
	bool tracking = mode == STARVD_MODE_TRACKING;

	skel->rodata->mode = mode;
	bpf_program__set_autoload(skel->progs.track_switch, tracking);
	bpf_program__set_autoload(skel->progs.track_wakeup, tracking);
	bpf_program__set_autoload(skel->progs.track_wakeup_new, tracking);
	bpf_program__set_autoload(skel->progs.track_migrate, tracking);
	bpf_program__set_autoload(skel->progs.track_exit, tracking);
	bpf_map__set_max_entries(skel->maps.waits,
				 tracking ? TRACKING_TABLE_SIZE : 1);
}

static int bpf_read_tasks(struct backend *b, const struct read_filter *f,
			  struct task_list *out);

/*
 * The mode @mode asks for (auto: sched_info where the kernel keeps
 * last_queued, else tracking), or -ENOTSUP with what the kernel lacks.
 */
static int choose_mode(unsigned int *mode, char *err, size_t errlen)
{
	bool has_sched_info;
	int ret;

	ret = probe_kernel(&has_sched_info, err, errlen);
	if (ret)
		return ret;
	if (*mode == STARVD_MODE_AUTO)
		*mode = has_sched_info ? STARVD_MODE_SCHED_INFO :
					 STARVD_MODE_TRACKING;
	if (*mode == STARVD_MODE_SCHED_INFO && !has_sched_info) {
		snprintf(err, errlen,
			 "this kernel does not keep task->sched_info.last_queued (CONFIG_SCHED_INFO is off): use --bpf-mode tracking or auto");
		return -ENOTSUP;
	}
	return 0;
}

/*
 * Why no softirqs are read: bpf/softirqs.bpf.c reads a per-CPU variable
 * that must be in the kernel's BTF (which Linux 5.11 added) and in
 * kallsyms (CONFIG_KALLSYMS_ALL); libbpf looks for the ones the kernel's
 * BTF lacks in the modules' BTF, which needs CAP_SYS_ADMIN. Without the
 * variable in the BTF the object loads and finds none; else it does not
 * load.
 */
static const char no_softirq_vars[] =
	"this kernel's BTF or kallsyms lack the per-CPU variable that holds them (BTF of per-CPU variables: Linux 5.11; CONFIG_KALLSYMS_ALL), or starvd lacked CAP_SYS_ADMIN at start";

/*
 * bpf/pending.bpf.c's iterator, linked into the object: @optional 1
 * with it, 0 without. Where the object does not load with it, it is
 * loaded without: it is not needed to detect or boost, and a report
 * says what it could not read, and why.
 */
static void configure_pending(struct bpf_backend *p, int optional)
{
	bpf_program__set_autoload(p->skel->progs.pending_work, optional >= 1);
}

static void pending_not_loaded(struct bpf_backend *p, int ret)
{
	snprintf(p->no_work, sizeof(p->no_work),
		 "the BPF program that reads it does not load here (%s; STARVD_LIBBPF_DEBUG=1 shows why)",
		 strerror(-ret));
}

/*
 * bpf/softirqs.bpf.c, an object of its own (it says why), and the
 * iterators of both readers.
 */
static void attach_pending(struct bpf_backend *p, int optional)
{
	LIBBPF_OPTS(bpf_object_open_opts, opts);

	if (optional >= 1) {
		p->work_link = bpf_program__attach_iter(
			p->skel->progs.pending_work, NULL);
		if (!p->work_link)
			snprintf(p->no_work, sizeof(p->no_work),
				 "cannot create its task iterator: %s",
				 strerror(errno));
	}
	snprintf(p->no_softirqs, sizeof(p->no_softirqs), "%s",
		 no_softirq_vars);
	opts.btf_custom_path = btf_custom_path();
	p->softirqs = softirqs_bpf__open_opts(&opts);
	if (p->softirqs && softirqs_bpf__load(p->softirqs)) {
		softirqs_bpf__destroy(p->softirqs);
		p->softirqs = NULL;
	}
	if (!p->softirqs)
		return;
	p->softirqs_link = bpf_program__attach_iter(
		p->softirqs->progs.pending_softirqs, NULL);
	if (!p->softirqs_link)
		snprintf(p->no_softirqs, sizeof(p->no_softirqs),
			 "cannot create its task iterator: %s",
			 strerror(errno));
}

/* Open, configure, load and attach the programs of @mode; the iterator. */
static int load_programs(struct backend *b, struct bpf_backend *p,
			 unsigned int mode, char *err, size_t errlen)
{
	LIBBPF_OPTS(bpf_object_open_opts, opts);
	int ret, optional = 1;

	opts.btf_custom_path = btf_custom_path();
	for (;;) {
		p->skel = starvd_bpf__open_opts(&opts);
		if (!p->skel) {
			ret = -errno;
			snprintf(err, errlen,
				 "cannot open the BPF object: %s (does this kernel have BTF? /sys/kernel/btf/vmlinux)",
				 strerror(-ret));
			return ret;
		}
		configure(p->skel, mode);
		configure_pending(p, optional);
		ret = starvd_bpf__load(p->skel);
		if (!ret || ret == -EPERM || ret == -EACCES || !optional)
			break;
		/* Without what a report can do without, then try again. */
		starvd_bpf__destroy(p->skel);
		p->skel = NULL;
		pending_not_loaded(p, ret);
		optional--;
	}
	if (ret && (ret == -EPERM || ret == -EACCES) && b->lacking_caps[0]) {
		snprintf(err, errlen,
			 "cannot load the BPF programs: %s: %s. Run it as root with CAP_BPF and CAP_PERFMON (or CAP_SYS_ADMIN).",
			 strerror(-ret), b->lacking_caps);
		return ret;
	}
	if (ret) {
		snprintf(err, errlen,
			 "cannot load the BPF programs: %s (run as root, or with CAP_BPF and CAP_PERFMON; set STARVD_LIBBPF_DEBUG=1 for the verifier log)",
			 strerror(-ret));
		return ret;
	}
	ret = starvd_bpf__attach(p->skel);
	if (ret) {
		snprintf(err, errlen,
			 "cannot attach the BPF programs: %s (a kernel with BPF trampolines, 5.5 or later, is needed)",
			 strerror(-ret));
		return ret;
	}
	p->iter_link = bpf_program__attach_iter(p->skel->progs.dump_tasks,
						NULL);
	if (!p->iter_link) {
		ret = -errno;
		snprintf(err, errlen, "cannot create the task iterator: %s",
			 strerror(-ret));
		return ret;
	}
	attach_pending(p, optional);
	return 0;
}

/*
 * A read calibrates against the reader's wake from a sleep since the
 * previous read: a first read makes the programs know the reader, then
 * it sleeps, until a read has calibrated (sched_info mode; in tracking
 * mode one read that works is enough).
 */
static int first_reads(struct backend *b, struct bpf_backend *p,
		       unsigned int mode, char *err, size_t errlen)
{
	bool calibrate = mode == STARVD_MODE_SCHED_INFO;
	struct task_list first = {};
	int ret, i;

	for (i = 0; i < 100; i++) {
		ret = bpf_read_tasks(b, NULL, &first);
		if (ret || !calibrate || p->skel->bss->prog_state.offset)
			break;
		usleep(1000);
	}
	task_list_free(&first);
	if (!ret && calibrate && !p->skel->bss->prog_state.offset)
		ret = -ETIME;
	if (ret)
		snprintf(err, errlen, "cannot read the task iterator%s: %s",
			 ret == -ETIME ? " (the scheduler clock could not be calibrated; try --bpf-mode tracking)" : "",
			 strerror(-ret));
	return ret;
}

static int bpf_open(struct backend *b, unsigned int mode, char *err,
		    size_t errlen)
{
	struct rlimit rl = { RLIM_INFINITY, RLIM_INFINITY };
	struct bpf_backend *p;
	int ret;

	libbpf_set_print(libbpf_quiet);
	/* Kernels >= 5.11 account BPF memory to cgroups: failure is fine. */
	setrlimit(RLIMIT_MEMLOCK, &rl);

	ret = choose_mode(&mode, err, errlen);
	if (ret)
		return ret;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	b->priv = p;
	ret = load_programs(b, p, mode, err, errlen);
	if (!ret)
		ret = first_reads(b, p, mode, err, errlen);
	if (ret) {
		b->ops->close(b);
		return ret;
	}
	snprintf(b->display_name, sizeof(b->display_name), "bpf (%s mode)",
		 mode == STARVD_MODE_TRACKING ? "tracking" : "sched_info");
	return 0;
}

/* This thread's context switches so far (voluntary + involuntary). */
static uint64_t own_switches(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_THREAD, &ru))
		return 0;
	return ru.ru_nvcsw + ru.ru_nivcsw;
}

/*
 * The per-read inputs. The reader's switch count, then the time: the
 * programs check that the reader was not switched out after it took
 * them (see calibrate() in bpf/starvd.bpf.c).
 */
static void set_input(struct starvd_bpf *skel, const struct read_filter *f)
{
	struct starvd_bpf_input *in = &skel->bss->input;

	in->min_wait_ns = f ? f->min_wait_ns : 0;
	in->cpu_filter = f && f->cpus;
	if (f && f->cpus) {
		_Static_assert(sizeof(in->cpu_mask) == sizeof(f->cpus->bits),
			       "cpu mask size");
		memcpy(in->cpu_mask, f->cpus->bits, sizeof(in->cpu_mask));
	}
	in->nr_switches = own_switches();
	in->now_ns = now_ns();
}

/* All of one pass of the iterator @link into p->buf: its length, -errno. */
static ssize_t read_iter(struct bpf_backend *p, struct bpf_link *link)
{
	size_t len = 0;
	ssize_t n;
	int fd, ret = 0;

	fd = bpf_iter_create(bpf_link__fd(link));
	if (fd < 0)
		return -errno;
	for (;;) {
		grow_array((void **)&p->buf, &p->buf_cap, len + 65536, 1);
		n = read(fd, p->buf + len, p->buf_cap - len);
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			ret = -errno;
			break;
		}
		if (n == 0)
			break;
		len += n;
	}
	close(fd);
	return ret ? ret : (ssize_t)len;
}

static int bpf_read_tasks(struct backend *b, const struct read_filter *f,
			  struct task_list *out)
{
	struct bpf_backend *p = b->priv;
	const struct starvd_read_hdr *hdr;
	ssize_t len;
	size_t i;

	set_input(p->skel, f);
	len = read_iter(p, p->iter_link);
	if (len < 0)
		return len;
	if ((size_t)len < sizeof(*hdr))
		return -EIO;
	hdr = (const void *)p->buf;
	out->n = 0;
	out->read_time_ns = hdr->read_time_ns;
	for (i = sizeof(*hdr); i + sizeof(struct starvd_task) <= (size_t)len;
	     i += sizeof(struct starvd_task))
		task_list_add(out, (const void *)(p->buf + i));
	return 0;
}

static int bpf_read_pending(struct backend *b, unsigned int tid,
			    bool softirqs, struct task_pending *out)
{
	struct bpf_backend *p = b->priv;
	struct bpf_link *link = softirqs ? p->softirqs_link : p->work_link;
	ssize_t len;
	int ret;

	memset(out, 0, sizeof(*out));
	if (!link) {
		out->unknown = softirqs ? p->no_softirqs : p->no_work;
		return -ENOTSUP;
	}
	if (softirqs)
		p->softirqs->bss->softirqs_tid = tid;
	else
		p->skel->bss->pending_tid = tid;
	len = read_iter(p, link);
	if (len < 0) {
		snprintf(p->read_error, sizeof(p->read_error),
			 "reading its task iterator failed: %s",
			 strerror((int)-len));
		out->unknown = p->read_error;
		return len;
	}
	ret = pending_parse(p->buf, len, tid, out);
	if (!ret && softirqs && !out->softirqs_read)
		out->unknown = no_softirq_vars;
	return ret;
}

/*
 * nr_dropped: tracking mode's table overflows. nr_events stays 0: with
 * nothing attached to the scheduler in sched_info mode there is nothing
 * counting them (see docs/design.md, "The BPF backend and its clock").
 */
static int bpf_read_counters(struct backend *b, struct starvd_cpu *cpus,
			     int nr_cpus)
{
	struct bpf_backend *p = b->priv;
	int fd = bpf_map__fd(p->skel->maps.track_counts);
	int n = libbpf_num_possible_cpus(), cpu, ret = 0;
	struct starvd_bpf_cpu *s;
	__u32 zero = 0;

	if (n < 0)
		return n;
	s = calloc(n, sizeof(*s));
	if (!s)
		return -ENOMEM;
	if (bpf_map_lookup_elem(fd, &zero, s))
		ret = -errno;
	for (cpu = 0; !ret && cpu < n && cpu < nr_cpus; cpu++)
		cpus[cpu].nr_dropped = s[cpu].nr_dropped;
	free(s);
	return ret;
}

static void bpf_close(struct backend *b)
{
	struct bpf_backend *p = b->priv;

	if (!p)
		return;
	bpf_link__destroy(p->work_link);
	bpf_link__destroy(p->softirqs_link);
	softirqs_bpf__destroy(p->softirqs);
	bpf_link__destroy(p->iter_link);
	starvd_bpf__destroy(p->skel);
	free(p->buf);
	free(p);
	b->priv = NULL;
}

/*
 * Before Linux 6.5, with unprivileged BPF disabled (Debian's default),
 * reading the iterator and the counters needs CAP_BPF (CAP_SYS_ADMIN
 * before 5.8); since, nothing.
 */
static const uint64_t bpf_read_caps_tries[] = {
	0,
	CAP_BIT(CAP_BPF),
	CAP_BIT(CAP_BPF) | CAP_BIT(CAP_SYS_ADMIN),
};

const struct backend_ops bpf_backend_ops = {
	.name = "bpf",
	.open_caps = CAP_BIT(CAP_BPF) | CAP_BIT(CAP_PERFMON),
	.open_caps_alt = CAP_BIT(CAP_SYS_ADMIN),
	.read_caps_tries = bpf_read_caps_tries,
	.nr_read_caps_tries = ARRAY_SIZE(bpf_read_caps_tries),
	.read_caps_why = "BPF reads on this kernel",
	.open = bpf_open,
	.read_tasks = bpf_read_tasks,
	.read_counters = bpf_read_counters,
	.read_pending = bpf_read_pending,
	.close = bpf_close,
};
