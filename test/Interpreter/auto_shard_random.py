#!/usr/bin/env python3
"""Auto-sharding on random programs: the straight-line entry functions of a
gen_compile_programs.py file, every spec removed, compiled with
`dtensor-compile{auto-shard=mesh memory-budget-mb=BUDGET}` and run with
`dtensor-run --verify` (every rank against the global program).

Usage: auto_shard_random.py PROGRAMS.mlir DTENSOR_RUN BUDGET_MB WORKDIR
Prints `ok=N over-budget=M failed=K`; exits 1 when any function fails
other than by a budget error at the function (which says what the
arguments need)."""
import os
import re
import subprocess
import sys


def main():
    src, run, budget, work = sys.argv[1:5]
    os.makedirs(work, exist_ok=True)
    text = open(src).read()
    mesh = next(l for l in text.splitlines() if l.startswith("dtensor.mesh"))
    ok = over = 0
    failed = []
    for f in re.split(r"\n(?=func\.func )", text):
        name = re.match(r"func\.func @(\w+)\(", f)
        # Straight-line entry functions without ops that need a spec.
        if not name or re.search(
                r"dtensor\.(hint|distribute_tensor|redistribute|full_tensor)"
                r"|scf\.|func\.call", f):
            continue
        path = os.path.join(work, name.group(1) + ".mlir")
        with open(path, "w") as out:
            out.write(mesh + "\n" + re.sub(r", #dtensor\.spec<[^>]*>", "", f)
                      + "\n")
        r = subprocess.run(
            [run, path, "--verify", "--pipeline",
             "dtensor-compile{auto-shard=mesh memory-budget-mb=%s}" % budget],
            capture_output=True, text=True)
        out = r.stdout + r.stderr
        if r.returncode == 0 and "verified @" in out:
            ok += 1
        elif r.returncode != 0 and "memory-budget-mb allows" in out:
            over += 1
        else:
            failed.append((name.group(1), out.strip().splitlines()[-3:]))
    print("ok=%d over-budget=%d failed=%d" % (ok, over, len(failed)))
    for n, lines in failed[:10]:
        print(n, *lines, sep="\n  ")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
