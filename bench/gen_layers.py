#!/usr/bin/env python3
"""Generates the compile-time benchmark programs (see bench/compile.sh).

    gen_layers.py dtensor|shard dp|tp|dpw|tpw LAYERS

LAYERS blocks of h = tanh(h @ W) on a 2x4 mesh ("dp" x "tp"), batch 16,
width 64. dp: the input is batch-sharded over dp, weights replicated. tp:
Megatron pairs (column- then row-parallel weights over tp). dpw and tpw are
the same with layers of distinct widths (layer i maps width 64 + i to
65 + i, with a weight argument of its own), so no two layers are alike and
no decision can be answered by a structurally equal earlier one. dpwc and
tpwc (ours only) are dpw and tpw with each layer a private function called
once, as an exporter that keeps module boundaries writes them; dpc and tpc
(ours only) are dp and tp with each pair of layers one private function
called LAYERS / 2 times. `dtensor`
writes our dialect (specs on the function arguments, the rest propagated);
`shard` writes the same program for upstream MLIR's shard dialect
(shard.shard annotations on the arguments).
"""
import sys

B, D = 16, 64


def block(out, i, h, ht, w, wt, plain):
    """Layer i: tanh(h @ w), h of type ht, w of type wt, result `plain`."""
    out.append(f"  %e{i} = tensor.empty() : {plain}")
    out.append(f"  %z{i} = linalg.fill ins(%zero : f32) outs(%e{i} : {plain}) -> {plain}")
    out.append(f"  %m{i} = linalg.matmul ins({h}, {w} : {ht}, {wt}) outs(%z{i} : {plain}) -> {plain}")
    out.append(f"  %h{i} = linalg.generic {{indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, "
               f"affine_map<(d0, d1) -> (d0, d1)>], iterator_types = [\"parallel\", \"parallel\"]}} "
               f"ins(%m{i} : {plain}) outs(%e{i} : {plain}) {{")
    out.append("  ^bb0(%a: f32, %b: f32):")
    out.append("    %t = math.tanh %a : f32")
    out.append("    linalg.yield %t : f32")
    out.append(f"  }} -> {plain}")


def specs(variant):
    """Our specs of x, w1 and w2 for dp or tp."""
    if variant == "dp":
        return "[S(0), R]", "[R, R]", "[R, R]"
    return "[R, R]", "[R, S(1)]", "[R, S(0)]"


def typed(shape, spec):
    return f"tensor<{shape}xf32, #dtensor.spec<@mesh, {spec}>>"


def main():
    dialect, variant, layers = sys.argv[1], sys.argv[2], int(sys.argv[3])
    if variant.endswith("wc"):
        if dialect != "dtensor":
            sys.exit("gen_layers.py: the calls variants are written for dtensor only")
        return distinct(dialect, variant[:-2], layers, calls=True)
    if variant.endswith("w"):
        return distinct(dialect, variant[:-1], layers)
    if variant.endswith("c"):
        if dialect != "dtensor":
            sys.exit("gen_layers.py: the calls variants are written for dtensor only")
        return repeated_calls(variant[:-1], layers)
    out = []
    if dialect == "dtensor":
        out.append('dtensor.mesh @mesh shape = [2, 4] names = ["dp", "tp"]')
        xs, w1, w2 = specs(variant)
        t = typed
        out.append(f"func.func @main(%m: !dtensor.device_mesh<@mesh>, %x: {t(f'{B}x{D}', xs)}, "
                   f"%w1: {t(f'{D}x{D}', w1)}, %w2: {t(f'{D}x{D}', w2)}) -> tensor<{B}x{D}xf32> {{")
        types = {"x": t(f"{B}x{D}", xs), "w1": t(f"{D}x{D}", w1), "w2": t(f"{D}x{D}", w2)}
    else:
        out.append("shard.grid @mesh(shape = 2x4)")
        out.append(f"func.func @main(%x0: tensor<{B}x{D}xf32>, %w10: tensor<{D}x{D}xf32>, "
                   f"%w20: tensor<{D}x{D}xf32>) -> tensor<{B}x{D}xf32> {{")
        sx = "[[0]]" if variant == "dp" else "[[]]"
        s1 = "[[]]" if variant == "dp" else "[[], [1]]"
        s2 = "[[]]" if variant == "dp" else "[[1]]"
        for name, s, shape in (("x", sx, f"{B}x{D}"), ("w1", s1, f"{D}x{D}"), ("w2", s2, f"{D}x{D}")):
            out.append(f"  %s_{name} = shard.sharding @mesh split_axes = {s} : !shard.sharding")
            out.append(f"  %{name} = shard.shard %{name}0 to %s_{name} : tensor<{shape}xf32>")
        types = {"x": f"tensor<{B}x{D}xf32>", "w1": f"tensor<{D}x{D}xf32>", "w2": f"tensor<{D}x{D}xf32>"}
    out.append("  %zero = arith.constant 0.0 : f32")
    h, ht = "%x", types["x"]
    plain = f"tensor<{B}x{D}xf32>"
    for i in range(layers):
        w = "%w1" if i % 2 == 0 else "%w2"
        wt = types["w1"] if i % 2 == 0 else types["w2"]
        block(out, i, h, ht, w, wt, plain)
        h, ht = f"%h{i}", plain
    out.append(f"  return {h} : {plain}")
    out.append("}")
    print("\n".join(out))


def repeated_calls(variant, layers):
    """dp or tp with each pair of layers a call of one private function."""
    out = ['dtensor.mesh @mesh shape = [2, 4] names = ["dp", "tp"]']
    xs, w1, w2 = specs(variant)
    t = typed
    mesh = "!dtensor.device_mesh<@mesh>"
    plain = f"tensor<{B}x{D}xf32>"
    tw1, tw2 = t(f"{D}x{D}", w1), t(f"{D}x{D}", w2)
    out.append(f"func.func private @pair(%m: {mesh}, %h: {plain}, %w1: {tw1}, %w2: {tw2}) -> {plain} {{")
    out.append("  %zero = arith.constant 0.0 : f32")
    block(out, 0, "%h", plain, "%w1", tw1, plain)
    block(out, 1, "%h0", plain, "%w2", tw2, plain)
    out.append(f"  return %h1 : {plain}")
    out.append("}")
    out.append(f"func.func @main(%m: {mesh}, %x: {t(f'{B}x{D}', xs)}, %w1: {tw1}, %w2: {tw2}) -> {plain} {{")
    # The first call takes x through a plain copy, so every call's operand
    # has one type.
    out.append(f"  %e = tensor.empty() : {plain}")
    out.append(f"  %h = linalg.copy ins(%x : {t(f'{B}x{D}', xs)}) outs(%e : {plain}) -> {plain}")
    h = "%h"
    for i in range(layers // 2):
        out.append(f"  %c{i} = func.call @pair(%m, {h}, %w1, %w2) : ({mesh}, {plain}, {tw1}, {tw2}) -> {plain}")
        h = f"%c{i}"
    out.append(f"  return {h} : {plain}")
    out.append("}")
    print("\n".join(out))


def distinct(dialect, variant, layers, calls=False):
    width = lambda i: D + i
    out = []
    specs = {"x": "[S(0), R]" if variant == "dp" else "[R, R]"}
    axes = {"x": "[[0]]" if variant == "dp" else "[[]]"}
    shapes = {"x": f"{B}x{width(0)}"}
    for i in range(layers):
        col = i % 2 == 0
        specs[f"w{i}"] = "[R, R]" if variant == "dp" else ("[R, S(1)]" if col else "[R, S(0)]")
        axes[f"w{i}"] = "[[]]" if variant == "dp" else ("[[], [1]]" if col else "[[1]]")
        shapes[f"w{i}"] = f"{width(i)}x{width(i + 1)}"
    result = f"tensor<{B}x{width(layers)}xf32>"
    if dialect == "dtensor":
        out.append('dtensor.mesh @mesh shape = [2, 4] names = ["dp", "tp"]')
        types = {n: f"tensor<{shapes[n]}xf32, #dtensor.spec<@mesh, {specs[n]}>>" for n in shapes}
        args = ", ".join(f"%{n}: {types[n]}" for n in shapes)
        out.append(f"func.func @main(%m: !dtensor.device_mesh<@mesh>, {args}) -> {result} {{")
    else:
        out.append("shard.grid @mesh(shape = 2x4)")
        args = ", ".join(f"%{n}_in: tensor<{shapes[n]}xf32>" for n in shapes)
        out.append(f"func.func @main({args}) -> {result} {{")
        types = {}
        for n in shapes:
            out.append(f"  %s_{n} = shard.sharding @mesh split_axes = {axes[n]} : !shard.sharding")
            out.append(f"  %{n} = shard.shard %{n}_in to %s_{n} : tensor<{shapes[n]}xf32>")
            types[n] = f"tensor<{shapes[n]}xf32>"
    h, ht = "%x", types["x"]
    if calls:
        callees = []
        for i in range(layers):
            plain = f"tensor<{B}x{width(i + 1)}xf32>"
            body = [f"func.func private @layer{i}(%m: !dtensor.device_mesh<@mesh>, %h: {ht}, "
                    f"%w: {types[f'w{i}']}) -> {plain} {{",
                    "  %zero = arith.constant 0.0 : f32"]
            block(body, i, "%h", ht, "%w", types[f"w{i}"], plain)
            body += [f"  return %h{i} : {plain}", "}"]
            callees += body
            out.append(f"  %c{i} = func.call @layer{i}(%m, {h}, %w{i}) : "
                       f"(!dtensor.device_mesh<@mesh>, {ht}, {types[f'w{i}']}) -> {plain}")
            h, ht = f"%c{i}", plain
        out.append(f"  return {h} : {result}")
        out.append("}")
        print("\n".join(out[:1] + callees + out[1:]))
        return
    out.append("  %zero = arith.constant 0.0 : f32")
    for i in range(layers):
        plain = f"tensor<{B}x{width(i + 1)}xf32>"
        block(out, i, h, ht, f"%w{i}", types[f"w{i}"], plain)
        h, ht = f"%h{i}", plain
    out.append(f"  return {h} : {result}")
    out.append("}")
    print("\n".join(out))


if __name__ == "__main__":
    main()
