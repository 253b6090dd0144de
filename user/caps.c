// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Capabilities after start-up. What the BPF backend needs per read is
 * measured, not assumed: since Linux 6.5 reading the iterator link and
 * looking up a map by fd need no capability; before, with unprivileged
 * BPF disabled (kernel.unprivileged_bpf_disabled, Debian's default) every
 * bpf() call needs CAP_BPF (CAP_SYS_ADMIN before 5.8).
 *
 * libcap's cap_set_proc() changes the calling thread only: starvd has one.
 */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "caps.h"
#include "log.h"
#include "util.h"

#define CAP_BIT(c)	(1ULL << (c))

/* Capabilities the running kernel knows (CAP_BPF came in 5.8). */
static int nr_caps(void)
{
	int n = cap_max_bits();

	return n > 64 ? 64 : n;
}

static uint64_t proc_caps(cap_flag_t flag)
{
	cap_t c = cap_get_proc();
	cap_flag_value_t v;
	uint64_t mask = 0;
	int i;

	if (!c)
		return 0;
	for (i = 0; i < nr_caps(); i++)
		if (!cap_get_flag(c, i, flag, &v) && v == CAP_SET)
			mask |= CAP_BIT(i);
	cap_free(c);
	return mask;
}

static uint64_t bounding_caps(void)
{
	uint64_t mask = 0;
	int i;

	for (i = 0; i < nr_caps(); i++)
		if (cap_get_bound(i) == 1)
			mask |= CAP_BIT(i);
	return mask;
}

/* "CAP_BPF", "CAP_BPF and CAP_PERFMON", "CAP_A, CAP_B and CAP_C". */
static void cap_names(uint64_t mask, char *buf, size_t len)
{
	int i, n = __builtin_popcountll(mask), k = 0;
	size_t off = 0;

	buf[0] = '\0';
	for (i = 0; i < 64 && off < len; i++) {
		char *name, *p;

		if (!(mask & CAP_BIT(i)))
			continue;
		name = cap_to_name(i);
		for (p = name; p && *p; p++)
			*p = toupper((unsigned char)*p);
		off += snprintf(buf + off, len - off, "%s%s",
				!k ? "" : k == n - 1 ? " and " : ", ",
				name ? name : "?");
		cap_free(name);
		k++;
	}
}

/* Which of @missing this process lacks, and why. */
static void explain(uint64_t missing, char *buf, size_t len)
{
	char names[192];

	cap_names(missing, names, sizeof(names));
	if (geteuid())
		snprintf(buf, len,
			 "this process lacks %s (it runs as uid %u, not as root)",
			 names, (unsigned int)geteuid());
	else if (missing & ~bounding_caps())
		snprintf(buf, len,
			 "this process runs as root but lacks %s (missing from its capability bounding set, e.g. removed by a container runtime, setpriv or systemd's CapabilityBoundingSet=)",
			 names);
	else
		snprintf(buf, len,
			 "this process runs as root but lacks %s in its effective capabilities",
			 names);
}

bool caps_explain_bpf(char *buf, size_t len)
{
	uint64_t eff = proc_caps(CAP_EFFECTIVE), missing;

	buf[0] = '\0';
	if (eff & CAP_BIT(CAP_SYS_ADMIN))
		return false;
	if (nr_caps() <= CAP_BPF)
		missing = CAP_BIT(CAP_SYS_ADMIN);
	else
		missing = (CAP_BIT(CAP_BPF) | CAP_BIT(CAP_PERFMON)) & ~eff;
	if (!missing)
		return false;
	explain(missing, buf, len);
	return true;
}

int caps_check_start(const struct config *cfg)
{
	char why[512];

	if (cfg->log_only ||
	    (proc_caps(CAP_EFFECTIVE) & CAP_BIT(CAP_SYS_NICE)))
		return 0;
	explain(CAP_BIT(CAP_SYS_NICE), why, sizeof(why));
	log_err("root needed: boosting other tasks needs CAP_SYS_NICE, and %s. Run starvd as root (the BPF backend also needs CAP_BPF and CAP_PERFMON), or pass -l/--log_only to only report.",
		why);
	return -1;
}

/* Effective set: @mask within the permitted set, which stays as it is. */
static int set_effective(uint64_t mask)
{
	cap_t c = cap_get_proc();
	cap_flag_value_t v;
	int i, ret = 0;

	if (!c)
		return -errno;
	cap_clear_flag(c, CAP_EFFECTIVE);
	for (i = 0; i < nr_caps(); i++) {
		cap_value_t cap = i;

		if ((mask & CAP_BIT(i)) &&
		    !cap_get_flag(c, cap, CAP_PERMITTED, &v) && v == CAP_SET)
			cap_set_flag(c, CAP_EFFECTIVE, 1, &cap, CAP_SET);
	}
	if (cap_set_proc(c))
		ret = -errno;
	cap_free(c);
	return ret;
}

/* One read as the run loop does it: the waiters, then the counters. */
static int read_once(struct backend *b)
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

/* The least a read of the BPF backend needs besides @keep, by trying. */
static int probe_bpf(struct backend *b, uint64_t keep, uint64_t *extra)
{
	const uint64_t tries[] = {
		0,
		CAP_BIT(CAP_BPF),
		CAP_BIT(CAP_BPF) | CAP_BIT(CAP_SYS_ADMIN),
	};
	size_t i;
	int ret = 0;

	for (i = 0; i < ARRAY_SIZE(tries); i++) {
		ret = set_effective(keep | tries[i]);
		if (!ret)
			ret = read_once(b);
		if (!ret) {
			*extra = tries[i];
			break;
		}
		if (ret != -EPERM && ret != -EACCES)
			break;
	}
	set_effective(~0ULL);
	return ret;
}

static void add_kept(char *buf, size_t len, uint64_t mask, const char *why)
{
	size_t off = strlen(buf);
	char names[192];

	if (!mask || off >= len)
		return;
	cap_names(mask, names, sizeof(names));
	snprintf(buf + off, len - off, "%s%s (%s)", off ? ", " : "", names,
		 why);
}

int caps_drop(const struct config *cfg, struct backend *b)
{
	uint64_t prm = proc_caps(CAP_PERMITTED), keep, bpf = 0;
	uint64_t nice = 0, net = 0, kstack = 0, lock = 0;
	char kept[512] = "", why_bpf[128] = "BPF reads on this kernel";
	bool bound = prm & CAP_BIT(CAP_SETPCAP);
	cap_t c;
	int i, ret;

	if (!cfg->log_only)
		nice = CAP_BIT(CAP_SYS_NICE) & prm;
	if (b->ops == &netlink_backend_ops)
		net = CAP_BIT(CAP_NET_ADMIN) & prm;
	if (cfg->kstack)
		kstack = (CAP_BIT(CAP_SYS_ADMIN) | CAP_BIT(CAP_SYS_PTRACE) |
			  CAP_BIT(CAP_DAC_READ_SEARCH)) & prm;
	if (cfg->mlock || cfg->mlock_required)
		lock = CAP_BIT(CAP_IPC_LOCK) & prm;
	keep = nice | net | kstack | lock;
	if (b->ops == &bpf_backend_ops) {
		ret = probe_bpf(b, keep, &bpf);
		if (ret) {
			/* Unexpected: keep running, with what it has. */
			snprintf(why_bpf, sizeof(why_bpf),
				 "a BPF read failed without them: %s",
				 strerror(-ret));
			bpf = prm;
		}
		bpf &= prm & ~keep;
		keep |= bpf;
	}

	/* Dropping from the bounding set needs CAP_SETPCAP: first. */
	set_effective(~0ULL);
	for (i = 0; bound && i < nr_caps(); i++) {
		if ((keep & CAP_BIT(i)) || cap_get_bound(i) != 1)
			continue;
		if (cap_drop_bound(i)) {
			ret = -errno;
			log_err("cannot drop capability %d from the bounding set: %s",
				i, strerror(-ret));
			return -1;
		}
	}
	c = cap_init();
	if (!c) {
		log_err("cannot drop capabilities: %s", strerror(errno));
		return -1;
	}
	for (i = 0; i < nr_caps(); i++) {
		cap_value_t cap = i;

		if (!(keep & CAP_BIT(i)))
			continue;
		cap_set_flag(c, CAP_EFFECTIVE, 1, &cap, CAP_SET);
		cap_set_flag(c, CAP_PERMITTED, 1, &cap, CAP_SET);
	}
	ret = cap_set_proc(c) ? -errno : 0;
	cap_free(c);
	if (ret) {
		log_err("cannot drop the capabilities starvd no longer needs: %s",
			strerror(-ret));
		return -1;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) {
		log_err("cannot set no_new_privs: %s", strerror(errno));
		return -1;
	}

	add_kept(kept, sizeof(kept), nice, "boosts");
	add_kept(kept, sizeof(kept), net, "kernel module queries");
	add_kept(kept, sizeof(kept), kstack, "--kstack");
	add_kept(kept, sizeof(kept), lock, "--mlock");
	add_kept(kept, sizeof(kept), bpf, why_bpf);
	log_msg("capabilities: kept %s; dropped %s from the effective, permitted, inheritable%s sets; no_new_privs set",
		kept[0] ? kept : "none", kept[0] ? "the others" : "all",
		bound ? ", ambient and bounding" :
		" and ambient (not the bounding set: no CAP_SETPCAP)");
	return 0;
}
