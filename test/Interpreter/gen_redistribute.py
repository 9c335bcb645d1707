#!/usr/bin/env python3
"""Writes a module with one function per legal redistribution between specs.

    gen_redistribute.py MESH SHAPE PARTIAL [--orders] [--every K] [--local]

MESH and SHAPE are like 2x2 and 9x5; PARTIAL is the Partial kind used
(sum, avg, max, min). With --orders, nested shards get every shard order.
--every K keeps every K-th pair (a deterministic sample). Each function
redistributes its argument and returns it, so that `dtensor-run --verify
--all-entries` checks the compiled collectives on every rank.

--local (pairs whose source has a Partial only) builds the source the way a
DTensor user does: each rank's shard of the argument plus a per-rank term
(0.25 times one plus the rank's index over the Partial mesh dims) wrapped by
from_local, so the Partial's terms differ by rank; the function returns
to_local of the redistributed value, each rank's own local tensor, which
DTensor defines per rank (its terms where the result is still Partial).
"""
import itertools
import sys


def specs(mesh_rank, rank, partial, orders):
    choices = ["R", f"P({partial})"] + [f"S({d})" for d in range(rank)]
    for combo in itertools.product(choices, repeat=mesh_rank):
        by_dim = {}
        for m, p in enumerate(combo):
            if p.startswith("S("):
                by_dim.setdefault(p, []).append(m)
        nested = [ms for ms in by_dim.values() if len(ms) > 1]
        perms = [list(itertools.permutations(ms)) if orders else [tuple(ms)]
                 for ms in nested]
        for choice in itertools.product(*perms):
            out = list(combo)
            for ms, perm in zip(nested, choice):
                if list(perm) == sorted(perm):
                    continue
                for k, m in enumerate(perm):
                    out[m] = f"{combo[m]}[{k}]"
            yield "[" + ", ".join(out) + "]"


def placement_list(s):
    """The placements of "[R, S(0)[1], S(0)[0]]": only the outer brackets
    go (strip("[]") also took the last order's "]")."""
    return [p.strip() for p in s.strip()[1:-1].split(",")]


def legal(src, dst):
    parts = placement_list
    for a, b in zip(parts(src), parts(dst)):
        if b.startswith("P(") and a != b:
            # S(d) -> P(sum) is legal (DTensor 2.15): its shard in place,
            # zeros elsewhere.
            if a.startswith("P(") or (a.startswith("S(") and b != "P(sum)"):
                return False
            if b == "P(product)":
                return False
    return True


def print_local(index, shape, mesh_dims, src, dst):
    parts = placement_list(src)
    base = "[" + ", ".join("R" if p.startswith("P(") else p for p in parts) + "]"
    pdims = [m for m, p in enumerate(parts) if p.startswith("P(")]
    rank = len(shape.split("x"))
    dyn = "x".join("?" * rank) + "xf32"
    t_x = f"tensor<{shape}xf32>"
    t_base = f"tensor<{shape}xf32, #dtensor.spec<@mesh, {base}>>"
    t_src = f"tensor<{shape}xf32, #dtensor.spec<@mesh, {src}>>"
    t_dst = f"tensor<{shape}xf32, #dtensor.spec<@mesh, {dst}>>"
    mesh = "!dtensor.device_mesh<@mesh>"
    print(f"func.func @f{index}(%m: {mesh}, %x: {t_x}) -> tensor<{dyn}> {{")
    print(f"  %b = dtensor.distribute_tensor %x, %m : {t_x}, {mesh} -> {t_base}")
    print(f"  %l = dtensor.to_local %b : {t_base} -> tensor<{dyn}>")
    # k = 0.25 * (1 + the rank's index over the Partial mesh dims).
    print("  %k0 = arith.constant 1 : index")
    k = "%k0"
    for i, m in enumerate(pdims):
        print(f"  %c{i} = dtensor.mesh_coord %m mesh_dims = [{m}] : {mesh} -> index")
        print(f"  %n{i} = arith.constant {mesh_dims[m]} : index")
        print(f"  %s{i} = arith.muli {k}, %n{i} : index")
        print(f"  %k{i + 1} = arith.addi %s{i}, %c{i} : index")
        k = f"%k{i + 1}"
    print(f"  %ki = arith.index_cast {k} : index to i64")
    print("  %kf = arith.sitofp %ki : i64 to f32")
    print("  %q = arith.constant 0.25 : f32")
    print("  %kq = arith.mulf %kf, %q : f32")
    dims = []
    for d in range(rank):
        print(f"  %i{d} = arith.constant {d} : index")
        print(f"  %d{d} = tensor.dim %l, %i{d} : tensor<{dyn}>")
        dims.append(f"%d{d}")
    print(f"  %e = tensor.empty({', '.join(dims)}) : tensor<{dyn}>")
    print(f"  %t = linalg.fill ins(%kq : f32) outs(%e : tensor<{dyn}>) -> tensor<{dyn}>")
    print(f"  %l2 = arith.addf %l, %t : tensor<{dyn}>")
    print(f"  %p = dtensor.from_local %l2, %m : tensor<{dyn}>, {mesh} -> {t_src}")
    print(f"  %r = dtensor.redistribute %p, %m : {t_src}, {mesh} -> {t_dst}")
    print(f"  %o = dtensor.to_local %r : {t_dst} -> tensor<{dyn}>")
    print(f"  return %o : tensor<{dyn}>")
    print("}")


def main():
    args = sys.argv[1:]
    orders = "--orders" in args
    local = "--local" in args
    every = 1
    if "--every" in args:
        every = int(args[args.index("--every") + 1])
    mesh, shape, partial = args[0], args[1], args[2]
    mesh_dims = [int(x) for x in mesh.split("x")]
    shape_dims = [int(x) for x in shape.split("x")]
    print(f"dtensor.mesh @mesh shape = [{', '.join(map(str, mesh_dims))}]")
    all_specs = list(specs(len(mesh_dims), len(shape_dims), partial, orders))
    index = 0
    for src in all_specs:
        for dst in all_specs:
            if src == dst or not legal(src, dst):
                continue
            index += 1
            if index % every:
                continue
            if local:
                if "P(" in src:
                    print_local(index, shape, mesh_dims, src, dst)
                continue
            t_src = f"tensor<{shape}xf32, #dtensor.spec<@mesh, {src}>>"
            t_dst = f"tensor<{shape}xf32, #dtensor.spec<@mesh, {dst}>>"
            print(f"func.func @f{index}(%m: !dtensor.device_mesh<@mesh>, "
                  f"%x: {t_src}) -> {t_dst} {{")
            print(f"  %r = dtensor.redistribute %x, %m : {t_src}, "
                  f"!dtensor.device_mesh<@mesh> -> {t_dst}")
            print(f"  return %r : {t_dst}")
            print("}")


if __name__ == "__main__":
    main()
