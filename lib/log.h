/* SPDX-License-Identifier: MIT */
/*
 * log.h — stepguard's JSON lines (docs/log-format.md).
 *
 * One JSON object per line, each written with a single write(2) on a
 * descriptor opened O_APPEND, so concurrent steps sharing a log never
 * interleave or tear a record.  Strings that come from the system (paths,
 * arguments) are bytes: any byte that is not part of valid UTF-8, any
 * control byte and the backslash are written as \xNN, so every record is
 * valid JSON and every byte can be recovered.
 */
#ifndef STEPGUARD_LOG_H
#define STEPGUARD_LOG_H

#include <json-c/json.h>
#include <stddef.h>
#include <time.h>

struct sg_log {
	int fd;           /* -1: no log */
	char run_id[64];
	char step[128];
	char path[4096];
};

/* Open PATH for appending (created 0640); PATH NULL or "": no log. 0 or -errno. */
int sg_log_open(struct sg_log *l, const char *path, const char *step, char *const envp[]);
void sg_log_close(struct sg_log *l);

/* Add time, event, step and run to REC and append it; takes REC. 0 or -errno. */
int sg_log_write(struct sg_log *l, const char *event, json_object *rec);

/* A JSON string for bytes S, escaped as described above (never NULL on success). */
json_object *sg_json_bytes(const char *s);
/*
 * The escaping alone, into BUF (always NUL-terminated); returns the needed
 * size.  Cut short, BUF holds a prefix of the whole that ends before the
 * first escape or UTF-8 character that does not fit: never half of one.
 */
size_t sg_escape_bytes(const char *s, char *buf, size_t len);

/* RFC 3339 UTC with microseconds: 2026-11-29T19:06:30.123456Z */
void sg_log_time(char buf[32]);
void sg_log_format_time(const struct timespec *ts, char buf[32]);

#endif
