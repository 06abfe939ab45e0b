#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""gentree.py DIR N -- write a source-like tree of N entries (files, and a
few symlinks) into DIR for the `git checkout` benchmark of `make bench`
(bench/run.sh, item 5).

Generated rather than copied from /usr, so that the tree does not depend
on what the machine has installed (CI images often lack /usr/share/doc):
the same N gives the same shape on every machine.  The content comes from
Python's seeded generator, whose methods other than random() may change
between Python versions, so bytes may differ; run.sh records the tree's
id and size with the figures.

Shape, roughly a C project: DIR/dAA/sBB/fNNNNN.c, 50 files to a
directory and 20 directories to a top directory; sizes log-normal with a
median of 4 KiB (mean about 6.7 KiB, at most 256 KiB), lines drawn from a
pool of C-like lines, so the objects compress about 2:1; every 40th file
executable; every 500th entry a relative symlink to the file before it
(git checkout makes each with symlink(2), one of the calls issue 15
routes to the supervisor).  Prints "files dirs symlinks bytes".
"""
import os
import random
import sys

FILES_PER_DIR = 50
DIRS_PER_TOP = 20


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: gentree.py DIR N")
    root, n = sys.argv[1], int(sys.argv[2])
    rng = random.Random(15)
    words = ["".join(rng.choices("abcdefghijklmnopqrstuvwxyz_", k=rng.randint(2, 12)))
             for _ in range(3000)]
    shapes = ["static int {0}(struct {1} *{2}, size_t {3})", "\t{0} = {1}({2}, {3});",
              "\tif ({0} < 0)", "\t\treturn -{1};", "#include <{0}/{1}.h>",
              "/* {0} {1} {2} {3} */", "}}", "{{", "", "\tfor (i = 0; i < {0}; i++)",
              "#define {0} {1}"]
    lines = [rng.choice(shapes).format(*rng.sample(words, 4)) for _ in range(20000)]
    dirs = set()
    links = size = 0
    made = 0
    k = 0
    while made < n:
        d = os.path.join(root, f"d{k // (FILES_PER_DIR * DIRS_PER_TOP):02d}",
                         f"s{(k // FILES_PER_DIR) % DIRS_PER_TOP:02d}")
        if d not in dirs:
            os.makedirs(d, exist_ok=True)
            dirs.add(d)
            dirs.add(os.path.dirname(d))
        name = os.path.join(d, f"f{k:05d}.c")
        if k % 500 == 499:
            os.symlink(f"f{k - 1:05d}.c", name)
            links += 1
        else:
            want = min(int(rng.lognormvariate(8.3, 1.0)), 262144)
            text = "\n".join(rng.choices(lines, k=max(1, want // 28))) + "\n"
            with open(name, "w") as f:
                f.write(text)
            if k % 40 == 39:
                os.chmod(name, 0o755)
            size += len(text)
        made += 1
        k += 1
    print(made - links, len(dirs), links, size)


if __name__ == "__main__":
    main()
