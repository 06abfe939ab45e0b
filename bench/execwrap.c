// SPDX-License-Identifier: MIT
/*
 * execwrap.c — the floor any exec'ing launcher pays: one more execve and
 * nothing else.  Built with -static where libc's static archive exists, so
 * it pays no dynamic linking either (bench/run.sh says which it got).
 *
 *   execwrap CMD [ARG]...
 */
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 2)
		return 64;
	execvp(argv[1], argv + 1);
	perror(argv[1]);
	return 127;
}
