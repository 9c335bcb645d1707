"""The PyTorch tutorial's example (docs/PyTorch.md): a Megatron MLP from a
PyTorch module and its placements to a verified per-rank program, its
communication report, and the files an MPI executable needs.

    .venv/bin/python examples/pytorch/megatron_mlp.py OUTDIR
"""
import os
import sys

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

import dtensor_mlir as dm
from dtensor_mlir.torch import compile


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(16, 64)
        self.fc2 = nn.Linear(64, 16)

    def forward(self, x):
        return self.fc2(F.gelu(self.fc1(x)))


out_dir = sys.argv[1] if len(sys.argv) > 1 else "mlp-out"
os.makedirs(out_dir, exist_ok=True)
torch.manual_seed(0)
mlp, x = MLP(), torch.randn(8, 16)

# Four ranks on one tensor-parallel mesh dim; fc1 column-wise (its weight's
# output features and its bias sharded), fc2 row-wise (its weight's input
# features sharded): ColwiseParallel / RowwiseParallel as placements.
mesh = dm.DeviceMesh((4,), ("tp",))
model = compile(mlp, (x,), mesh=mesh, placements={
    "fc1.weight": [dm.Shard(0)], "fc1.bias": [dm.Shard(0)],
    "fc2.weight": [dm.Shard(1)]})

# Every rank on the interpreter, checked against the global program.
out = model.run(x)
print("matches PyTorch:", torch.allclose(out[0].full_tensor(), mlp(x), atol=1e-5))
print("collectives:", model.report()["total"])

# The per-rank program and its inputs, for dtensor-translate / dtensor-build.
with open(os.path.join(out_dir, "mlp.local.mlir"), "w") as f:
    f.write(str(model.compiled))
with open(os.path.join(out_dir, "flags.txt"), "w") as f:
    f.write(" ".join(model.write_inputs(os.path.join(out_dir, "inputs"), x)))
np.save(os.path.join(out_dir, "want.npy"), mlp(x).detach().numpy())
