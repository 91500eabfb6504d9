// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * LD_PRELOAD for guest-kit/check.sh: RDMA netlink answers "protocol not
 * supported", so libibverbs lists devices from the sysfs tree at SYSFS_PATH
 * (the check's stand-in for an rnic device), as on a host without ib_core.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <linux/netlink.h>
#include <sys/socket.h>

int socket(int domain, int type, int protocol)
{
	static int (*real_socket)(int, int, int);

	if (domain == AF_NETLINK && protocol == NETLINK_RDMA) {
		errno = EPROTONOSUPPORT;
		return -1;
	}
	if (!real_socket)
		real_socket = (int (*)(int, int, int))dlsym(RTLD_NEXT, "socket");
	return real_socket(domain, type, protocol);
}
