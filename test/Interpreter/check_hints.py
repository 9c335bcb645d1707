#!/usr/bin/env python3
"""Checks that the whole-function model keeps what hints decided (issue 14).

    check_hints.py DTENSOR_OPT FILE.mlir

Runs --dtensor-propagate on FILE twice: with whole-function-ops=0 (the
plan of lookahead and local search alone) and with the whole-function
model (whole-function-seconds=0, so the result depends on the program
alone). For every dtensor.hint it reads the spec propagation chose for the
hint's source (the producer's dtensor.result_specs, or the source's type)
and whether it is the hint's spec. Prints the counts, and every hint the
plan meets and the solution misses (the model must keep those), then how
many functions with hints the model solved; exits 1 on a missed hint.
"""
import re
import subprocess
import sys


def met_hints(opt, path, options):
    """(function, source, met) per hint, in program order."""
    out = subprocess.run([opt, path, f"--dtensor-propagate={options}"],
                         capture_output=True, text=True, check=True).stdout
    hints, fn, specs = [], None, {}
    for line in out.splitlines():
        m = re.match(r"\s*func\.func (?:private )?@(\w+)", line)
        if m:
            fn, specs = m.group(1), {}
            continue
        m = re.match(r"\s*(%[\w]+)(?::(\d+))? = (.*)", line)
        if not m or fn is None:
            continue
        name, count, rest = m.groups()
        rs = re.search(r"dtensor\.result_specs = \[(.*?)\]\}", rest)
        if rs:
            elems = re.findall(r"#dtensor\.spec<[^>]*>|unit", rs.group(1))
            for i, e in enumerate(elems):
                specs[f"{name}#{i}" if count else name] = e
        h = re.match(r"dtensor\.hint (%[\w#]+), \S+ (?:priority \d+ )?: (tensor<[^>]*>+), "
                     r".* -> tensor<[^,]*, (#dtensor\.spec<[^>]*>)>", rest)
        if not h:
            continue
        src, src_type, want = h.groups()
        have = specs.get(src)
        if have is None:
            typed = re.search(r"#dtensor\.spec<[^>]*>", src_type)
            have = typed.group(0) if typed else "plain"
        same = have.replace(" ", "") == want.replace(" ", "")
        hints.append((fn, src, same, have, want))
    return hints


def main():
    opt, path = sys.argv[1], sys.argv[2]
    plan = met_hints(opt, path, "whole-function-ops=0")
    solved = met_hints(opt, path, "whole-function-seconds=0")
    if len(plan) != len(solved):
        print(f"error: {len(plan)} hints against {len(solved)}")
        return 1
    missed = [(p, s) for p, s in zip(plan, solved) if p[2] and not s[2]]
    print(f"hints: {len(plan)}; met by the plan: {sum(p[2] for p in plan)}; "
          f"met by the solution: {sum(s[2] for s in solved)}; "
          f"met by the plan, missed by the solution: {len(missed)}")
    for p, s in missed:
        print(f"  @{p[0]}: hint on {p[1]} wants {p[4]}: the plan {p[3]}, the solution {s[3]}")
    explain = subprocess.run([opt, path, "--dtensor-propagate=explain=true whole-function-seconds=0",
                              "-o", "/dev/null"], capture_output=True, text=True).stderr
    hinted = {p[0] for p in plan}
    lines = {}
    for line in explain.splitlines():
        m = re.match(r"dtensor-propagate: @(\w+): whole-function optimization (.*)", line)
        if m and m.group(1) in hinted:
            lines[m.group(1)] = m.group(2)
    skipped = sorted(f for f, l in lines.items() if l.startswith("skipped"))
    print(f"functions with hints: {len(hinted)}; modelled: {len(lines) - len(skipped)}; "
          f"skipped: {len(skipped)}")
    for f in skipped:
        print(f"  @{f}: {lines[f]}")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
