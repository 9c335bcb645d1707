#!/usr/bin/env python3
"""Generates the interpreter benchmark programs (see bench/interpreter.sh).

    gen_mlp.py unsharded|partitioned LAYERS BATCH DIM RANKS
    gen_mlp.py matmul N
    gen_mlp.py elementwise N

unsharded: LAYERS blocks of h = tanh(h @ W1) @ W2 on whole tensors.
partitioned: the same blocks as a tensor-parallel SPMD program on RANKS
simulated ranks (Megatron: W1 column-sharded, W2 row-sharded, one all_reduce
per block); every rank's input differs (rank-dependent), so every rank runs
the first block; after the first all_reduce the blocks are the same on every
rank (one weight for all), so the interpreter runs them once.
tp: as partitioned, but every rank's weight shards differ too (as real
shards do), so every rank computes every block.
"""
import sys


def body(kind, layers, b, d, ranks):
    sharded = kind in ("partitioned", "tp")
    dl = d // ranks if sharded else d
    out = [f"dtensor.mesh @world shape = [{ranks}]"]
    out.append("#id = affine_map<(d0, d1) -> (d0, d1)>")
    out.append(f"func.func @main(%m: !dtensor.device_mesh<@world>, %x: tensor<{b}x{d}xf32>, "
               f"%w1: tensor<{d}x{dl}xf32>, %w2: tensor<{dl}x{d}xf32>) -> tensor<{b}x{d}xf32> {{")
    out.append("  %zero = arith.constant 0.0 : f32")
    h = "%x"
    w1, w2 = "%w1", "%w2"
    if sharded:
        out.append("  %rank = dtensor.mesh_coord %m mesh_dims = [0] : !dtensor.device_mesh<@world> -> index")
        out.append("  %r64 = arith.index_cast %rank : index to i64")
        out.append("  %rf = arith.sitofp %r64 : i64 to f32")
        out.append(f"  %rs = tensor.splat %rf : tensor<{b}x{d}xf32>")
        out.append(f"  %x0 = arith.addf %x, %rs : tensor<{b}x{d}xf32>")
        h = "%x0"
    if kind == "tp":
        for w, shape in (("w1", f"{d}x{dl}"), ("w2", f"{dl}x{d}")):
            out.append(f"  %{w}s = tensor.splat %rf : tensor<{shape}xf32>")
            out.append(f"  %{w}r = arith.addf %{w}, %{w}s : tensor<{shape}xf32>")
        w1, w2 = "%w1r", "%w2r"
    for i in range(layers):
        out.append(f"  %e{i} = tensor.empty() : tensor<{b}x{dl}xf32>")
        out.append(f"  %z{i} = linalg.fill ins(%zero : f32) outs(%e{i} : tensor<{b}x{dl}xf32>) -> tensor<{b}x{dl}xf32>")
        out.append(f"  %a{i} = linalg.matmul ins({h}, {w1} : tensor<{b}x{d}xf32>, tensor<{d}x{dl}xf32>) "
                   f"outs(%z{i} : tensor<{b}x{dl}xf32>) -> tensor<{b}x{dl}xf32>")
        out.append(f"  %g{i} = linalg.generic {{indexing_maps = [#id, #id], iterator_types = [\"parallel\", \"parallel\"]}} "
                   f"ins(%a{i} : tensor<{b}x{dl}xf32>) outs(%e{i} : tensor<{b}x{dl}xf32>) {{")
        out.append("  ^bb0(%v: f32, %o: f32):")
        out.append("    %t = math.tanh %v : f32")
        out.append("    linalg.yield %t : f32")
        out.append(f"  }} -> tensor<{b}x{dl}xf32>")
        out.append(f"  %f{i} = tensor.empty() : tensor<{b}x{d}xf32>")
        out.append(f"  %y{i} = linalg.fill ins(%zero : f32) outs(%f{i} : tensor<{b}x{d}xf32>) -> tensor<{b}x{d}xf32>")
        out.append(f"  %p{i} = linalg.matmul ins(%g{i}, {w2} : tensor<{b}x{dl}xf32>, tensor<{dl}x{d}xf32>) "
                   f"outs(%y{i} : tensor<{b}x{d}xf32>) -> tensor<{b}x{d}xf32>")
        if sharded:
            out.append(f"  %h{i} = dtensor.all_reduce %p{i}, %m mesh_dims = [0] reduce = sum "
                       f": tensor<{b}x{d}xf32>, !dtensor.device_mesh<@world> -> tensor<{b}x{d}xf32>")
            h = f"%h{i}"
        else:
            h = f"%p{i}"
    out.append(f"  return {h} : tensor<{b}x{d}xf32>")
    out.append("}")
    return "\n".join(out)


def matmul(n):
    return "\n".join([
        f"func.func @main(%a: tensor<{n}x{n}xf32>, %b: tensor<{n}x{n}xf32>) -> tensor<{n}x{n}xf32> {{",
        "  %zero = arith.constant 0.0 : f32",
        f"  %e = tensor.empty() : tensor<{n}x{n}xf32>",
        f"  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<{n}x{n}xf32>) -> tensor<{n}x{n}xf32>",
        f"  %c = linalg.matmul ins(%a, %b : tensor<{n}x{n}xf32>, tensor<{n}x{n}xf32>) outs(%z : tensor<{n}x{n}xf32>) -> tensor<{n}x{n}xf32>",
        f"  return %c : tensor<{n}x{n}xf32>",
        "}"])


def elementwise(n):
    return "\n".join([
        "#id = affine_map<(d0) -> (d0)>",
        f"func.func @main(%a: tensor<{n}xf32>, %b: tensor<{n}xf32>) -> tensor<{n}xf32> {{",
        f"  %e = tensor.empty() : tensor<{n}xf32>",
        "  %c = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = [\"parallel\"]} "
        f"ins(%a, %b : tensor<{n}xf32>, tensor<{n}xf32>) outs(%e : tensor<{n}xf32>) {{",
        "  ^bb0(%x: f32, %y: f32, %o: f32):",
        "    %m = arith.mulf %x, %y : f32",
        "    %s = arith.addf %m, %x : f32",
        "    linalg.yield %s : f32",
        f"  }} -> tensor<{n}xf32>",
        f"  return %c : tensor<{n}xf32>",
        "}"])


if __name__ == "__main__":
    kind = sys.argv[1]
    if kind == "matmul":
        print(matmul(int(sys.argv[2])))
    elif kind == "elementwise":
        print(elementwise(int(sys.argv[2])))
    else:
        print(body(kind, *map(int, sys.argv[2:6])))
