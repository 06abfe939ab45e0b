/* SPDX-License-Identifier: MIT */
/*
 * fuzz_common.h — what the libFuzzer targets share: splitting an input
 * into NUL-separated strings, and a failure that libFuzzer records as a
 * crash (with the input saved under build/fuzz/artifacts/).
 */
#ifndef STEPGUARD_FUZZ_COMMON_H
#define STEPGUARD_FUZZ_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An invariant the code under test promises does not hold: report, abort. */
#define FUZZ_CHECK(cond, ...)                                                        \
	do {                                                                         \
		if (!(cond)) {                                                       \
			fprintf(stderr, "fuzz: %s:%d: check failed: %s: ", __FILE__, \
				__LINE__, #cond);                                    \
			fprintf(stderr, __VA_ARGS__);                                \
			fputc('\n', stderr);                                         \
			abort();                                                     \
		}                                                                    \
	} while (0)

/*
 * The strings of an input: byte 0 is N, the number of leading strings that
 * form the first vector (argv), modulo 32; the rest of the input is split
 * at NUL bytes, so empty strings ("--tools" "") can be written.  The first
 * N strings go to V1 (NULL-terminated), the others to V2 (the environment).
 * One allocation for the text (FS->buf) and one per vector, each of its
 * exact size, so AddressSanitizer sees a read past the NULL terminator.
 */
struct fuzz_strings {
	char *buf;
	char **v1, **v2;
	int n1, n2;
};

static inline int fuzz_split(const uint8_t *data, size_t size, struct fuzz_strings *fs)
{
	size_t want, nstr = 0;
	char *p;

	memset(fs, 0, sizeof(*fs));
	if (size == 0)
		return -1;
	want = data[0] % 32;
	size--;
	data++;
	fs->buf = malloc(size + 1);
	if (!fs->buf)
		return -1;
	memcpy(fs->buf, data, size);
	fs->buf[size] = '\0';
	/* size bytes hold size + 1 strings when the last one is counted too. */
	for (size_t i = 0; i < size; i++)
		if (fs->buf[i] == '\0')
			nstr++;
	nstr++;
	if (size == 0)
		nstr = 0;
	fs->n1 = (int)(want < nstr ? want : nstr);
	fs->n2 = (int)(nstr - (size_t)fs->n1);
	fs->v1 = malloc(((size_t)fs->n1 + 1) * sizeof(char *));
	fs->v2 = malloc(((size_t)fs->n2 + 1) * sizeof(char *));
	if (!fs->v1 || !fs->v2) {
		free(fs->v1);
		free(fs->v2);
		free(fs->buf);
		return -1;
	}
	p = fs->buf;
	for (int i = 0; i < fs->n1; i++, p += strlen(p) + 1)
		fs->v1[i] = p;
	fs->v1[fs->n1] = NULL;
	for (int i = 0; i < fs->n2; i++, p += strlen(p) + 1)
		fs->v2[i] = p;
	fs->v2[fs->n2] = NULL;
	return 0;
}

static inline void fuzz_split_free(struct fuzz_strings *fs)
{
	free(fs->v1);
	free(fs->v2);
	free(fs->buf);
	memset(fs, 0, sizeof(*fs));
}

#endif
