// SPDX-License-Identifier: MIT
/*
 * selftest/stubapi.c — the stub of the Messages API that `--self-test
 * --model-cli` points the real CLI at (stubapi.h).
 *
 * Why a child process, not a thread: the self-test forks for every run
 * and every user drop, and a fork of a threaded process can copy a lock
 * another thread holds.  A child can also give up root before it reads
 * a byte (a loopback port is open to every local user, so the parser is
 * exposed to them) and is killed with the self-test (PR_SET_PDEATHSIG).
 *
 * Why 127.0.0.1 and nothing else: the CLI needs no more, and a stub on
 * another address would answer whoever can reach this machine.  The
 * socket is bound, and checked, before the child exists.
 *
 * What it answers is what the real CLI (2.1.332) asks: POST
 * /v1/messages?beta=true with "stream": true, on a keep-alive connection,
 * next to a GET /api/hello that a 404 satisfies.  It never reads the key.
 */
#include "selftest/stubapi.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#define MAX_CONNS 16
#define MAX_HEAD ((size_t)64 * 1024)
#define MAX_BODY ((size_t)4 * 1024 * 1024)
#define MAX_REPORT ((size_t)256 * 1024)
#define SEND_TIMEOUT_S 5
#define STOP_WAIT_MS 5000
#define NOBODY 65534

struct conn {
	int fd; /* -1: free */
	char *buf;
	size_t n, cap;
};

struct server {
	int lfd, ctl, rep;
	unsigned served, max;
	struct conn c[MAX_CONNS];
};

/* ---- the child: one request ------------------------------------------- */

static long now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static int send_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static const char *status_text(int code)
{
	switch (code) {
	case 200: return "OK";
	case 400: return "Bad Request";
	case 404: return "Not Found";
	case 413: return "Content Too Large";
	case 431: return "Request Header Fields Too Large";
	case 501: return "Not Implemented";
	default: return "Error";
	}
}

/* One buffer, one send: a client that reads the head and hangs up loses no half answer. */
static int respond(int fd, int code, const char *ctype, const char *body, bool head_only,
		   bool close_after)
{
	char *text;
	int n = asprintf(&text,
			 "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
			 "Connection: %s\r\nrequest-id: req_stepguard_selftest\r\n\r\n%s",
			 code, status_text(code), ctype, strlen(body),
			 close_after ? "close" : "keep-alive", head_only ? "" : body);
	int r;

	if (n < 0)
		return -ENOMEM;
	r = send_all(fd, text, (size_t)n);
	free(text);
	return r;
}

static int respond_error(int fd, int code, const char *type, const char *msg, bool head_only,
			 bool close_after)
{
	char body[256];

	snprintf(body, sizeof(body),
		 "{\"type\":\"error\",\"error\":{\"type\":\"%s\",\"message\":\"stepguard self-test "
		 "stub: %s\"}}",
		 type, msg);
	return respond(fd, code, "application/json", body, head_only, close_after);
}

/* The assistant's message; WHOLE: with its text and stop reason, else as it starts a stream. */
static json_object *message(const char *model, bool whole)
{
	json_object *m = json_object_new_object(), *content = json_object_new_array();
	json_object *usage = json_object_new_object();

	json_object_object_add(m, "id", json_object_new_string("msg_stepguard_selftest"));
	json_object_object_add(m, "type", json_object_new_string("message"));
	json_object_object_add(m, "role", json_object_new_string("assistant"));
	json_object_object_add(m, "model", json_object_new_string(model));
	if (whole) {
		json_object *text = json_object_new_object();

		json_object_object_add(text, "type", json_object_new_string("text"));
		json_object_object_add(text, "text", json_object_new_string("ok"));
		json_object_array_add(content, text);
	}
	json_object_object_add(m, "content", content);
	json_object_object_add(m, "stop_reason", whole ? json_object_new_string("end_turn") : NULL);
	json_object_object_add(m, "stop_sequence", NULL);
	json_object_object_add(usage, "input_tokens", json_object_new_int(1));
	json_object_object_add(usage, "output_tokens", json_object_new_int(1));
	json_object_object_add(m, "usage", usage);
	return m;
}

/* The events of a streamed answer "ok"; only the first carries a value of the request. */
static const char sse_tail[] =
	"event: content_block_start\n"
	"data: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n"
	"event: content_block_delta\n"
	"data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"ok\"}}\n\n"
	"event: content_block_stop\n"
	"data: {\"type\":\"content_block_stop\",\"index\":0}\n\n"
	"event: message_delta\n"
	"data: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":1}}\n\n"
	"event: message_stop\n"
	"data: {\"type\":\"message_stop\"}\n\n";

/*
 * POST /v1/messages: BODY is the request's JSON.  Returns the status
 * sent, or -errno if the connection failed; *STREAM says how.
 */
static int answer_messages(int fd, const char *body, size_t blen, bool close_after, bool *stream)
{
	struct json_tokener *tok = json_tokener_new();
	json_object *req = tok ? json_tokener_parse_ex(tok, body, (int)blen) : NULL, *v, *m, *ev;
	const char *model = "stepguard-stub";
	char *text = NULL;
	int r;

	*stream = false;
	if (!tok || json_tokener_get_error(tok) != json_tokener_success ||
	    !json_object_is_type(req, json_type_object)) {
		json_object_put(req);
		json_tokener_free(tok);
		r = respond_error(fd, 400, "invalid_request_error", "the body is not a JSON object",
				  false, close_after);
		return r < 0 ? r : 400;
	}
	json_tokener_free(tok);
	if (json_object_object_get_ex(req, "model", &v) && json_object_is_type(v, json_type_string))
		model = json_object_get_string(v);
	*stream = json_object_object_get_ex(req, "stream", &v) && json_object_get_boolean(v);
	m = message(model, !*stream);
	if (*stream) {
		ev = json_object_new_object();
		json_object_object_add(ev, "type", json_object_new_string("message_start"));
		json_object_object_add(ev, "message", m);
		if (asprintf(&text, "event: message_start\ndata: %s\n\n%s",
			     json_object_to_json_string_ext(ev, JSON_C_TO_STRING_PLAIN), sse_tail) < 0)
			text = NULL;
		json_object_put(ev);
	} else {
		text = strdup(json_object_to_json_string_ext(m, JSON_C_TO_STRING_PLAIN));
		json_object_put(m);
	}
	json_object_put(req);
	if (!text)
		return -ENOMEM;
	r = respond(fd, 200, *stream ? "text/event-stream" : "application/json", text, false,
		    close_after);
	free(text);
	return r < 0 ? r : 200;
}

/* HEADER's value in the header lines HEAD[0..LEN), trimmed; NULL if absent. */
static const char *header(const char *head, size_t len, const char *name, size_t *vlen)
{
	const char *end = head + len, *line = memchr(head, '\n', len);
	size_t nl = strlen(name);

	while (line && ++line < end) {
		const char *eol = memchr(line, '\n', (size_t)(end - line)), *v, *ve;

		if (!eol)
			break;
		if ((size_t)(eol - line) > nl && strncasecmp(line, name, nl) == 0 && line[nl] == ':') {
			for (v = line + nl + 1; v < eol && (*v == ' ' || *v == '\t'); v++)
				;
			for (ve = eol; ve > v && (ve[-1] == '\r' || ve[-1] == ' ' || ve[-1] == '\t'); ve--)
				;
			*vlen = (size_t)(ve - v);
			return v;
		}
		line = eol;
	}
	return NULL;
}

/* For the report: bytes as the log writes them, control bytes and '\' as \xNN, cut at MAX. */
static void escape(const char *p, size_t n, char *out, size_t len, size_t max)
{
	size_t o = 0;

	for (size_t i = 0; i < n && i < max && o + 5 < len; i++) {
		unsigned char c = (unsigned char)p[i];

		if (c < 0x20 || c >= 0x7f || c == '\\')
			o += (size_t)snprintf(out + o, len - o, "\\x%02x", c);
		else
			out[o++] = (char)c;
	}
	if (n > max && o + 4 < len) {
		memcpy(out + o, "...", 3);
		o += 3;
	}
	out[o] = '\0';
}

static void report(struct server *sv, int code, bool is_message, bool stream, const char *what,
		   size_t wlen)
{
	char line[600], esc[480];
	int n;

	escape(what, wlen, esc, sizeof(esc), 200);
	if (code > 0)
		n = snprintf(line, sizeof(line), "req\t%d\t%d\t%s -> %d%s\n", code, is_message, esc,
			     code, stream ? " (stream)" : "");
	else
		n = snprintf(line, sizeof(line), "req\t0\t0\t%s -> not answered (the connection "
			     "failed)\n", esc);
	/*
	 * The parent reads when it stops us; the pipe holds the lines of the
	 * bounded number of answers.  It is non-blocking all the same: a full
	 * pipe costs a line of the report, never a stalled server.
	 */
	(void)!write(sv->rep, line, (size_t)n);
}

/* A request refused: answered with CODE, reported by its first WLEN bytes; the connection closes. */
static int refuse(struct server *sv, struct conn *c, int code, const char *msg, size_t wlen)
{
	/* Every answer counts against the limit, refusals too: nothing is unbounded. */
	sv->served++;
	respond_error(c->fd, code, "invalid_request_error", msg, false, true);
	report(sv, code, false, false, c->buf, wlen);
	return -1;
}

/*
 * The request at the start of C's buffer, if it is all there: answered,
 * and removed from the buffer.  1: more may follow, 0: wait for more
 * bytes, -1: close the connection.
 */
static int one_request(struct server *sv, struct conn *c)
{
	char *end = memmem(c->buf, c->n, "\r\n\r\n", 4), *sp1, *sp2, *eol, num[24], *e;
	size_t hlen, blen = 0, vlen, tlen;
	const char *v;
	bool close_after, head_only, stream = false, is_message;
	int code;

	if (!end) {
		char *cr = memchr(c->buf, '\r', c->n);

		return c->n <= MAX_HEAD ? 0 : refuse(sv, c, 431, "headers too long",
						     cr ? (size_t)(cr - c->buf) : c->n);
	}
	hlen = (size_t)(end + 4 - c->buf);
	eol = memchr(c->buf, '\r', hlen); /* not NULL: the head ends in \r\n\r\n */
	if (hlen > MAX_HEAD)
		return refuse(sv, c, 431, "headers too long", (size_t)(eol - c->buf));
	sp1 = memchr(c->buf, ' ', (size_t)(eol - c->buf));
	sp2 = sp1 ? memchr(sp1 + 1, ' ', (size_t)(eol - sp1 - 1)) : NULL;
	if (!sp1 || !sp2 || sp1 == c->buf || sp2 == sp1 + 1 || eol - sp2 - 1 != 8 ||
	    strncmp(sp2 + 1, "HTTP/1.", 7) != 0)
		return refuse(sv, c, 400, "not an HTTP/1.x request line", (size_t)(eol - c->buf));
	/* HTTP/1.0 closes unless asked not to; HTTP/1.1 when asked to. */
	v = header(c->buf, hlen, "Connection", &vlen);
	close_after = sp2[8] == '0' ? !(v && vlen == 10 && strncasecmp(v, "keep-alive", 10) == 0)
				    : (v && vlen == 5 && strncasecmp(v, "close", 5) == 0);
	if (header(c->buf, hlen, "Transfer-Encoding", &vlen))
		return refuse(sv, c, 501, "only Content-Length bodies", (size_t)(sp2 - c->buf));
	if ((v = header(c->buf, hlen, "Content-Length", &vlen))) {
		snprintf(num, sizeof(num), "%.*s", (int)(vlen < 23 ? vlen : 23), v);
		errno = 0;
		blen = strtoul(num, &e, 10);
		if (vlen == 0 || vlen > 20 || *e || errno || num[0] == '-')
			return refuse(sv, c, 400, "bad Content-Length", (size_t)(sp2 - c->buf));
		if (blen > MAX_BODY)
			return refuse(sv, c, 413, "body too large", (size_t)(sp2 - c->buf));
	}
	if (c->n < hlen + blen)
		return 0;

	tlen = (size_t)(sp2 - sp1 - 1);
	head_only = sp1 - c->buf == 4 && strncmp(c->buf, "HEAD", 4) == 0;
	/* The CLI adds ?beta=true; any query is the same endpoint. */
	is_message = sp1 - c->buf == 4 && strncmp(c->buf, "POST", 4) == 0 &&
		     (tlen == 12 || (tlen > 12 && sp1[13] == '?')) &&
		     strncmp(sp1 + 1, "/v1/messages", 12) == 0;
	sv->served++;
	if (is_message)
		code = answer_messages(c->fd, c->buf + hlen, blen, close_after, &stream);
	else
		code = respond_error(c->fd, 404, "not_found_error", "only POST /v1/messages",
				     head_only, close_after) < 0 ? -EIO : 404;
	report(sv, code < 0 ? 0 : code, is_message && code == 200, stream, c->buf,
	       (size_t)(sp2 - c->buf));
	memmove(c->buf, c->buf + hlen + blen, c->n - hlen - blen);
	c->n -= hlen + blen;
	return code < 0 || close_after || sv->served >= sv->max ? -1 : 1;
}

static void conn_close(struct conn *c)
{
	close(c->fd);
	free(c->buf);
	*c = (struct conn){ .fd = -1 };
}

/* C is readable: take what is there, answer every whole request in it. */
static void conn_input(struct server *sv, struct conn *c)
{
	ssize_t got;
	int r;

	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 16384;
		char *p;

		if (cap > MAX_HEAD + MAX_BODY + 16384 || !(p = realloc(c->buf, cap))) {
			conn_close(c);
			return;
		}
		c->buf = p;
		c->cap = cap;
	}
	got = read(c->fd, c->buf + c->n, c->cap - c->n);
	if (got < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (got <= 0) {
		conn_close(c);
		return;
	}
	c->n += (size_t)got;
	while ((r = one_request(sv, c)) > 0)
		;
	if (r < 0)
		conn_close(c);
}

static void serve(struct server *sv, int timeout_ms)
{
	long deadline = now_ms() + timeout_ms;
	const char *end = "stopped";
	char line[96];

	for (int i = 0; i < MAX_CONNS; i++)
		sv->c[i].fd = -1;
	for (;;) {
		struct pollfd pf[2 + MAX_CONNS];
		struct conn *at[2 + MAX_CONNS];
		long left = deadline - now_ms();
		nfds_t n = 0;
		int r;

		if (sv->served >= sv->max) {
			end = "request limit";
			break;
		}
		if (left <= 0) {
			end = "time limit";
			break;
		}
		pf[n++] = (struct pollfd){ .fd = sv->ctl, .events = POLLIN };
		pf[n++] = (struct pollfd){ .fd = sv->lfd, .events = POLLIN };
		for (int i = 0; i < MAX_CONNS; i++)
			if (sv->c[i].fd >= 0) {
				at[n] = &sv->c[i];
				pf[n++] = (struct pollfd){ .fd = sv->c[i].fd, .events = POLLIN };
			}
		r = poll(pf, n, (int)left);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			end = "poll failed";
			break;
		}
		/* The self-test closed its end: it is done with us. */
		if (pf[0].revents)
			break;
		for (nfds_t i = 2; i < n; i++)
			if (pf[i].revents)
				conn_input(sv, at[i]);
		if (pf[1].revents & POLLIN) {
			int fd = accept4(sv->lfd, NULL, NULL, SOCK_CLOEXEC);
			struct timeval tv = { .tv_sec = SEND_TIMEOUT_S };
			int i = 0;

			while (fd >= 0 && i < MAX_CONNS && sv->c[i].fd >= 0)
				i++;
			if (fd >= 0 && i == MAX_CONNS) {
				close(fd); /* full: the client sees a reset, and says so */
			} else if (fd >= 0) {
				/* A client that stops reading cannot hold us past the limit. */
				(void)setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
				sv->c[i] = (struct conn){ .fd = fd };
			}
		}
	}
	for (int i = 0; i < MAX_CONNS; i++)
		if (sv->c[i].fd >= 0)
			conn_close(&sv->c[i]);
	snprintf(line, sizeof(line), "end\t%s\n", end);
	(void)!write(sv->rep, line, strlen(line));
}

/* Root is not needed to answer on a bound socket; the parser runs without it. */
static int drop_root(void)
{
	if (geteuid() != 0)
		return 0;
	if (setgroups(0, NULL) < 0 || setresgid(NOBODY, NOBODY, NOBODY) < 0 ||
	    setresuid(NOBODY, NOBODY, NOBODY) < 0)
		return -errno;
	return 0;
}

/* ---- the parent ------------------------------------------------------- */

int sg_stub_start(struct sg_stub *st, int timeout_ms, unsigned max_requests)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t alen = sizeof(a);
	int lfd, ctl[2], rep[2], e;
	pid_t parent = getpid(), pid;

	*st = (struct sg_stub){ .ctl = -1, .rep = -1 };
	lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lfd < 0)
		return -errno;
	/* Port 0: the kernel picks a free one, so two self-tests never meet. */
	if (bind(lfd, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(lfd, MAX_CONNS) < 0 ||
	    getsockname(lfd, (struct sockaddr *)&a, &alen) < 0) {
		e = errno;
		close(lfd);
		return -e;
	}
	if (a.sin_family != AF_INET || a.sin_addr.s_addr != htonl(INADDR_LOOPBACK)) {
		close(lfd);
		return -EADDRNOTAVAIL;
	}
	if (pipe2(ctl, O_CLOEXEC) < 0) {
		e = errno;
		close(lfd);
		return -e;
	}
	if (pipe2(rep, O_CLOEXEC) < 0) {
		e = errno;
		close(lfd);
		close(ctl[0]);
		close(ctl[1]);
		return -e;
	}
	pid = fork();
	if (pid == 0) {
		struct server sv = { .lfd = lfd, .ctl = ctl[0], .rep = rep[1], .max = max_requests };

		close(ctl[1]);
		close(rep[0]);
		/* After the drop: a change of credentials clears the death signal. */
		if (drop_root() < 0 || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
		    prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
			_exit(1);
		(void)signal(SIGPIPE, SIG_IGN);
		(void)fcntl(rep[1], F_SETFL, O_NONBLOCK);
		serve(&sv, timeout_ms);
		_exit(0);
	}
	e = errno;
	close(lfd);
	close(ctl[0]);
	close(rep[1]);
	if (pid < 0) {
		close(ctl[1]);
		close(rep[0]);
		return -e;
	}
	*st = (struct sg_stub){ .pid = pid, .port = ntohs(a.sin_port), .ctl = ctl[1], .rep = rep[0] };
	return 0;
}

static int add_line(struct sg_stub_log *log, const char *text)
{
	char **v = realloc(log->lines, (log->n + 2) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	log->lines = v;
	if (!(v[log->n] = strdup(text)))
		return -ENOMEM;
	v[++log->n] = NULL;
	return 0;
}

int sg_stub_stop(struct sg_stub *st, struct sg_stub_log *log)
{
	char *text = malloc(MAX_REPORT + 1), *save = NULL;
	long deadline = now_ms() + STOP_WAIT_MS;
	size_t n = 0;
	int status = 0, r = 0;

	*log = (struct sg_stub_log){ 0 };
	snprintf(log->end, sizeof(log->end), "never started");
	if (!st->pid) {
		free(text);
		return 0;
	}
	close(st->ctl);
	st->ctl = -1;
	for (;;) {
		struct pollfd pf = { .fd = st->rep, .events = POLLIN };
		long left = deadline - now_ms();
		ssize_t got;

		if (left <= 0 || !text) {
			kill(st->pid, SIGKILL);
			break;
		}
		if (poll(&pf, 1, (int)left) < 0 && errno != EINTR)
			break;
		got = read(st->rep, text + n, MAX_REPORT - n);
		if (got < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (got <= 0)
			break;
		n += (size_t)got;
		if (n == MAX_REPORT)
			break;
	}
	close(st->rep);
	st->rep = -1;
	while (waitpid(st->pid, &status, 0) < 0 && errno == EINTR)
		;
	st->pid = 0;
	if (!text)
		return -ENOMEM;
	text[n] = '\0';
	/* No "end" line: the server died or was killed, which the end says. */
	snprintf(log->end, sizeof(log->end), "%s",
		 WIFSIGNALED(status) ? "killed" : "died without a report");
	for (char *line = strtok_r(text, "\n", &save); line && r == 0;
	     line = strtok_r(NULL, "\n", &save)) {
		char *f[4], *s2 = NULL;
		int nf = 0;

		for (char *t = strtok_r(line, "\t", &s2); t && nf < 4; t = strtok_r(NULL, "\t", &s2))
			f[nf++] = t;
		if (nf == 2 && strcmp(f[0], "end") == 0) {
			snprintf(log->end, sizeof(log->end), "%s", f[1]);
		} else if (nf == 4 && strcmp(f[0], "req") == 0) {
			/* Status 0: a request whose answer could not be sent. */
			log->requests += strcmp(f[1], "0") != 0;
			log->messages += strcmp(f[2], "1") == 0;
			r = add_line(log, f[3]);
		}
	}
	free(text);
	return r;
}

void sg_stub_log_free(struct sg_stub_log *log)
{
	for (size_t i = 0; i < log->n; i++)
		free(log->lines[i]);
	free(log->lines);
	*log = (struct sg_stub_log){ 0 };
}
