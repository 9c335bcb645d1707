#!/usr/bin/env python3
"""Writes a chain of element-wise kernels (bench/codegen.sh, second table).

    gen_elementwise.py OPS ROWS COLS [gelu|axpy]

OPS linalg.generic ops in a row on a ROWSxCOLS f32 tensor on a 1-rank mesh:
with gelu (the default), alternating the tanh-approximation GELU and a
scaled residual add, the element-wise work that matmul-bound models hide
(bound by tanhf); with axpy, only the scaled residual adds (bound by the
kernels' own loop and memory traffic).
"""
import sys


def main():
    ops, rows, cols = (int(a) for a in sys.argv[1:4])
    mode = sys.argv[4] if len(sys.argv) > 4 else "gelu"
    t = f"tensor<{rows}x{cols}xf32>"
    out = ["dtensor.mesh @world shape = [1]",
           "#id = affine_map<(d0, d1) -> (d0, d1)>",
           f"func.func @chain(%m: !dtensor.device_mesh<@world>, %x: {t}) -> {t} {{",
           f"  %e = tensor.empty() : {t}"]
    h = "%x"
    for k in range(ops):
        if mode == "gelu" and k % 2 == 0:
            out.append(f"  %h{k} = linalg.generic {{indexing_maps = [#id, #id], iterator_types = [\"parallel\", \"parallel\"]}}"
                       f" ins({h} : {t}) outs(%e : {t}) {{")
            out.append("  ^bb0(%v: f32, %o: f32):")
            for line in ["%c0 = arith.constant 0.5 : f32", "%c1 = arith.constant 1.0 : f32",
                         "%c2 = arith.constant 0.7978846 : f32", "%c3 = arith.constant 0.044715 : f32",
                         "%v2 = arith.mulf %v, %v : f32", "%v3 = arith.mulf %v2, %v : f32",
                         "%t0 = arith.mulf %c3, %v3 : f32", "%t1 = arith.addf %v, %t0 : f32",
                         "%t2 = arith.mulf %c2, %t1 : f32", "%t3 = math.tanh %t2 : f32",
                         "%t4 = arith.addf %c1, %t3 : f32", "%t5 = arith.mulf %c0, %v : f32",
                         "%t6 = arith.mulf %t5, %t4 : f32", "linalg.yield %t6 : f32"]:
                out.append("    " + line)
        else:
            out.append(f"  %h{k} = linalg.generic {{indexing_maps = [#id, #id, #id], iterator_types = [\"parallel\", \"parallel\"]}}"
                       f" ins({h}, %x : {t}, {t}) outs(%e : {t}) {{")
            out.append("  ^bb0(%a: f32, %b: f32, %o: f32):")
            out.append("    %s = arith.constant 0.25 : f32")
            out.append("    %bs = arith.mulf %b, %s : f32")
            out.append("    %r = arith.addf %a, %bs : f32")
            out.append("    linalg.yield %r : f32")
        out.append(f"  }} -> {t}")
        h = f"%h{k}"
    out.append(f"  return {h} : {t}")
    out.append("}")
    print("\n".join(out))


if __name__ == "__main__":
    main()
