/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the netlink backend accepts as a reply: the kernel's alone.
 * Exposed for the tests; the backend itself is netlink_backend_ops
 * (backend.h).
 */
#ifndef STARVD_BACKEND_NETLINK_H
#define STARVD_BACKEND_NETLINK_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <linux/netlink.h>

/*
 * Connect the netlink socket @fd to the kernel (port 0): the kernel then
 * refuses (ECONNREFUSED) what another socket sends to its port. 0 or
 * -errno.
 */
int nl_hear_kernel_only(int fd);

/*
 * Is @h, received from @src, a reply from the kernel (port 0) to the
 * request numbered @seq? The backend drops any other message (libnl
 * checks no sender, and no sequence number with auto-ack off).
 */
bool nl_from_kernel(const struct sockaddr_nl *src, const struct nlmsghdr *h,
		    uint32_t seq);

#endif
