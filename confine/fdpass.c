// SPDX-License-Identifier: MIT
/*
 * stepguard — pass one descriptor over a UNIX socket (SCM_RIGHTS).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "confine/fdpass.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/*
 * Room for more than one descriptor on receive, so that a message carrying
 * several is seen whole (and its extras closed) instead of being cut by the
 * kernel with MSG_CTRUNC, which would close them for us but hide that the
 * peer sent something unexpected.
 */
#define SG_FDPASS_MAX 4

int sg_send_fd(int sock, int fd)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	char byte = 'F';
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = u.buf,
		.msg_controllen = sizeof(u.buf),
	};
	struct cmsghdr *c;
	ssize_t n;

	if (fd < 0)
		return -EBADF;
	memset(&u, 0, sizeof(u));
	c = CMSG_FIRSTHDR(&msg);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));

	do {
		/* MSG_NOSIGNAL: a parent that died must not kill us with SIGPIPE. */
		n = sendmsg(sock, &msg, MSG_NOSIGNAL);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	return n == 1 ? 0 : -EIO;
}

static void sg_close_fds(struct msghdr *msg)
{
	for (struct cmsghdr *c = CMSG_FIRSTHDR(msg); c; c = CMSG_NXTHDR(msg, c)) {
		size_t n;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < n; i++) {
			int fd;

			memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
			close(fd);
		}
	}
}

int sg_recv_fd(int sock)
{
	union {
		char buf[CMSG_SPACE(SG_FDPASS_MAX * sizeof(int))];
		struct cmsghdr align;
	} u;
	char byte;
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = u.buf,
		.msg_controllen = sizeof(u.buf),
	};
	struct cmsghdr *c;
	ssize_t n;
	int fd;

	memset(&u, 0, sizeof(u));
	do {
		/* Close-on-exec from the first instant: the step must never
		 * inherit its own listener (it could answer its own calls). */
		n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if (n == 0 && msg.msg_controllen == 0)
		return -ECONNRESET;

	c = CMSG_FIRSTHDR(&msg);
	if ((msg.msg_flags & MSG_CTRUNC) || !c || CMSG_NXTHDR(&msg, c) ||
	    c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS ||
	    c->cmsg_len != CMSG_LEN(sizeof(int))) {
		sg_close_fds(&msg);
		return -EBADMSG;
	}
	memcpy(&fd, CMSG_DATA(c), sizeof(int));
	return fd;
}
