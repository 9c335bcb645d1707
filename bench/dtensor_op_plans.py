#!/usr/bin/env python3
"""Plans of single PyTorch ops against real DTensor's, on 4 ranks.

    PYTHONPATH=build/python_packages .venv/bin/python bench/dtensor_op_plans.py [--all] [OP...]

For each op (reductions, norms, matmuls, bmm, baddbmm, attention, slices,
concatenations, einsums, ...) and every placement of its operands on a (4,)
mesh that DTensor accepts, runs the op as DTensor does (eager, under
LocalTensorMode with a fake process group; CommDebugMode counts its
collectives), then compiles it with dtensor_mlir.torch for DTensor's output
placement (a Partial output wanted replicated: DTensor's count plus one
all_reduce) and runs every rank on the interpreter. Prints each case where
our numbers differ from eager PyTorch's or we make more collectives than
DTensor (every case with --all), then totals: cases, wrong results, cases
with more collectives than DTensor, collectives (ours and DTensor's) and
our bytes per rank. Cases DTensor refuses (uneven shards it cannot run) and
outputs DTensor leaves as _StridedShard (no counterpart here) are skipped.
Takes a few minutes; docs/PyTorch.md has the figures.
"""
import itertools
import sys

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.distributed._local_tensor import LocalTensorMode
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.tensor import Replicate, Shard, distribute_tensor
from torch.distributed.tensor.debug import CommDebugMode

from dtensor_mlir.torch import compile as dm_compile

WORLD = 4
X = (4, 8, 6)
OPS = {
    "softmax": (lambda x: x.softmax(-1), [X]),
    "log_softmax": (lambda x: F.log_softmax(x, 1), [X]),
    "layer_norm": (lambda x: F.layer_norm(x, (6,)), [X]),
    "rms_norm": (lambda x: x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6), [X]),
    "sum": (lambda x: x.sum(1), [X]),
    "mean_keepdim": (lambda x: x.mean(-1, keepdim=True), [X]),
    "amax": (lambda x: x.amax(1), [X]),
    "max_dim": (lambda x: x.max(1).values, [X]),
    "argmax": (lambda x: x.argmax(1), [X]),
    "prod": (lambda x: x.prod(1), [X]),
    "var": (lambda x: x.var(1), [X]),
    "norm": (lambda x: x.norm(dim=-1), [X]),
    "cumsum": (lambda x: x.cumsum(1), [X]),
    "topk": (lambda x: x.topk(2, -1).values, [X]),
    "sort": (lambda x: x.sort(-1).values, [X]),
    "cat1": (lambda x, y: torch.cat([x, y], 1), [X, X]),
    "cat0": (lambda x, y: torch.cat([x, y], 0), [X, X]),
    "chunk": (lambda x: x.chunk(2, -1)[1] * 2, [X]),
    "slice": (lambda x: x[:, 2:6] * 2, [X]),
    "index_select": (lambda x: x.index_select(1, torch.tensor([0, 3, 5])), [X]),
    "flip": (lambda x: x.flip(1), [X]),
    "roll": (lambda x: x.roll(1, 1), [X]),
    "pad": (lambda x: F.pad(x, (1, 1)), [X]),
    "repeat": (lambda x: x.repeat(1, 2, 1), [X]),
    "expand": (lambda x: x.unsqueeze(1).expand(4, 3, 8, 6) + 1, [X]),
    "transpose_reshape": (lambda x: x.transpose(0, 1).reshape(8, 24), [X]),
    "flatten": (lambda x: x.flatten(0, 1), [X]),
    "unflatten": (lambda x: x.view(4, 2, 4, 6), [X]),
    "mul_broadcast": (lambda x, y: x * y, [X, (6,)]),
    "where": (lambda x, y: torch.where(x > 0, x, y), [X, X]),
    "tril": (lambda x: x.tril(), [(8, 8)]),
    "diagonal": (lambda x: torch.diagonal(x, dim1=-2, dim2=-1), [(4, 8, 8)]),
    "matmul_3d_2d": (lambda x, w: x @ w, [X, (6, 5)]),
    "matmul_4d": (lambda x, y: x @ y, [(2, 4, 8, 6), (2, 4, 6, 5)]),
    "linear_gelu": (lambda x, w: F.gelu(F.linear(x, w)), [X, (5, 6)]),
    "addmm": (lambda b, x, y: torch.addmm(b, x, y), [(8, 5), (8, 6), (6, 5)]),
    "bmm": (lambda x, y: torch.bmm(x, y), [X, (4, 6, 5)]),
    "baddbmm": (lambda b, x, y: torch.baddbmm(b, x, y), [(4, 8, 5), X, (4, 6, 5)]),
    "outer": (lambda x, y: torch.outer(x, y), [(8,), (6,)]),
    "sdpa": (lambda q, k, v: F.scaled_dot_product_attention(q, k, v), [(2, 4, 8, 6)] * 3),
    "sdpa_causal": (lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True),
                    [(2, 4, 8, 6)] * 3),
    "einsum_trace": (lambda x: torch.einsum("bii->b", x), [(4, 8, 8)]),
    "einsum_outer": (lambda x, y: torch.einsum("bi,bj->bij", x, y), [(4, 8), (4, 6)]),
    "einsum_dot": (lambda x, y: torch.einsum("bij,bij->b", x, y), [X, X]),
}


class Op(nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *args):
        return self.fn(*args)


def main():
    args = sys.argv[1:]
    show_all = "--all" in args
    names = [a for a in args if a != "--all"] or list(OPS)
    dist.init_process_group("fake", rank=0, world_size=WORLD)
    torch.manual_seed(0)
    cases = wrong = more = ours_total = theirs_total = bytes_total = 0
    for name in names:
        fn, shapes = OPS[name]
        inputs = [torch.randn(s) for s in shapes]
        want = fn(*inputs)
        for dims in itertools.product(*[[-1] + list(range(len(s))) for s in shapes]):
            if all(d < 0 for d in dims):
                continue
            with LocalTensorMode(WORLD):
                mesh = init_device_mesh("cpu", (WORLD,))
                dargs = [distribute_tensor(t, mesh, [Shard(d) if d >= 0 else Replicate()])
                         for t, d in zip(inputs, dims)]
                try:
                    with CommDebugMode() as comm:
                        out = Op(fn)(*dargs)
                except Exception:
                    continue  # DTensor refuses the placements
                theirs = comm.get_total_counts()
                placements = list(out.placements)
                if any(type(p).__name__ == "_StridedShard" for p in placements):
                    continue
                if any(p.is_partial() for p in placements):
                    theirs += 1
                    placements = [Replicate() if p.is_partial() else p for p in placements]
                compiled = dm_compile(Op(fn), tuple(dargs), output_placements=[placements])
                got = compiled.run(*inputs)[0].full_tensor()
            ok = torch.allclose(got, want, atol=1e-4, rtol=1e-4)
            ours = compiled.num_collectives()
            sent = sum(c["bytes"] for c in compiled.report()["collectives"].values())
            cases += 1
            wrong += not ok
            more += ours > theirs
            ours_total += ours
            theirs_total += theirs
            bytes_total += sent
            if show_all or not ok or ours > theirs:
                print(f"{name} {dims}: DTensor {theirs}, ours {ours} ({sent} bytes/rank)"
                      + ("" if ok else " WRONG"))
    print(f"cases {cases}; wrong {wrong}; more collectives than DTensor {more}; "
          f"collectives {ours_total} (DTensor {theirs_total}); bytes/rank {bytes_total}")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
