// SPDX-License-Identifier: MIT
/*
 * fchelper — the fail-closed suite's helper (tests/failclosed/run.sh).
 *
 *   fchelper deny NAME[/ARG0]=ERRNO... -- CMD [ARG...]
 *       Run CMD with a seccomp filter that answers each system call NAME
 *       (only when its first argument is ARG0, if given) with ERRNO (a
 *       number or EOPNOTSUPP, ENOSYS, EPERM, EINVAL, EACCES, ENOMEM): how
 *       the suite makes a kernel feature look absent to stepguard
 *       (landlock_create_ruleset=EOPNOTSUPP is "Landlock not in lsm=";
 *       bpf/28=EPERM would refuse BPF_LINK_CREATE, an attach failure).
 *   fchelper try [--forkfill] [--hog] OP...
 *       Optionally first exhaust the processes this user may have
 *       (fork until EAGAIN; the children wait to die with us) and/or the
 *       address space (malloc and touch 1 MiB blocks until ENOMEM, kept),
 *       then attempt each OP and print one line for it:
 *         create:PATH     open(O_WRONLY|O_CREAT|O_TRUNC) and write
 *         append:PATH     open(O_WRONLY|O_APPEND) and write
 *         chmod:PATH:MODE chmod(2), MODE in octal
 *         fork            fork a child that exits at once
 *       "OP PATH: ok" or "OP PATH: refused (errno text)".  Exit status:
 *       the number of OPs that succeeded (capped at 100).
 *
 * Built by run.sh with the C compiler and libseccomp (-lseccomp).
 */
#include <errno.h>
#include <fcntl.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char outbuf[8192];

static int errno_of(const char *s)
{
	static const struct {
		const char *name;
		int value;
	} names[] = { { "EOPNOTSUPP", EOPNOTSUPP }, { "ENOSYS", ENOSYS }, { "EPERM", EPERM },
		      { "EINVAL", EINVAL },         { "EACCES", EACCES }, { "ENOMEM", ENOMEM } };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(s, names[i].name) == 0)
			return names[i].value;
	return atoi(s);
}

static int cmd_deny(int argc, char **argv)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	int i;

	if (!ctx)
		return 120;
	for (i = 0; i < argc && strcmp(argv[i], "--") != 0; i++) {
		char *eq = strchr(argv[i], '='), *slash;
		int nr, e, r;

		if (!eq) {
			fprintf(stderr, "fchelper: deny: %s is not NAME[/ARG0]=ERRNO\n", argv[i]);
			return 120;
		}
		*eq = '\0';
		slash = strchr(argv[i], '/');
		if (slash)
			*slash++ = '\0';
		nr = seccomp_syscall_resolve_name(argv[i]);
		e = errno_of(eq + 1);
		r = -1;
		if (nr != __NR_SCMP_ERROR && e > 0)
			r = slash ? seccomp_rule_add(ctx, SCMP_ACT_ERRNO((unsigned)e), nr, 1,
						     SCMP_A0(SCMP_CMP_EQ, strtoull(slash, NULL, 0)))
				  : seccomp_rule_add(ctx, SCMP_ACT_ERRNO((unsigned)e), nr, 0);
		if (r < 0) {
			fprintf(stderr, "fchelper: deny: cannot deny %s with %s\n", argv[i], eq + 1);
			return 120;
		}
	}
	if (i >= argc - 1) {
		fprintf(stderr, "fchelper: deny: no command after --\n");
		return 120;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 || seccomp_load(ctx) < 0) {
		perror("fchelper: deny: loading the filter");
		return 120;
	}
	seccomp_release(ctx);
	execvp(argv[i + 1], argv + i + 1);
	perror("fchelper: deny: exec");
	return 127;
}

static void forkfill(void)
{
	pid_t me = getpid();
	int n = 0;

	for (;;) {
		pid_t p = fork();

		if (p < 0) {
			printf("forkfill: %d children, then fork: %s\n", n, strerror(errno));
			return;
		}
		if (p == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
			if (getppid() != me)
				_exit(0);
			for (;;)
				pause();
		}
		if (++n >= 100000) {
			printf("forkfill: %d children and fork still works\n", n);
			return;
		}
	}
}

static void hog(void)
{
	size_t mib = 0;

	for (;;) {
		char *p = malloc(1 << 20);

		if (!p) {
			printf("hog: %zu MiB held, then malloc: %s\n", mib, strerror(errno));
			return;
		}
		memset(p, 0x5a, 1 << 20);
		if (++mib >= 1 << 16) {
			printf("hog: %zu MiB and malloc still works\n", mib);
			return;
		}
	}
}

static int attempt(const char *op)
{
	char buf[4096], *a, *b;
	int r = -1, fd;

	snprintf(buf, sizeof(buf), "%s", op);
	a = strchr(buf, ':');
	if (a)
		*a++ = '\0';
	if (strcmp(buf, "create") == 0 && a) {
		fd = open(a, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd >= 0) {
			r = write(fd, "FC-LANDED\n", 10) == 10 ? 0 : -1;
			close(fd);
		}
	} else if (strcmp(buf, "append") == 0 && a) {
		fd = open(a, O_WRONLY | O_APPEND | O_CLOEXEC);
		if (fd >= 0) {
			r = write(fd, "FC-LANDED\n", 10) == 10 ? 0 : -1;
			close(fd);
		}
	} else if (strcmp(buf, "chmod") == 0 && a && (b = strrchr(a, ':'))) {
		*b++ = '\0';
		r = chmod(a, (mode_t)strtoul(b, NULL, 8));
	} else if (strcmp(buf, "fork") == 0) {
		pid_t p = fork();

		if (p == 0)
			_exit(0);
		if (p > 0) {
			waitpid(p, NULL, 0);
			r = 0;
		}
		a = (char *)"-";
	} else {
		printf("%s: bad operation\n", op);
		return 0;
	}
	if (r == 0)
		printf("%s %s: ok\n", buf, a);
	else
		printf("%s %s: refused (%s)\n", buf, a, strerror(errno));
	return r == 0;
}

static int cmd_try(int argc, char **argv)
{
	int i = 0, ok = 0;

	for (; i < argc && strncmp(argv[i], "--", 2) == 0; i++) {
		if (strcmp(argv[i], "--forkfill") == 0)
			forkfill();
		else if (strcmp(argv[i], "--hog") == 0)
			hog();
		else {
			fprintf(stderr, "fchelper: try: unknown option %s\n", argv[i]);
			return 120;
		}
	}
	for (; i < argc; i++)
		ok += attempt(argv[i]);
	return ok > 100 ? 100 : ok;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, outbuf, _IOLBF, sizeof(outbuf));
	if (argc >= 2 && strcmp(argv[1], "deny") == 0)
		return cmd_deny(argc - 2, argv + 2);
	if (argc >= 2 && strcmp(argv[1], "try") == 0)
		return cmd_try(argc - 2, argv + 2);
	fprintf(stderr, "usage: fchelper deny NAME[/ARG0]=ERRNO... -- CMD... | fchelper try [--forkfill] [--hog] OP...\n");
	return 120;
}
