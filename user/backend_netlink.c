// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Netlink backend: asks kmod/starvd.ko over its generic-netlink family
 * (include/starvd/starvd.yaml, numbered in the generated
 * include/starvd/starvd.h) with libnl-genl-3.
 *
 * Each read is one GET_TASKS dump; the module filters by minimum wait and,
 * when exactly one CPU is monitored, by CPU; other CPU sets are filtered
 * here. The module keeps no event counters (it reads the scheduler's own
 * bookkeeping on request and never drops anything), so nr_events and
 * nr_dropped come back 0 from its GET_CPUS dump.
 *
 * The module may be unloaded and loaded again under a running starvd
 * (an upgrade, a test): genetlink then gives the family a new id. A
 * request that fails resolves the family again and, when it is back,
 * checks the module's ABI and retries once; while it is gone reads fail
 * with -ENOENT and b->read_error_hint says to load it.
 */
#include <errno.h>
#include <linux/capability.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <netlink/errno.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>

#include <starvd/starvd.h>

#include "backend.h"
#include "backend_netlink.h"
#include "util.h"
#include "version.h"

struct nl_backend {
	struct nl_sock *sk;
	int family;
	/* Context of the request in flight, for the callbacks. */
	struct task_list *tasks;
	const struct read_filter *filter;
	struct starvd_cpu *cpus;
	int nr_cpus;
	uint32_t seq;		/* the request's sequence number */
	char version[32];
	uint32_t abi_version;
	int ret;		/* error found by a callback */
};

/*
 * What the replies may carry, one policy per attribute set of
 * include/starvd/starvd.yaml; selftests/kmod/abi-check.py checks them
 * against it. A string's maxlen counts its NUL.
 */
static struct nla_policy info_policy[STARVD_A_INFO_MAX + 1] = {
	[STARVD_A_INFO_VERSION]		= { .type = NLA_STRING },
	[STARVD_A_INFO_ABI_VERSION]	= { .type = NLA_U32 },
	[STARVD_A_INFO_NR_CPUS]		= { .type = NLA_U32 },
	[STARVD_A_INFO_CLOCK]		= { .type = NLA_STRING },
	[STARVD_A_INFO_READ_TIME]	= { .type = NLA_U64 },
};

static struct nla_policy cpus_policy[STARVD_A_CPUS_MAX + 1] = {
	[STARVD_A_CPUS_READ_TIME]	= { .type = NLA_U64 },
	[STARVD_A_CPUS_CPU]		= { .type = NLA_U32 },
	[STARVD_A_CPUS_NR_WAITERS]	= { .type = NLA_U32 },
	[STARVD_A_CPUS_MAX_WAIT]	= { .type = NLA_U64 },
	[STARVD_A_CPUS_NR_EVENTS]	= { .type = NLA_U64 },
	[STARVD_A_CPUS_NR_DROPPED]	= { .type = NLA_U64 },
	[STARVD_A_CPUS_CURR]		= { .type = NLA_NESTED },
};

static struct nla_policy tasks_policy[STARVD_A_TASKS_MAX + 1] = {
	[STARVD_A_TASKS_READ_TIME]	= { .type = NLA_U64 },
	[STARVD_A_TASKS_TASK]		= { .type = NLA_NESTED },
};

static struct nla_policy task_policy[STARVD_A_TASK_MAX + 1] = {
	[STARVD_A_TASK_TID]		= { .type = NLA_U32 },
	[STARVD_A_TASK_TGID]		= { .type = NLA_U32 },
	[STARVD_A_TASK_CPU]		= { .type = NLA_S32 },
	[STARVD_A_TASK_PRIO]		= { .type = NLA_S32 },
	[STARVD_A_TASK_POLICY]		= { .type = NLA_U32 },
	[STARVD_A_TASK_STATE]		= { .type = NLA_U32 },
	[STARVD_A_TASK_WAIT]		= { .type = NLA_U64 },
	[STARVD_A_TASK_NR_SWITCHES]	= { .type = NLA_U64 },
	[STARVD_A_TASK_COMM]		= { .type = NLA_STRING,
					    .maxlen = STARVD_COMM_LEN },
	[STARVD_A_TASK_FLAGS]		= { .type = NLA_U32 },
};

/* libnl error codes are not errno values. */
static int nlerr_to_errno(int err)
{
	switch (err < 0 ? -err : err) {
	case 0:			return 0;
	case NLE_PERM:		return -EPERM;
	case NLE_NOMEM:		return -ENOMEM;
	case NLE_OBJ_NOTFOUND:	return -ENOENT;
	case NLE_INVAL:		return -EINVAL;
	case NLE_OPNOTSUPP:	return -EOPNOTSUPP;
	case NLE_AGAIN:		return -EAGAIN;
	case NLE_INTR:		return -EINTR;
	case NLE_NOACCESS:	return -EACCES;
	case NLE_MSG_TRUNC:	return -EMSGSIZE;
	default:		return -EIO;
	}
}

static int parse_task(struct nlattr *nest, struct starvd_task *t)
{
	struct nlattr *tb[STARVD_A_TASK_MAX + 1];

	if (nla_parse_nested(tb, STARVD_A_TASK_MAX, nest, task_policy))
		return -EPROTO;
	if (!tb[STARVD_A_TASK_TID] || !tb[STARVD_A_TASK_CPU] ||
	    !tb[STARVD_A_TASK_STATE])
		return -EPROTO;
	memset(t, 0, sizeof(*t));
	t->tid = nla_get_u32(tb[STARVD_A_TASK_TID]);
	t->cpu = nla_get_s32(tb[STARVD_A_TASK_CPU]);
	t->state = nla_get_u32(tb[STARVD_A_TASK_STATE]);
	if (tb[STARVD_A_TASK_TGID])
		t->tgid = nla_get_u32(tb[STARVD_A_TASK_TGID]);
	if (tb[STARVD_A_TASK_PRIO])
		t->prio = nla_get_s32(tb[STARVD_A_TASK_PRIO]);
	if (tb[STARVD_A_TASK_POLICY])
		t->policy = nla_get_u32(tb[STARVD_A_TASK_POLICY]);
	if (tb[STARVD_A_TASK_WAIT])
		t->wait_ns = nla_get_u64(tb[STARVD_A_TASK_WAIT]);
	if (tb[STARVD_A_TASK_NR_SWITCHES])
		t->nr_switches = nla_get_u64(tb[STARVD_A_TASK_NR_SWITCHES]);
	if (tb[STARVD_A_TASK_COMM])
		nla_strlcpy(t->comm, tb[STARVD_A_TASK_COMM], sizeof(t->comm));
	if (tb[STARVD_A_TASK_FLAGS])
		t->flags = nla_get_u32(tb[STARVD_A_TASK_FLAGS]);
	return 0;
}

static int parse_msg(struct nl_msg *msg, struct nlattr **tb, int maxattr,
		     struct nla_policy *policy)
{
	return genlmsg_parse(nlmsg_hdr(msg), 0, tb, maxattr, policy) ?
	       -EPROTO : 0;
}

static int on_info(struct nl_msg *msg, void *arg)
{
	struct nl_backend *p = arg;
	struct nlattr *tb[STARVD_A_INFO_MAX + 1];

	if (parse_msg(msg, tb, STARVD_A_INFO_MAX, info_policy) ||
	    !tb[STARVD_A_INFO_ABI_VERSION]) {
		p->ret = -EPROTO;
		return NL_STOP;
	}
	p->abi_version = nla_get_u32(tb[STARVD_A_INFO_ABI_VERSION]);
	if (tb[STARVD_A_INFO_VERSION])
		nla_strlcpy(p->version, tb[STARVD_A_INFO_VERSION],
			    sizeof(p->version));
	return NL_OK;
}

static int on_task(struct nl_msg *msg, void *arg)
{
	struct nl_backend *p = arg;
	struct nlattr *tb[STARVD_A_TASKS_MAX + 1];
	const struct read_filter *f = p->filter;
	struct starvd_task t;

	if (parse_msg(msg, tb, STARVD_A_TASKS_MAX, tasks_policy) ||
	    !tb[STARVD_A_TASKS_TASK] || parse_task(tb[STARVD_A_TASKS_TASK], &t)) {
		p->ret = -EPROTO;
		return NL_SKIP;
	}
	if (tb[STARVD_A_TASKS_READ_TIME])
		p->tasks->read_time_ns = nla_get_u64(tb[STARVD_A_TASKS_READ_TIME]);
	if (f && f->cpus && !cpuset_test(f->cpus, t.cpu))
		return NL_OK;
	task_list_add(p->tasks, &t);
	return NL_OK;
}

static int on_cpu(struct nl_msg *msg, void *arg)
{
	struct nl_backend *p = arg;
	struct nlattr *tb[STARVD_A_CPUS_MAX + 1];
	uint32_t cpu;

	if (parse_msg(msg, tb, STARVD_A_CPUS_MAX, cpus_policy) ||
	    !tb[STARVD_A_CPUS_CPU]) {
		p->ret = -EPROTO;
		return NL_SKIP;
	}
	cpu = nla_get_u32(tb[STARVD_A_CPUS_CPU]);
	if (cpu >= (uint32_t)p->nr_cpus)
		return NL_OK;
	if (tb[STARVD_A_CPUS_NR_EVENTS])
		p->cpus[cpu].nr_events = nla_get_u64(tb[STARVD_A_CPUS_NR_EVENTS]);
	if (tb[STARVD_A_CPUS_NR_DROPPED])
		p->cpus[cpu].nr_dropped =
			nla_get_u64(tb[STARVD_A_CPUS_NR_DROPPED]);
	return NL_OK;
}

bool nl_from_kernel(const struct sockaddr_nl *src, const struct nlmsghdr *h,
		    uint32_t seq)
{
	return src->nl_pid == 0 && h->nlmsg_seq == seq;
}

/* NL_CB_SEQ_CHECK: anything but the kernel's reply is dropped. */
static int on_reply(struct nl_msg *msg, void *arg)
{
	const struct nl_backend *p = arg;

	return nl_from_kernel(nlmsg_get_src(msg), nlmsg_hdr(msg), p->seq) ?
	       NL_OK : NL_SKIP;
}

/* Send one request and process the replies with @handler. */
static int request(struct nl_backend *p, uint8_t cmd, int flags,
		   const struct read_filter *f,
		   int (*handler)(struct nl_msg *, void *))
{
	struct nl_msg *msg = nlmsg_alloc();
	struct nl_cb *cb = NULL;
	int ret = -ENOMEM;

	if (!msg)
		return -ENOMEM;
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, p->family, 0, flags,
			 cmd, STARVD_FAMILY_VERSION))
		goto out;
	/* Only get-tasks takes filters (read_counters() passes none). */
	if (f && f->min_wait_ns &&
	    nla_put_u64(msg, STARVD_A_TASKS_FILTER_MIN_WAIT, f->min_wait_ns))
		goto out;
	if (f && f->cpus && cpuset_count(f->cpus) == 1) {
		int cpu = 0;

		while (!cpuset_test(f->cpus, cpu))
			cpu++;
		if (nla_put_u32(msg, STARVD_A_TASKS_FILTER_CPU, cpu))
			goto out;
	}
	cb = nl_cb_alloc(NL_CB_DEFAULT);
	if (!cb)
		goto out;
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, handler, p);
	nl_cb_set(cb, NL_CB_SEQ_CHECK, NL_CB_CUSTOM, on_reply, p);
	p->ret = 0;
	ret = nl_send_auto(p->sk, msg);
	p->seq = nlmsg_hdr(msg)->nlmsg_seq;	/* numbered by the send */
	if (ret >= 0)
		ret = nl_recvmsgs(p->sk, cb);
	ret = ret < 0 ? nlerr_to_errno(ret) : p->ret;
out:
	nl_cb_put(cb);
	nlmsg_free(msg);
	return ret;
}

#define EPERM_TEXT "the starvd kernel module refused the query: it needs CAP_NET_ADMIN: run as root"

/*
 * Ask the module (family id in p->family) for its version and ABI; on
 * success set b->display_name, else say in @err what is wrong and what to
 * do.
 */
static int check_module(struct backend *b, char *err, size_t errlen)
{
	struct nl_backend *p = b->priv;
	int ret;

	p->version[0] = '\0';
	p->abi_version = 0;
	ret = request(p, STARVD_CMD_GET_INFO, 0, NULL, on_info);
	if (ret == -EPERM) {
		snprintf(err, errlen, "%s", EPERM_TEXT);
		return ret;
	}
	if (ret) {
		snprintf(err, errlen,
			 "cannot query the starvd kernel module: %s (check dmesg; reload it with 'modprobe -r starvd && modprobe starvd')",
			 strerror(-ret));
		return ret;
	}
	if (p->abi_version != STARVD_ABI_VERSION) {
		snprintf(err, errlen,
			 "the starvd kernel module speaks ABI version %u, this starvd speaks %u: install the module of the same release ('dkms install starvd/%s', then 'modprobe -r starvd && modprobe starvd')",
			 p->abi_version, STARVD_ABI_VERSION, STARVD_VERSION);
		return -EPROTO;
	}
	snprintf(b->display_name, sizeof(b->display_name),
		 "netlink (starvd.ko %s)",
		 p->version[0] ? p->version : "unknown version");
	return 0;
}

/*
 * A request failed with @ret. If the family is gone, say so in
 * b->read_error_hint and return -ENOENT; if it came back under another id
 * (the module was reloaded), check the module again (b->read_error_hint
 * says what is wrong if that fails) and return 0 to retry; otherwise the
 * failure was not about the family: return @ret.
 */
static int reconnect(struct backend *b, int ret)
{
	struct nl_backend *p = b->priv;
	int family;

	if (ret == -EPERM)
		snprintf(b->read_error_hint, sizeof(b->read_error_hint), "%s",
			 EPERM_TEXT);
	if (ret == -EPERM || ret == -ENOMEM || ret == -EINTR)
		return ret;
	family = genl_ctrl_resolve(p->sk, STARVD_FAMILY_NAME);
	if (family < 0) {
		snprintf(b->read_error_hint, sizeof(b->read_error_hint),
			 "the starvd kernel module is not loaded (it was unloaded): load it again with 'modprobe starvd'");
		return -ENOENT;
	}
	if (family == p->family)
		return ret;
	p->family = family;
	ret = check_module(b, b->read_error_hint, sizeof(b->read_error_hint));
	/* Not a module to read from: check it again next time. */
	if (ret)
		p->family = -1;
	return ret;
}

/* request() that follows the module through an unload and a reload. */
static int request_again(struct backend *b, uint8_t cmd, int flags,
			 const struct read_filter *f,
			 int (*handler)(struct nl_msg *, void *))
{
	struct nl_backend *p = b->priv;
	int ret;

	b->read_error_hint[0] = '\0';
	ret = request(p, cmd, flags, f, handler);
	if (!ret)
		return 0;
	ret = reconnect(b, ret);
	if (ret)
		return ret;
	/* A dump to a vanished family id got nothing; start clean anyway. */
	if (p->tasks) {
		p->tasks->n = 0;
		p->tasks->read_time_ns = 0;
	}
	return request(p, cmd, flags, f, handler);
}

int nl_hear_kernel_only(int fd)
{
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };

	return connect(fd, (struct sockaddr *)&kernel, sizeof(kernel)) ?
	       -errno : 0;
}

static void nlb_close(struct backend *b)
{
	struct nl_backend *p = b->priv;

	if (!p)
		return;
	nl_socket_free(p->sk);
	free(p);
	b->priv = NULL;
}

static int nlb_open(struct backend *b, unsigned int mode, char *err,
		   size_t errlen)
{
	struct nl_backend *p;
	int ret;

	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	b->priv = p;
	p->sk = nl_socket_alloc();
	if (!p->sk) {
		ret = -ENOMEM;
		snprintf(err, errlen, "cannot allocate a netlink socket");
		goto fail;
	}
	ret = genl_connect(p->sk);
	ret = ret < 0 ? nlerr_to_errno(ret) :
	      nl_hear_kernel_only(nl_socket_get_fd(p->sk));
	if (ret) {
		snprintf(err, errlen,
			 "cannot open a generic netlink socket: %s (is CONFIG_NET enabled?)",
			 strerror(-ret));
		goto fail;
	}
	/* Dumps of many tasks come in large messages. */
	nl_socket_enable_msg_peek(p->sk);
	/*
	 * A dump ends with its NLMSG_DONE, an ACK would stay queued behind
	 * it. libnl then checks no sequence number: on_reply() does.
	 */
	nl_socket_disable_auto_ack(p->sk);

	p->family = genl_ctrl_resolve(p->sk, STARVD_FAMILY_NAME);
	if (p->family < 0) {
		ret = -ENOENT;
		snprintf(err, errlen,
			 "the starvd kernel module is not loaded (no generic netlink family '%s'): load it with 'modprobe starvd'; if modprobe cannot find it, build and install it first with 'dkms install starvd/%s' (see kmod/README)",
			 STARVD_FAMILY_NAME, STARVD_VERSION);
		goto fail;
	}
	ret = check_module(b, err, errlen);
	if (ret)
		goto fail;
	return 0;
fail:
	nlb_close(b);
	return ret;
}

static int nlb_read_tasks(struct backend *b, const struct read_filter *f,
			 struct task_list *out)
{
	struct nl_backend *p = b->priv;
	uint64_t before = now_ns();
	int ret;

	out->n = 0;
	out->read_time_ns = 0;
	p->tasks = out;
	p->filter = f;
	ret = request_again(b, STARVD_CMD_GET_TASKS, NLM_F_DUMP, f, on_task);
	p->tasks = NULL;
	/*
	 * Every message carries the module's read time; an empty dump has
	 * none. Nothing waited then at the module's read, which came after
	 * @before: reporting the earlier time is the safe side for callers
	 * that sleep until read time + threshold.
	 */
	if (!ret && !out->read_time_ns)
		out->read_time_ns = before;
	return ret;
}

static int nlb_read_counters(struct backend *b, struct starvd_cpu *cpus,
			    int nr_cpus)
{
	struct nl_backend *p = b->priv;

	p->cpus = cpus;
	p->nr_cpus = nr_cpus;
	return request_again(b, STARVD_CMD_GET_CPUS, NLM_F_DUMP, NULL,
			     on_cpu);
}

const struct backend_ops netlink_backend_ops = {
	.name = "netlink",
	.read_caps = CAP_BIT(CAP_NET_ADMIN),	/* the module checks it */
	.read_caps_why = "kernel module queries",
	.open = nlb_open,
	.read_tasks = nlb_read_tasks,
	.read_counters = nlb_read_counters,
	.no_pending = "the kernel module has no access to workqueue pools or to other CPUs' softirq state; the BPF backend (-b bpf) reads them",
	.close = nlb_close,
};
