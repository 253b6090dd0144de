// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * nlcheck: raw generic-netlink client for testing kmod/starvd.ko. No
 * libnl, so that the requests can be as wrong as a test needs and the
 * tool builds for the 32-bit guest with plain gcc -m32.
 *
 *   nlcheck info          print the module's GET_INFO reply
 *   nlcheck malformed     send malformed requests, TAP result per case
 *   nlcheck eperm         expect every command to be refused with EPERM
 *   nlcheck loop SECONDS [PAUSE_MS]  query in a loop, tolerating the family
 *                         going away, pausing between queries; SIGTERM ends
 *                         it early, as a normal end
 *   nlcheck bigdump N     N spinning threads; one dump must return them all
 *   nlcheck records N [refused]  N spinning threads; every record of a
 *                         get-tasks and a get-cpus dump must be a task that
 *                         exists (/proc/TID) on a CPU that exists; with
 *                         "refused", both dumps must instead be refused
 *                         with EAGAIN (the module's fault_snap_overflow)
 *   nlcheck bench THREADS ITER  get-tasks dump vs debugfs sched/debug
 *   nlcheck pipe SECONDS  pipe ping-pong round trips per second
 *   nlcheck slab          objects in use in the kmalloc caches (see below)
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <starvd/abi.h>
#include <starvd/starvd.h>

/* The largest attribute value of the top-level attribute sets. */
#define NL_ATTR_MAX	STARVD_A_CPUS_MAX

#define BUFSZ (1 << 20)

static int sock_fd = -1;
static uint32_t seq = 1;
static uint8_t *rxbuf;

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void nl_open_sock(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	int one = 1;

	if (sock_fd >= 0)
		close(sock_fd);
	sock_fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (sock_fd < 0 || bind(sock_fd, (void *)&sa, sizeof(sa))) {
		perror("nlcheck: netlink socket");
		exit(2);
	}
	/* Extended ack messages, so failures can print the kernel's reason. */
	setsockopt(sock_fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	if (!rxbuf)
		rxbuf = malloc(BUFSZ);
}

struct req {
	struct nlmsghdr nh;
	struct genlmsghdr gh;
	uint8_t attrs[256];
};

static size_t put_attr(uint8_t *p, uint16_t type, const void *data,
		       uint16_t len)
{
	struct nlattr *a = (struct nlattr *)p;

	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + len;
	memcpy(p + NLA_HDRLEN, data, len);
	return NLA_ALIGN(a->nla_len);
}

/* Send @len bytes of @r (nlmsg_len already set by the caller or here). */
static int send_raw(struct req *r, size_t len)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };

	r->nh.nlmsg_seq = ++seq;
	if (sendto(sock_fd, r, len, 0, (void *)&sa, sizeof(sa)) < 0)
		return -errno;
	return 0;
}

static void init_req(struct req *r, uint16_t family, uint8_t cmd,
		     uint16_t flags)
{
	memset(r, 0, sizeof(*r));
	r->nh.nlmsg_type = family;
	r->nh.nlmsg_flags = NLM_F_REQUEST | flags;
	r->gh.cmd = cmd;
	r->gh.version = 1;
}

typedef int (*msg_cb)(struct nlmsghdr *nh, void *arg);

/*
 * Receive replies to the last request until an error/ack or NLMSG_DONE.
 * Returns 0 or the negative errno the kernel answered with; @cb sees
 * every data message. The extended ack text goes to @why if not NULL.
 */
static int recv_replies(msg_cb cb, void *arg, char *why, size_t whylen)
{
	if (why)
		why[0] = '\0';
	for (;;) {
		ssize_t n = recv(sock_fd, rxbuf, BUFSZ, 0);
		struct nlmsghdr *nh;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		for (nh = (void *)rxbuf; NLMSG_OK(nh, n); nh = NLMSG_NEXT(nh, n)) {
			if (nh->nlmsg_seq != seq)
				continue;
			if (nh->nlmsg_type == NLMSG_DONE)
				return 0;
			if (nh->nlmsg_type == NLMSG_ERROR) {
				struct nlmsgerr *e = NLMSG_DATA(nh);
				size_t off = NLMSG_HDRLEN + sizeof(*e);
				struct nlattr *a;

				if (!(nh->nlmsg_flags & NLM_F_CAPPED))
					off += e->msg.nlmsg_len - NLMSG_HDRLEN;
				while (why && off + NLA_HDRLEN <= nh->nlmsg_len) {
					a = (void *)((uint8_t *)nh + off);
					if (a->nla_len < NLA_HDRLEN)
						break;
					if (a->nla_type == NLMSGERR_ATTR_MSG)
						snprintf(why, whylen, "%s",
							 (char *)a + NLA_HDRLEN);
					off += NLA_ALIGN(a->nla_len);
				}
				return e->error;
			}
			if (cb && cb(nh, arg))
				return -EPROTO;
		}
	}
}

static uint16_t family_id;

static int on_family(struct nlmsghdr *nh, void *arg)
{
	struct genlmsghdr *gh = NLMSG_DATA(nh);
	struct nlattr *a = (void *)((uint8_t *)gh + GENL_HDRLEN);
	int len = nh->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN;

	while (len >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN) {
		if (a->nla_type == CTRL_ATTR_FAMILY_ID)
			*(uint16_t *)arg = *(uint16_t *)((uint8_t *)a + NLA_HDRLEN);
		len -= NLA_ALIGN(a->nla_len);
		a = (void *)((uint8_t *)a + NLA_ALIGN(a->nla_len));
	}
	return 0;
}

/* 0 and family_id set, or -ENOENT when the module is not loaded. */
static int resolve(void)
{
	struct req r;
	size_t len;
	int ret;

	init_req(&r, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, NLM_F_ACK);
	len = put_attr(r.attrs, CTRL_ATTR_FAMILY_NAME, STARVD_FAMILY_NAME,
		       sizeof(STARVD_FAMILY_NAME));
	r.nh.nlmsg_len = NLMSG_HDRLEN + GENL_HDRLEN + len;
	family_id = 0;
	ret = send_raw(&r, r.nh.nlmsg_len);
	if (!ret)
		ret = recv_replies(on_family, &family_id, NULL, 0);
	if (!ret && !family_id)
		ret = -ENOENT;
	return ret;
}

static void need_family(void)
{
	int ret = resolve();

	if (ret) {
		fprintf(stderr,
			"nlcheck: generic netlink family '%s' not found (%s): load the module first (modprobe starvd)\n",
			STARVD_FAMILY_NAME, strerror(-ret));
		exit(2);
	}
}

/* Attribute @type of a top-level starvd message, or NULL. */
static struct nlattr *find_attr(struct nlmsghdr *nh, int type)
{
	struct nlattr *a = (void *)((uint8_t *)NLMSG_DATA(nh) + GENL_HDRLEN);
	int len = nh->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN;

	while (len >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN) {
		/* Nests carry NLA_F_NESTED (nla_nest_start() from 5.2). */
		if ((a->nla_type & NLA_TYPE_MASK) == type)
			return a;
		len -= NLA_ALIGN(a->nla_len);
		a = (void *)((uint8_t *)a + NLA_ALIGN(a->nla_len));
	}
	return NULL;
}

static void *attr_data(struct nlattr *a)
{
	return (uint8_t *)a + NLA_HDRLEN;
}

static int print_info(struct nlmsghdr *nh, void *arg)
{
	struct nlattr *v = find_attr(nh, STARVD_A_INFO_VERSION);
	struct nlattr *abi = find_attr(nh, STARVD_A_INFO_ABI_VERSION);
	struct nlattr *cpus = find_attr(nh, STARVD_A_INFO_NR_CPUS);
	struct nlattr *clk = find_attr(nh, STARVD_A_INFO_CLOCK);

	if (!v || !abi || !cpus || !clk)
		return -1;
	printf("version %s abi %u cpus %u clock %s\n", (char *)attr_data(v),
	       *(uint32_t *)attr_data(abi), *(uint32_t *)attr_data(cpus),
	       (char *)attr_data(clk));
	*(int *)arg = 1;
	return 0;
}

static int do_request(uint8_t cmd, uint16_t flags, msg_cb cb, void *arg,
		      char *why, size_t whylen)
{
	struct req r;
	int ret;

	init_req(&r, family_id, cmd, flags | NLM_F_ACK);
	r.nh.nlmsg_len = NLMSG_HDRLEN + GENL_HDRLEN;
	ret = send_raw(&r, r.nh.nlmsg_len);
	return ret ? ret : recv_replies(cb, arg, why, whylen);
}

static int cmd_info(void)
{
	char why[256];
	int got = 0, ret;

	need_family();
	ret = do_request(STARVD_CMD_GET_INFO, 0, print_info, &got, why,
			 sizeof(why));
	if (ret || !got) {
		fprintf(stderr, "nlcheck: GET_INFO failed: %s %s\n",
			strerror(-ret), why);
		return 1;
	}
	return 0;
}

struct dump_stats {
	unsigned int msgs, bad;
	uint64_t read_time;
	bool mixed_time;
};

static int count_msg(struct nlmsghdr *nh, void *arg)
{
	struct dump_stats *s = arg;
	struct nlattr *t = find_attr(nh, STARVD_A_TASKS_READ_TIME);
	uint64_t rt;

	if (!t) {
		s->bad++;
		return 0;
	}
	memcpy(&rt, attr_data(t), sizeof(rt));
	if (s->msgs && rt != s->read_time)
		s->mixed_time = true;
	s->read_time = rt;
	s->msgs++;
	return 0;
}

static int dump(uint8_t cmd, struct dump_stats *s)
{
	memset(s, 0, sizeof(*s));
	return do_request(cmd, NLM_F_DUMP, count_msg, s, NULL, 0);
}

static int tap_n;
static int tap_failed;

static void tap(bool ok, const char *desc, int ret, const char *why)
{
	printf("%sok %d - %s", ok ? "" : "not ", ++tap_n, desc);
	if (!ok || why[0])
		printf(" # got %d (%s)%s%s", ret, ret ? strerror(-ret) : "ok",
		       why[0] ? ": " : "", why);
	printf("\n");
	if (!ok)
		tap_failed++;
}

/* Send @r (length @len) and expect the kernel to answer @want. */
static void expect(const char *desc, struct req *r, size_t len, int want)
{
	char why[256];
	int ret = send_raw(r, len);

	if (!ret)
		ret = recv_replies(NULL, NULL, why, sizeof(why));
	else
		why[0] = '\0';
	tap(ret == want, desc, ret, why);
}

static int cmd_malformed(void)
{
	struct dump_stats s;
	struct req r;
	uint8_t u8v = 1;
	uint32_t u32v = 1;
	uint64_t u64v = 1;
	size_t len;
	char why[256] = "";
	int ret, got = 0;

	need_family();

	init_req(&r, family_id, STARVD_CMD_GET_TASKS, NLM_F_DUMP | NLM_F_ACK);
	len = put_attr(r.attrs, STARVD_A_TASKS_FILTER_CPU, &u8v, 1);
	r.nh.nlmsg_len = NLMSG_HDRLEN + GENL_HDRLEN + len;
	expect("filter-cpu as u8 is rejected", &r, r.nh.nlmsg_len, -EINVAL);

	init_req(&r, family_id, STARVD_CMD_GET_TASKS, NLM_F_DUMP | NLM_F_ACK);
	len = put_attr(r.attrs, STARVD_A_TASKS_FILTER_MIN_WAIT, &u32v, 4);
	r.nh.nlmsg_len = NLMSG_HDRLEN + GENL_HDRLEN + len;
	expect("min-wait as u32 is rejected", &r, r.nh.nlmsg_len, -EINVAL);

	init_req(&r, family_id, STARVD_CMD_GET_TASKS, NLM_F_DUMP | NLM_F_ACK);
	len = put_attr(r.attrs, NL_ATTR_MAX + 5, &u32v, 4);
	r.nh.nlmsg_len = NLMSG_HDRLEN + GENL_HDRLEN + len;
	expect("unknown attribute type is rejected", &r, r.nh.nlmsg_len,
	       -EINVAL);

	init_req(&r, family_id, STARVD_CMD_GET_INFO, NLM_F_ACK);
	len = put_attr(r.attrs, STARVD_A_TASKS_FILTER_CPU, &u32v, 4);
	r.nh.nlmsg_len = NLMSG_HDRLEN + GENL_HDRLEN + len;
	expect("get-info rejects filter-cpu (it takes no attribute)", &r,
	       r.nh.nlmsg_len, -EINVAL);

	init_req(&r, family_id, STARVD_CMD_GET_CPUS, NLM_F_DUMP | NLM_F_ACK);
	len = put_attr(r.attrs, STARVD_A_TASKS_FILTER_MIN_WAIT, &u64v, 8);
	r.nh.nlmsg_len = NLMSG_HDRLEN + GENL_HDRLEN + len;
	expect("get-cpus rejects filter-min-wait (a get-tasks filter)", &r,
	       r.nh.nlmsg_len, -EINVAL);

	init_req(&r, family_id, STARVD_CMD_GET_TASKS, NLM_F_DUMP | NLM_F_ACK);
	len = put_attr(r.attrs, STARVD_A_CPUS_NR_WAITERS, &u32v, 4);
	r.nh.nlmsg_len = NLMSG_HDRLEN + GENL_HDRLEN + len;
	expect("reply-only attribute in a request is rejected", &r,
	       r.nh.nlmsg_len, -EINVAL);

	init_req(&r, family_id, STARVD_CMD_GET_TASKS, NLM_F_DUMP | NLM_F_ACK);
	u32v = 1000000;
	len = put_attr(r.attrs, STARVD_A_TASKS_FILTER_CPU, &u32v, 4);
	r.nh.nlmsg_len = NLMSG_HDRLEN + GENL_HDRLEN + len;
	expect("filter on a CPU that does not exist is rejected", &r,
	       r.nh.nlmsg_len, -EINVAL);

	init_req(&r, family_id, STARVD_CMD_GET_TASKS, NLM_F_DUMP | NLM_F_ACK);
	len = put_attr(r.attrs, STARVD_A_TASKS_FILTER_MIN_WAIT, &u64v, 8);
	((struct nlattr *)r.attrs)->nla_len = 200;
	r.nh.nlmsg_len = NLMSG_HDRLEN + GENL_HDRLEN + len;
	expect("attribute longer than the message is rejected", &r,
	       r.nh.nlmsg_len, -EINVAL);

	init_req(&r, family_id, 42, NLM_F_ACK);
	r.nh.nlmsg_len = NLMSG_HDRLEN + GENL_HDRLEN;
	expect("unknown command is rejected", &r, r.nh.nlmsg_len,
	       -EOPNOTSUPP);

	init_req(&r, family_id, 0, NLM_F_ACK);
	r.nh.nlmsg_len = NLMSG_HDRLEN + GENL_HDRLEN;
	expect("command 0 is rejected", &r, r.nh.nlmsg_len, -EOPNOTSUPP);

	init_req(&r, family_id, STARVD_CMD_GET_TASKS, NLM_F_ACK);
	r.nh.nlmsg_len = NLMSG_HDRLEN + GENL_HDRLEN;
	expect("get-tasks without NLM_F_DUMP is rejected", &r,
	       r.nh.nlmsg_len, -EOPNOTSUPP);

	init_req(&r, family_id, STARVD_CMD_GET_INFO, NLM_F_ACK);
	r.nh.nlmsg_len = NLMSG_HDRLEN + 2;
	expect("truncated genetlink header is rejected", &r, r.nh.nlmsg_len,
	       -EINVAL);

	init_req(&r, family_id, STARVD_CMD_GET_INFO, NLM_F_ACK);
	r.gh.reserved = 1;
	r.nh.nlmsg_len = NLMSG_HDRLEN + GENL_HDRLEN;
	expect("non-zero reserved header field is rejected", &r,
	       r.nh.nlmsg_len, -EINVAL);

	/* The module must still answer properly after all that. */
	ret = do_request(STARVD_CMD_GET_INFO, 0, print_info, &got, why,
			 sizeof(why));
	tap(!ret && got, "get-info still answers", ret, why);
	ret = dump(STARVD_CMD_GET_CPUS, &s);
	why[0] = '\0';
	tap(!ret && s.msgs >= 1 && !s.bad && !s.mixed_time,
	    "get-cpus dump: one message per CPU with one read time", ret,
	    why);
	ret = dump(STARVD_CMD_GET_TASKS, &s);
	tap(!ret && s.msgs >= 1 && !s.bad && !s.mixed_time,
	    "get-tasks dump: at least this task, one read time", ret, why);
	printf("# %d of %d malformed-request checks failed\n", tap_failed,
	       tap_n);
	return tap_failed ? 1 : 0;
}

static int cmd_eperm(void)
{
	struct dump_stats s;
	char why[256];
	int ret, got = 0;

	need_family();
	ret = do_request(STARVD_CMD_GET_INFO, 0, print_info, &got, why,
			 sizeof(why));
	tap(ret == -EPERM, "get-info refused with EPERM", ret, why);
	ret = dump(STARVD_CMD_GET_TASKS, &s);
	why[0] = '\0';
	tap(ret == -EPERM && !s.msgs, "get-tasks refused with EPERM", ret,
	    why);
	ret = dump(STARVD_CMD_GET_CPUS, &s);
	tap(ret == -EPERM && !s.msgs, "get-cpus refused with EPERM", ret,
	    why);
	return tap_failed ? 1 : 0;
}

static volatile sig_atomic_t loop_stop;

static void on_term(int sig)
{
	loop_stop = 1;
}

/*
 * Query until @secs pass or SIGTERM comes; the module may be unloaded
 * meanwhile. Get-tasks and get-cpus dumps in turn, @pause_ms apart.
 */
static int cmd_loop(int secs, int pause_ms)
{
	uint64_t end = mono_ns() + secs * 1000000000ULL;
	unsigned long ok = 0, gone = 0;
	struct dump_stats s;
	int ret;

	signal(SIGTERM, on_term);
	while (mono_ns() < end && !loop_stop) {
		if (pause_ms)
			usleep(pause_ms * 1000);
		ret = resolve();
		if (ret == -ENOENT) {
			gone++;
			continue;
		}
		if (ret)
			goto bad;
		ret = dump(ok & 1 ? STARVD_CMD_GET_CPUS : STARVD_CMD_GET_TASKS,
			   &s);
		/*
		 * The family may vanish between resolve and dump; a dump
		 * that starts while the module is going away gets
		 * EPROTONOSUPPORT from netlink_dump_start().
		 */
		if (ret == -ENOENT || ret == -EOPNOTSUPP ||
		    ret == -EPROTONOSUPPORT) {
			gone++;
			continue;
		}
		if (ret)
			goto bad;
		ok++;
	}
	printf("loop: %lu dumps, %lu times without the family\n", ok, gone);
	return 0;
bad:
	fprintf(stderr, "nlcheck: unexpected error in the query loop: %s\n",
		strerror(-ret));
	return 1;
}

static volatile bool stop_spin;
/*
 * Spinners wait here until all of them exist: spinning at once, each
 * would take its share of the CPUs from the thread creating the rest
 * (quadratic: minutes for 600 under TCG).
 */
static pthread_barrier_t spin_gate;

static void *spin(void *arg)
{
	pthread_barrier_wait(&spin_gate);
	while (!stop_spin)
		;
	return NULL;
}

/* Sleepers block in read() until stop_threads() closes the write end. */
static int sleep_pipe[2] = { -1, -1 };

static void *sleeper(void *arg)
{
	char c;

	while (read(sleep_pipe[0], &c, 1) < 0 && errno == EINTR)
		;
	return NULL;
}

static pthread_t *start_threads(int n, void *(*fn)(void *))
{
	pthread_t *t = calloc(n, sizeof(*t));
	pthread_attr_t at;
	int i;

	pthread_attr_init(&at);
	pthread_attr_setstacksize(&at, 64 * 1024);
	for (i = 0; i < n; i++) {
		if (pthread_create(&t[i], &at, fn, NULL)) {
			fprintf(stderr, "nlcheck: cannot create thread %d of %d (ulimit -u, memory?)\n",
				i, n);
			exit(2);
		}
	}
	return t;
}

static void stop_threads(pthread_t *t, int n)
{
	int i;

	stop_spin = true;
	if (sleep_pipe[1] >= 0) {
		close(sleep_pipe[1]);
		sleep_pipe[1] = -1;
	}
	for (i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	free(t);
	stop_spin = false;
}

static int cmd_bigdump(int n)
{
	pthread_t *t;
	struct dump_stats s;
	int ret;

	need_family();
	pthread_barrier_init(&spin_gate, NULL, n + 1);
	t = start_threads(n, spin);
	pthread_barrier_wait(&spin_gate);
	usleep(300000);
	ret = dump(STARVD_CMD_GET_TASKS, &s);
	stop_threads(t, n);
	pthread_barrier_destroy(&spin_gate);
	/* All but the threads on a CPU wait; allow a few to be switching. */
	printf("%sok 1 - get-tasks dump of %d spinning threads returned %u messages, one read time%s\n",
	       !ret && s.msgs + 8 >= (unsigned int)n && !s.mixed_time ? "" :
	       "not ", n, s.msgs, s.mixed_time ? " (NOT)" : "");
	return !ret && s.msgs + 8 >= (unsigned int)n && !s.mixed_time ? 0 : 1;
}

/* What the records of one dump held that no task could. */
struct record_check {
	uint32_t nr_cpus;
	unsigned int records, bad;
	char first_bad[128];
};

/* Check one STARVD_A_TASK_* nest: an existing thread on an existing CPU. */
static void check_task(struct nlattr *nest, struct record_check *c)
{
	struct nlattr *a = (void *)((uint8_t *)nest + NLA_HDRLEN);
	int len = nest->nla_len - NLA_HDRLEN;
	int64_t tid = -1, cpu = -1;
	char path[32];

	while (len >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN &&
	       a->nla_len <= len) {
		int type = a->nla_type & NLA_TYPE_MASK;

		if (type == STARVD_A_TASK_TID && a->nla_len == NLA_HDRLEN + 4)
			tid = *(uint32_t *)attr_data(a);
		if (type == STARVD_A_TASK_CPU && a->nla_len == NLA_HDRLEN + 4)
			cpu = *(int32_t *)attr_data(a);
		len -= NLA_ALIGN(a->nla_len);
		a = (void *)((uint8_t *)a + NLA_ALIGN(a->nla_len));
	}
	c->records++;
	snprintf(path, sizeof(path), "/proc/%lld", (long long)tid);
	if (tid > 0 && cpu >= 0 && cpu < c->nr_cpus && !access(path, F_OK))
		return;
	if (!c->bad++)
		snprintf(c->first_bad, sizeof(c->first_bad),
			 "tid %lld on cpu %lld", (long long)tid,
			 (long long)cpu);
}

static int check_msg(struct nlmsghdr *nh, void *arg)
{
	struct genlmsghdr *gh = NLMSG_DATA(nh);
	struct nlattr *t;

	t = find_attr(nh, gh->cmd == STARVD_CMD_GET_CPUS ? STARVD_A_CPUS_CURR :
		      STARVD_A_TASKS_TASK);
	if (t)
		check_task(t, arg);
	return 0;
}

static int get_nr_cpus(struct nlmsghdr *nh, void *arg)
{
	struct nlattr *a = find_attr(nh, STARVD_A_INFO_NR_CPUS);

	if (!a)
		return -1;
	*(uint32_t *)arg = *(uint32_t *)attr_data(a);
	return 0;
}

/*
 * With @n threads spinning, dump get-tasks and get-cpus: every record
 * must be an existing thread on a CPU below get-info's nr-cpus or, when
 * @refused, each dump must be refused with EAGAIN and nothing else.
 */
static int cmd_records(int n, bool refused)
{
	static const struct {
		uint8_t cmd;
		const char *name;
	} dumps[] = {
		{ STARVD_CMD_GET_TASKS, "get-tasks" },
		{ STARVD_CMD_GET_CPUS, "get-cpus" },
	};
	struct record_check c = { 0 };
	char why[256], desc[256];
	pthread_t *t;
	unsigned int i;
	int ret;

	need_family();
	ret = do_request(STARVD_CMD_GET_INFO, 0, get_nr_cpus, &c.nr_cpus, why,
			 sizeof(why));
	if (ret || !c.nr_cpus) {
		fprintf(stderr, "nlcheck: GET_INFO failed: %s %s\n",
			strerror(-ret), why);
		return 2;
	}
	pthread_barrier_init(&spin_gate, NULL, n + 1);
	t = start_threads(n, spin);
	pthread_barrier_wait(&spin_gate);
	for (i = 0; i < sizeof(dumps) / sizeof(dumps[0]); i++) {
		c.records = 0;
		c.bad = 0;
		c.first_bad[0] = '\0';
		ret = do_request(dumps[i].cmd, NLM_F_DUMP, check_msg, &c, why,
				 sizeof(why));
		if (refused) {
			snprintf(desc, sizeof(desc),
				 "%s dump with every walk overflowing is refused with EAGAIN (%u records, %u not a task on a CPU%s%s)",
				 dumps[i].name, c.records, c.bad,
				 c.bad ? ": first " : "", c.first_bad);
			tap(ret == -EAGAIN && !c.records, desc, ret, why);
		} else {
			snprintf(desc, sizeof(desc),
				 "%s dump: all %u records are tasks that exist on CPUs that exist (%u not%s%s)",
				 dumps[i].name, c.records, c.bad,
				 c.bad ? ": first " : "", c.first_bad);
			tap(!ret && c.records && !c.bad, desc, ret, why);
		}
	}
	stop_threads(t, n);
	pthread_barrier_destroy(&spin_gate);
	return tap_failed ? 1 : 0;
}

static uint64_t time_debugfs(void)
{
	uint64_t t0 = mono_ns();
	int fd = open("/sys/kernel/debug/sched/debug", O_RDONLY);
	ssize_t n;

	if (fd < 0) {
		perror("nlcheck: /sys/kernel/debug/sched/debug (mount debugfs)");
		exit(2);
	}
	do {
		n = read(fd, rxbuf, BUFSZ);
	} while (n > 0);
	close(fd);
	return mono_ns() - t0;
}

static int cmd_bench(int threads, int iter)
{
	uint64_t nl = 0, dbg = 0, t0;
	struct dump_stats s;
	pthread_t *t;
	int i, ret;

	need_family();
	if (pipe(sleep_pipe)) {
		perror("nlcheck: pipe");
		return 2;
	}
	t = start_threads(threads, sleeper);
	usleep(200000);
	for (i = 0; i < iter; i++) {
		t0 = mono_ns();
		ret = dump(STARVD_CMD_GET_TASKS, &s);
		nl += mono_ns() - t0;
		if (ret) {
			fprintf(stderr, "nlcheck: dump failed: %s\n",
				strerror(-ret));
			return 1;
		}
		dbg += time_debugfs();
	}
	stop_threads(t, threads);
	printf("bench: %d threads: get-tasks dump %.3f ms, sched/debug read %.3f ms, ratio dump/debugfs %.3f\n",
	       threads, nl / 1e6 / iter, dbg / 1e6 / iter, (double)nl / dbg);
	return 0;
}

/*
 * For the module-reload leak check: the objects in use in the plain
 * kmalloc caches, where the module's GFP_KERNEL allocations and
 * genetlink's go (not the -cg-, -rcl- and dma- ones), one line per cache
 * and a total. SLUB counts the objects of per-CPU slabs as in use, so each
 * cache is shrunk first (which flushes them); of 5 passes the smallest
 * count is kept, the least disturbed by whatever else runs. Done here,
 * not in the shell, so that no fork or exec runs between the passes.
 */
#define SLAB_MAX 64

static bool plain_kmalloc(const char *name)
{
	const char *p = name + strlen("kmalloc-");

	if (strncmp(name, "kmalloc-", strlen("kmalloc-")))
		return false;
	if (!strncmp(p, "rnd-", 4)) {	/* kmalloc-rnd-NN-SIZE */
		p = strchr(p + 4, '-');
		if (!p)
			return false;
		p++;
	}
	return *p >= '0' && *p <= '9';
}

static int cmd_slab(void)
{
	static char name[SLAB_MAX][64];
	static unsigned long min[SLAB_MAX];
	unsigned long total = 0, active;
	int n = 0, pass, i;
	char line[512], path[160];
	FILE *f;

	for (pass = 0; pass < 5; pass++) {
		for (i = 0; i < n; i++) {
			int fd;

			snprintf(path, sizeof(path), "/sys/kernel/slab/%.63s/shrink",
				 name[i]);
			fd = open(path, O_WRONLY);
			if (fd >= 0) {
				(void)!write(fd, "1", 1);
				close(fd);
			}
		}
		f = fopen("/proc/slabinfo", "r");
		if (!f) {
			perror("nlcheck: /proc/slabinfo (run as root)");
			return 2;
		}
		while (fgets(line, sizeof(line), f)) {
			char cache[64];

			if (sscanf(line, "%63s %lu", cache, &active) != 2 ||
			    !plain_kmalloc(cache))
				continue;
			for (i = 0; i < n; i++)
				if (!strcmp(name[i], cache))
					break;
			if (i == n) {
				if (n == SLAB_MAX)
					continue;
				snprintf(name[n], sizeof(name[n]), "%s", cache);
				min[n++] = active;
			}
			if (active < min[i])
				min[i] = active;
		}
		fclose(f);
		/* The first pass only learns the names: shrink, then count. */
		if (pass == 0)
			for (i = 0; i < n; i++)
				min[i] = ULONG_MAX;
	}
	for (i = 0; i < n; i++) {
		printf("%s %lu\n", name[i], min[i]);
		total += min[i];
	}
	printf("total %lu\n", total);
	return 0;
}

static int cmd_pipe(int secs)
{
	int a[2], b[2];
	unsigned long n = 0;
	uint64_t t0, end;
	char c = 0;
	pid_t pid;

	if (pipe(a) || pipe(b)) {
		perror("nlcheck: pipe");
		return 2;
	}
	pid = fork();
	if (pid == 0) {
		while (read(a[0], &c, 1) == 1)
			if (write(b[1], &c, 1) != 1)
				break;
		_exit(0);
	}
	t0 = mono_ns();
	end = t0 + secs * 1000000000ULL;
	while (mono_ns() < end) {
		if (write(a[1], &c, 1) != 1 || read(b[0], &c, 1) != 1)
			break;
		n++;
	}
	close(a[1]);
	waitpid(pid, NULL, 0);
	printf("pipe: %.0f round trips/s\n", n / ((mono_ns() - t0) / 1e9));
	return 0;
}

static int usage(void)
{
	fprintf(stderr,
		"usage: nlcheck info|malformed|eperm|loop SECONDS [PAUSE_MS]|bigdump N|records N [refused]|bench THREADS ITER|pipe SECONDS|slab\n");
	return 2;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 2)
		return usage();
	if (!strcmp(argv[1], "pipe") && argc == 3)
		return cmd_pipe(atoi(argv[2]));
	if (!strcmp(argv[1], "slab") && argc == 2)
		return cmd_slab();
	nl_open_sock();
	if (!strcmp(argv[1], "info"))
		return cmd_info();
	if (!strcmp(argv[1], "malformed"))
		return cmd_malformed();
	if (!strcmp(argv[1], "eperm"))
		return cmd_eperm();
	if (!strcmp(argv[1], "loop") && (argc == 3 || argc == 4))
		return cmd_loop(atoi(argv[2]), argc == 4 ? atoi(argv[3]) : 0);
	if (!strcmp(argv[1], "bigdump") && argc == 3)
		return cmd_bigdump(atoi(argv[2]));
	if (!strcmp(argv[1], "records") &&
	    (argc == 3 || (argc == 4 && !strcmp(argv[3], "refused"))))
		return cmd_records(atoi(argv[2]), argc == 4);
	if (!strcmp(argv[1], "bench") && argc == 4)
		return cmd_bench(atoi(argv[2]), atoi(argv[3]));
	return usage();
}
