/* SPDX-License-Identifier: MIT */
/*
 * stepguard — pass one descriptor over a UNIX socket (SCM_RIGHTS).
 *
 * The confined child creates the seccomp listener when it loads its filter
 * and hands it to stepguard over a socketpair before execve; stepguard
 * answers the notifications.  Functions return -errno and never print.
 */
#ifndef STEPGUARD_FDPASS_H
#define STEPGUARD_FDPASS_H

/* Send fd (the caller keeps its copy) with a one-byte payload.  0 or -errno. */
int sg_send_fd(int sock, int fd);

/*
 * Receive exactly one descriptor, close-on-exec.  The new fd, or -errno:
 * -ECONNRESET when the peer closed without sending, -EBADMSG when the
 * message carried no descriptor, more than one, or was truncated (any
 * descriptor that did arrive is closed, never leaked).
 */
int sg_recv_fd(int sock);

#endif /* STEPGUARD_FDPASS_H */
