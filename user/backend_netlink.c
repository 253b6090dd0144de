// SPDX-License-Identifier: GPL-2.0-or-later
/* Placeholder until the generic-netlink client lands (kmod issue). */
#include <errno.h>
#include <stdio.h>

#include "backend.h"

static int nl_open(struct backend *b, unsigned int mode, char *err,
		   size_t errlen)
{
	snprintf(err, errlen,
		 "the netlink backend is not built into this starvd");
	return -ENOTSUP;
}

const struct backend_ops netlink_backend_ops = {
	.name = "netlink",
	.open = nl_open,
};
