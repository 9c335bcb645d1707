"""Small real models (real_models.py) imported from PyTorch, every rank of
the compiled program run on the interpreter and checked against the global
one, the result against eager PyTorch; collective counts where a data- or
tensor-parallel plan fixes them."""

import pytest
import torch

from real_models import compile_model

# What each plan must communicate at most (DTensor's count for the same
# placements is no lower): a batch-sharded model gathers its output once;
# the two statistics of a mean cross-entropy with ignored targets (its sum
# and its count) are two all_reduces.
MAX_COLLECTIVES = {"gpt2_dp": 2, "resnet_dp": 1, "mobilenet": 1, "lenet": 1, "vit": 1}


@pytest.mark.parametrize("name", ["gpt2_dp", "gpt2_tp", "resnet_dp", "resnet_h", "vit", "bert",
                                  "mobilenet", "lenet", "unet_step", "op_mix"])
def test_real_model(name):
    module, args, model = compile_model(name)
    outs = model.run(*args)
    with torch.no_grad():
        want = module(*args)
    want = want if isinstance(want, tuple) else (want,)
    for o, w in zip(outs, want):
        got = o.full_tensor()
        assert got.shape == w.shape and got.dtype == w.dtype
        assert torch.allclose(got, w, rtol=1e-4, atol=1e-5), (got - w).abs().max()
    if name in MAX_COLLECTIVES:
        assert model.num_collectives() <= MAX_COLLECTIVES[name], model.report()
