#!/bin/bash
# SPDX-License-Identifier: MIT
#
# gen.sh DIR [N] — write a small C project into DIR for the build
# benchmark: N translation units (default 40) that include the usual libc
# headers, as real code does (header parsing is much of a compiler's
# work), a shared header, a main, and a Makefile that builds them into
# DIR/out.  Deterministic: the same N gives the same files.
set -euo pipefail

dir=${1:?usage: gen.sh DIR [N]}
n=${2:-40}
mkdir -p "$dir"

cat > "$dir/common.h" <<'EOF'
#ifndef COMMON_H
#define COMMON_H
#include <stddef.h>
#include <stdint.h>
struct item { uint64_t key; double weight; char name[32]; };
EOF
for ((i = 0; i < n; i++)); do
	echo "uint64_t unit$i(struct item *v, size_t n);" >> "$dir/common.h"
done
echo '#endif' >> "$dir/common.h"

for ((i = 0; i < n; i++)); do
	cat > "$dir/unit$i.c" <<EOF
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "common.h"

static int cmp$i(const void *a, const void *b)
{
	const struct item *x = a, *y = b;

	return (x->key > y->key) - (x->key < y->key);
}

static double score$i(const struct item *it, unsigned round)
{
	double s = it->weight;

	for (unsigned k = 0; k < round % 7 + 1; k++)
		s = s * 1.000$i + sqrt(fabs(s) + k);
	return s;
}

uint64_t unit$i(struct item *v, size_t n)
{
	uint64_t h = 1469598103934665603ull ^ $i;
	char buf[64];

	for (size_t k = 0; k < n; k++) {
		v[k].key = (v[k].key * 6364136223846793005ull + $i) ^ (v[k].key >> 17);
		v[k].weight = score$i(&v[k], (unsigned)k);
		snprintf(buf, sizeof(buf), "u$i-%zu-%.3f", k, v[k].weight);
		memcpy(v[k].name, buf, sizeof(v[k].name) - 1);
		v[k].name[sizeof(v[k].name) - 1] = '\0';
	}
	qsort(v, n, sizeof(*v), cmp$i);
	for (size_t k = 0; k < n; k++) {
		switch (v[k].key % 5) {
		case 0: h ^= v[k].key; break;
		case 1: h += (uint64_t)v[k].weight; break;
		case 2: h *= 1099511628211ull; break;
		case 3: h ^= strlen(v[k].name); break;
		default: h = (h << 7) | (h >> 57); break;
		}
	}
	return h;
}
EOF
done

{
	echo '#include <stdio.h>'
	echo '#include <stdlib.h>'
	echo '#include "common.h"'
	echo 'int main(void)'
	echo '{'
	echo '	struct item *v = calloc(256, sizeof(*v));'
	echo '	uint64_t h = 0;'
	echo '	if (!v) return 1;'
	for ((i = 0; i < n; i++)); do
		echo "	h ^= unit$i(v, 256);"
	done
	# shellcheck disable=SC2028 # the \n is C source, printed as is
	echo '	printf("%llu\n", (unsigned long long)h);'
	echo '	free(v);'
	echo '	return 0;'
	echo '}'
} > "$dir/main.c"

cat > "$dir/Makefile" <<'EOF'
CC     ?= cc
CFLAGS ?= -O2 -g -Wall
SRCS   := $(sort $(wildcard *.c))
OBJS   := $(SRCS:%.c=out/%.o)

out/prog: $(OBJS)
	$(CC) -o $@ $^ -lm

out/%.o: %.c common.h | out
	$(CC) $(CFLAGS) -c -o $@ $<

out:
	mkdir -p out
EOF
