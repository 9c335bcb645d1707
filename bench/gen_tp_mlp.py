#!/usr/bin/env python3
"""Writes the code-generation benchmark's global program (bench/codegen.sh).

    gen_tp_mlp.py RANKS BLOCKS BATCH HIDDEN

A tensor-parallel MLP on a 1-D mesh of RANKS: BLOCKS blocks of
h = h + gelu(h @ W1) @ W2 with W1 column-sharded and W2 row-sharded over the
mesh (Megatron), the activations replicated; --dtensor-compile turns each
block into two local matmuls, one element-wise kernel and one all_reduce.
"""
import sys


def main():
    ranks, blocks, batch, hidden = (int(a) for a in sys.argv[1:5])
    mesh = "@world"
    act = f"tensor<{batch}x{hidden}xf32, #dtensor.spec<{mesh}, [R]>>"
    w1 = f"tensor<{hidden}x{hidden}xf32, #dtensor.spec<{mesh}, [S(1)]>>"
    w2 = f"tensor<{hidden}x{hidden}xf32, #dtensor.spec<{mesh}, [S(0)]>>"
    plain = f"tensor<{batch}x{hidden}xf32>"
    out = [f"dtensor.mesh {mesh} shape = [{ranks}]",
           "#id = affine_map<(d0, d1) -> (d0, d1)>"]
    args = [f"%m: !dtensor.device_mesh<{mesh}>", f"%x: {act}"]
    for b in range(blocks):
        args += [f"%w1_{b}: {w1}", f"%w2_{b}: {w2}"]
    out.append(f"func.func @mlp({', '.join(args)}) -> {act} {{")
    out.append("  %zero = arith.constant 0.0 : f32")
    out.append(f"  %e = tensor.empty() : {plain}")
    out.append(f"  %z = linalg.fill ins(%zero : f32) outs(%e : {plain}) -> {plain}")
    h, hty = "%x", act
    for b in range(blocks):
        out.append(f"  %a{b} = linalg.matmul ins({h}, %w1_{b} : {hty}, {w1}) outs(%z : {plain}) -> {plain}")
        out.append(f"  %g{b} = linalg.generic {{indexing_maps = [#id, #id], iterator_types = [\"parallel\", \"parallel\"]}}"
                   f" ins(%a{b} : {plain}) outs(%e : {plain}) {{")
        out.append("  ^bb0(%v: f32, %o: f32):")
        out.append("    %c0 = arith.constant 0.5 : f32")
        out.append("    %c1 = arith.constant 1.0 : f32")
        out.append("    %c2 = arith.constant 0.7978846 : f32")
        out.append("    %c3 = arith.constant 0.044715 : f32")
        out.append("    %v2 = arith.mulf %v, %v : f32")
        out.append("    %v3 = arith.mulf %v2, %v : f32")
        out.append("    %t0 = arith.mulf %c3, %v3 : f32")
        out.append("    %t1 = arith.addf %v, %t0 : f32")
        out.append("    %t2 = arith.mulf %c2, %t1 : f32")
        out.append("    %t3 = math.tanh %t2 : f32")
        out.append("    %t4 = arith.addf %c1, %t3 : f32")
        out.append("    %t5 = arith.mulf %c0, %v : f32")
        out.append("    %t6 = arith.mulf %t5, %t4 : f32")
        out.append("    linalg.yield %t6 : f32")
        out.append(f"  }} -> {plain}")
        out.append(f"  %y{b} = linalg.matmul ins(%g{b}, %w2_{b} : {plain}, {w2}) outs(%z : {plain}) -> {plain}")
        out.append(f"  %r{b} = linalg.add ins({h}, %y{b} : {hty}, {plain}) outs(%e : {plain}) -> {plain}")
        h, hty = f"%r{b}", plain
    out.append(f"  %out = dtensor.distribute_tensor {h}, %m : {plain}, !dtensor.device_mesh<{mesh}> -> {act}")
    out.append(f"  return %out : {act}")
    out.append("}")
    print("\n".join(out))


if __name__ == "__main__":
    main()
