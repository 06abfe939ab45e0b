// SPDX-License-Identifier: MIT
/*
 * stepguard supervisor — connect(2) and sendto(2) with an address (issue
 * 16: the step cannot reach outside itself through a daemon's socket).
 *
 * Below Landlock ABI 9 a connect to a pathname UNIX socket is not mediated:
 * a daemon listening outside the roots (/run/docker.sock) writes for the
 * step.  seccomp cannot see an address family, so every connect comes
 * here, and every sendto with an address.  Never CONTINUE: another thread
 * of the step could dup2 another socket onto the number, or rewrite the
 * address, between our read and the kernel's.  So the supervisor takes a
 * copy of the step's socket (pidfd_getfd: the same open file description,
 * its O_NONBLOCK and its connection the step's), reads the address once,
 * decides, and performs the call itself on the copy:
 *
 *   - a pathname (the socket's family, SO_DOMAIN, is AF_UNIX) is resolved
 *     as the kernel would for the caller; allowed when the socket file lies
 *     beneath a writable root or is one of [sockets] allow (device and
 *     inode), and then connected through /proc/self/fd/N of the very inode
 *     judged, never by the path again; else EACCES and a record;
 *   - an abstract address is refused (EPERM, a record): performed here, its
 *     connect would be checked against stepguard's Landlock domain (none),
 *     not the step's, and escape the ABI 6 scope that keeps the step away
 *     from abstract sockets of unconfined processes (docs/supervisor.md);
 *   - every other address (TCP, UDP, an unnamed UNIX one, AF_UNSPEC) is
 *     performed as given.
 *
 * The act runs on a worker thread, which answers the notification itself:
 * a blocking TCP connect takes up to the SYN timeout, and the supervisor's
 * own thread must keep answering every other call meanwhile.  The workers
 * touch nothing of the supervisor but the listener (the kernel serialises
 * answers) and the job they were handed.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "confine/supervisor/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "lib/cleanup.h"
#include "lib/vocab.h"

/* Threads blocked in a connect at once; beyond them, jobs wait in the queue. */
#define SG_CONN_WORKERS 8
/* Jobs waiting; beyond them a call is answered EAGAIN (bounded memory). */
#define SG_CONN_QUEUE 64
/* sendto: the payload copied at most; a longer one is sent in part (a short write). */
#define SG_SEND_MAX ((size_t)1 << 20)

/* ---- the filter ------------------------------------------------------ */

/*
 * connect always: its family is in memory.  sendto only with an address
 * (its fifth argument): without one it goes where the socket is already
 * connected, which a connect here decided.  sendmsg and sendmmsg carry the
 * address in msg_name, out of any filter's sight: the gap that remains.
 */
int sg_connect_add_rules(scmp_filter_ctx ctx)
{
	struct scmp_arg_cmp cmp = { .arg = 4, .op = SCMP_CMP_NE, .datum_a = 0, .datum_b = 0 };
	int r = seccomp_rule_add_array(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(connect), 0, NULL);

	/* A policy [seccomp] deny of the call keeps its refusal (sg_rule()). */
	if (r == -EEXIST)
		r = 0;
	if (r == 0)
		r = seccomp_rule_add_array(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(sendto), 1, &cmp);
	return r == -EEXIST ? 0 : r;
}

/* ---- the workers ------------------------------------------------------- */

struct sg_conn_job {
	uint64_t id;
	int sock;                 /* our copy of the step's socket */
	int file;                 /* O_PATH of the judged socket file, or -1 */
	bool send;
	int flags;                /* sendto */
	void *data;               /* sendto: our copy of the payload */
	size_t len;
	socklen_t alen;
	struct sockaddr_storage addr;
};

struct sg_conn_pool {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct sg_conn_job *q[SG_CONN_QUEUE];
	size_t head, n, idle, n_th;
	pthread_t th[SG_CONN_WORKERS];
	bool stop;
	int listener;
	size_t resp_size;
};

static void sg_job_free(void *p)
{
	struct sg_conn_job *j = p;

	if (!j)
		return;
	if (j->sock >= 0)
		close(j->sock);
	if (j->file >= 0)
		close(j->file);
	free(j->data);
	free(j);
}

/* The act itself; the result to answer (-errno, or the call's value). */
static long sg_job_run(struct sg_conn_job *j)
{
	long r;

	if (j->file >= 0) {
		/*
		 * The judged inode, not the path: the kernel follows this
		 * link to the socket file we opened, whatever the path names
		 * by now.
		 */
		struct sockaddr_un *un = (struct sockaddr_un *)&j->addr;

		memset(un, 0, sizeof(*un));
		un->sun_family = AF_UNIX;
		snprintf(un->sun_path, sizeof(un->sun_path), "/proc/self/fd/%d", j->file);
		j->alen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(un->sun_path) + 1);
	}
	/* Cancelled only here, where a connect may block for minutes. */
	pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, NULL);
	if (j->send)
		r = sendto(j->sock, j->data, j->len, j->flags, (struct sockaddr *)&j->addr, j->alen);
	else
		r = connect(j->sock, (struct sockaddr *)&j->addr, j->alen);
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
	return r < 0 ? -errno : r;
}

static void *sg_worker(void *p)
{
	struct sg_conn_pool *pool = p;
	struct seccomp_notif_resp *resp = calloc(1, pool->resp_size);

	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
	for (;;) {
		struct sg_conn_job *j;
		long r;

		pthread_mutex_lock(&pool->mu);
		while (!pool->n && !pool->stop) {
			pool->idle++;
			pthread_cond_wait(&pool->cv, &pool->mu);
			pool->idle--;
		}
		if (pool->stop) {
			pthread_mutex_unlock(&pool->mu);
			break;
		}
		j = pool->q[pool->head];
		pool->head = (pool->head + 1) % SG_CONN_QUEUE;
		pool->n--;
		pthread_mutex_unlock(&pool->mu);

		pthread_cleanup_push(sg_job_free, j);
		r = sg_job_run(j);
		pthread_cleanup_pop(0);
		if (resp) {
			memset(resp, 0, pool->resp_size);
			resp->id = j->id;
			resp->error = r < 0 ? (int32_t)r : 0;
			resp->val = r < 0 ? 0 : r;
			/* ENOENT: the caller was interrupted or died; nobody to tell. */
			(void)ioctl(pool->listener, SECCOMP_IOCTL_NOTIF_SEND, resp);
		}
		sg_job_free(j);
	}
	free(resp);
	return NULL;
}

/*
 * Queue a job, starting a worker if none is idle.  0, or -EAGAIN when the
 * queue is full or no worker could be started (the caller answers it).
 */
static int sg_conn_queue(struct sg_supervisor *s, struct sg_conn_job *j)
{
	struct sg_conn_pool *pool = s->conn;
	int r = 0;

	if (!pool) {
		pool = calloc(1, sizeof(*pool));
		if (!pool)
			return -EAGAIN;
		pthread_mutex_init(&pool->mu, NULL);
		pthread_cond_init(&pool->cv, NULL);
		pool->listener = s->listener;
		pool->resp_size = s->resp_size;
		s->conn = pool;
	}
	pthread_mutex_lock(&pool->mu);
	if (pool->n == SG_CONN_QUEUE) {
		r = -EAGAIN;
	} else if (pool->idle <= pool->n && pool->n_th < SG_CONN_WORKERS) {
		sigset_t all, old;

		/* Signals stay the main thread's: the workers block them all. */
		sigfillset(&all);
		pthread_sigmask(SIG_SETMASK, &all, &old);
		if (pthread_create(&pool->th[pool->n_th], NULL, sg_worker, pool) == 0)
			pool->n_th++;
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		if (!pool->n_th)
			r = -EAGAIN;
	}
	if (r == 0) {
		pool->q[(pool->head + pool->n) % SG_CONN_QUEUE] = j;
		pool->n++;
		pthread_cond_signal(&pool->cv);
	}
	pthread_mutex_unlock(&pool->mu);
	return r;
}

/*
 * Before the listener is closed: the workers stop; one blocked in a
 * connect is cancelled there.  Calls still queued are answered by the
 * kernel when the listener closes (ENOSYS).
 */
void sg_connect_free(struct sg_supervisor *s)
{
	struct sg_conn_pool *pool = s->conn;

	if (!pool)
		return;
	pthread_mutex_lock(&pool->mu);
	pool->stop = true;
	pthread_cond_broadcast(&pool->cv);
	pthread_mutex_unlock(&pool->mu);
	for (size_t i = 0; i < pool->n_th; i++)
		pthread_cancel(pool->th[i]);
	for (size_t i = 0; i < pool->n_th; i++)
		pthread_join(pool->th[i], NULL);
	for (size_t i = 0; i < pool->n; i++)
		sg_job_free(pool->q[(pool->head + i) % SG_CONN_QUEUE]);
	pthread_cond_destroy(&pool->cv);
	pthread_mutex_destroy(&pool->mu);
	free(pool);
	s->conn = NULL;
}

/* ---- the decision ------------------------------------------------------ */

static int sg_conn_refuse(struct sg_target *t, const char *path, bool abstract, int err,
			  int why, struct sg_obj *o, struct sg_sup_event *ev, struct sg_reply *rep)
{
	memset(ev, 0, sizeof(*ev));
	snprintf(ev->op, sizeof(ev->op), "%s", sg_op_name(SG_OP_CONNECT));
	ev->pid = t->creds.tgid;
	ev->result = -err;
	ev->why = why;
	if (!o || o->fd < 0 || sg_obj_describe(o, ev->path, sizeof(ev->path)) < 0)
		/* Abstract: "@" and the name as far as it is text, as ss(8) shows it. */
		snprintf(ev->path, sizeof(ev->path), "%s%s", abstract ? "@" : "", path);
	rep->error = err;
	return 1;
}

/* Is O the same file as one of the allowed sockets? */
static bool sg_socket_listed(const struct sg_supervisor *s, const struct sg_obj *o)
{
	for (size_t i = 0; i < s->n_sockets; i++)
		if (s->sockets[i].dev == o->st.st_dev && s->sockets[i].ino == o->st.st_ino)
			return true;
	return false;
}

int sg_sup_connect(struct sg_target *t, const struct sg_call *c, const uint64_t *arg,
		   const struct sg_view *view, struct sg_sup_event *ev, struct sg_reply *rep)
{
	struct sg_supervisor *s = (struct sg_supervisor *)t->s;
	bool send = c->kind == SG_K_SENDTO;
	int fd = (int)arg[0];
	uint64_t uaddr = send ? arg[4] : arg[1];
	int alen = (int)(send ? arg[5] : arg[2]);
	struct sg_conn_job *j;
	struct stat st;
	int family = 0, r;
	socklen_t flen = sizeof(family);
	bool need_user = s->self.cap_eff != 0;
	char path[sizeof(struct sockaddr_storage)];
	struct sg_obj o;

	path[0] = '\0';
	/*
	 * The supervisor connects with its own credentials (a netlink
	 * group, a privileged port's peer checks): only for a step that has
	 * all of them.
	 */
	if (!sg_creds_no_more_than(&s->self, &t->creds, !need_user ||
				   (view->user_dev == s->view.user_dev &&
				    view->user_ino == s->view.user_ino)))
		return sg_conn_refuse(t, "", false, EACCES, SG_SUP_FOREIGN, NULL, ev, rep);

	j = calloc(1, sizeof(*j));
	if (!j)
		return sg_conn_refuse(t, "", false, EACCES, SG_SUP_FAILED, NULL, ev, rep);
	j->id = t->id;
	j->sock = j->file = -1;
	j->send = send;
	sg_obj_init(&o);

	/* The kernel's order: the descriptor, the address, then "a socket?". */
	r = sg_target_getfd(t, fd);
	if (r < 0)
		goto fail;
	j->sock = r;
	if (alen < 0 || (size_t)alen > sizeof(j->addr)) {
		r = -EINVAL;
		goto fail;
	}
	j->alen = (socklen_t)alen;
	r = sg_target_read(t, uaddr, &j->addr, (size_t)alen);
	if (r < 0)
		goto fail;
	if (fstat(j->sock, &st) < 0 || !S_ISSOCK(st.st_mode)) {
		r = -ENOTSOCK;
		goto fail;
	}
	if (send) {
		int type = 0;
		socklen_t tlen = sizeof(type);

		/*
		 * MSG_NOSIGNAL: a SIGPIPE would be raised in our worker, not
		 * in the step, which gets EPIPE either way.
		 */
		j->flags = (int)arg[3] | MSG_NOSIGNAL;
		/*
		 * A stream may be sent in part (a short write); a datagram
		 * may not: longer than our copy, it is the kernel's EMSGSIZE
		 * (its own limit, the send buffer, is far lower by default).
		 */
		if (arg[2] > SG_SEND_MAX &&
		    (getsockopt(j->sock, SOL_SOCKET, SO_TYPE, &type, &tlen) < 0 || type != SOCK_STREAM)) {
			r = -EMSGSIZE;
			goto fail;
		}
		j->len = arg[2] > SG_SEND_MAX ? SG_SEND_MAX : (size_t)arg[2];
		j->data = malloc(j->len ? j->len : 1);
		if (!j->data) {
			sg_job_free(j);
			return sg_conn_refuse(t, "", false, EACCES, SG_SUP_FAILED, NULL, ev, rep);
		}
		r = sg_target_read(t, arg[1], j->data, j->len);
		if (r < 0)
			goto fail;
	}
	/* The socket decides what the kernel does with an address, not the address. */
	if (getsockopt(j->sock, SOL_SOCKET, SO_DOMAIN, &family, &flen) < 0) {
		r = -ENOTSOCK; /* an O_PATH descriptor of a socket file, say */
		goto fail;
	}
	if (family == AF_UNIX && alen > (int)offsetof(struct sockaddr_un, sun_path) &&
	    j->addr.ss_family == AF_UNIX) {
		const char *p = ((const struct sockaddr_un *)&j->addr)->sun_path;
		size_t n = (size_t)alen - offsetof(struct sockaddr_un, sun_path);

		/* Longer than a sockaddr_un: the kernel's EINVAL (unix_validate_addr()). */
		if ((size_t)alen > sizeof(struct sockaddr_un)) {
			r = -EINVAL;
			goto fail;
		}
		/* The kernel reads the name up to its NUL or the length given. */
		memcpy(path, p, n);
		path[n] = '\0';
		if (p[0] == '\0') {
			size_t k;

			for (k = 1; k < n && path[k] >= 0x20 && path[k] < 0x7f; k++)
				;
			path[k] = '\0';
			sg_job_free(j);
			return sg_conn_refuse(t, path + 1, true, EPERM, SG_SUP_OUTSIDE, NULL, ev, rep);
		}
		/* A pathname: resolved from the caller's root and working directory. */
		if (!sg_same_view(view, &s->view)) {
			sg_job_free(j);
			return sg_conn_refuse(t, path, false, EACCES, SG_SUP_FOREIGN, NULL, ev, rep);
		}
		r = sg_resolve_path(t, AT_FDCWD, path, 0, &o);
		if (r < 0)
			goto fail;
		if (!S_ISSOCK(o.st.st_mode)) {
			r = -ECONNREFUSED; /* the kernel's answer for a file that is no socket */
			goto fail;
		}
		r = sg_socket_listed(s, &o) ? 1 : sg_judge(s, &o, false);
		if (r <= 0) {
			sg_job_free(j);
			r = sg_conn_refuse(t, path, false, EACCES, r < 0 ? SG_SUP_FAILED : SG_SUP_OUTSIDE,
					   &o, ev, rep);
			sg_obj_close(&o);
			return r;
		}
		j->file = o.fd;
		o.fd = -1;
	}
	sg_obj_close(&o);
	/* Audit mode: judged only; sg_supervisor_handle() lets the kernel run it. */
	if (s->audit) {
		sg_job_free(j);
		return 0;
	}
	r = sg_conn_queue(s, j);
	if (r < 0) {
		sg_job_free(j);
		rep->error = EAGAIN;
		return 0;
	}
	rep->async = true;
	return 0;

fail:
	sg_obj_close(&o);
	sg_job_free(j);
	if (r == -ESRCH) {
		rep->gone = true;
		return 0;
	}
	if (t->failed)
		return sg_conn_refuse(t, path, false, EACCES, SG_SUP_FAILED, NULL, ev, rep);
	if (r == -ELOOP)
		return sg_conn_refuse(t, path, false, ELOOP, SG_SUP_UNRESOLVED, NULL, ev, rep);
	rep->error = -r; /* the kernel's answer: EBADF, EFAULT, ENOENT, ENOTSOCK... */
	return 0;
}
