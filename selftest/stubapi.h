/* SPDX-License-Identifier: MIT */
/*
 * stubapi.h — a stub of the Messages API for `stepguard --self-test
 * --model-cli`: the real model CLI is pointed at it (ANTHROPIC_BASE_URL)
 * with a dummy key, so it answers without a real key or a remote host.
 *
 * It listens on 127.0.0.1 only, on a port the kernel picks, and serves
 * from a child process: HTTP/1.1 with keep-alive, POST /v1/messages (any
 * query) answered "ok" as a Server-Sent Events stream when the request
 * asks to stream, as one JSON message otherwise; 404 with a JSON error
 * for anything else.  Bounded: it stops when told, after a number of
 * requests, after a time limit, or when the self-test dies.
 */
#ifndef STEPGUARD_SELFTEST_STUBAPI_H
#define STEPGUARD_SELFTEST_STUBAPI_H

#include <stddef.h>
#include <sys/types.h>

struct sg_stub {
	pid_t pid;   /* the server; 0 when not running */
	int port;    /* on 127.0.0.1 */
	int ctl;     /* ours to close: the server stops when it sees the end */
	int rep;     /* the server's report, one line per request */
};

/* What the server answered, collected when it stops. */
struct sg_stub_log {
	char **lines;       /* "POST /v1/messages?beta=true -> 200 (stream)", NULL-terminated */
	size_t n;
	unsigned requests;  /* answered (a line may also say an answer could not be sent) */
	unsigned messages;  /* of them, POST /v1/messages answered 200 */
	char end[64];       /* why it stopped: "stopped", "request limit", "time limit", ... */
};

/*
 * Start a server that answers at most MAX_REQUESTS requests within
 * TIMEOUT_MS.  0, or -errno (nothing is left running).
 */
int sg_stub_start(struct sg_stub *st, int timeout_ms, unsigned max_requests);

/* Stop it (waiting a few seconds at most) and fill LOG.  0, or -ENOMEM. */
int sg_stub_stop(struct sg_stub *st, struct sg_stub_log *log);

void sg_stub_log_free(struct sg_stub_log *log);

#endif
