// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * nlfuzz: throw random and malformed generic-netlink messages at the
 * starvd family of kmod/starvd.ko and check every answer. Raw AF_NETLINK
 * sockets, no libnl, so that any byte can be wrong; builds for the 32-bit
 * guest with plain gcc -m32.
 *
 *   nlfuzz [-s SEED] [-n MESSAGES] [-j WORKERS] [-t SPINNERS]
 *
 * Each message belongs to a category (see cats[] below). For most of them
 * the answer is known and checked exactly: a valid get-info gets one
 * well-formed reply, a valid dump with random filters is complete,
 * consistent and filtered, an unknown command gets EOPNOTSUPP, a bad
 * attribute EINVAL, and so on. Random bytes, mutated requests and bad
 * nlmsg_len values may get any answer, but every answer must be a
 * well-formed netlink message belonging to a request that was sent.
 * Messages are always addressed to the starvd family (or to netlink's own
 * control types below NLMSG_MIN_TYPE): a malformed buffer is cut so that
 * netlink cannot find a second message, of another family, in it.
 *
 * WORKERS processes fuzz at the same time (the family has parallel_ops),
 * each from its own seed derived from SEED; SPINNERS SCHED_IDLE busy
 * threads keep the get-tasks dumps longer than one skb. The sequence of
 * messages depends only on SEED (printed; rerun with -s to get it again).
 * Prints TAP, one line per category, then checks that the module still
 * answers properly. Exit status: 0 all as expected, 1 otherwise, 2 setup
 * error (module not loaded, bad usage).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <starvd/abi.h>
#include <starvd/starvd.h>

/* The largest attribute value of the top-level attribute sets. */
#define NL_ATTR_MAX	STARVD_A_CPUS_MAX
/*
 * The largest attribute type: 14 bits below the two flag bits (the
 * uapi NLA_TYPE_MASK is an int, ~0xc000, with every high bit set).
 */
#define ATTR_TYPE_MAX	((uint16_t)NLA_TYPE_MASK)

#ifndef NLM_F_CAPPED
#define NLM_F_CAPPED	0x100
#endif
#ifndef NLM_F_ACK_TLVS
#define NLM_F_ACK_TLVS	0x200
#endif
#ifndef NETLINK_CAP_ACK
#define NETLINK_CAP_ACK	10
#endif
#ifndef NETLINK_EXT_ACK
#define NETLINK_EXT_ACK	11
#endif

#define BUFSZ		(1 << 20)
#define MSG_MAX		512
#define BATCH_MAX	4
#define MAX_CPUS	1024
#define MAX_ERRNO	160
#define REPORT_MAX	8	/* mismatches printed per worker */
#define ARRAY_LEN(a)	(sizeof(a) / sizeof((a)[0]))

/* Message categories; W_* says what answer is expected. */
enum want { W_ANY, W_ERR, W_INFO, W_TASKS, W_CPUS };

enum cat {
	C_INFO, C_TASKS, C_CPUS, C_BADCMD, C_KIND, C_ATTRLEN, C_ATTRTYPE,
	C_BADCPU, C_NESTED, C_TRUNCATTR, C_TRUNCHDR, C_RESERVED, C_NLMSGLEN,
	C_RANDOM, C_MUTATE, C_ABANDON, C_BATCH, NR_CATS
};

static const struct {
	const char *desc;
	unsigned int weight;
} cats[NR_CATS] = {
	[C_INFO]	= { "get-info, any header version and flags: one correct reply", 8 },
	[C_TASKS]	= { "get-tasks dumps with random valid filters: complete, one read time, filtered", 8 },
	[C_CPUS]	= { "get-cpus dumps with random valid filters: one message per CPU asked", 6 },
	[C_BADCMD]	= { "unknown commands: EOPNOTSUPP", 6 },
	[C_KIND]	= { "get-info as a dump, dumps without NLM_F_DUMP: EOPNOTSUPP", 4 },
	[C_ATTRLEN]	= { "filter attributes of the wrong length: EINVAL", 8 },
	[C_ATTRTYPE]	= { "unknown, reply-only and out-of-range attribute types: EINVAL", 8 },
	[C_BADCPU]	= { "filter on CPUs that do not exist: EINVAL", 4 },
	[C_NESTED]	= { "garbage nested attributes (NLA_F_NESTED): EINVAL", 6 },
	[C_TRUNCATTR]	= { "truncated and overlong attributes, trailing bytes: EINVAL", 6 },
	[C_TRUNCHDR]	= { "truncated genetlink header: EINVAL", 3 },
	[C_RESERVED]	= { "non-zero reserved header byte, reserved or ambiguous nlmsg_flags: EINVAL", 4 },
	[C_NLMSGLEN]	= { "bad nlmsg_len (short, longer than sent), control types: well-formed answers only", 4 },
	[C_RANDOM]	= { "random bytes: well-formed answers only", 8 },
	[C_MUTATE]	= { "valid requests with random bytes and bits changed: well-formed answers only", 12 },
	[C_ABANDON]	= { "dumps abandoned by closing the socket: the worker's socket keeps working", 2 },
	[C_BATCH]	= { "several requests in one send: each answered as alone (or EBUSY behind a dump)", 6 },
};

struct exp {
	uint32_t seq;
	enum cat cat;
	enum want want;
	int err, alt_err;	/* W_ERR: the error; alt_err: also accepted */
	bool ack;		/* W_INFO asked NLM_F_ACK */
	bool tolerant;		/* W_ANY: no answer is wrong */
	int filter_cpu;		/* -1: none */
	uint64_t min_wait;
	/* what came back */
	unsigned int nerr, ndone, ndata;
	int got_err, done_err;
	bool have_time;
	uint64_t read_time;
	uint8_t seen_cpu[MAX_CPUS];
	char bad[200];		/* first problem found in the answer */
	char why[160];		/* extended ack message */
	/* the request, for the report */
	uint8_t req[64];
	size_t req_len;
};

struct stats {
	unsigned long sent[NR_CATS], bad[NR_CATS];
	unsigned long errs[MAX_ERRNO + 1];	/* answers by -error */
	unsigned long replies, strays, max_dump, data_msgs, send_errs;
	int spinning;				/* spinner threads ready */
};

struct worker {
	int id, fd;
	uint64_t rng;
	uint32_t seq;
	uint8_t *buf;
	struct stats *st;
	unsigned int reported;
};

static uint16_t family_id;
static uint32_t nr_cpu_ids_k;		/* the module's STARVD_A_INFO_NR_CPUS */
static int possible[MAX_CPUS], nr_possible;

/* splitmix64: the same sequence on 32- and 64-bit builds. */
static uint64_t rnd(struct worker *w)
{
	uint64_t z = (w->rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint32_t below(struct worker *w, uint32_t n)
{
	return n ? (uint32_t)(rnd(w) % n) : 0;
}

static bool chance(struct worker *w, unsigned int pct)
{
	return below(w, 100) < pct;
}

static int open_sock(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	int one = 1, big = 4 << 20;
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);

	if (fd < 0 || bind(fd, (void *)&sa, sizeof(sa))) {
		perror("nlfuzz: netlink socket");
		exit(2);
	}
	setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	/* Errors without a copy of the (possibly large) request. */
	setsockopt(fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof(big)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
	return fd;
}

/* --- building requests --- */

struct msg {
	uint8_t b[MSG_MAX];
	size_t len;		/* bytes to send */
};

static struct nlmsghdr *m_nh(struct msg *m)
{
	return (struct nlmsghdr *)m->b;
}

static struct genlmsghdr *m_gh(struct msg *m)
{
	return (struct genlmsghdr *)(m->b + NLMSG_HDRLEN);
}

static void m_init(struct msg *m, uint8_t cmd, uint16_t flags,
		   uint8_t version)
{
	memset(m, 0, sizeof(*m));
	m_nh(m)->nlmsg_type = family_id;
	m_nh(m)->nlmsg_flags = NLM_F_REQUEST | flags;
	m_gh(m)->cmd = cmd;
	m_gh(m)->version = version;
	m->len = NLMSG_HDRLEN + GENL_HDRLEN;
}

/* Append an attribute with @len bytes of payload; nla_len as given. */
static void m_attr_raw(struct msg *m, uint16_t type, uint16_t nla_len,
		       const void *data, size_t len)
{
	struct nlattr a = { .nla_len = nla_len, .nla_type = type };

	if (m->len + NLA_HDRLEN + NLA_ALIGN(len) > MSG_MAX)
		return;
	memcpy(m->b + m->len, &a, sizeof(a));
	if (len)
		memcpy(m->b + m->len + NLA_HDRLEN, data, len);
	m->len += NLA_HDRLEN + NLA_ALIGN(len);
}

static void m_attr(struct msg *m, uint16_t type, const void *data,
		   size_t len)
{
	m_attr_raw(m, type, NLA_HDRLEN + len, data, len);
}

static void m_random_bytes(struct worker *w, void *p, size_t len)
{
	uint8_t *b = p;
	size_t i;

	for (i = 0; i < len; i++)
		b[i] = rnd(w);
}

static void m_end(struct msg *m)
{
	m_nh(m)->nlmsg_len = m->len;
}

static void exp_init(struct exp *e, enum cat cat, enum want want, int err)
{
	memset(e, 0, sizeof(*e));
	e->cat = cat;
	e->want = want;
	e->err = err;
	e->filter_cpu = -1;
}

static uint64_t random_wait(struct worker *w)
{
	switch (below(w, 6)) {
	case 0:
		return 0;
	case 1:
		return below(w, 10000000);	/* up to 10 ms */
	case 2:
		return 1000000000ULL;
	case 3:
		return UINT64_MAX;
	case 4:
		return 1;
	default:
		return rnd(w);
	}
}

/*
 * Valid filters, sometimes given twice (netlink keeps the last one):
 * filter-cpu, and filter-min-wait when @min_wait (get-tasks takes both,
 * get-cpus only filter-cpu; STARVD_A_CPUS_FILTER_CPU has the same value).
 */
static void add_valid_filters(struct worker *w, struct msg *m, struct exp *e,
			      bool min_wait)
{
	int i, n = chance(w, 10) ? 2 : 1;

	for (i = 0; i < n; i++) {
		if (chance(w, 50)) {
			uint32_t cpu = possible[below(w, nr_possible)];

			m_attr(m, STARVD_A_TASKS_FILTER_CPU, &cpu, sizeof(cpu));
			e->filter_cpu = cpu;
		}
		if (min_wait && chance(w, 50)) {
			uint64_t v = random_wait(w);

			m_attr(m, STARVD_A_TASKS_FILTER_MIN_WAIT, &v, sizeof(v));
			e->min_wait = v;
		}
	}
}

/* A valid request of a random command; @e says what it gets. */
static void valid_request(struct worker *w, struct msg *m, struct exp *e,
			  int which)
{
	uint8_t version = chance(w, 70) ? STARVD_FAMILY_VERSION : rnd(w);

	if (which < 0)
		which = below(w, 3);
	switch (which) {
	case 0:
		/* The header version is informational in genetlink. */
		exp_init(e, C_INFO, W_INFO, 0);
		e->ack = chance(w, 50);
		m_init(m, STARVD_CMD_GET_INFO, e->ack ? NLM_F_ACK : 0, version);
		/* get-info takes no attributes. */
		e->filter_cpu = -1;
		break;
	case 1:
		exp_init(e, C_TASKS, W_TASKS, 0);
		m_init(m, STARVD_CMD_GET_TASKS,
		       NLM_F_DUMP | (chance(w, 50) ? NLM_F_ACK : 0), version);
		add_valid_filters(w, m, e, true);
		break;
	default:
		exp_init(e, C_CPUS, W_CPUS, 0);
		m_init(m, STARVD_CMD_GET_CPUS,
		       NLM_F_DUMP | (chance(w, 50) ? NLM_F_ACK : 0), version);
		add_valid_filters(w, m, e, false);
		break;
	}
	m_end(m);
}

/* A request of a random valid command and its right flags, no attrs. */
static void any_command(struct worker *w, struct msg *m)
{
	static const uint8_t cmd[] = {
		STARVD_CMD_GET_INFO, STARVD_CMD_GET_TASKS, STARVD_CMD_GET_CPUS
	};
	int i = below(w, 3);

	m_init(m, cmd[i], (i ? NLM_F_DUMP : 0) | NLM_F_ACK,
	       STARVD_FAMILY_VERSION);
}

static void dump_command(struct worker *w, struct msg *m)
{
	m_init(m, chance(w, 50) ? STARVD_CMD_GET_TASKS : STARVD_CMD_GET_CPUS,
	       NLM_F_DUMP | NLM_F_ACK, STARVD_FAMILY_VERSION);
}

/*
 * Make sure netlink finds at most one message in @b: if nlmsg_len leaves
 * room for another header, cut the buffer before it.
 */
static void contain(struct worker *w, uint8_t *b, size_t *len)
{
	struct nlmsghdr nh;
	size_t next;

	if (*len < NLMSG_HDRLEN)
		return;
	memcpy(&nh, b, sizeof(nh));
	if (nh.nlmsg_len < NLMSG_HDRLEN)
		return;			/* netlink stops at it */
	next = NLMSG_ALIGN(nh.nlmsg_len);
	if (next + NLMSG_HDRLEN <= *len)
		*len = next + below(w, NLMSG_HDRLEN);
}

/* Only the starvd family, or netlink's control types. */
static uint16_t fuzz_type(struct worker *w)
{
	return chance(w, 90) ? family_id : below(w, NLMSG_MIN_TYPE);
}

/* Build one message of category @c (not C_ABANDON or C_BATCH). */
static void build(struct worker *w, enum cat c, struct msg *m, struct exp *e)
{
	uint8_t junk[64];
	uint32_t u32;
	uint16_t t;
	size_t n, i;

	switch (c) {
	case C_INFO:
		valid_request(w, m, e, 0);
		break;
	case C_TASKS:
		valid_request(w, m, e, 1);
		break;
	case C_CPUS:
		valid_request(w, m, e, 2);
		break;
	case C_BADCMD:
		exp_init(e, c, W_ERR, -EOPNOTSUPP);
		u32 = below(w, 2) ? 0 : STARVD_CMD_MAX + 1 +
		      below(w, 255 - STARVD_CMD_MAX);
		m_init(m, u32, (chance(w, 50) ? NLM_F_DUMP : 0) | NLM_F_ACK,
		       rnd(w));
		if (chance(w, 30))
			add_valid_filters(w, m, e, true);
		m_end(m);
		break;
	case C_KIND:
		exp_init(e, c, W_ERR, -EOPNOTSUPP);
		if (chance(w, 50))
			m_init(m, STARVD_CMD_GET_INFO, NLM_F_DUMP | NLM_F_ACK,
			       STARVD_FAMILY_VERSION);
		else
			m_init(m, chance(w, 50) ? STARVD_CMD_GET_TASKS :
			       STARVD_CMD_GET_CPUS, NLM_F_ACK,
			       STARVD_FAMILY_VERSION);
		m_end(m);
		break;
	case C_ATTRLEN:
		exp_init(e, c, W_ERR, -EINVAL);
		any_command(w, m);
		m_random_bytes(w, junk, sizeof(junk));
		if (chance(w, 50)) {
			do
				n = below(w, 17);
			while (n == 4);
			m_attr(m, STARVD_A_TASKS_FILTER_CPU, junk, n);
		} else {
			do
				n = below(w, 17);
			while (n == 8);
			m_attr(m, STARVD_A_TASKS_FILTER_MIN_WAIT, junk, n);
		}
		m_end(m);
		break;
	case C_ATTRTYPE:
		exp_init(e, c, W_ERR, -EINVAL);
		any_command(w, m);
		switch (below(w, 4)) {
		case 0:		/* unspec and pad */
			t = below(w, 2);
			break;
		case 1:		/* attributes of replies */
			do
				t = STARVD_A_TASKS_PAD + below(w, NL_ATTR_MAX);
			while (t == STARVD_A_TASKS_FILTER_CPU ||
			       t == STARVD_A_TASKS_FILTER_MIN_WAIT);
			break;
		case 2:
			t = NL_ATTR_MAX + 1 + below(w, 16);
			break;
		default:
			t = NL_ATTR_MAX + 1 + below(w, ATTR_TYPE_MAX -
						     NL_ATTR_MAX);
			break;
		}
		m_random_bytes(w, junk, sizeof(junk));
		n = below(w, 17);
		if (chance(w, 30))
			add_valid_filters(w, m, e, true);
		m_attr(m, t, junk, n);
		if (chance(w, 30))
			add_valid_filters(w, m, e, true);
		e->filter_cpu = -1;
		m_end(m);
		break;
	case C_BADCPU:
		exp_init(e, c, W_ERR, -EINVAL);
		dump_command(w, m);
		switch (below(w, 4)) {
		case 0:
			u32 = nr_cpu_ids_k;
			break;
		case 1:
			u32 = UINT32_MAX;
			break;
		case 2:
			u32 = 0x80000000u;	/* negative as an int */
			break;
		default:
			u32 = nr_cpu_ids_k + below(w, UINT32_MAX - nr_cpu_ids_k);
			break;
		}
		m_attr(m, STARVD_A_TASKS_FILTER_CPU, &u32, sizeof(u32));
		m_end(m);
		break;
	case C_NESTED:
		exp_init(e, c, W_ERR, -EINVAL);
		any_command(w, m);
		{
			static const uint16_t types[] = {
				STARVD_A_TASKS_FILTER_CPU, STARVD_A_TASKS_FILTER_MIN_WAIT,
				STARVD_A_TASKS_TASK, STARVD_A_CPUS_CURR, STARVD_A_CPUS_CPU,
			};
			struct msg inner;

			/* A nest of random attributes, some of them nests. */
			inner.len = 0;
			n = 1 + below(w, 4);
			for (i = 0; i < n; i++) {
				m_random_bytes(w, junk, sizeof(junk));
				t = below(w, 20) |
				    (chance(w, 30) ? NLA_F_NESTED : 0);
				m_attr(&inner, t, junk, below(w, 24));
			}
			t = chance(w, 80) ? types[below(w, ARRAY_LEN(types))] :
			    below(w, ATTR_TYPE_MAX + 1);
			m_attr(m, t | NLA_F_NESTED, inner.b, inner.len);
		}
		m_end(m);
		break;
	case C_TRUNCATTR:
		exp_init(e, c, W_ERR, -EINVAL);
		any_command(w, m);
		if (chance(w, 50))
			add_valid_filters(w, m, e, true);
		e->filter_cpu = -1;
		m_random_bytes(w, junk, sizeof(junk));
		switch (below(w, 3)) {
		case 0:		/* nla_len below the attribute header */
			m_attr_raw(m, STARVD_A_TASKS_FILTER_MIN_WAIT, below(w, 4),
				   junk, 8);
			break;
		case 1:		/* nla_len past the end of the message */
			n = below(w, 12);
			m_attr_raw(m, chance(w, 50) ? STARVD_A_TASKS_FILTER_CPU :
				   STARVD_A_TASKS_FILTER_MIN_WAIT,
				   NLA_HDRLEN + NLA_ALIGN(n) + 1 +
				   below(w, 200), junk, n);
			break;
		default:	/* 1 to 3 bytes after the last attribute */
			m_end(m);
			n = 1 + below(w, 3);
			memcpy(m->b + m->len, junk, n);
			m->len += n;
			break;
		}
		m_end(m);
		break;
	case C_TRUNCHDR:
		exp_init(e, c, W_ERR, -EINVAL);
		any_command(w, m);
		m->len = NLMSG_HDRLEN + below(w, GENL_HDRLEN);
		m_end(m);
		/* Sometimes more bytes follow than nlmsg_len covers. */
		if (chance(w, 30))
			m->len += below(w, NLMSG_HDRLEN);
		break;
	case C_RESERVED:
		/*
		 * genetlink (6.1 on) takes only REQUEST, ACK, ECHO and the
		 * two bits of DUMP together: NLM_F_ROOT or NLM_F_MATCH alone
		 * is ambiguous, the others mean nothing in a get.
		 */
		exp_init(e, c, W_ERR, -EINVAL);
		any_command(w, m);
		if (chance(w, 50)) {
			m_gh(m)->reserved = 1 + below(w, 0xffff);
		} else {
			uint16_t f;

			do
				f = 1 << below(w, 16);
			while (f & (NLM_F_REQUEST | NLM_F_ACK | NLM_F_ECHO));
			/* DUMP's bits one at a time, on a do or a dump */
			if (f & NLM_F_DUMP)
				m_nh(m)->nlmsg_flags &= ~NLM_F_DUMP;
			m_nh(m)->nlmsg_flags |= f;
		}
		m_end(m);
		break;
	case C_NLMSGLEN:
		exp_init(e, c, W_ANY, 0);
		valid_request(w, m, e, -1);
		exp_init(e, c, W_ANY, 0);
		switch (below(w, 3)) {
		case 0:		/* shorter than the netlink header */
			m_nh(m)->nlmsg_len = below(w, NLMSG_HDRLEN);
			break;
		case 1:		/* longer than what is sent */
			m_nh(m)->nlmsg_len = m->len + 1 + below(w, 4096);
			break;
		default:	/* netlink's own control types */
			m_nh(m)->nlmsg_type = below(w, NLMSG_MIN_TYPE);
			break;
		}
		break;
	case C_RANDOM:
		exp_init(e, c, W_ANY, 0);
		m->len = below(w, MSG_MAX);
		m_random_bytes(w, m->b, m->len);
		if (m->len >= NLMSG_HDRLEN) {
			m_nh(m)->nlmsg_type = fuzz_type(w);
			if (chance(w, 80))
				m_nh(m)->nlmsg_len = m->len;
			if (chance(w, 75))
				m_nh(m)->nlmsg_flags |= NLM_F_REQUEST;
		}
		contain(w, m->b, &m->len);
		break;
	case C_MUTATE:
		valid_request(w, m, e, -1);
		exp_init(e, c, W_ANY, 0);
		n = 1 + below(w, 6);
		for (i = 0; i < n; i++) {
			size_t off;

			switch (below(w, 4)) {
			case 0:		/* flip a bit */
				off = below(w, m->len);
				m->b[off] ^= 1 << below(w, 8);
				break;
			case 1:		/* any value in a byte */
				off = below(w, m->len);
				m->b[off] = rnd(w);
				break;
			case 2:		/* cut */
				m->len = below(w, m->len + 1);
				break;
			default:	/* grow with junk */
				off = m->len;
				m->len = off + below(w, MSG_MAX - off);
				m_random_bytes(w, m->b + off, m->len - off);
				break;
			}
		}
		if (m->len >= NLMSG_HDRLEN)
			m_nh(m)->nlmsg_type = fuzz_type(w);
		contain(w, m->b, &m->len);
		break;
	default:
		break;
	}
	/* W_ANY answers may come under any seq from garbage. */
	e->tolerant = e->want == W_ANY;
}

/* --- reading and checking answers --- */

static void set_bad(struct exp *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void set_bad(struct exp *e, const char *fmt, ...)
{
	va_list ap;

	if (e->bad[0])
		return;
	va_start(ap, fmt);
	vsnprintf(e->bad, sizeof(e->bad), fmt, ap);
	va_end(ap);
}

/* Walk the attributes in [p, p + len): 0, or -1 if malformed. */
typedef int (*attr_fn)(const struct nlattr *a, const void *data,
		       size_t len, void *arg);

static int walk_attrs(const uint8_t *p, size_t len, attr_fn fn, void *arg)
{
	while (len >= NLA_HDRLEN) {
		struct nlattr a;
		size_t al;

		memcpy(&a, p, sizeof(a));
		if (a.nla_len < NLA_HDRLEN || a.nla_len > len)
			return -1;
		if (fn && fn(&a, p + NLA_HDRLEN, a.nla_len - NLA_HDRLEN, arg))
			return -1;
		al = NLA_ALIGN(a.nla_len);
		if (al >= len)
			return 0;
		p += al;
		len -= al;
	}
	return len ? -1 : 0;
}

struct task_seen {
	bool tid, cpu, state;
	uint32_t cpu_v, state_v, flags;
	uint64_t wait;
};

static int on_task_attr(const struct nlattr *a, const void *d, size_t len,
			void *arg)
{
	struct task_seen *t = arg;

	switch (a->nla_type) {
	case STARVD_A_TASK_TID:
		t->tid = len == 4;
		break;
	case STARVD_A_TASK_CPU:
		t->cpu = len == 4;
		if (t->cpu)
			memcpy(&t->cpu_v, d, 4);
		break;
	case STARVD_A_TASK_STATE:
		t->state = len == 4;
		if (t->state)
			memcpy(&t->state_v, d, 4);
		break;
	case STARVD_A_TASK_WAIT:
		if (len != 8)
			return -1;
		memcpy(&t->wait, d, 8);
		break;
	case STARVD_A_TASK_COMM:
		if (!len || memchr(d, 0, len) == NULL)
			return -1;
		break;
	case STARVD_A_TASK_FLAGS:
		if (len != 4)
			return -1;
		memcpy(&t->flags, d, 4);
		break;
	}
	return 0;
}

struct msg_seen {
	bool time, cpu, task, abi, nr_cpus;
	uint64_t time_v;
	uint32_t cpu_v, abi_v, nr_cpus_v;
	struct task_seen task_v;
	bool task_bad;
};

static int on_attr(const struct nlattr *a, const void *d, size_t len,
		   void *arg)
{
	struct msg_seen *s = arg;

	switch (a->nla_type & NLA_TYPE_MASK) {
	case STARVD_A_TASKS_READ_TIME:
		if (len != 8)
			return -1;
		s->time = true;
		memcpy(&s->time_v, d, 8);
		break;
	case STARVD_A_CPUS_CPU:
		if (len != 4)
			return -1;
		s->cpu = true;
		memcpy(&s->cpu_v, d, 4);
		break;
	case STARVD_A_INFO_ABI_VERSION:
		s->abi = len == 4;
		if (s->abi)
			memcpy(&s->abi_v, d, 4);
		break;
	case STARVD_A_INFO_NR_CPUS:
		s->nr_cpus = len == 4;
		if (s->nr_cpus)
			memcpy(&s->nr_cpus_v, d, 4);
		break;
	case STARVD_A_TASKS_TASK:
		s->task = true;
		if (walk_attrs(d, len, on_task_attr, &s->task_v))
			s->task_bad = true;
		break;
	case STARVD_A_CPUS_CURR:
		if (walk_attrs(d, len, NULL, NULL))
			return -1;
		break;
	}
	return 0;
}

static void check_data(struct exp *e, const struct nlmsghdr *nh)
{
	const struct genlmsghdr *gh = NLMSG_DATA(nh);
	struct msg_seen s = {};
	size_t len = nh->nlmsg_len - NLMSG_HDRLEN;

	e->ndata++;
	if (nh->nlmsg_type != family_id) {
		set_bad(e, "answer of type %u, not the family's %u",
			nh->nlmsg_type, family_id);
		return;
	}
	if (len < GENL_HDRLEN ||
	    walk_attrs((const uint8_t *)gh + GENL_HDRLEN, len - GENL_HDRLEN,
		       on_attr, &s)) {
		set_bad(e, "malformed attributes in an answer");
		return;
	}
	switch (e->want) {
	case W_INFO:
		if (!nr_cpu_ids_k && s.nr_cpus)	/* the first get-info */
			nr_cpu_ids_k = s.nr_cpus_v;
		if (gh->cmd != STARVD_CMD_GET_INFO || !s.abi || !s.nr_cpus ||
		    s.abi_v != STARVD_ABI_VERSION ||
		    s.nr_cpus_v != nr_cpu_ids_k)
			set_bad(e, "get-info answer: cmd %u abi %u cpus %u",
				gh->cmd, s.abi_v, s.nr_cpus_v);
		break;
	case W_TASKS:
	case W_CPUS:
		if (!(nh->nlmsg_flags & NLM_F_MULTI) || !s.time) {
			set_bad(e, "dump message without NLM_F_MULTI or read-time");
			return;
		}
		if (e->have_time && s.time_v != e->read_time)
			set_bad(e, "two read times in one dump");
		e->have_time = true;
		e->read_time = s.time_v;
		if (e->want == W_CPUS) {
			if (gh->cmd != STARVD_CMD_GET_CPUS || !s.cpu ||
			    s.cpu_v >= MAX_CPUS) {
				set_bad(e, "get-cpus message without a valid cpu");
				return;
			}
			if (e->seen_cpu[s.cpu_v]++)
				set_bad(e, "cpu %u twice in one dump", s.cpu_v);
			if (e->filter_cpu >= 0 &&
			    s.cpu_v != (uint32_t)e->filter_cpu)
				set_bad(e, "cpu %u in a dump filtered on %d",
					s.cpu_v, e->filter_cpu);
			return;
		}
		if (gh->cmd != STARVD_CMD_GET_TASKS || !s.task || s.task_bad ||
		    !s.task_v.tid || !s.task_v.cpu || !s.task_v.state) {
			set_bad(e, "get-tasks message without a complete task");
			return;
		}
		if (e->filter_cpu >= 0 &&
		    s.task_v.cpu_v != (uint32_t)e->filter_cpu)
			set_bad(e, "task on cpu %u in a dump filtered on %d",
				s.task_v.cpu_v, e->filter_cpu);
		if (s.task_v.state_v == STARVD_TASK_WAITING &&
		    !(s.task_v.flags & STARVD_TASK_WAIT_LOWER_BOUND) &&
		    s.task_v.wait < e->min_wait)
			set_bad(e, "waiter of %llu ns in a dump filtered on %llu ns",
				(unsigned long long)s.task_v.wait,
				(unsigned long long)e->min_wait);
		if (s.task_v.flags & ~(uint32_t)STARVD_TASK_WAIT_LOWER_BOUND ||
		    (s.task_v.flags && (s.task_v.state_v != STARVD_TASK_WAITING ||
					s.task_v.wait)))
			set_bad(e, "task flags %#x with state %u, wait %llu ns",
				s.task_v.flags, s.task_v.state_v,
				(unsigned long long)s.task_v.wait);
		break;
	default:
		break;
	}
}

/* The int error and the extended ack text of an error or done message. */
static int msg_error(const struct nlmsghdr *nh, bool done, char *why,
		     size_t whylen)
{
	const uint8_t *p = NLMSG_DATA(nh);
	size_t len = nh->nlmsg_len - NLMSG_HDRLEN, off;
	struct nlmsgerr e;
	int err;

	if (len < sizeof(int))
		return INT32_MIN;
	memcpy(&err, p, sizeof(err));
	if (!(nh->nlmsg_flags & NLM_F_ACK_TLVS) || !why)
		return err;
	if (done) {
		off = sizeof(int);
	} else {
		if (len < sizeof(e))
			return err;
		memcpy(&e, p, sizeof(e));
		off = sizeof(e);
		if (!(nh->nlmsg_flags & NLM_F_CAPPED))
			off += e.msg.nlmsg_len - NLMSG_HDRLEN;
	}
	while (off + NLA_HDRLEN <= len) {
		struct nlattr a;

		memcpy(&a, p + off, sizeof(a));
		if (a.nla_len < NLA_HDRLEN || off + a.nla_len > len)
			break;
		if (a.nla_type == NLMSGERR_ATTR_MSG)
			snprintf(why, whylen, "%.*s",
				 (int)(a.nla_len - NLA_HDRLEN),
				 (const char *)p + off + NLA_HDRLEN);
		off += NLA_ALIGN(a.nla_len);
	}
	return err;
}

static struct exp *find_exp(struct exp *ex, int n, uint32_t seq)
{
	int i;

	for (i = 0; i < n; i++)
		if (ex[i].seq == seq)
			return &ex[i];
	return NULL;
}

static void count_err(struct worker *w, int err)
{
	if (err <= 0 && err >= -MAX_ERRNO)
		w->st->errs[-err]++;
}

/* Is a dump of @e still expected to send more? */
static bool dump_open(const struct exp *e)
{
	return (e->want == W_TASKS || e->want == W_CPUS) && !e->ndone &&
	       !e->nerr;
}

/*
 * Read everything the kernel answers to the last send. Netlink handles a
 * request while it is sent and continues a dump while its reader reads,
 * so the answers are all there when the queue is empty and no dump of
 * this send is unfinished. @tolerant: garbage was sent, answers under
 * unknown seqs are not an error.
 */
static void drain(struct worker *w, struct exp *ex, int nex, bool tolerant)
{
	bool waited = false;
	int i;

	for (;;) {
		ssize_t n = recv(w->fd, w->buf, BUFSZ, MSG_DONTWAIT);
		struct nlmsghdr *nh;
		bool open = false;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN) {
			struct pollfd pfd = { .fd = w->fd, .events = POLLIN };

			for (i = 0; i < nex; i++)
				open |= dump_open(&ex[i]);
			if (!open || waited)
				break;
			/* Should not happen; do not hang if it does. */
			waited = true;
			poll(&pfd, 1, 5000);
			continue;
		}
		if (n < 0) {
			for (i = 0; i < nex; i++)
				set_bad(&ex[i], "recv: %s", strerror(errno));
			break;
		}
		for (nh = (void *)w->buf; NLMSG_OK(nh, n); nh = NLMSG_NEXT(nh, n)) {
			struct exp *e = find_exp(ex, nex, nh->nlmsg_seq);

			w->st->replies++;
			if (!e) {
				w->st->strays++;
				if (!tolerant)
					set_bad(&ex[0], "answer (type %u) under unknown seq %u",
						nh->nlmsg_type, nh->nlmsg_seq);
				if (nh->nlmsg_type == NLMSG_ERROR)
					count_err(w, msg_error(nh, false, NULL, 0));
				continue;
			}
			if (nh->nlmsg_type == NLMSG_ERROR) {
				e->nerr++;
				e->got_err = msg_error(nh, false, e->why,
						       sizeof(e->why));
				count_err(w, e->got_err);
			} else if (nh->nlmsg_type == NLMSG_DONE) {
				e->ndone++;
				e->done_err = msg_error(nh, true, e->why,
							sizeof(e->why));
			} else {
				check_data(e, nh);
			}
		}
		if (n)
			set_bad(&ex[0], "%zd bytes of a truncated netlink message",
				n);
	}
	for (i = 0; i < nex; i++) {
		if (ex[i].want == W_TASKS && ex[i].ndata > w->st->max_dump)
			w->st->max_dump = ex[i].ndata;
		w->st->data_msgs += ex[i].ndata;
	}
}

/* Does what came back for @e match what was expected? */
static void judge(struct exp *e)
{
	unsigned int i, cpus = 0;

	if (e->bad[0] || e->want == W_ANY)
		return;
	/* A dump sent behind another dump in the same send. */
	if (e->alt_err && e->nerr == 1 && e->got_err == e->alt_err &&
	    !e->ndata && !e->ndone)
		return;
	switch (e->want) {
	case W_ERR:
		if (e->nerr != 1 || e->got_err != e->err || e->ndata ||
		    e->ndone)
			set_bad(e, "wanted error %d, got %u error(s) (last %d), %u data, %u done",
				e->err, e->nerr, e->got_err, e->ndata,
				e->ndone);
		break;
	case W_INFO:
		if (e->ndata != 1 || e->ndone || e->nerr != e->ack ||
		    (e->ack && e->got_err))
			set_bad(e, "wanted one get-info answer%s, got %u data, %u error(s) (last %d)",
				e->ack ? " and an ack" : "", e->ndata,
				e->nerr, e->got_err);
		break;
	case W_TASKS:
	case W_CPUS:
		if (e->ndone != 1 || e->done_err || e->nerr) {
			set_bad(e, "wanted a complete dump, got %u done (error %d), %u error(s) (last %d), %u data",
				e->ndone, e->done_err, e->nerr, e->got_err,
				e->ndata);
			break;
		}
		if (e->want != W_CPUS)
			break;
		for (i = 0; i < MAX_CPUS; i++)
			cpus += e->seen_cpu[i];
		if (cpus != (e->filter_cpu >= 0 ? 1u : (unsigned int)nr_possible))
			set_bad(e, "get-cpus dump of %u CPUs (filter %d, %d possible)",
				cpus, e->filter_cpu, nr_possible);
		break;
	default:
		break;
	}
}

static void report(struct worker *w, const struct exp *e)
{
	char hex[3 * sizeof(e->req) + 1];
	size_t i;

	w->st->bad[e->cat]++;
	if (w->reported++ >= REPORT_MAX)
		return;
	for (i = 0; i < e->req_len && i < sizeof(e->req); i++)
		sprintf(hex + 3 * i, "%02x ", e->req[i]);
	hex[3 * i] = '\0';
	printf("# worker %d, seq %u (%s): %s%s%s\n#   request: %s\n", w->id,
	       e->seq, cats[e->cat].desc, e->bad, e->why[0] ? "; kernel: " : "",
	       e->why, hex);
}

static int send_buf(struct worker *w, const void *b, size_t len)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };

	if (sendto(w->fd, b, len, 0, (void *)&sa, sizeof(sa)) < 0)
		return -errno;
	return 0;
}

static void put_seq(uint8_t *b, size_t len, uint32_t seq)
{
	if (len >= offsetof(struct nlmsghdr, nlmsg_pid))
		memcpy(b + offsetof(struct nlmsghdr, nlmsg_seq), &seq,
		       sizeof(seq));
}

/* Send @n messages in one buffer and check the answers. */
static void run_case(struct worker *w, struct msg *m, struct exp *ex, int n)
{
	static uint8_t out[BATCH_MAX * MSG_MAX];
	bool tolerant = false;
	size_t len = 0;
	int i, ret;

	for (i = 0; i < n; i++) {
		ex[i].seq = ++w->seq;
		put_seq(m[i].b, m[i].len, ex[i].seq);
		ex[i].req_len = m[i].len < sizeof(ex[i].req) ?
				m[i].len : sizeof(ex[i].req);
		memcpy(ex[i].req, m[i].b, ex[i].req_len);
		memcpy(out + len, m[i].b, m[i].len);
		len += i + 1 < n ? NLMSG_ALIGN(m[i].len) : m[i].len;
		tolerant |= ex[i].tolerant;
		w->st->sent[ex[i].cat]++;
	}
	ret = send_buf(w, out, len);
	if (ret) {
		/* Netlink refuses only empty buffers (ENODATA). */
		if (!tolerant || ret != -ENODATA)
			set_bad(&ex[0], "send: %s", strerror(-ret));
		w->st->send_errs++;
	} else {
		drain(w, ex, n, tolerant);
	}
	for (i = 0; i < n; i++) {
		judge(&ex[i]);
		if (ex[i].bad[0])
			report(w, &ex[i]);
	}
}

/*
 * Start a dump on a socket of its own and close it after reading at most
 * one message: netlink must end the dump (calling the family's done),
 * which the module-reload test's slab check would catch if it leaked.
 */
static void abandon(struct worker *w)
{
	struct msg m;
	int fd = open_sock(), keep = w->fd;
	uint8_t small[256];

	w->st->sent[C_ABANDON]++;
	dump_command(w, &m);
	m_nh(&m)->nlmsg_flags &= ~NLM_F_ACK;
	m_end(&m);
	put_seq(m.b, m.len, ++w->seq);
	w->fd = fd;
	if (send_buf(w, m.b, m.len) == 0 && chance(w, 50))
		(void)!recv(fd, small, sizeof(small), MSG_DONTWAIT);
	w->fd = keep;
	close(fd);
}

static enum cat pick(struct worker *w)
{
	unsigned int total = 0, r, i;

	for (i = 0; i < NR_CATS; i++)
		total += cats[i].weight;
	r = below(w, total);
	for (i = 0; i < NR_CATS; i++) {
		if (r < cats[i].weight)
			return i;
		r -= cats[i].weight;
	}
	return C_INFO;
}

static bool starts_dump(const struct exp *e)
{
	return e->want == W_TASKS || e->want == W_CPUS;
}

/*
 * Before 6.1 genetlink does not check the header itself: the module does,
 * in the dump's start callback (kmod/compat.h), after netlink's EBUSY.
 */
static bool hdr_checked_late(void)
{
	static int late = -1;
	struct utsname u;
	int major = 0, minor = 0;

	if (late < 0)
		late = !uname(&u) &&
		       sscanf(u.release, "%d.%d", &major, &minor) == 2 &&
		       (major < 6 || (major == 6 && minor < 1));
	return late;
}

/* An attribute problem of a dump is found after netlink's EBUSY check. */
static bool dump_attr_error(const struct exp *e, const struct msg *m)
{
	const struct nlmsghdr *nh = (const void *)m->b;

	if ((nh->nlmsg_flags & NLM_F_DUMP) != NLM_F_DUMP)
		return false;
	switch (e->cat) {
	case C_RESERVED:
		if (!hdr_checked_late())
			return false;
		return m_gh((struct msg *)m)->cmd != STARVD_CMD_GET_INFO;
	case C_TASKS:
	case C_CPUS:
	case C_ATTRLEN:
	case C_ATTRTYPE:
	case C_BADCPU:
	case C_NESTED:
	case C_TRUNCATTR:
		return m_gh((struct msg *)m)->cmd != STARVD_CMD_GET_INFO;
	default:
		return false;
	}
}

static void fuzz(struct worker *w, unsigned long count)
{
	static struct msg m[BATCH_MAX];
	static struct exp ex[BATCH_MAX];
	unsigned long i;
	enum cat c;
	int n, j;

	for (i = 0; i < count; i++) {
		c = pick(w);
		if (c == C_ABANDON) {
			abandon(w);
			continue;
		}
		if (c != C_BATCH) {
			build(w, c, &m[0], &ex[0]);
			run_case(w, m, ex, 1);
			continue;
		}
		n = 2 + below(w, BATCH_MAX - 1);
		for (j = 0; j < n; j++) {
			bool dump_before = false;
			int k;

			build(w, below(w, C_RESERVED + 1), &m[j], &ex[j]);
			/* Netlink finds the next message at nlmsg_len. */
			m[j].len = m_nh(&m[j])->nlmsg_len;
			for (k = 0; k < j; k++)
				dump_before |= starts_dump(&ex[k]);
			if (dump_before && dump_attr_error(&ex[j], &m[j]))
				ex[j].alt_err = -EBUSY;
			w->st->sent[C_BATCH]++;
		}
		run_case(w, m, ex, n);
		for (j = 0; j < n; j++)
			if (ex[j].bad[0])
				w->st->bad[C_BATCH]++;
	}
}

/* --- setup --- */

static int on_family(const struct nlattr *a, const void *d, size_t len,
		     void *arg)
{
	if (a->nla_type == CTRL_ATTR_FAMILY_ID && len >= 2)
		memcpy(arg, d, 2);
	return 0;
}

static int resolve(int fd, uint8_t *buf)
{
	struct msg m;
	ssize_t n;
	struct nlmsghdr *nh;
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };

	memset(&m, 0, sizeof(m));
	m_nh(&m)->nlmsg_type = GENL_ID_CTRL;
	m_nh(&m)->nlmsg_flags = NLM_F_REQUEST;
	m_nh(&m)->nlmsg_seq = 1;
	m_gh(&m)->cmd = CTRL_CMD_GETFAMILY;
	m_gh(&m)->version = 1;
	m.len = NLMSG_HDRLEN + GENL_HDRLEN;
	m_attr(&m, CTRL_ATTR_FAMILY_NAME, STARVD_FAMILY_NAME,
	       sizeof(STARVD_FAMILY_NAME));
	m_end(&m);
	if (sendto(fd, m.b, m.len, 0, (void *)&sa, sizeof(sa)) < 0)
		return -errno;
	n = recv(fd, buf, BUFSZ, 0);
	if (n < 0)
		return -errno;
	for (nh = (void *)buf; NLMSG_OK(nh, n); nh = NLMSG_NEXT(nh, n)) {
		if (nh->nlmsg_type == NLMSG_ERROR)
			return msg_error(nh, false, NULL, 0) ?: -EPROTO;
		if (nh->nlmsg_type != GENL_ID_CTRL)
			continue;
		walk_attrs((uint8_t *)NLMSG_DATA(nh) + GENL_HDRLEN,
			   nh->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN,
			   on_family, &family_id);
	}
	return family_id ? 0 : -ENOENT;
}

static void read_possible(void)
{
	FILE *f = fopen("/sys/devices/system/cpu/possible", "r");
	int a, b, c;

	if (!f || fscanf(f, "%d", &a) != 1) {
		fprintf(stderr, "nlfuzz: cannot read /sys/devices/system/cpu/possible\n");
		exit(2);
	}
	for (;;) {
		b = a;
		c = fgetc(f);
		if (c == '-') {
			if (fscanf(f, "%d", &b) != 1)
				break;
			c = fgetc(f);
		}
		for (; a <= b && nr_possible < MAX_CPUS; a++)
			possible[nr_possible++] = a;
		if (c != ',' || fscanf(f, "%d", &a) != 1)
			break;
	}
	fclose(f);
}

/* One checked request on a fresh worker: the module answers properly. */
static bool check_one(struct worker *w, int which, const char *what,
		      int *tap)
{
	struct msg m;
	struct exp e;

	valid_request(w, &m, &e, which);
	if (which) {	/* dumps without filters: everything */
		m_init(&m, which == 1 ? STARVD_CMD_GET_TASKS :
		       STARVD_CMD_GET_CPUS, NLM_F_DUMP, STARVD_FAMILY_VERSION);
		m_end(&m);
		e.filter_cpu = -1;
		e.min_wait = 0;
	}
	run_case(w, &m, &e, 1);
	printf("%sok %d - after fuzzing: %s%s%s\n", e.bad[0] ? "not " : "",
	       ++*tap, what, e.bad[0] ? ": " : "", e.bad);
	return !e.bad[0];
}

/*
 * SCHED_IDLE busy threads: waiters for get-tasks dumps longer than one
 * skb, taking little CPU time from the workers. Each counts itself in
 * @ready once it is SCHED_IDLE.
 */
static void *spin(void *arg)
{
	struct sched_param sp = { 0 };

	sched_setscheduler(0, SCHED_IDLE, &sp);
	__atomic_add_fetch((int *)arg, 1, __ATOMIC_SEQ_CST);
	for (;;)
		;
	return NULL;
}

static pid_t start_spinners(int n, int *ready)
{
	pthread_attr_t at;
	pthread_t t;
	pid_t pid;
	int i;

	if (n <= 0)
		return 0;
	pid = fork();
	if (pid) {
		/* Bounded: a slow start only makes the dumps shorter. */
		for (i = 0; i < 1000 && __atomic_load_n(ready, __ATOMIC_SEQ_CST) < n; i++)
			usleep(10000);
		return pid;
	}
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	prctl(PR_SET_NAME, "nlfuzz-spin");
	pthread_attr_init(&at);
	pthread_attr_setstacksize(&at, 64 * 1024);
	for (i = 1; i < n; i++)
		pthread_create(&t, &at, spin, ready);
	spin(ready);
	_exit(0);
}

static void errno_histogram(const struct stats *st)
{
	char line[1024];
	size_t o = 0;
	int i;

	for (i = 0; i <= MAX_ERRNO && o < sizeof(line) - 64; i++) {
		if (!st->errs[i])
			continue;
		o += snprintf(line + o, sizeof(line) - o, "%s%s %lu",
			      o ? ", " : "", i ? strerror(i) : "ack",
			      st->errs[i]);
	}
	printf("# errors and acks received: %s\n", o ? line : "none");
}

static int usage(void)
{
	fprintf(stderr, "usage: nlfuzz [-s SEED] [-n MESSAGES] [-j WORKERS] [-t SPINNERS]\n");
	return 2;
}

int main(int argc, char **argv)
{
	unsigned long count = 20000, per;
	uint64_t seed = (uint64_t)time(NULL);
	time_t t0;
	int jobs = 2, spinners = 40, opt, i, tap = 0, failed = 0, status;
	struct stats *shared, total = {};
	struct worker w = {};
	pid_t spinner, *pids;

	while ((opt = getopt(argc, argv, "s:n:j:t:")) != -1) {
		switch (opt) {
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'n':
			count = strtoul(optarg, NULL, 0);
			break;
		case 'j':
			jobs = atoi(optarg);
			break;
		case 't':
			spinners = atoi(optarg);
			break;
		default:
			return usage();
		}
	}
	if (optind != argc || jobs < 1 || jobs > 64)
		return usage();
	setvbuf(stdout, NULL, _IOLBF, 0);
	read_possible();

	w.buf = malloc(BUFSZ);
	w.fd = open_sock();
	if (!w.buf || resolve(w.fd, w.buf)) {
		fprintf(stderr,
			"nlfuzz: generic netlink family '%s' not found: load the module first (modprobe starvd)\n",
			STARVD_FAMILY_NAME);
		return 2;
	}
	/* The module's CPU count, for the checks. */
	{
		struct msg m;
		struct exp e;
		static struct stats st;

		w.st = &st;
		valid_request(&w, &m, &e, 0);
		run_case(&w, &m, &e, 1);
		if (e.bad[0] || !nr_cpu_ids_k) {
			fprintf(stderr, "nlfuzz: get-info failed (%s%s%s): run as root (CAP_NET_ADMIN)\n",
				e.bad, e.why[0] ? ": " : "", e.why);
			return 2;
		}
	}

	printf("TAP version 13\n");
	printf("# nlfuzz: seed %llu, %lu messages, %d workers, %d idle spinners (rerun: nlfuzz -s %llu -n %lu -j %d -t %d)\n",
	       (unsigned long long)seed, count, jobs, spinners,
	       (unsigned long long)seed, count, jobs, spinners);
	printf("# family id %u, %u CPU ids, %d possible\n", family_id,
	       nr_cpu_ids_k, nr_possible);

	/* One more: the spinners' count. */
	shared = mmap(NULL, (jobs + 1) * sizeof(*shared), PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	pids = calloc(jobs, sizeof(*pids));
	if (shared == MAP_FAILED || !pids) {
		perror("nlfuzz: memory");
		return 2;
	}
	memset(shared, 0, (jobs + 1) * sizeof(*shared));
	t0 = time(NULL);
	spinner = start_spinners(spinners, &shared[jobs].spinning);
	printf("# %d of %d spinners running\n", shared[jobs].spinning,
	       spinners);
	per = count / jobs;
	for (i = 0; i < jobs; i++) {
		pids[i] = fork();
		if (pids[i] < 0) {
			perror("nlfuzz: fork");
			return 2;
		}
		if (pids[i])
			continue;
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(w.fd);
		w.id = i;
		w.fd = open_sock();
		w.rng = seed + i * 0x1000193ULL;
		w.seq = (uint32_t)i << 24;
		w.st = &shared[i];
		fuzz(&w, i == jobs - 1 ? count - per * (jobs - 1) : per);
		_exit(0);
	}
	for (i = 0; i < jobs; i++) {
		if (waitpid(pids[i], &status, 0) < 0 || !WIFEXITED(status) ||
		    WEXITSTATUS(status)) {
			printf("# worker %d died (status 0x%x)\n", i, status);
			failed++;
		}
	}
	if (spinner > 0) {
		kill(spinner, SIGKILL);
		waitpid(spinner, NULL, 0);
	}

	for (i = 0; i < jobs; i++) {
		int c, e;

		for (c = 0; c < NR_CATS; c++) {
			total.sent[c] += shared[i].sent[c];
			total.bad[c] += shared[i].bad[c];
		}
		for (e = 0; e <= MAX_ERRNO; e++)
			total.errs[e] += shared[i].errs[e];
		total.replies += shared[i].replies;
		total.strays += shared[i].strays;
		total.data_msgs += shared[i].data_msgs;
		total.send_errs += shared[i].send_errs;
		if (shared[i].max_dump > total.max_dump)
			total.max_dump = shared[i].max_dump;
	}
	for (i = 0; i < NR_CATS; i++) {
		printf("%sok %d - %s (%lu sent%s)\n", total.bad[i] ? "not " : "",
		       ++tap, cats[i].desc, total.sent[i],
		       total.bad[i] ? ", some answered wrongly: see above" : "");
		failed += total.bad[i] != 0;
	}
	printf("# %lu answers (%lu data messages, %lu under seqs of garbage), largest get-tasks dump %lu messages, %lu empty sends refused, %lds\n",
	       total.replies, total.data_msgs, total.strays, total.max_dump,
	       total.send_errs, (long)(time(NULL) - t0));
	errno_histogram(&total);

	/* The module must still answer, on a fresh socket. */
	close(w.fd);
	w.fd = open_sock();
	w.rng = seed;
	failed += !check_one(&w, 0, "get-info answers", &tap);
	failed += !check_one(&w, 1, "a get-tasks dump is complete", &tap);
	failed += !check_one(&w, 2, "a get-cpus dump lists every possible CPU",
			     &tap);
	printf("1..%d\n", tap);
	return failed ? 1 : 0;
}
