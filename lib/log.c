// SPDX-License-Identifier: MIT
#include "lib/log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/env.h"

/* Length of the valid UTF-8 sequence at S (1-4), or 0 if it is not one. */
static size_t utf8_len(const unsigned char *s)
{
	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		return (s[1] & 0xc0) == 0x80 ? 2 : 0;
	if (s[0] >= 0xe0 && s[0] <= 0xef) {
		if ((s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80)
			return 0;
		if (s[0] == 0xe0 && s[1] < 0xa0) /* overlong */
			return 0;
		if (s[0] == 0xed && s[1] >= 0xa0) /* surrogates */
			return 0;
		return 3;
	}
	if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		if ((s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80 || (s[3] & 0xc0) != 0x80)
			return 0;
		if (s[0] == 0xf0 && s[1] < 0x90)
			return 0;
		if (s[0] == 0xf4 && s[1] >= 0x90)
			return 0;
		return 4;
	}
	return 0;
}

size_t sg_escape_bytes(const char *str, char *buf, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t o = 0;

	while (*s) {
		size_t n = utf8_len(s);

		if (n == 0 || *s < 0x20 || *s == 0x7f || *s == '\\') {
			if (o + 4 < len)
				snprintf(buf + o, len - o, "\\x%02x", *s);
			else if (o < len)
				buf[o] = '\0'; /* an escape that does not fit ends the text here */
			o += 4;
			s++;
			continue;
		}
		/*
		 * A character that does not fit whole ends the text before it,
		 * as an escape does: a lead byte without its continuation bytes
		 * is not UTF-8, and the cut text (a path step.c prints) must stay
		 * as valid as the whole.  Invalid bytes never get here: escaped.
		 */
		if (o + n < len)
			memcpy(buf + o, s, n);
		else if (o < len)
			buf[o] = '\0';
		o += n;
		s += n;
	}
	if (len)
		buf[o < len ? o : len - 1] = '\0';
	return o + 1;
}

json_object *sg_json_bytes(const char *s)
{
	size_t need = sg_escape_bytes(s, NULL, 0);
	json_object *o;
	char *buf = malloc(need);

	if (!buf)
		return NULL;
	sg_escape_bytes(s, buf, need);
	o = json_object_new_string(buf);
	free(buf);
	return o;
}

void sg_log_format_time(const struct timespec *ts, char buf[32])
{
	struct tm tm;

	gmtime_r(&ts->tv_sec, &tm);
	/* The year is four digits until 9999; the casts keep the compiler sure of it. */
	snprintf(buf, 32, "%04u-%02u-%02uT%02u:%02u:%02u.%06luZ",
		 (unsigned)(tm.tm_year + 1900) % 10000u, (unsigned)(tm.tm_mon + 1) % 100u,
		 (unsigned)tm.tm_mday % 100u, (unsigned)tm.tm_hour % 100u,
		 (unsigned)tm.tm_min % 100u, (unsigned)tm.tm_sec % 100u,
		 (unsigned long)ts->tv_nsec / 1000ul % 1000000ul);
}

void sg_log_time(char buf[32])
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	sg_log_format_time(&ts, buf);
}

/*
 * The run id ties the records of one stepguard invocation together:
 * STEPGUARD_RUN_ID if the caller sets one, else GitHub's run id and
 * attempt, else 64 random bits.
 */
static void make_run_id(char *buf, size_t len, char *const envp[])
{
	const char *v = sg_env_get(envp, "STEPGUARD_RUN_ID");
	const char *gh = sg_env_get(envp, "GITHUB_RUN_ID");
	const char *att = sg_env_get(envp, "GITHUB_RUN_ATTEMPT");
	unsigned char r[8] = { 0 };

	if (v && *v) {
		snprintf(buf, len, "%s", v);
		return;
	}
	if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r)) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		memcpy(r, &ts.tv_nsec, sizeof(ts.tv_nsec) < sizeof(r) ? sizeof(ts.tv_nsec) : sizeof(r));
	}
	if (gh && *gh)
		snprintf(buf, len, "%s-%s-%02x%02x%02x%02x", gh, att && *att ? att : "1", r[0], r[1],
			 r[2], r[3]);
	else
		snprintf(buf, len, "%02x%02x%02x%02x%02x%02x%02x%02x", r[0], r[1], r[2], r[3], r[4],
			 r[5], r[6], r[7]);
}

int sg_log_open(struct sg_log *l, const char *path, const char *step, char *const envp[])
{
	struct stat st;

	memset(l, 0, sizeof(*l));
	l->fd = -1;
	snprintf(l->step, sizeof(l->step), "%s", step ? step : "");
	make_run_id(l->run_id, sizeof(l->run_id), envp);
	if (!path || !*path)
		return 0;
	snprintf(l->path, sizeof(l->path), "%s", path);
	/*
	 * O_APPEND: every write lands at the end, whole, whoever else appends.
	 * O_NOFOLLOW: a planted symlink cannot turn the log into a way to
	 * append to another file.  O_CLOEXEC: the step never holds it.
	 */
	l->fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0640);
	if (l->fd < 0)
		return -errno;
	if (fstat(l->fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(l->fd);
		l->fd = -1;
		return -EINVAL;
	}
	return 0;
}

void sg_log_close(struct sg_log *l)
{
	if (l->fd >= 0)
		close(l->fd);
	l->fd = -1;
}

int sg_log_write(struct sg_log *l, const char *event, json_object *rec)
{
	json_object *o;
	const char *text;
	char t[32];
	size_t n;
	ssize_t w;
	char *line;
	int r = 0;

	/*
	 * No log: nothing to format.  Building the record anyway cost every
	 * start without one the clock, glibc's first time-zone setup (it
	 * reads /etc/localtime even for UTC) and a JSON object.
	 */
	if (l->fd < 0) {
		json_object_put(rec);
		return 0;
	}
	o = json_object_new_object();
	if (!o) {
		json_object_put(rec);
		return -ENOMEM;
	}
	sg_log_time(t);
	/* Fixed fields first, so a person reading the file sees them first. */
	json_object_object_add(o, "time", json_object_new_string(t));
	json_object_object_add(o, "event", json_object_new_string(event));
	json_object_object_add(o, "step", json_object_new_string(l->step));
	json_object_object_add(o, "run", json_object_new_string(l->run_id));
	{
		struct json_object_iterator it = json_object_iter_begin(rec);
		struct json_object_iterator end = json_object_iter_end(rec);

		for (; !json_object_iter_equal(&it, &end); json_object_iter_next(&it))
			json_object_object_add(o, json_object_iter_peek_name(&it),
					       json_object_get(json_object_iter_peek_value(&it)));
	}
	json_object_put(rec);

	text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
						     JSON_C_TO_STRING_NOSLASHESCAPE);
	n = strlen(text);
	line = malloc(n + 2);
	if (!line) {
		json_object_put(o);
		return -ENOMEM;
	}
	memcpy(line, text, n);
	line[n] = '\n';
	/* One write: the record and its newline land together or not at all. */
	do
		w = write(l->fd, line, n + 1);
	while (w < 0 && errno == EINTR);
	if (w < 0)
		r = -errno;
	else if ((size_t)w != n + 1)
		r = -EIO;
	free(line);
	json_object_put(o);
	return r;
}
