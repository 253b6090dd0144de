// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Capabilities after start-up. Each backend declares what it needs
 * (struct backend_ops); where that depends on the kernel (the BPF backend:
 * since Linux 6.5 reading the iterator link and looking up a map by fd
 * need no capability; before, with unprivileged BPF disabled, every bpf()
 * call needs CAP_BPF, CAP_SYS_ADMIN before 5.8) it is measured by reading
 * with each of its candidates, not assumed.
 *
 * libcap's cap_set_proc() changes the calling thread only: starvd has one.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/prctl.h>

#include "caps.h"
#include "capset.h"
#include "log.h"
#include "stack.h"
#include "util.h"

int caps_check_start(const struct config *cfg)
{
	char why[512];

	if (cfg->log_only ||
	    (capset_effective() & CAP_BIT(CAP_SYS_NICE)))
		return 0;
	capset_explain(CAP_BIT(CAP_SYS_NICE), why, sizeof(why));
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
	for (i = 0; i < capset_nr(); i++) {
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

/*
 * The least a read of @b needs besides @keep, of the candidates its
 * backend declares, by trying them in order.
 */
static int probe_reads(struct backend *b, uint64_t keep, uint64_t *extra)
{
	const struct backend_ops *ops = b->ops;
	size_t i;
	int ret = 0;

	for (i = 0; i < ops->nr_read_caps_tries; i++) {
		ret = set_effective(keep | ops->read_caps_tries[i]);
		if (!ret)
			ret = backend_try_read(b);
		if (!ret) {
			*extra = ops->read_caps_tries[i];
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
	capset_names(mask, names, sizeof(names));
	snprintf(buf + off, len - off, "%s%s (%s)", off ? ", " : "", names,
		 why);
}

/* What the run loop uses, of the permitted set @prm, and what for. */
struct kept_caps {
	uint64_t nice, kstack, lock;	/* boosts, --kstack, --mlock */
	uint64_t stacks, user_stacks;	/* --stacks, -v */
	uint64_t reads;			/* the backend's read_caps */
	uint64_t probed;		/* one of its read_caps_tries */
	char why_probed[128];
};

static const char *read_why(const struct backend *b)
{
	return b->ops->read_caps_why ? b->ops->read_caps_why : "reads";
}

/*
 * Debian's kernels (and Ubuntu's) carry a patch that makes
 * kernel.perf_event_paranoid 3 their default, at which perf_event_open()
 * asks for CAP_SYS_ADMIN whatever else the caller holds; upstream
 * kernels treat 3 as 2.
 */
static bool perf_paranoid_asks_admin(void)
{
	char buf[16];
	long v;

	return read_line("/proc/sys/kernel/perf_event_paranoid", buf,
			 sizeof(buf)) >= 0 &&
	       !parse_int(buf, 3, 1000, &v);
}

/*
 * Holder stacks (stack.h): a perf event on another task, with kernel
 * frames, needs perfmon_capable(): CAP_PERFMON, or CAP_SYS_ADMIN on
 * kernels before 5.8, which do not know CAP_PERFMON, and on kernels at
 * kernel.perf_event_paranoid 3 (docs/design.md, "Threat model"). User
 * frames read /proc/PID/maps of the holder, which for another user's
 * task needs CAP_SYS_PTRACE.
 */
static void stack_caps(const struct config *cfg, uint64_t prm,
		       struct kept_caps *k)
{
	if (capset_nr() > CAP_PERFMON && !perf_paranoid_asks_admin())
		k->stacks = CAP_BIT(CAP_PERFMON) & prm;
	else
		k->stacks = CAP_BIT(CAP_SYS_ADMIN) & prm;
	if (!cfg->no_user_stacks && stacks_unwind_supported())
		k->user_stacks = CAP_BIT(CAP_SYS_PTRACE) & prm;
}

static uint64_t kept_caps(const struct config *cfg, struct backend *b,
			  uint64_t prm, struct kept_caps *k)
{
	uint64_t keep, probed = 0;
	int ret;

	*k = (struct kept_caps) {};
	if (!cfg->log_only)
		k->nice = CAP_BIT(CAP_SYS_NICE) & prm;
	if (cfg->kstack)
		k->kstack = (CAP_BIT(CAP_SYS_ADMIN) | CAP_BIT(CAP_SYS_PTRACE) |
			     CAP_BIT(CAP_DAC_READ_SEARCH)) & prm;
	if (cfg->mlock || cfg->mlock_required)
		k->lock = CAP_BIT(CAP_IPC_LOCK) & prm;
	if (cfg->stacks)
		stack_caps(cfg, prm, k);
	k->reads = b->ops->read_caps & prm;
	snprintf(k->why_probed, sizeof(k->why_probed), "%s", read_why(b));
	keep = k->nice | k->reads | k->kstack | k->lock | k->stacks |
	       k->user_stacks;
	if (!b->ops->nr_read_caps_tries)
		return keep;
	ret = probe_reads(b, keep, &probed);
	if (ret) {
		/* Unexpected: keep running, with what it has. */
		snprintf(k->why_probed, sizeof(k->why_probed),
			 "a %s read failed without them: %s", b->ops->name,
			 strerror(-ret));
		probed = prm;
	}
	k->probed = probed & prm & ~keep;
	return keep | k->probed;
}

/* The bounding set: @keep (needs CAP_SETPCAP in the effective set). */
static int drop_bounding(uint64_t keep)
{
	int i, ret;

	for (i = 0; i < capset_nr(); i++) {
		if ((keep & CAP_BIT(i)) || cap_get_bound(i) != 1)
			continue;
		if (cap_drop_bound(i)) {
			ret = -errno;
			log_err("cannot drop capability %d from the bounding set: %s",
				i, strerror(-ret));
			return -1;
		}
	}
	return 0;
}

/* Effective and permitted: @keep; inheritable and ambient: nothing. */
static int keep_only(uint64_t keep)
{
	cap_t c = cap_init();
	int i, ret;

	if (!c) {
		log_err("cannot drop capabilities: %s", strerror(errno));
		return -1;
	}
	for (i = 0; i < capset_nr(); i++) {
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
	return 0;
}

static void log_kept(const struct backend *b, const struct kept_caps *k,
		     bool bound)
{
	char kept[512] = "";

	add_kept(kept, sizeof(kept), k->nice, "boosts");
	add_kept(kept, sizeof(kept), k->reads, read_why(b));
	add_kept(kept, sizeof(kept), k->kstack, "--kstack");
	add_kept(kept, sizeof(kept), k->lock, "--mlock");
	add_kept(kept, sizeof(kept), k->stacks, "holder stacks");
	add_kept(kept, sizeof(kept), k->user_stacks, "holder user stacks");
	add_kept(kept, sizeof(kept), k->probed, k->why_probed);
	log_msg("capabilities: kept %s; dropped %s from the effective, permitted, inheritable%s sets; no_new_privs set",
		kept[0] ? kept : "none", kept[0] ? "the others" : "all",
		bound ? ", ambient and bounding" :
		" and ambient (not the bounding set: no CAP_SETPCAP)");
}

int caps_drop(const struct config *cfg, struct backend *b)
{
	uint64_t prm = capset_permitted(), keep;
	bool bound = prm & CAP_BIT(CAP_SETPCAP);
	struct kept_caps k;

	keep = kept_caps(cfg, b, prm, &k);
	/* Dropping from the bounding set needs CAP_SETPCAP: first. */
	set_effective(~0ULL);
	if ((bound && drop_bounding(keep)) || keep_only(keep))
		return -1;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) {
		log_err("cannot set no_new_privs: %s", strerror(errno));
		return -1;
	}
	log_kept(b, &k, bound);
	if (cfg->kstack && !(k.kstack & CAP_BIT(CAP_SYS_ADMIN)))
		log_msg("--kstack: no CAP_SYS_ADMIN, so /proc/PID/stack cannot be read and reports carry no kernel stack; under starvd.service add the drop-in of starvd(8), \"The systemd unit\"");
	return 0;
}
