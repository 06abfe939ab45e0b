// SPDX-License-Identifier: MIT
/*
 * execs.c — what a ruling step may execute, resolved once at start.
 *
 * The model CLI as the step's execvpe() will find it (its real file, and
 * for a script its interpreter), what [model-cli] exec-allow adds, and the
 * ELF interpreter (PT_INTERP) of each: the kernel opens ld.so for execution
 * too (open_exec), so Landlock's EXECUTE right is checked on it.  Each file
 * is opened O_PATH and kept open, as the writable roots are: the filters
 * are built from the descriptors, so a file put at the same path later is
 * another file and is refused.
 */
#include "launcher/execs.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/cleanup.h"

/* binfmt_script nests at most this deep (the kernel's own limit is 4 + 1). */
#define SG_INTERP_DEPTH 5

struct resolver {
	struct sg_roots *out;
	struct sg_error *err;
	const char *path_env; /* PATH, as execvpe() reads it */
};

static bool have(const struct sg_roots *r, const struct stat *st)
{
	for (size_t i = 0; i < r->n; i++) {
		struct stat o;

		if (r->v[i].fd >= 0 && fstat(r->v[i].fd, &o) == 0 && o.st_dev == st->st_dev &&
		    o.st_ino == st->st_ino)
			return true;
	}
	return false;
}

/*
 * Find NAME as execvpe() does: a name with a slash is taken as it is
 * (relative to the current directory); otherwise each PATH entry in turn,
 * the first regular file that exists and is executable wins.
 */
static int search(const struct resolver *rs, const char *name, char *buf, size_t len)
{
	const char *p = rs->path_env;

	if (!*name)
		return -ENOENT;
	if (strchr(name, '/')) {
		if ((size_t)snprintf(buf, len, "%s", name) >= len)
			return -ENAMETOOLONG;
		return 0;
	}
	while (p) {
		const char *colon = strchr(p, ':');
		size_t n = colon ? (size_t)(colon - p) : strlen(p);
		struct stat st;

		/* An empty entry is the current directory, as for execvpe(). */
		if ((size_t)snprintf(buf, len, "%.*s%s%s", (int)n, p, n ? "/" : "", name) < len &&
		    stat(buf, &st) == 0 && S_ISREG(st.st_mode) && access(buf, X_OK) == 0)
			return 0;
		p = colon ? colon + 1 : NULL;
	}
	return -ENOENT;
}

/* The ELF interpreter of FD's file into BUF ("" when it has none or is no ELF). */
static int elf_interp(int fd, char *buf, size_t len)
{
	unsigned char ident[EI_NIDENT];
	Elf64_Ehdr e64;
	Elf32_Ehdr e32;
	uint64_t phoff;
	unsigned phnum, phentsize;
	bool is64;

	buf[0] = '\0';
	if (pread(fd, ident, sizeof(ident), 0) != (ssize_t)sizeof(ident) ||
	    memcmp(ident, ELFMAG, SELFMAG) != 0)
		return 0;
	is64 = ident[EI_CLASS] == ELFCLASS64;
	if (is64) {
		if (pread(fd, &e64, sizeof(e64), 0) != (ssize_t)sizeof(e64))
			return 0;
		phoff = e64.e_phoff, phnum = e64.e_phnum, phentsize = e64.e_phentsize;
	} else {
		if (pread(fd, &e32, sizeof(e32), 0) != (ssize_t)sizeof(e32))
			return 0;
		phoff = e32.e_phoff, phnum = e32.e_phnum, phentsize = e32.e_phentsize;
	}
	for (unsigned i = 0; i < phnum && i < 256; i++) {
		uint64_t off, size;
		uint32_t type;

		if (is64) {
			Elf64_Phdr ph;

			if (phentsize < sizeof(ph) ||
			    pread(fd, &ph, sizeof(ph), (off_t)(phoff + (uint64_t)i * phentsize)) != (ssize_t)sizeof(ph))
				return 0;
			type = ph.p_type, off = ph.p_offset, size = ph.p_filesz;
		} else {
			Elf32_Phdr ph;

			if (phentsize < sizeof(ph) ||
			    pread(fd, &ph, sizeof(ph), (off_t)(phoff + (uint64_t)i * phentsize)) != (ssize_t)sizeof(ph))
				return 0;
			type = ph.p_type, off = ph.p_offset, size = ph.p_filesz;
		}
		if (type != PT_INTERP)
			continue;
		if (size == 0 || size >= len)
			return -ENAMETOOLONG;
		if (pread(fd, buf, (size_t)size, (off_t)off) != (ssize_t)size)
			return -EIO;
		buf[size] = '\0';
		buf[strcspn(buf, "\n")] = '\0';
		return 0;
	}
	return 0;
}

/*
 * A "#!" line's interpreter and its one argument (the kernel passes the
 * rest of the line as one argument): INTERP "" when FD's file is no script.
 */
static int script_interp(int fd, char *interp, size_t ilen, char *arg, size_t alen)
{
	char line[256];
	ssize_t n = pread(fd, line, sizeof(line) - 1, 0);
	char *p, *end;

	interp[0] = arg[0] = '\0';
	if (n < 2 || line[0] != '#' || line[1] != '!')
		return 0;
	line[n] = '\0';
	line[strcspn(line, "\n")] = '\0';
	for (p = line + 2; *p == ' ' || *p == '\t'; p++)
		;
	for (end = p; *end && *end != ' ' && *end != '\t'; end++)
		;
	if ((size_t)(end - p) >= ilen)
		return -ENAMETOOLONG;
	memcpy(interp, p, (size_t)(end - p));
	interp[end - p] = '\0';
	for (p = end; *p == ' ' || *p == '\t'; p++)
		;
	for (end = p + strlen(p); end > p && (end[-1] == ' ' || end[-1] == '\t'); end--)
		;
	if ((size_t)(end - p) >= alen)
		return -ENAMETOOLONG;
	memcpy(arg, p, (size_t)(end - p));
	arg[end - p] = '\0';
	return 0;
}

static int add_file(const struct resolver *rs, const char *path, const char *what, int depth);

/* "#!/usr/bin/env node" runs node, found by env on PATH: allow that too. */
static int add_env_target(const struct resolver *rs, const char *arg, int depth) // NOLINT(misc-no-recursion): depth bounded by SG_INTERP_DEPTH
{
	char name[PATH_MAX], found[PATH_MAX];
	const char *a = arg;

	/* env -S "node --flag": the first word is the program. */
	if (strncmp(a, "-S", 2) == 0)
		for (a += 2; *a == ' ' || *a == '\t'; a++)
			;
	if (!*a || *a == '-')
		return 0;
	snprintf(name, sizeof(name), "%.*s", (int)strcspn(a, " \t"), a);
	if (strchr(name, '='))
		return 0; /* env NAME=VALUE ...: nothing more this simple reading can tell */
	if (search(rs, name, found, sizeof(found)) < 0)
		return sg_errorf(rs->err, -ENOEXEC, NULL, 0,
				 "the model CLI's interpreter runs \"%s\", which is not on PATH", name);
	return add_file(rs, found, "the program env runs for the model CLI", depth + 1);
}

static int add_file(const struct resolver *rs, const char *path, const char *what, int depth) // NOLINT(misc-no-recursion): depth bounded by SG_INTERP_DEPTH
{
	_cleanup_close_ int fd = -1;
	struct sg_roots *r = rs->out;
	char real[PATH_MAX], interp[PATH_MAX] = "", arg[PATH_MAX] = "";
	struct stat st;
	struct sg_root *v;
	int ret;

	if (depth > SG_INTERP_DEPTH)
		return sg_errorf(rs->err, -ELOOP, NULL, 0, "%s: interpreters nest too deep", path);
	/* O_PATH follows symlinks: the allowed file is what the name leads to now. */
	fd = open(path, O_PATH | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		int e = errno;

		/* -ENOENT is kept for "the CLI is not found"; a missing interpreter is another failure. */
		if (e == ENOENT && depth == 0 && r->n == 0) /* the CLI itself: the caller names it */
			return sg_errorf(rs->err, -ENOENT, NULL, 0, "%s", strerror(e));
		return sg_errorf(rs->err, e == ENOENT ? -ENOEXEC : -e, NULL, 0, "%s (%s): %s", path, what,
				 strerror(e));
	}
	if (!S_ISREG(st.st_mode))
		return sg_errorf(rs->err, -EACCES, NULL, 0, "%s (%s): not a regular file", path, what);
	if (have(r, &st))
		return 0;
	if (!realpath(path, real))
		snprintf(real, sizeof(real), "%s", path);
	v = realloc(r->v, (r->n + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	r->v = v;
	memset(&v[r->n], 0, sizeof(v[r->n]));
	v[r->n].path = strdup(real);
	v[r->n].given = strdup(path);
	if (!v[r->n].path || !v[r->n].given) {
		free((char *)v[r->n].path);
		free(v[r->n].given);
		return -ENOMEM;
	}
	snprintf(v[r->n].what, sizeof(v[r->n].what), "%s", what);
	v[r->n].fd = steal_fd(&fd);
	r->n++;

	/* The descriptor is O_PATH: read through a second, ordinary one. */
	{
		_cleanup_close_ int rd = open(real, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
		struct stat rst;

		/* Unreadable (execute-only): nothing to follow, the file alone is allowed. */
		if (rd < 0 || fstat(rd, &rst) < 0 || rst.st_dev != st.st_dev || rst.st_ino != st.st_ino)
			return 0;
		ret = script_interp(rd, interp, sizeof(interp), arg, sizeof(arg));
		if (ret == 0 && interp[0]) {
			ret = add_file(rs, interp, "the model CLI's script interpreter", depth + 1);
			if (ret == 0 && strcmp(strrchr(interp, '/') ? strrchr(interp, '/') + 1 : interp,
					       "env") == 0)
				ret = add_env_target(rs, arg, depth);
			return ret;
		}
		if (ret < 0)
			return sg_errorf(rs->err, ret, NULL, 0, "%s: its #! line is too long", real);
		ret = elf_interp(rd, interp, sizeof(interp));
		if (ret < 0)
			return sg_errorf(rs->err, ret, NULL, 0, "%s: cannot read its ELF interpreter", real);
		if (interp[0])
			return add_file(rs, interp, "an ELF interpreter (ld.so)", depth + 1);
	}
	return 0;
}

/* An exec-allow name this machine lacks: kept, without a descriptor, for --check. */
static int add_skipped(struct sg_roots *r, const char *name, const char *what)
{
	struct sg_root *v = realloc(r->v, (r->n + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	r->v = v;
	memset(&v[r->n], 0, sizeof(v[r->n]));
	v[r->n].fd = -1;
	v[r->n].given = strdup(name);
	if (!v[r->n].given)
		return -ENOMEM;
	snprintf(v[r->n].what, sizeof(v[r->n].what), "%s", what);
	r->n++;
	return 0;
}

int sg_execs_resolve(const struct sg_policy *p, const char *cli, struct sg_roots *out,
		     struct sg_error *err)
{
	/* execvpe() searches the caller's PATH (not the step's envp), or the default. */
	const char *path_env = getenv("PATH");
	struct resolver rs = { out, err, path_env ? path_env : "/bin:/usr/bin" };
	char found[PATH_MAX];
	int r;

	memset(out, 0, sizeof(*out));
	r = search(&rs, cli, found, sizeof(found));
	if (r < 0) /* -ENOENT: the caller names the command, which may have to be redacted */
		return sg_errorf(err, r == -ENOENT ? -ENOENT : r, NULL, 0, "%s", strerror(-r));
	r = add_file(&rs, found, "the model CLI", 0);
	if (r < 0)
		return r;
	for (size_t i = 0; i < p->cli.exec_allow.n; i++) {
		const char *name = p->cli.exec_allow.v[i];
		char what[96];

		/*
		 * A program this machine lacks is left out: allowing less is
		 * never a hole, and a CLI that looks for git outside a
		 * repository runs fine without it.  --check and -v show it.
		 */
		snprintf(what, sizeof(what), "[model-cli] exec-allow %s", name);
		if (search(&rs, name, found, sizeof(found)) < 0) {
			r = add_skipped(out, name, what);
			if (r < 0)
				return r;
			continue;
		}
		r = add_file(&rs, found, what, 0);
		if (r < 0)
			return r;
	}
	return 0;
}
