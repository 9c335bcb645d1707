#!/usr/bin/env python3
"""PyTorch eager baseline of the code-generation MLP (bench/gen_tp_mlp.py) on
one GPU, and the check of an emitted program's output against it.

    torch_mlp.py DIR BLOCKS REPEATS [OUT.npy]

DIR holds x.npy and w1_B.npy / w2_B.npy (bench/write_npy.py). Runs
h = h + gelu_tanh(h @ W1) @ W2 for every block in f32 on cuda:0 (TF32 off,
as cuBLAS's SGEMM of the emitted program), prints the best time of one step
over REPEATS after two warm-ups, and, given OUT.npy (the emitted program's
rank-0 output), the largest absolute and relative differences from it.
"""
import sys
import time

import numpy as np
import torch


def main():
    d, blocks, repeats = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    torch.backends.cuda.matmul.allow_tf32 = False
    dev = torch.device("cuda:0")
    x = torch.from_numpy(np.load(f"{d}/x.npy")).to(dev)
    ws = [(torch.from_numpy(np.load(f"{d}/w1_{b}.npy")).to(dev),
           torch.from_numpy(np.load(f"{d}/w2_{b}.npy")).to(dev)) for b in range(blocks)]

    def step():
        h = x
        for w1, w2 in ws:
            h = h + torch.nn.functional.gelu(h @ w1, approximate="tanh") @ w2
        return h

    best = float("inf")
    for i in range(repeats + 2):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        out = step()
        torch.cuda.synchronize()
        if i >= 2:
            best = min(best, (time.perf_counter() - t0) * 1e3)
    print(f"pytorch step time: {best:.3f} ms (best of {repeats})")
    if len(sys.argv) > 4:
        ours = torch.from_numpy(np.load(sys.argv[4])).to(dev)
        diff = (ours - out).abs()
        rel = diff.max().item() / max(out.abs().max().item(), 1e-30)
        print(f"emitted vs pytorch: max abs diff {diff.max().item():.3e}, "
              f"relative to max |value| {rel:.3e}, max |value| {out.abs().max().item():.3e}")


if __name__ == "__main__":
    main()
