#!/usr/bin/env python3
"""Writes the GPU reduction benchmark's program (bench/gpu_reduce.sh).

    gen_reduce.py ROWS COLS

On a 1-device mesh, three entries over one ROWSxCOLS f32 input: @total (the
sum of squares of every element: one output), @columns (column sums: COLS
outputs of ROWS terms) and @rows (row sums: ROWS outputs of COLS terms).
"""
import sys


def main():
    rows, cols = int(sys.argv[1]), int(sys.argv[2])
    t = f"tensor<{rows}x{cols}xf32, #dtensor.spec<@one, [R]>>"
    print("dtensor.mesh @one shape = [1]")
    for name, out_shape, out_map, iters in [
            ("total", "", "()", '"reduction", "reduction"'),
            ("columns", f"{cols}x", "(j)", '"reduction", "parallel"'),
            ("rows", f"{rows}x", "(i)", '"parallel", "reduction"')]:
        plain = f"tensor<{out_shape}f32>"
        dist = f"tensor<{out_shape}f32, #dtensor.spec<@one, [R]>>"
        print(f"func.func @{name}(%m: !dtensor.device_mesh<@one>, %a: {t}) -> {dist} {{")
        print("  %z = arith.constant 0.0 : f32")
        print(f"  %e = tensor.empty() : {plain}")
        print(f"  %f = linalg.fill ins(%z : f32) outs(%e : {plain}) -> {plain}")
        print(f"  %r = linalg.generic {{indexing_maps = [affine_map<(i, j) -> (i, j)>, "
              f"affine_map<(i, j) -> {out_map}>], iterator_types = [{iters}]}}")
        print(f"      ins(%a : {t}) outs(%f : {plain}) {{")
        print("  ^bb0(%x: f32, %y: f32):")
        print("    %s = arith.mulf %x, %x : f32")
        print("    %u = arith.addf %y, %s : f32")
        print("    linalg.yield %u : f32")
        print(f"  }} -> {plain}")
        print(f"  %d = dtensor.distribute_tensor %r, %m : {plain}, !dtensor.device_mesh<@one> -> {dist}")
        print(f"  return %d : {dist}")
        print("}")


if __name__ == "__main__":
    main()
