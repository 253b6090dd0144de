// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "capset.h"
#include "util.h"

#ifdef STARVD_NO_BPF
static int no_bpf_open(struct backend *b, unsigned int mode, char *err,
		       size_t errlen)
{
	/* Say what the kernel lacks too: that is why such builds exist. */
	if (access("/sys/kernel/btf/vmlinux", R_OK))
		snprintf(err, errlen,
			 "the kernel lacks BTF (/sys/kernel/btf/vmlinux: CONFIG_DEBUG_INFO_BTF, Linux 5.4 or later), and this starvd was built without BPF support (BPF=0)");
	else
		snprintf(err, errlen,
			 "this starvd was built without BPF support (BPF=0)");
	return -ENOTSUP;
}

const struct backend_ops bpf_backend_ops = {
	.name = "bpf",
	.open = no_bpf_open,
};
#endif

static int try_open(struct backend *b, const struct backend_ops *ops,
		    unsigned int bpf_mode, char *err, size_t errlen)
{
	memset(b, 0, sizeof(*b));
	b->ops = ops;
	b->nr_cpus = cpus_possible();
	snprintf(b->display_name, sizeof(b->display_name), "%s", ops->name);
	capset_explain_missing(ops->open_caps, ops->open_caps_alt,
			       b->lacking_caps, sizeof(b->lacking_caps));
	return ops->open(b, bpf_mode, err, errlen);
}

/*
 * stalld's "-b sched_debug": the module is its equivalent here; without
 * it, BPF as -b auto would pick, with one line saying what to do.
 */
static int open_sched_debug(struct backend *b, unsigned int bpf_mode,
			    char *err, size_t errlen)
{
	char bpf_err[512], nl_err[512];
	int ret;

	ret = try_open(b, &netlink_backend_ops, bpf_mode, nl_err,
		       sizeof(nl_err));
	if (!ret)
		return 0;
	ret = try_open(b, &bpf_backend_ops, bpf_mode, bpf_err,
		       sizeof(bpf_err));
	if (!ret) {
		snprintf(b->fallback_note, sizeof(b->fallback_note),
			 "-b sched_debug: the starvd kernel module is not available (%.300s); using the BPF backend instead, as -b auto does: to use the module install starvd-dkms (or dkms install starvd) and load it (modprobe starvd); or set -b auto",
			 nl_err);
		return 0;
	}
	snprintf(err, errlen,
		 "no backend is available for -b sched_debug (the kernel module, else BPF):\nnetlink backend: %s\nBPF backend: %s",
		 nl_err, bpf_err);
	return ret;
}

int backend_open(struct backend *b, enum backend_kind kind,
		 unsigned int bpf_mode, char *err, size_t errlen)
{
	char bpf_err[512], nl_err[512];
	int ret;

	switch (kind) {
	case BACKEND_BPF:
		return try_open(b, &bpf_backend_ops, bpf_mode, err, errlen);
	case BACKEND_NETLINK:
		return try_open(b, &netlink_backend_ops, bpf_mode, err, errlen);
	case BACKEND_NETLINK_OR_BPF:
		return open_sched_debug(b, bpf_mode, err, errlen);
	case BACKEND_AUTO:
		break;
	}
	ret = try_open(b, &bpf_backend_ops, bpf_mode, bpf_err,
		       sizeof(bpf_err));
	if (!ret)
		return 0;
	ret = try_open(b, &netlink_backend_ops, bpf_mode, nl_err,
		       sizeof(nl_err));
	if (!ret) {
		snprintf(b->display_name + strlen(b->display_name),
			 sizeof(b->display_name) - strlen(b->display_name),
			 " (BPF unavailable)");
		/* For the daemon's log: why not BPF, and that it fell back. */
		snprintf(b->fallback_note, sizeof(b->fallback_note),
			 "the BPF backend is unavailable, using the kernel module (netlink) instead: %s",
			 bpf_err);
		return 0;
	}
	/* Each says why it failed and what to do. */
	snprintf(err, errlen,
		 "no backend is available (-b auto tried both):\nBPF backend: %s\nnetlink backend: %s",
		 bpf_err, nl_err);
	return ret;
}

void backend_close(struct backend *b)
{
	if (b->ops)
		b->ops->close(b);
	b->ops = NULL;
}

int backend_read_cpus(struct backend *b, const struct task_list *l,
		      struct starvd_cpu *cpus)
{
	task_list_cpus(l, cpus, b->nr_cpus);
	return b->ops->read_counters(b, cpus, b->nr_cpus);
}

int backend_try_read(struct backend *b)
{
	struct task_list l = {};
	struct starvd_cpu *cpus;
	int ret;

	ret = backend_read_tasks(b, NULL, &l);
	if (!ret) {
		cpus = calloc(b->nr_cpus, sizeof(*cpus));
		ret = cpus ? backend_read_cpus(b, &l, cpus) : -ENOMEM;
		free(cpus);
	}
	task_list_free(&l);
	return ret;
}

int backend_read_pending(struct backend *b, unsigned int tid, bool softirqs,
			 struct task_pending *out)
{
	memset(out, 0, sizeof(*out));
	if (!b->ops->read_pending) {
		out->unknown = b->ops->no_pending;
		return -EOPNOTSUPP;
	}
	return b->ops->read_pending(b, tid, softirqs, out);
}
