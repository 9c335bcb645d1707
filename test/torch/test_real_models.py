"""Small real models (real_models.py) imported from PyTorch, every rank of
the compiled program run on the interpreter and checked against the global
one, the result against eager PyTorch; collective counts where a data- or
tensor-parallel plan fixes them."""

import copy

import pytest
import torch

import dtensor_mlir as dm
from dtensor_mlir.torch import compile as dm_compile
from real_models import MESH, compile_model, models, step_loss, training_step

# What each plan must communicate at most (DTensor's count for the same
# placements is no lower): a batch-sharded model gathers its output once;
# the two statistics of a mean cross-entropy with ignored targets (its sum
# and its count) are two all_reduces.
MAX_COLLECTIVES = {"gpt2_dp": 2, "llama": 1, "resnet_dp": 1, "mobilenet": 1, "lenet": 1, "vit": 1,
                   "bert_b4": 1, "c3d": 1}
# ... and the bytes per rank where attention must stay batch-parallel (the
# linear layers over leading dims, docs/PyTorch.md): only the logits move.
MAX_BYTES = {"vit": 160, "bert_b4": 512}


def assert_like_eager(outs, module, args, rtol, atol):
    """Every output of the compiled model equals eager PyTorch's (same shape
    and dtype; within the tolerances, in f64)."""
    with torch.no_grad():
        want = module(*args)
    want = want if isinstance(want, tuple) else (want,)
    assert len(outs) == len(want)
    for o, w in zip(outs, want):
        got = o.full_tensor()
        assert got.shape == w.shape and got.dtype == w.dtype
        assert torch.allclose(got.double(), w.double(), rtol=rtol, atol=atol, equal_nan=True), \
            (got.double() - w.double()).abs().max()


@pytest.mark.parametrize("name", ["gpt2_dp", "gpt2_tp", "llama", "resnet_dp", "resnet_h", "vit", "bert",
                                  "bert_b4", "mobilenet", "lenet", "unet_step", "op_mix", "c3d",
                                  "c3d_t"])
def test_real_model(name):
    module, args, model = compile_model(name)
    assert_like_eager(model.run(*args), module, args, 1e-4, 1e-5)
    if name in MAX_COLLECTIVES:
        assert model.num_collectives() <= MAX_COLLECTIVES[name], model.report()
    if name in MAX_BYTES:
        assert model.report()["total"]["bytes"] <= MAX_BYTES[name], model.report()


@pytest.mark.parametrize("name", ["gpt2_dp", "llama", "vit", "bert", "lenet", "mobilenet",
                                  "resnet_dp", "resnet_h", "unet_step", "c3d"])
def test_real_model_training_step(name):
    # One training step (forward and backward, data-parallel): the loss and
    # every parameter's gradient equal eager autograd's. GPT-2's LM head is
    # tied to its embedding; ViT and BERT attend through
    # nn.MultiheadAttention (traced through attention's math form); LeNet
    # pools (average pooling's gradient); MobileNet's depthwise convolution
    # trains with its batch norms frozen; the ResNet's batch norms train:
    # batch statistics over the whole (sharded) batch, as SyncBatchNorm's,
    # and the step returns their running statistics and counters, equal to
    # eager's after its step; the U-Net step's gradients go through nearest,
    # bilinear and transposed-convolution upsampling and max pooling.
    module, args, step = training_step(name, freeze_batch_norm=name == "mobilenet")
    outs = step.run(*args)
    eager = copy.deepcopy(module)
    want = step_loss(eager, *args)
    want.backward()
    assert torch.allclose(outs[0].full_tensor(), want.detach(), rtol=1e-5, atol=1e-6)
    params = list(eager.named_parameters())
    for o, (pname, p) in zip(outs[1:], params):
        assert torch.allclose(o.full_tensor(), p.grad, rtol=1e-4, atol=1e-5), pname
    buffers = dict(eager.named_buffers())
    assert len(outs) == 1 + len(params) + len(step.updated_buffers)
    if name.startswith("resnet"):
        assert len(step.updated_buffers) == 3 * 6  # 6 batch norms: mean, var, counter
    for o, bname in zip(outs[1 + len(params):], step.updated_buffers):
        got = o.full_tensor()
        assert got.dtype == buffers[bname].dtype
        assert torch.allclose(got, buffers[bname], rtol=1e-4, atol=1e-5), bname


@pytest.mark.parametrize("dtype, tol", [(torch.float16, 2e-2), (torch.bfloat16, 1e-1),
                                        (torch.float64, 1e-9)])
@pytest.mark.parametrize("name", ["gpt2_dp", "resnet_h", "unet_step", "op_mix"])
def test_real_model_in_other_dtypes(name, dtype, tol):
    # The same models in f16, bf16 (inputs and parameters go in as their bits:
    # numpy has no bfloat16) and f64, against eager PyTorch in that dtype
    # (which computes some ops in float: a few units in the last place).
    module, args, placements = models()[name]
    module = module.to(dtype)
    args = tuple(a.to(dtype) if a.is_floating_point() else a for a in args)
    model = dm_compile(module, args, mesh=dm.DeviceMesh(MESH), placements=placements)
    assert_like_eager(model.run(*args), module, args, tol, tol)
