"""dtensor_mlir.torch op by op: each small module is exported, compiled for a
mesh with some inputs sharded, run on every rank of the interpreter (checked
against the global program) and compared with eager PyTorch."""

import copy

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

import dtensor_mlir as dm
from dtensor_mlir.torch import compile as dm_compile

S, R, P = dm.Shard, dm.Replicate, dm.Partial


class Fn(nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *args):
        return self.fn(*args)


def check(module, args, mesh=(2,), placements=None, tol=1e-5, collectives=None):
    torch.manual_seed(0)
    model = dm_compile(module, args, mesh=dm.DeviceMesh(mesh), placements=placements or {})
    outs = model.run(*args)
    want = module(*args)
    want = want if isinstance(want, (tuple, list)) else (want,)
    assert len(outs) == len(want)
    for o, w in zip(outs, want):
        got = o.full_tensor()
        assert got.shape == w.shape
        assert got.dtype == w.dtype
        assert torch.allclose(got, w.detach(), rtol=tol, atol=tol, equal_nan=True), (got - w).abs().max()
    if collectives is not None:
        assert model.num_collectives() == collectives, model.report()
    return model


x46 = torch.randn(4, 6)
x26 = torch.randn(2, 6)
x6 = torch.randn(6)


@pytest.mark.parametrize("fn", [
    lambda a, b: a + b, lambda a, b: a - 2 * b, lambda a, b: a * b, lambda a, b: a / (b.abs() + 1),
    lambda a, b: torch.maximum(a, b), lambda a, b: torch.where(a > b, a, b),
    lambda a, b: a + 1.5, lambda a, b: 3.0 - a, lambda a, b: a ** 2 + b.pow(2),
])
def test_binary(fn):
    check(Fn(fn), (x46, torch.randn(4, 6)), placements={0: [S(0)], 1: [S(1)]})


def test_broadcasting():
    check(Fn(lambda a, b, c: a * b + c), (x46, x6, torch.randn(4, 1)), placements={0: [S(1)]})


@pytest.mark.parametrize("fn", [torch.relu, F.gelu, lambda t: F.gelu(t, approximate="tanh"),
                                F.silu, torch.tanh, torch.sigmoid, torch.exp, torch.neg,
                                lambda t: torch.rsqrt(t.abs() + 1), lambda t: torch.log(t.abs() + 1),
                                lambda t: torch.sqrt(t.abs())])
def test_unary(fn):
    check(Fn(fn), (x46,), placements={0: [S(0)]}, collectives=1)


@pytest.mark.parametrize("fn", [lambda t: torch.softmax(t, -1), lambda t: torch.softmax(t, 0),
                                lambda t: F.log_softmax(t, -1), lambda t: t.sum(0),
                                lambda t: t.sum(-1, keepdim=True), lambda t: t.mean(1),
                                lambda t: t.amax(-1), lambda t: t.sum()])
def test_reductions(fn):
    check(Fn(fn), (x46,), placements={0: [S(1)]})


@pytest.mark.parametrize("fn", [lambda t: t.view(2, 2, 6), lambda t: t.reshape(24),
                                lambda t: t.view(4, 2, 3).permute(2, 0, 1), lambda t: t.t(),
                                lambda t: t.transpose(0, 1).contiguous().view(6, 4),
                                lambda t: t.unsqueeze(1).expand(4, 3, 6), lambda t: t[1:3, ::2],
                                lambda t: t[:, -2:], lambda t: t[::3, 1::2], lambda t: torch.cat([t, t * 2], 0),
                                lambda t: torch.cat([t, t[:, :2]], 1), lambda t: t[2],
                                lambda t: t.split(2, 1)[1], lambda t: t.flatten()])
def test_shapes(fn):
    check(Fn(fn), (x46,), placements={0: [S(0)]})


def test_slice_feeding_a_kernel():
    # Slices and kernel bodies once shared SSA names (%s1): a parse error.
    check(Fn(lambda t: torch.relu(t[:, 1:3]) * t[:, 2:4]), (x46,), placements={0: [S(0)]})


@pytest.mark.parametrize("dtype", [torch.int8, torch.int16, torch.int32, torch.int64])
def test_integer_max_min_start_at_the_types_extremes(dtype):
    # amax / amin of every integer width: the reduction's identity is the
    # type's own extreme (an int8 -2^31 did not parse; i64 started wrong).
    big = torch.iinfo(dtype).max
    t = torch.tensor([[big, 3, -7], [1, -big - 1, 0]], dtype=dtype).repeat(2, 2)
    check(Fn(lambda a: (a.amax(1), a.amin(0))), (t,), placements={0: [S(1)]})


def test_linear_algebra():
    a, b, c = torch.randn(3, 4, 5), torch.randn(3, 5, 2), torch.randn(2, 3, 4, 5)
    check(Fn(torch.bmm), (a, b), placements={0: [S(0)]})
    check(Fn(lambda p, q: p @ q.transpose(-2, -1)), (c, c), placements={0: [S(1)], 1: [S(1)]},
          collectives=1)
    lin = nn.Linear(6, 3)
    check(lin, (x46,), placements={"weight": [S(1)]}, collectives=1)
    check(Fn(lambda c, p, q: torch.addmm(c, p, q, beta=0.5, alpha=2.0)),
          (torch.randn(3), torch.randn(4, 5), torch.randn(5, 3)), placements={1: [S(1)]})


def test_norms():
    ln = nn.LayerNorm(6)
    check(ln, (x46,), placements={0: [S(0)]}, collectives=1)
    check(nn.LayerNorm([4, 6], elementwise_affine=False), (torch.randn(3, 4, 6),),
          placements={0: [S(0)]}, collectives=1)

    class RMS(nn.Module):
        def __init__(self):
            super().__init__()
            self.w = nn.Parameter(torch.randn(6))

        def forward(self, t):
            return t * torch.rsqrt(t.pow(2).mean(-1, keepdim=True) + 1e-6) * self.w
    check(RMS(), (x46,), placements={0: [S(0)]}, collectives=1)
    check(nn.RMSNorm(6), (x46,), placements={0: [S(0)]})


def test_embedding_and_conv():
    emb = nn.Embedding(10, 4)
    ids = torch.tensor([[1, 2, 9], [0, 0, 5]])
    check(emb, (ids,), placements={"weight": [S(1)], 0: [S(0)]})
    conv = nn.Conv2d(3, 4, 3, padding=1, stride=2)
    check(conv, (torch.randn(4, 3, 7, 7),), placements={0: [S(0)]}, tol=1e-4, collectives=1)
    conv2 = nn.Conv2d(2, 2, (1, 3), bias=False, dilation=(1, 2))
    check(conv2, (torch.randn(2, 2, 5, 9),), mesh=(2, 2), placements={0: [S(0), R()]}, tol=1e-4)


def test_dtypes_and_casts():
    check(Fn(lambda t: (t * 3).to(torch.float64) + 1), (x46,), placements={0: [S(0)]})
    check(Fn(lambda t, i: t.sum(-1) + i.to(torch.float32)), (x46, torch.tensor([1, 2, 3, 4])))
    check(Fn(lambda i: i * 2 + 1), (torch.tensor([[1, -2], [3, 4]]),), placements={0: [S(1)]})


def test_partial_inputs_and_two_d_mesh():
    check(Fn(lambda a, b: a @ b), (torch.randn(4, 6), torch.randn(6, 3)), mesh=(2, 2),
          placements={0: [S(0), S(1)], 1: [R(), S(0)]}, collectives=2)
    check(Fn(lambda a: a * 2), (torch.randn(4, 6),), mesh=(2,), placements={0: [P("sum")]},
          collectives=1)


def test_unsupported_is_an_error_at_the_users_line():
    with pytest.raises(dm.DTensorError, match=r"test_importer\.py:\d+: .*'special_zeta"):
        dm_compile(Fn(lambda t: torch.special.zeta(t, 2.0)), (x46,), mesh=dm.DeviceMesh(2))
    with pytest.raises(dm.DTensorError, match="placements for input 3"):
        dm_compile(Fn(torch.relu), (x46,), mesh=dm.DeviceMesh(2), placements={3: [S(0)]})
    with pytest.raises(dm.DTensorError, match="give a mesh"):
        dm_compile(Fn(torch.relu), (x46,))


def test_erfc_copysign_signbit_hypot_and_shifts():
    # Found by probing (no lowering before). Signed zeros, infinities, NaNs
    # and 1e38 (hypot without overflow; infinity beats NaN); shifts by
    # negative amounts and by the width or more, in i8, i32 and i64 (PyTorch:
    # 0 to the left, the sign to the right), by tensors and by constants.
    x = torch.randn(4, 10) * 3
    x[0, :6] = torch.tensor([0.0, -0.0, float("inf"), -float("inf"), float("nan"), 1e38])
    y = torch.randn(4, 10)
    y[0, :6] = torch.tensor([-0.0, 0.0, float("nan"), 2.0, 1.0, 1e38])
    for shard in (0, 1):
        pl = {0: [S(shard)], 1: [S(shard)]}
        check(Fn(lambda a: torch.special.erfc(a)), (x,), placements={0: [S(shard)]})
        check(Fn(lambda a, b: (torch.copysign(a, b), torch.hypot(a, b))), (x, y), placements=pl)
        check(Fn(lambda a: torch.signbit(a).to(torch.int32)), (x,), placements={0: [S(shard)]})
        for et in (torch.int8, torch.int32, torch.int64):
            a = torch.randint(-100, 100, (4, 10)).to(et)
            b = torch.randint(-3, 70, (4, 10)).to(et)
            check(Fn(lambda p, q: (p << q, p >> q, p << 3, p >> 2, torch.signbit(p).to(et))),
                  (a, b), placements=pl)


def test_stack_of_many_results_gathers_once():
    # torch.stack of six results of a row-sharded input, returned
    # replicated: one all_gather of the input (the whole-function model
    # covers a concat of many operands), as DTensor's one gather of the
    # stack; it made one per operand.
    torch.manual_seed(21)
    check(Fn(lambda t: torch.stack([t.relu(), t.sigmoid(), t.tanh(), t.exp(), t * 2, t.abs()])),
          (torch.randn(8, 10),), mesh=(4,), placements={0: [S(0)]}, collectives=1)


def test_value_dependent_programs_are_errors_at_the_users_line():
    # A shape that depends on values (boolean-mask indexing), torch.cond,
    # and a module that reads a value in Python (torch.cov's check; the
    # mask nn.Transformer inspects, in a training step): each says so at the
    # line that does it, not at export's generated code.
    mesh = dm.DeviceMesh(2)
    with pytest.raises(dm.DTensorError,
                       match=r"test_importer\.py:\d+: .*depends on tensor values.*torch\.where"):
        dm_compile(Fn(lambda t: t[t > 0].sum()), (x46,), mesh=mesh)
    with pytest.raises(dm.DTensorError,
                       match=r"test_importer\.py:\d+: .*torch\.cond .* is not supported"):
        dm_compile(Fn(lambda t: torch.cond(t.sum() > 0, lambda u: u.sin(), lambda u: u.cos(),
                                           (t,))), (x46,), mesh=mesh)
    with pytest.raises(dm.DTensorError,
                       match=r"test_importer\.py:\d+: .*torch\.export failed: .*reads a tensor's "
                             r"values in Python"):
        dm_compile(Fn(lambda t: torch.cov(t)), (x46,), mesh=mesh)
    from dtensor_mlir.torch import compile_training_step
    torch.manual_seed(20)
    net = nn.Transformer(d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=1,
                         dim_feedforward=8, dropout=0.0, batch_first=True)
    mask = nn.Transformer.generate_square_subsequent_mask(3)
    src, tgt = torch.randn(2, 4, 8), torch.randn(2, 3, 8)
    with pytest.raises(dm.DTensorError, match=r"test_importer\.py:\d+: .*training step failed: "
                       r".*_detect_is_causal_mask.*pass is_causal=True"):
        compile_training_step(net, lambda m, s, t: m(s, t, tgt_mask=mask).sum(), (src, tgt),
                              mesh=mesh)


def check_step(module, loss_fn, args, mesh=(2,), placements=None, tol=1e-4):
    """One training step (forward + backward, PyTorch's autodiff traced to
    core ATen) compiled and run on every rank: the loss and every gradient
    equal eager autograd's."""
    from dtensor_mlir.torch import compile_training_step
    model = compile_training_step(module, loss_fn, args, mesh=dm.DeviceMesh(mesh),
                                  placements=placements or {})
    outs = model.run(*args)
    module.zero_grad()
    loss = loss_fn(module, *args)
    loss.backward()
    assert torch.allclose(outs[0].full_tensor(), loss.detach(), rtol=tol, atol=tol)
    for o, (name, p) in zip(outs[1:], module.named_parameters()):
        got = o.full_tensor()
        assert torch.allclose(got, p.grad, rtol=tol, atol=tol), (name, (got - p.grad).abs().max())
    return model


@pytest.mark.parametrize("conv", [
    dict(kernel_size=3, padding=1), dict(kernel_size=3, stride=2, padding=1),
    dict(kernel_size=2, stride=2), dict(kernel_size=3, dilation=2, padding=2),
    dict(kernel_size=3, stride=2), dict(kernel_size=1, padding=2),
    dict(kernel_size=(3, 2), stride=(1, 2), padding=(1, 0), bias=False)])
@pytest.mark.parametrize("shard", [0, 3])
def test_convolution_backward(conv, shard):
    # convolution_backward: the input's gradient (zero-inserted, padded,
    # flipped kernel), the weight's and the bias's; batch- or width-sharded.
    torch.manual_seed(1)
    m = nn.Sequential(nn.Conv2d(2, 3, **conv), nn.Tanh())
    x = torch.randn(2, 2, 7, 8)
    check_step(m, lambda mod, t: (mod(t) ** 2).mean(), (x,), placements={0: [S(shard)]})


@pytest.mark.parametrize("shard", [0, 3])
def test_convolution_backward_input_gradient(shard):
    # A model whose input gradient is used (two stacked convolutions, the
    # first strided): batch-sharded, or width-sharded (halos of the flipped
    # kernel's reads).
    torch.manual_seed(2)
    m = nn.Sequential(nn.Conv2d(2, 3, 3, stride=2, padding=1), nn.ReLU(), nn.Conv2d(3, 2, 3, padding=1))
    check_step(m, lambda mod, t: mod(t).abs().mean(), (torch.randn(2, 2, 9, 9),),
               placements={0: [S(shard)]})


@pytest.mark.parametrize("padding_idx", [None, 3])
def test_embedding_backward(padding_idx):
    # embedding_dense_backward: each table row sums the output gradient's
    # rows with its id (none for padding_idx); batch-sharded ids and a
    # vocab-sharded table.
    torch.manual_seed(3)
    m = nn.Sequential(nn.Embedding(12, 5, padding_idx=padding_idx), nn.LayerNorm(5))
    ids = torch.tensor([[1, 3, 3, 0], [11, 3, 7, 1]])
    check_step(m, lambda mod, i: mod(i).logsumexp(-1).mean(), (ids,), placements={0: [S(0)]})
    check_step(m, lambda mod, i: mod(i).logsumexp(-1).mean(), (ids,),
               placements={"0.weight": [S(0)]})


def test_training_step_gradient_buckets():
    # Data parallel: each parameter's gradient is all-reduced over dp. They
    # share one all_reduce (a bucket, as DDP does), with or without overlap;
    # bucket-bytes=0 keeps them apart; the loss (a scalar) keeps its own.
    # Gradients stay exact. A
    # batch of 16: with 4 samples, gathering the batch (1,728 bytes) moves
    # less than the gradients (3,348) and costs one latency instead of five,
    # and the whole-function optimizer rightly prefers it.
    from dtensor_mlir.torch import compile_training_step
    torch.manual_seed(4)
    m = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU(), nn.Flatten(), nn.Linear(4 * 6 * 6, 5))
    x = torch.randn(16, 3, 6, 6)
    loss = lambda mod, t: mod(t).pow(2).mean()
    counts = {}
    for pipeline in ("dtensor-compile{bucket-bytes=0}", "dtensor-compile",
                     "dtensor-compile{overlap=1}"):
        model = compile_training_step(m, loss, (x,), mesh=dm.DeviceMesh((2,)),
                                      placements={0: [S(0)]}, pipeline=pipeline)
        outs = model.run(x)
        m.zero_grad()
        loss(m, x).backward()
        for o, (name, p) in zip(outs[1:], m.named_parameters()):
            assert torch.allclose(o.full_tensor(), p.grad, rtol=1e-4, atol=1e-5), name
        counts[pipeline] = model.report()["collectives"]["all_reduce"]["count"]
    assert counts == {"dtensor-compile{bucket-bytes=0}": 5, "dtensor-compile": 2,
                      "dtensor-compile{overlap=1}": 2}, counts


# -- ranges, logic, clamps, rounding, norms, pooling, indexing ---------------

@pytest.mark.parametrize("fn, args, placements", [
    # A float range added to a sharded tensor: each rank computes its piece.
    (lambda t: t + torch.arange(6.0), (x46,), {0: [S(1)]}),
    (lambda t: t * torch.arange(1.0, 2.1, 0.2), (x46,), {0: [S(1)]}),
    (lambda i: i + torch.arange(2, 14, 2), (torch.arange(24).view(4, 6),), {0: [S(1)]}),
    (lambda i: torch.arange(4).view(4, 1) * i, (torch.arange(24).view(4, 6),), {0: [S(0)]}),
])
def test_arange(fn, args, placements):
    check(Fn(fn), args, placements=placements)


ints46 = torch.tensor([[0, 1, 2, -3, 0, 5]] * 4)


@pytest.mark.parametrize("fn, args", [
    (lambda a: torch.logical_not(a > 0), (x46,)),
    (lambda a: torch.logical_not(a), (ints46,)),              # of an int: == 0
    (lambda a: torch.logical_not(a), (x46.round(),)),          # of a float
    (lambda a, b: torch.logical_and(a > 0, b < 0), (x46, x46.flip(0))),
    (lambda a, b: torch.logical_and(a, b), (ints46, ints46.flip(1))),  # 2 and 1 is true
    (lambda a, b: torch.logical_or(a, b), (ints46, torch.zeros(4, 6, dtype=torch.long))),
    (lambda a, b: torch.logical_xor(a > 0, b > 0), (x46, x46.flip(1))),
    (lambda a: ~(a > 0), (x46,)),
    (lambda a: ~a, (ints46,)),
    (lambda a: (a > 0).any(1), (x46,)),
    (lambda a: (a > 0).all(1, keepdim=True), (x46,)),
    (lambda a: (a > 1.5).any(), (x46,)),
    (lambda a: torch.any(a, dim=0), (ints46,)),
])
def test_logical(fn, args):
    check(Fn(fn), args, placements={0: [S(1)]})


rounding = torch.tensor([[0.5, 1.5, 2.5, -0.5, -1.5, 2.4, -2.6, 3.0]] * 2)


@pytest.mark.parametrize("fn, args", [
    (lambda a: torch.clamp(a, -0.5, 0.5), (x46,)),
    (lambda a: torch.clamp(a, min=0.1), (x46,)),
    (lambda a: torch.clamp(a, max=-0.1), (x46,)),
    (lambda a, lo: torch.clamp(a, lo, lo + 0.5), (x46, torch.randn(6))),
    (lambda a: torch.clamp(a, 0.5, -0.5), (x46,)),              # lo > hi: hi
    (lambda a, lo: torch.clamp(a, lo, lo - 0.5), (x46, torch.randn(6))),
    (lambda i: torch.clamp(i, -1, 2), (ints46,)),
    (lambda a: F.hardtanh(a, -0.3, 0.7), (x46,)),
    (lambda a: F.relu6(a * 4), (x46,)),
    (lambda a: F.leaky_relu(a, 0.2), (x46,)),
    (lambda a: F.elu(a), (x46,)),
    (lambda a: torch.floor(a * 3), (x46,)),
    (lambda a: torch.ceil(a * 3), (x46,)),
    (lambda a: torch.trunc(a * 3), (x46,)),
    (lambda a: torch.round(a), (rounding,)),                   # half to even
    (lambda a: torch.log1p(a.abs()), (x46,)),
    (lambda a: torch.expm1(a), (x46,)),
    (lambda a: torch.log2(a.abs() + 1), (x46,)),
    (lambda a: torch.remainder(a * 3, 0.7), (x46,)),
    (lambda a: (a * 3) % -0.7, (x46,)),
    (lambda i: i % 3, (ints46,)),
    (lambda i: torch.remainder(i, -4), (ints46,)),
])
def test_clamps_and_rounding(fn, args):
    check(Fn(fn), args, placements={0: [S(1)]})


def test_batch_and_group_norm_in_eval():
    torch.manual_seed(1)
    bn = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU())
    bn[1].running_mean.uniform_(-1, 1)
    bn[1].running_var.uniform_(0.5, 2)
    x = torch.randn(4, 3, 6, 6)
    check(bn.eval(), (x,), placements={0: [S(0)]}, collectives=1)
    check(bn.eval(), (x,), placements={"0.weight": [S(0)], "0.bias": [S(0)]})  # channels
    check(nn.BatchNorm1d(6).eval(), (x46,), placements={0: [S(1)]})
    gn = nn.GroupNorm(2, 4)
    with torch.no_grad():
        gn.weight.uniform_(0.5, 1.5)
        gn.bias.uniform_(-1, 1)
    check(gn, (torch.randn(4, 4, 3, 3),), placements={0: [S(0)]}, collectives=1, tol=1e-4)
    check(gn, (torch.randn(4, 4, 3, 3),), placements={0: [S(2)]}, tol=1e-4)


x_img = torch.randn(2, 3, 8, 8)


@pytest.mark.parametrize("pool", [
    nn.MaxPool2d(2), nn.MaxPool2d(3, stride=2, padding=1), nn.MaxPool2d(3, stride=2, ceil_mode=True),
    nn.MaxPool2d(2, dilation=2), nn.AvgPool2d(2), nn.AvgPool2d(3, stride=2, padding=1),
    nn.AvgPool2d(3, stride=2, padding=1, count_include_pad=False),
    nn.AvgPool2d(3, stride=1, padding=1, divisor_override=4),
    nn.AdaptiveAvgPool2d((2, 2)), nn.AdaptiveAvgPool2d(1),
])
@pytest.mark.parametrize("shard", [0, 2, 3])
def test_pooling(pool, shard):
    # Batch-sharded pooling is local; height- or width-sharded pooling reads
    # windows across shards (halo exchanges).
    check(nn.Sequential(pool), (x_img,), placements={0: [S(shard)]}, tol=1e-5)


def test_max_pool_takes_nan_and_int():
    x = x_img.clone()
    x[0, 0, 1, 1] = float("nan")
    check(nn.MaxPool2d(2), (x,), placements={0: [S(2)]})
    check(nn.Sequential(nn.MaxPool2d(2)), ((x_img * 4).to(torch.int32),), placements={0: [S(3)]})


@pytest.mark.parametrize("shard", [0, 1])
def test_gather_and_arg_reductions(shard):
    torch.manual_seed(2)
    x = torch.randn(4, 6)
    ties = torch.tensor([[1, 3, 3, 0, 3, 1]] * 4, dtype=torch.float32)
    idx = torch.tensor([[5, 0], [1, 1], [2, 4], [3, 0]])
    p = {0: [S(shard)]}
    check(Fn(lambda t, i: torch.gather(t, 1, i)), (x, idx), placements=p)
    check(Fn(lambda t, i: torch.gather(t, 0, i.t()[:, :3] % 4)), (x, idx), placements=p)
    check(Fn(lambda t: t.argmax(1)), (x,), placements=p)
    check(Fn(lambda t: t.argmax(1)), (ties,), placements=p)          # the first maximum
    check(Fn(lambda t: t.argmin(0, keepdim=True)), (ties,), placements=p)
    check(Fn(lambda t: t.argmax()), (x,), placements=p)
    check(Fn(lambda t: t.max(1)), (ties,), placements=p)              # values and indices
    check(Fn(lambda t: t.min(1, keepdim=True)), (x,), placements=p)
    nan = x.clone()
    nan[1, 2] = float("nan")
    check(Fn(lambda t: t.argmax(1)), (nan,), placements=p)            # NaN is the maximum


def test_vocab_parallel_cross_entropy():
    # F.cross_entropy (log_softmax, then a gather of the target's log
    # probability, ignore_index rows dropped) with the LM head sharded over
    # the vocabulary: the gather is a Partial sum, so the logits are never
    # gathered. Three all_reduces of one value per row (the row max, the sum
    # of exponentials, the target's logit), as Megatron's vocab-parallel
    # cross-entropy and DTensor's loss_parallel make. Batch-sharded, with
    # the targets sharded too, two (the loss's sum and the count of rows not
    # ignored).
    torch.manual_seed(5)

    class Head(nn.Module):
        def __init__(self):
            super().__init__()
            self.head = nn.Linear(16, 40, bias=False)

        def forward(self, t, target):
            return F.cross_entropy(self.head(t), target)
    x, y = torch.randn(8, 16), torch.randint(0, 40, (8,))
    y[3] = -100  # ignored
    m = check(Head(), (x, y), mesh=(4,), placements={"head.weight": [S(0)]}, collectives=3)
    assert m.report()["total"]["bytes"] == 3 * 8 * 4, m.report()
    check(Head(), (x, y), mesh=(4,), placements={0: [S(0)], 1: [S(0)]}, collectives=2)


def test_pad_and_masks():
    check(Fn(lambda t: F.pad(t, (1, 2))), (x46,), placements={0: [S(0)]})
    check(Fn(lambda t: F.pad(t, (1, 1, 2, 0), value=-1.5)), (x46,), placements={0: [S(1)]})
    # A causal mask (tril of ones, masked_fill) as GPT-2 builds it.
    def attend(q, k):
        att = q @ k.transpose(-2, -1)
        mask = torch.tril(torch.ones(6, 6)).view(1, 6, 6)
        return F.softmax(att.masked_fill(mask == 0, float("-inf")), dim=-1)
    q = torch.randn(2, 6, 4)
    check(Fn(attend), (q, torch.randn(2, 6, 4)), placements={0: [S(0)], 1: [S(0)]}, collectives=1)


def test_inputs_updated_in_place_are_written_back():
    # A module that updates its input in place (x.mul_, relu_): the caller's
    # tensor holds the new value after run(), as after eager, and run()
    # returns the user's outputs only.
    class Scale(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(8, 8)

        def forward(self, x, y):
            x.mul_(2)
            y.add_(1)
            return self.lin(x) + y
    module = Scale()
    x, y = torch.randn(4, 8), torch.randn(4, 8)
    ex, ey = x.clone(), y.clone()
    want = module(ex, ey)
    for placements in ({0: [S(0)]}, {0: [S(1)], 1: [S(0)]}):
        gx, gy = x.clone(), y.clone()
        model = dm_compile(module, (gx.clone(), gy.clone()), mesh=dm.DeviceMesh((2,)),
                           placements=placements)
        assert model.updated_inputs == [0, 1]
        outs = model.run(gx, gy)
        assert len(outs) == 1
        assert torch.allclose(outs[0].full_tensor(), want.detach(), rtol=1e-5, atol=1e-5)
        assert torch.equal(gx, ex) and torch.equal(gy, ey)
    # The updated input is also the output (`return relu_(x)`), and a
    # module in train() updates its buffers and its input.
    x0 = torch.randn(4, 8)
    gx = x0.clone()
    model = dm_compile(Fn(torch.relu_), (gx.clone(),), mesh=dm.DeviceMesh((2,)),
                       placements={0: [S(0)]})
    outs = model.run(gx)
    assert len(outs) == 1 and torch.equal(outs[0].full_tensor(), torch.relu(x0))
    assert torch.equal(gx, torch.relu(x0))

    class Norm(nn.Module):
        def __init__(self):
            super().__init__()
            self.bn = nn.BatchNorm1d(8)

        def forward(self, x):
            x.mul_(2)
            return self.bn(x)
    module = Norm().train()
    gx = x0.clone()
    model = dm_compile(copy.deepcopy(module), (gx.clone(),), mesh=dm.DeviceMesh((2,)),
                       placements={0: [S(0)]})
    outs = model.run(gx)
    ex = x0.clone()
    want = module(ex)
    assert model.updated_buffers == ["bn.running_mean", "bn.running_var", "bn.num_batches_tracked"]
    assert model.updated_inputs == [0]
    assert len(outs) == 4
    assert torch.allclose(outs[0].full_tensor(), want.detach(), rtol=1e-5, atol=1e-5)
    assert torch.allclose(outs[1].full_tensor(), module.bn.running_mean, rtol=1e-5, atol=1e-6)
    assert torch.equal(gx, ex)


def test_keyword_inputs_and_specialized_values():
    # Keyword inputs (placements by name), a None and a number among the
    # inputs (export specializes the graph to them: run() checks the same
    # values come again).
    class Gate(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(3, 3)

        def forward(self, x, mask=None, scale=2, bias=None, *, extra):
            y = self.lin(x) * scale + extra
            if mask is not None:
                y = y.masked_fill(mask, 0.0)
            return y if bias is None else y + bias
    torch.manual_seed(18)
    module, x, e = Gate(), torch.randn(4, 3), torch.ones(3)
    model = dm_compile(module, (x,), example_kwargs={"extra": e, "mask": x > 0, "bias": None},
                       mesh=dm.DeviceMesh((2,)), placements={0: [S(0)], "mask": [S(0)]})
    assert "[S(0)]>>" in model.mlir.split("->")[0]
    out = model.run(x, extra=e, mask=x > 0, bias=None)
    assert torch.allclose(out[0].full_tensor(), module(x, extra=e, mask=x > 0), atol=1e-6)
    assert model.num_collectives() == 1
    with pytest.raises(dm.DTensorError, match=r"keyword input\(s\) \['extra', 'mask', 'bias'\]"):
        model.run(x, extra=e, mask=x > 0)
    with pytest.raises(dm.DTensorError, match="input 'bias' was None when compiled"):
        model.run(x, extra=e, mask=x > 0, bias=e)
    model = dm_compile(module, (x, None, 3), example_kwargs={"extra": e},
                       mesh=dm.DeviceMesh((2,)), placements={0: [S(0)]})
    assert torch.allclose(model.run(x, None, 3, extra=e)[0].full_tensor(),
                          module(x, None, 3, extra=e), atol=1e-6)
    with pytest.raises(dm.DTensorError, match="input 2 was 3 when compiled"):
        model.run(x, None, 4, extra=e)
    with pytest.raises(dm.DTensorError, match="the model takes 3 positional input"):
        model.run(x, extra=e)
    # Integer negation (T5's relative position buckets).
    check(Fn(lambda t: -t), (torch.randint(-5, 5, (4, 6)),), placements={0: [S(0)]})


@pytest.mark.parametrize("fn", [
    lambda a: a.clamp(min=a.mean(), max=1.0),       # a tensor bound: item() in the graph
    lambda a: a.clamp(min=a.mean().item()),
    lambda a: a * a.std().item(),
    lambda a: a + torch.full((8,), a.max().item()),
    lambda a: a + torch.arange(8) * a.sum().item(),
])
@pytest.mark.parametrize("shard", [0, 2])
def test_item_of_a_computed_value(fn, shard):
    # `t.item()` of a 0-d value the graph computes, used again as a number
    # (export's _local_scalar_dense): the 0-d value itself, read by the
    # element-wise ops as a scalar operand (the reduction behind it is
    # sharded and reduced like any other).
    check(Fn(fn), (torch.randn(4, 6, 8),), placements={0: [S(shard)]})


@pytest.mark.parametrize("fn", [
    # A column of a (4, 6, 8) tensor written through a strided view.
    lambda a: torch.as_strided_scatter(a, a[:, :, 2] * 2, (4, 6), (48, 8), 2),
    # Every other element of dims 1 and 2, from offset 1.
    lambda a: torch.as_strided_scatter(a, a[:2, :3, :4].exp(), (2, 3, 4), (96, 16, 2), 1),
    # The whole tensor in another order (a transposed view).
    lambda a: torch.as_strided_scatter(a, a.permute(2, 1, 0).tanh(), (8, 6, 4), (1, 8, 48), 0),
    # A buffer allocated with the input's strides, then filled.
    lambda a: a.new_empty_strided((4, 6, 8), (48, 8, 1)).fill_(1.5) + a,
])
@pytest.mark.parametrize("shard", [0, 2])
def test_as_strided_scatter(fn, shard):
    # Functionalized writes into a strided view (RWKV's scan): each element
    # of the input decomposed into the view's index, largest stride first.
    check(Fn(fn), (torch.randn(4, 6, 8),), placements={0: [S(shard)]})


def test_as_strided_scatter_of_overlapping_views_is_an_error():
    with pytest.raises(dm.DTensorError, match="whose elements overlap"):
        dm_compile(Fn(lambda a: torch.as_strided_scatter(a, torch.ones(3, 4), (3, 4), (2, 1))),
                   (torch.randn(4, 6),), mesh=dm.DeviceMesh((2,)))


def test_structured_inputs():
    # Inputs that are structures of tensors (a list, a dict; Hugging Face
    # caches in test_hf_models.py) give their tensors in pytree order, each
    # with the input's placements; run() checks the structure again.
    class Mix(nn.Module):
        def forward(self, xs, weights, *, extra):
            return xs[0] * weights["a"] + xs[1].tanh() * weights["b"] + extra["bias"]
    torch.manual_seed(19)
    xs = [torch.randn(4, 6), torch.randn(4, 6)]
    ws = {"a": torch.randn(6), "b": torch.randn(6)}
    extra = {"bias": torch.randn(4, 6)}
    module = Mix()
    model = dm_compile(module, (xs, ws), example_kwargs={"extra": extra},
                       mesh=dm.DeviceMesh((2,)), placements={0: [S(0)], "extra": [S(0)]})
    head = model.mlir.split("->")[0]
    assert head.count("[S(0)]>>") == 3, head  # both list items and the bias
    out = model.run(xs, ws, extra=extra)
    assert torch.allclose(out[0].full_tensor(), module(xs, ws, extra=extra), atol=1e-6)
    assert model.num_collectives() == 1
    with pytest.raises(dm.DTensorError, match="input 0 has another structure"):
        model.run(xs[:1], ws, extra=extra)
    with pytest.raises(dm.DTensorError, match="input 1 was a structure of tensors"):
        model.run(xs, torch.randn(6), extra=extra)
    with pytest.raises(dm.DTensorError, match="holds a str among its tensors"):
        dm_compile(module, (xs, {"a": torch.randn(6), "b": "x"}), example_kwargs={"extra": extra},
                   mesh=dm.DeviceMesh((2,)))
    with pytest.raises(dm.DTensorError, match="input 1 is a object"):
        dm_compile(module, (xs, object()), example_kwargs={"extra": extra},
                   mesh=dm.DeviceMesh((2,)))


def test_empty_slices_and_rank_0_views():
    # x[..., n:] of a dim of n (Phi-3's rotary split when every dim rotates)
    # is empty; MLIR rejects the offset n, so an empty piece starts at 0.
    # A one-element dim selected away is a rank-0 view (BEiT).
    f = Fn(lambda t: torch.cat([t[..., :4] * 2, t[..., 4:], t[..., 6:].tanh()], -1))
    check(f, (torch.randn(4, 6),), placements={0: [S(0)]})
    check(Fn(lambda t: t.split([6, 0], dim=1)[0] + t[:, 6:].sum()), (torch.randn(4, 6),),
          placements={0: [S(0)]})
    check(Fn(lambda t, u: t * u.reshape(-1)[0]), (torch.randn(4, 6), torch.randn(1, 1)),
          placements={0: [S(0)]})


def test_gradients_of_strided_and_empty_slices():
    # GPT-J's rotate_every_two (x[..., ::2], x[..., 1::2]) trains through the
    # gradient of a strided slice (slice_scatter with a step); an empty
    # slice's gradient writes nothing.
    class Rotate(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(8, 8)

        def forward(self, x):
            y = self.lin(x)
            r = torch.stack((-y[..., 1::2], y[..., ::2]), -1).flatten(-2)
            return (r * y + y[..., 1:7:3].sum(-1, keepdim=True)
                    + torch.cat([y[..., :8] * 2, y[..., 8:]], -1))
    torch.manual_seed(20)
    x = torch.randn(4, 3, 8)
    for placements in ({0: [S(0)]}, {0: [S(2)]}, {"lin.weight": [S(0)]}):
        check_step(Rotate(), lambda mod, t: (mod(t) ** 2).mean(), (x,), placements=placements)


def test_random_ops_dropout_in_training():
    # Dropout, rand and randn: a seed argument (drawn from torch's generator
    # per run, or fixed), each element's value a hash of its global position,
    # so every sharding computes the same global tensor (DTensor's
    # offset-based RNG promises the same). The values are not PyTorch's.
    x = torch.randn(64, 64) + 3
    drop = nn.Dropout(0.3).train()
    outs = []
    for placements in ({0: [S(0)]}, {0: [S(1)]}, {}):
        model = dm_compile(drop, (x,), mesh=dm.DeviceMesh((2,)), placements=placements)
        assert model.takes_rng_seed
        model.set_rng_seed(7)
        out = model.run(x)[0].full_tensor()
        kept = out != 0
        assert abs(kept.float().mean().item() - 0.7) < 0.03
        assert torch.allclose(out[kept], x[kept] / 0.7)
        outs.append(out)
    assert all(torch.equal(outs[0], o) for o in outs)
    model = dm_compile(Fn(lambda t: (torch.rand_like(t), torch.randn(64, 64))), (x,),
                       mesh=dm.DeviceMesh((2,)), placements={0: [S(0)]})
    uniform, normal = [o.full_tensor() for o in model.run(x)]
    assert 0 <= uniform.min() and uniform.max() < 1 and abs(uniform.mean() - 0.5) < 0.02
    assert abs(normal.mean()) < 0.05 and abs(normal.std() - 1) < 0.05
    torch.manual_seed(5)
    first = model.run(x)[0].full_tensor()
    torch.manual_seed(5)
    again = model.run(x)[0].full_tensor()
    other = model.run(x)[0].full_tensor()
    assert torch.equal(first, again) and not torch.equal(first, other)
    assert not dm_compile(nn.Dropout(0.3).eval(), (x,), mesh=dm.DeviceMesh((2,))).takes_rng_seed

    # A training step: the backward reuses the forward's mask (the weight's
    # gradient is the dropped input; the loss its dot with the weight).
    class Dropped(nn.Module):
        def __init__(self):
            super().__init__()
            self.w = nn.Parameter(torch.randn(64, 64))

        def forward(self, t):
            return (F.dropout(t, 0.25, True) * self.w).sum()
    module = Dropped()
    from dtensor_mlir.torch import compile_training_step
    step = compile_training_step(module, lambda mod, t: mod(t), (x,), mesh=dm.DeviceMesh((2,)),
                                 placements={0: [S(0)], "w": [S(1)]})
    loss, grad = [o.full_tensor() for o in step.run(x)]
    kept = grad != 0
    assert abs(kept.float().mean().item() - 0.75) < 0.03
    assert torch.allclose(grad[kept], x[kept] / 0.75)
    assert torch.allclose(loss, (grad * module.w).sum(), rtol=1e-4)


def test_max_pool_indices_and_unsupported_outputs():
    # Max pooling's indices, where read, are PyTorch's (the flat position of
    # the window's first maximum).
    class IdxPool(nn.Module):
        def forward(self, t):
            return F.max_pool2d(t, 3, stride=2, padding=1, return_indices=True)
    for shard in (0, 2):
        check(IdxPool(), ((x_img * 2).round(),), placements={0: [S(shard)]})
    # A module in train() whose forward updates buffers (BatchNorm's
    # running statistics): the user's outputs, then the buffers' new values,
    # named by updated_buffers.
    bn = nn.BatchNorm2d(3, momentum=0.2).train()
    model = dm_compile(bn, (x_img,), mesh=dm.DeviceMesh((2,)), placements={0: [S(0)]})
    outs = model.run(x_img)
    eager = copy.deepcopy(bn)
    want = eager(x_img)
    assert model.updated_buffers == ["running_mean", "running_var", "num_batches_tracked"]
    assert torch.allclose(outs[0].full_tensor(), want.detach(), rtol=1e-5, atol=1e-5)
    for o, name in zip(outs[1:], model.updated_buffers):
        assert torch.allclose(o.full_tensor(), dict(eager.named_buffers())[name], rtol=1e-5,
                              atol=1e-6), name
    check(nn.AdaptiveAvgPool2d(3), (x_img,))  # windows of several sizes


@pytest.mark.parametrize("conv", [
    nn.Conv2d(4, 4, 3, padding=1, groups=4),                 # depthwise
    nn.Conv2d(4, 6, 3, stride=2, padding=1, groups=2, bias=False),
    nn.Conv2d(4, 8, (3, 1), dilation=(2, 1), groups=4),
    nn.ConvTranspose2d(4, 3, 2, stride=2),                     # a U-Net decoder's
    nn.ConvTranspose2d(4, 3, 3, stride=2, padding=1, output_padding=1),
    nn.ConvTranspose2d(4, 2, 3, padding=1, dilation=2, bias=False),
])
@pytest.mark.parametrize("shard", [0, 1, 2])
def test_grouped_and_transposed_convolution(conv, shard):
    # Batch-, channel- or height-sharded input; for a grouped convolution,
    # sharding the channels shards its groups.
    torch.manual_seed(6)
    check(nn.Sequential(conv), (torch.randn(2, 4, 6, 6),), placements={0: [S(shard)]}, tol=1e-5)


def test_depthwise_channels_stay_local():
    # MobileNet's depthwise convolution with its channels sharded: each rank
    # convolves its own channels; nothing moves until the plain output.
    torch.manual_seed(6)
    m = nn.Sequential(nn.Conv2d(4, 4, 3, padding=1, groups=4), nn.ReLU())
    model = check(m, (torch.randn(2, 4, 6, 6),), placements={0: [S(1)], "0.weight": [S(0)],
                                                                 "0.bias": [S(0)]})
    assert model.report()["collectives"].keys() == {"all_gather"}, model.report()
    assert model.num_collectives() == 1, model.report()


@pytest.mark.parametrize("fn", [
    torch.atan, lambda t: torch.tan(t * 0.5), lambda t: torch.asin(t.clamp(-0.9, 0.9)),
    lambda t: torch.acos(t.clamp(-0.9, 0.9)), torch.sinh, torch.cosh, torch.asinh,
    lambda t: torch.acosh(t.abs() + 1), lambda t: torch.atanh(t.clamp(-0.9, 0.9)), torch.exp2,
    lambda t: torch.log10(t.abs() + 1), lambda t: torch.atan2(t, t.flip(1)),
])
def test_more_math(fn):
    check(Fn(fn), (x46,), placements={0: [S(1)]})


@pytest.mark.parametrize("shard", [0, 1])
def test_scans_products_and_statistics(shard):
    # cumsum along a sharded dim: each rank sums its own elements at their
    # global positions (a Partial sum); prod and cumprod along it a Partial
    # product.
    p = {0: [S(shard)]}
    check(Fn(lambda t: torch.cumsum(t, 1)), (x46,), placements=p)
    check(Fn(lambda t: torch.cumsum(t, 0)), (x46,), placements=p)
    check(Fn(lambda i: torch.cumsum(i, 1)), (ints46,), placements=p)
    # cumprod the same way, a Partial product (a zero included).
    check(Fn(lambda t: torch.cumprod(t, 1)), (x46 * 0.5 + 1,), placements=p)
    check(Fn(lambda t: torch.cumprod(t.clamp(min=-0.5), 0)), (x46,), placements=p)
    check(Fn(lambda i: torch.cumprod(i.clamp(-3, 3), 1)), (ints46,), placements=p)
    check(Fn(lambda t: t.prod(1)), (x46,), placements=p)
    check(Fn(lambda t: t.prod()), (x46 * 0.5 + 1,), placements=p)
    check(Fn(lambda t: t.std(1)), (x46,), placements=p)
    check(Fn(lambda t: torch.var_mean(t, 1, keepdim=True)), (x46,), placements=p)
    check(Fn(lambda t: torch.var_mean(t, 0, correction=0)), (x46,), placements=p)


@pytest.mark.parametrize("shard", [0, 1])
def test_index_select_and_tensor_indexing(shard):
    p = {0: [S(shard)]}
    check(Fn(lambda t: t.flip(1)), (x46,), placements=p)
    check(Fn(lambda t: torch.flip(t, (0, 1)) + t), (x46,), placements=p)
    i = torch.tensor([3, 0, 3, -1])
    check(Fn(lambda t, j: torch.index_select(t, 0, j % 4)), (x46, i), placements=p)
    check(Fn(lambda t, j: torch.index_select(t, 1, j + 1)), (x46, i), placements=p)
    check(Fn(lambda t, j: t[j]), (x46, i), placements=p)                 # -1: the last row
    check(Fn(lambda t, j: t[:, j.view(2, 2)]), (x46, i), placements=p)
    check(Fn(lambda j: F.one_hot(j % 4, 5).float()), (i,), placements={0: [S(0)]})


@pytest.mark.parametrize("resize", [
    lambda t: F.interpolate(t, scale_factor=2, mode="bilinear"),
    lambda t: F.interpolate(t, size=(5, 11), mode="bilinear", align_corners=True),
    lambda t: F.interpolate(t, size=(3, 4), mode="bilinear"),          # down
    lambda t: F.interpolate(t, scale_factor=1.5, mode="bilinear"),
    lambda t: F.interpolate(t, scale_factor=2, mode="nearest"),
])
@pytest.mark.parametrize("shard", [0, 2, 3])
def test_resizing(resize, shard):
    # A height- or width-sharded bilinear resize sums its two neighbours
    # as a Partial where they lie on different ranks.
    check(Fn(resize), (x_img,), placements={0: [S(shard)]}, tol=1e-5)


specials = torch.tensor([[1.5, -2.5, float("nan"), float("inf"), -float("inf"), 0.0, -0.0, 7.0]] * 2)
divisors = torch.tensor([[0.3, -0.3, 2.0, -1.5, 0.7, -0.7, 0.0, 1e-3]] * 2)
int_pairs = (torch.tensor([[7, -7, 7, -7, 0, 9, -9, 5]] * 2), torch.tensor([[2, 2, -2, -2, 3, 3, 4, -4]] * 2))


@pytest.mark.parametrize("fn, args", [
    (lambda a, b: torch.div(a, b, rounding_mode="floor"), (x46 * 5, x46.flip(1))),
    (lambda a, b: torch.div(a, b, rounding_mode="floor"), (specials, divisors)),
    (lambda a, b: torch.div(a, b, rounding_mode="trunc"), (specials, divisors)),
    (lambda a, b: a // b, int_pairs),
    (lambda a, b: torch.div(a, b, rounding_mode="trunc"), int_pairs),
    (lambda a, b: torch.fmod(a, b), (x46 * 5, x46.flip(1))),
    (lambda a, b: torch.fmod(a, b), int_pairs),
    (lambda a: torch.isnan(a), (specials,)),
    (lambda a: torch.isinf(a), (specials,)),
    (lambda a: torch.isfinite(a), (specials,)),
    (lambda a: torch.nan_to_num(a, nan=0.5, posinf=9.0), (specials,)),
    (lambda a: torch.isnan(a), (int_pairs[0],)),
])
def test_division_modes_and_float_tests(fn, args):
    check(Fn(fn), args, placements={0: [S(1)]})


@pytest.mark.parametrize("shard", [0, 1])
def test_repeat_and_roll(shard):
    p = {0: [S(shard)]}
    check(Fn(lambda t: t.repeat(2, 3)), (x46,), placements=p)
    check(Fn(lambda t: t.repeat(2, 1, 1)), (x46,), placements=p)
    check(Fn(lambda t: torch.roll(t, 2, 1)), (x46,), placements=p)
    check(Fn(lambda t: torch.roll(t, (-1, 3), (0, 1))), (x46,), placements=p)


def test_training_step_of_a_tied_language_model():
    # GPT-2's shape: a token embedding tied to the LM head, a causal mask
    # from a tril buffer (a constant of the traced graph), cross-entropy with
    # ignored targets (its backward scatters into a one-hot). The tied
    # weight's gradient sums both uses (it used to get the embedding's only).
    torch.manual_seed(8)

    class TinyLM(nn.Module):
        def __init__(self):
            super().__init__()
            self.wte = nn.Embedding(20, 8)
            self.mix = nn.Linear(8, 8)
            self.head = nn.Linear(8, 20, bias=False)
            self.head.weight = self.wte.weight
            self.register_buffer("mask", torch.tril(torch.ones(5, 5)))

        def forward(self, ids):
            x = self.wte(ids)
            att = (x @ x.transpose(1, 2)).masked_fill(self.mask == 0, float("-inf"))
            return self.head(torch.tanh(self.mix(F.softmax(att, -1) @ x)))

    ids, targets = torch.randint(0, 20, (4, 5)), torch.randint(0, 20, (4, 5))
    targets[0, 1] = -1

    def loss(m, i, t):
        return F.cross_entropy(m(i).view(-1, 20), t.view(-1), ignore_index=-1)
    check_step(TinyLM(), loss, (ids, targets), placements={0: [S(0)], 1: [S(0)]})
    check_step(TinyLM(), loss, (ids, targets), placements={"wte.weight": [S(0)]})


@pytest.mark.parametrize("fn, args", [
    (lambda t, i: torch.scatter(t, 1, i, -2.0), (x46, torch.tensor([[0, 5]] * 4))),
    (lambda t, i: t.scatter(0, i, t.flip(0)), (x46, torch.tensor([[3, 2, 1, 0, 3, 2]] * 4))),
    (lambda t, i: t.scatter_add(1, i, t * 2), (x46, torch.tensor([[1, 1, 0, 5, 5, 5]] * 4))),
])
def test_scatter(fn, args):
    check(Fn(fn), args, placements={0: [S(1)]})
    check(Fn(fn), args, placements={0: [S(0)]})


@pytest.mark.parametrize("pool", [
    nn.MaxPool2d(2), nn.MaxPool2d(3, stride=2, padding=1), nn.MaxPool2d(2, dilation=2),
    nn.MaxPool2d(3, stride=2, ceil_mode=True), nn.AvgPool2d(2),
    nn.AvgPool2d(3, stride=2, padding=1, count_include_pad=False),
    nn.AvgPool2d(3, stride=1, padding=1, divisor_override=2),
])
@pytest.mark.parametrize("shard", [0, 2])
def test_pooling_training_step(pool, shard):
    # Max pooling's gradient goes to the max PyTorch picks (the first in the
    # window; the input's values repeat, so ties decide); average pooling's
    # to every element of the window over its divisor. Batch- or
    # height-sharded.
    torch.manual_seed(9)
    m = nn.Sequential(nn.Conv2d(2, 3, 3, padding=1), pool, nn.Flatten(), nn.LazyLinear(4))
    x = torch.randint(-2, 3, (2, 2, 7, 7)).float()
    m(x)  # sizes the lazy layer
    check_step(m, lambda mod, t: mod(t).pow(2).mean(), (x,), placements={0: [S(shard)]})


def test_pooling_with_ties_picks_the_first():
    # Every element of a window equal: PyTorch's gradient goes to the first
    # (a per-position scale's gradient shows which one got it).
    class Scaled(nn.Module):
        def __init__(self):
            super().__init__()
            self.scale = nn.Parameter(torch.ones(1, 1, 6, 6))

        def forward(self, t):
            return F.max_pool2d(t * self.scale, 3, stride=2, padding=1)
    x = torch.ones(2, 1, 6, 6)
    x[1, 0, 2:4, 2:4] = 3.0
    for shard in (0, 2, 3):
        check_step(Scaled(), lambda mod, t: mod(t).sum(), (x,), placements={0: [S(shard)]})


def test_batch_norm_training_step():
    # BatchNorm in train(): batch statistics over the whole batch (a sharded
    # batch's are reduced: SyncBatchNorm's), and the step returns the new
    # running statistics and counter, as eager's after its step.
    import copy
    from dtensor_mlir.torch import compile_training_step
    torch.manual_seed(13)
    m = nn.Sequential(nn.Conv2d(2, 3, 3, padding=1), nn.BatchNorm2d(3, momentum=0.3), nn.ReLU(),
                      nn.Flatten(), nn.Linear(3 * 5 * 5, 2)).train()
    x = torch.randn(4, 2, 5, 5)
    loss = lambda mod, t: mod(t).pow(2).mean()
    for shard in (0, 2):
        step = compile_training_step(m, loss, (x,), mesh=dm.DeviceMesh((2,)),
                                     placements={0: [S(shard)]})
        outs = step.run(x)
        eager = copy.deepcopy(m)
        l = loss(eager, x)
        l.backward()
        assert torch.allclose(outs[0].full_tensor(), l.detach(), rtol=1e-5, atol=1e-6)
        params = list(eager.named_parameters())
        for o, (name, p) in zip(outs[1:], params):
            assert torch.allclose(o.full_tensor(), p.grad, rtol=1e-4, atol=1e-5), name
        assert step.updated_buffers == ["1.running_mean", "1.running_var", "1.num_batches_tracked"]
        buffers = dict(eager.named_buffers())
        for o, name in zip(outs[1 + len(params):], step.updated_buffers):
            assert torch.equal(o.full_tensor(), buffers[name]) or \
                torch.allclose(o.full_tensor(), buffers[name], rtol=1e-5, atol=1e-6), name



def test_training_step_through_an_old_style_autograd_function():
    # An autograd.Function without setup_context (forward saving on ctx, as
    # BLOOM's GeLU and Megatron-era code write it) cannot run under
    # functorch's grad: the step is traced through AOTAutograd instead. Its
    # own backward is used (here deliberately not the true derivative, so
    # the check sees it), a tied weight's gradient sums both uses, an unused
    # parameter's is 0, and BatchNorm's running statistics come back.
    import copy
    from dtensor_mlir.torch import compile_training_step

    class Cube(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * 2 * x * x  # not 3x^2: its own rule, which must be used

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = nn.Linear(4, 4)
            self.bn = nn.BatchNorm1d(4, momentum=0.3)
            self.b = nn.Linear(4, 4)
            self.b.weight = self.a.weight
            self.unused = nn.Parameter(torch.ones(3))

        def forward(self, x):
            return self.b(Cube.apply(self.bn(self.a(x))))
    torch.manual_seed(21)
    m = Net().train()
    x = torch.randn(6, 4)
    loss = lambda mod, t: mod(t).pow(2).mean()  # noqa: E731
    for placements in ({0: [S(0)]}, {"a.weight": [S(0)]}):
        step = compile_training_step(m, loss, (x,), mesh=dm.DeviceMesh((2,)),
                                     placements=placements)
        outs = step.run(x)
        eager = copy.deepcopy(m)
        l = loss(eager, x)
        l.backward()
        assert torch.allclose(outs[0].full_tensor(), l.detach(), rtol=1e-5, atol=1e-6)
        params = list(eager.named_parameters())
        assert [n for n, _ in params] == ["unused", "a.weight", "a.bias", "bn.weight",
                                          "bn.bias", "b.bias"]
        for o, (name, p) in zip(outs[1:], params):
            want = p.grad if p.grad is not None else torch.zeros_like(p)
            assert torch.allclose(o.full_tensor(), want, rtol=1e-4, atol=1e-5), name
        assert step.updated_buffers == ["bn.running_mean", "bn.running_var",
                                        "bn.num_batches_tracked"]
        buffers = dict(eager.named_buffers())
        for o, name in zip(outs[1 + len(params):], step.updated_buffers):
            assert torch.allclose(o.full_tensor().to(buffers[name].dtype), buffers[name],
                                  rtol=1e-5, atol=1e-6), name


@pytest.mark.parametrize("shard", [0, 1])
def test_topk(shard):
    torch.manual_seed(10)
    x = torch.randn(4, 7)
    p = {0: [S(shard)]}
    check(Fn(lambda t: torch.topk(t, 3)), (x,), placements=p)
    check(Fn(lambda t: torch.topk(t, 2, dim=0, largest=False)), (x,), placements=p)
    check(Fn(lambda t: t.topk(1).values * 2), (x,), placements=p)
    nan = x.clone()
    nan[2, 4] = float("nan")
    check(Fn(lambda t: torch.topk(t, 2)), (nan,), placements=p)
    check(Fn(lambda i: torch.topk(i, 2)), ((x * 10).int(),), placements=p)
    # k above 64: the first k of the stable sort (distinct values: PyTorch's
    # order among equal ones is its kernel's).
    wide = torch.randperm(4 * 90).reshape(4, 90).float()
    wide[1, 7] = float("nan")
    check(Fn(lambda t: torch.topk(t, 70)), (wide,), placements=p)
    check(Fn(lambda t: torch.topk(t, 65, largest=False)), (wide,), placements=p)


def test_mixture_of_experts_router():
    # Top-2 routing: softmax over experts, topk, renormalized weights
    # scattered back over the experts, a weighted sum of the experts' outputs.
    torch.manual_seed(11)

    class MoE(nn.Module):
        def __init__(self, d=8, e=4):
            super().__init__()
            self.gate = nn.Linear(d, e)
            self.experts = nn.ModuleList(nn.Linear(d, d) for _ in range(e))

        def forward(self, t):
            probs = F.softmax(self.gate(t), -1)
            w, idx = torch.topk(probs, 2, -1)
            w = w / w.sum(-1, keepdim=True)
            dense = torch.zeros_like(probs).scatter(-1, idx, w)
            outs = torch.stack([e(t) for e in self.experts], -1)
            return (outs * dense.unsqueeze(1)).sum(-1)
    check(MoE(), (torch.randn(6, 8),), mesh=(2,), placements={0: [S(0)]}, collectives=1)


@pytest.mark.parametrize("conv", [
    nn.Conv2d(4, 4, 3, padding=1, groups=4),
    nn.Conv2d(4, 6, 3, stride=2, padding=1, groups=2),
    nn.ConvTranspose2d(4, 3, 2, stride=2),
    nn.ConvTranspose2d(4, 3, 3, stride=2, padding=1, output_padding=1),
    nn.ConvTranspose2d(4, 2, 3, padding=1, dilation=2, bias=False),
    # Grouped transposed: per group, the weight (in, out / groups, k..).
    nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1, groups=2),
    nn.ConvTranspose2d(4, 4, 2, stride=2, groups=4, bias=False),
    nn.ConvTranspose3d(4, 2, 2, stride=2, groups=2),
])
@pytest.mark.parametrize("shard", [0, 2])
def test_grouped_and_transposed_convolution_training_step(conv, shard):
    # Their gradients (input, weight, bias) through a training step, the
    # input gradient through a convolution in front; batch- or
    # height-sharded.
    torch.manual_seed(12)
    three_d = isinstance(conv, nn.ConvTranspose3d)
    m = nn.Sequential((nn.Conv3d if three_d else nn.Conv2d)(2, 4, 1), conv)
    x = torch.randn(2, 2, 4, 6, 6) if three_d else torch.randn(2, 2, 6, 6)
    check_step(m, lambda mod, t: mod(t).pow(2).mean(), (x,), placements={0: [S(shard)]})


@pytest.mark.parametrize("shard", [0, 1])
def test_slice_and_select_scatter(shard):
    # The gradients of slicing and selecting (rotate_half's slices in a
    # LLaMA training step): the piece written into the tensor.
    p = {0: [S(shard)]}
    check(Fn(lambda t: torch.slice_scatter(t, t[:, :2] * 5, 1, 3, 5)), (x46,), placements=p)
    check(Fn(lambda t: torch.slice_scatter(t, t[1:3] * 5, 0, -3, -1)), (x46,), placements=p)
    check(Fn(lambda t: torch.select_scatter(t, t[:, 1] * 5, 1, -1)), (x46,), placements=p)


@pytest.mark.parametrize("shard", [0, 2])
def test_multi_index_and_upsampling_gradients(shard):
    # Index tensors on consecutive dims, broadcast together (how nearest
    # upsampling traces in a training step), and the gradients of nearest
    # and bilinear upsampling.
    p = {0: [S(shard)]}
    ih, iw = torch.tensor([0, 0, 2, 1, -1]), torch.tensor([3, 1, 1])
    check(Fn(lambda t: t[:, :, ih[:, None], iw]), (x_img,), placements=p)
    check(Fn(lambda t: t[:, ih[:, None], iw]), (x_img,), placements=p)
    torch.manual_seed(14)
    for mode in ("nearest", "bilinear"):
        for scale in (2, 3):
            m = nn.Sequential(nn.Conv2d(2, 3, 1), nn.Upsample(scale_factor=scale, mode=mode))
            check_step(m, lambda mod, t: mod(t).pow(2).mean(), (torch.randn(2, 2, 4, 5),),
                       placements=p)
    m = nn.Sequential(nn.Conv2d(2, 3, 1), nn.Upsample(size=(7, 3), mode="bilinear",
                                                      align_corners=True))
    check_step(m, lambda mod, t: mod(t).pow(2).mean(), (torch.randn(2, 2, 4, 5),), placements=p)


@pytest.mark.parametrize("shard", [0, 1])
def test_sort_and_argsort(shard):
    # Each element's rank (smaller, or equal and earlier, before it; NaN
    # last ascending and first descending) by a sum over the dim, a Partial
    # sum where the dim is sharded; stable, as PyTorch's stable sort.
    x = torch.randn(4, 7)
    x[1, 3] = float("nan")
    x[2] = torch.tensor([1.0, 3, 3, 0, 3, 1, 2])
    p = {0: [S(shard)]}
    check(Fn(lambda t: torch.sort(t)), (x,), placements=p)
    check(Fn(lambda t: torch.sort(t, dim=0, descending=True)), (x,), placements=p)
    check(Fn(lambda t: torch.sort(t, stable=True, dim=1)), (x,), placements=p)
    check(Fn(lambda t: torch.argsort(t, 1, descending=True)), (x,), placements=p)
    check(Fn(lambda i: torch.sort(i, 1)), ((x.nan_to_num() * 3).int(),), placements=p)


@pytest.mark.parametrize("shard", [0, 1])
def test_long_sorts(shard):
    # Past 1,024 elements a sort is a bitonic network on (value, index)
    # pairs over the dim padded to a power of two: stable (ties keep their
    # order), NaN last ascending and first descending; topk (k above 64),
    # kthvalue and argsort through it; sharded along the batch or along the
    # sorted dim (gathered for the network).
    torch.manual_seed(29)
    x = torch.randn(2, 1500)
    x[0, ::7] = 0.5  # ties
    x[1, 100] = float("nan")
    p = {0: [S(shard)]}
    # (PyTorch's unstable sort may order ties otherwise at this length.)
    check(Fn(lambda t: torch.sort(t, dim=1, stable=True)), (x,), placements=p)
    check(Fn(lambda t: torch.sort(t, dim=1)[0]), (x,), placements=p)
    check(Fn(lambda t: torch.sort(t, dim=1, descending=True, stable=True)), (x,), placements=p)
    check(Fn(lambda t: torch.topk(t.nan_to_num(), 100, dim=1)), (x,), placements=p)
    check(Fn(lambda t: torch.kthvalue(t.nan_to_num(), 700, dim=1)), (x,), placements=p)
    check(Fn(lambda i: torch.argsort(i, dim=1, stable=True)), ((x.nan_to_num() * 4).long(),),
          placements=p)
    check(Fn(lambda t: torch.sort(t, dim=1, stable=True)), (torch.randn(2, 2048),),
          placements=p)  # a power of two: no padding


class SeqFirstAttention(nn.Module):
    """nn.MultiheadAttention as nn.Transformer* calls it by default:
    sequence-first (T, B, E); ATen runs its projections as views merging
    (T, B) into T * B rows around an addmm."""

    def __init__(self):
        super().__init__()
        self.attn = nn.MultiheadAttention(16, 4)
        self.proj = nn.Linear(16, 8)

    def forward(self, x):
        y, _ = self.attn(x, x, x, need_weights=False)
        return self.proj(torch.relu(y))


@pytest.mark.parametrize("batch_first", [False, True])
def test_linear_over_a_sharded_minor_leading_dim_stays_local(batch_first):
    # The batch is the second of the merged leading dims (sequence-first
    # attention, and the batch-first module's own transpose to it): merged
    # into rows it would be a strided shard (DTensor's _StridedShard), so the
    # importer keeps the leading dims and every projection is a contraction
    # over them. Each rank attends over its own batch rows: nothing moves
    # until the output, which stays batch-sharded.
    torch.manual_seed(7)
    if batch_first:
        m = nn.TransformerEncoderLayer(16, 4, 32, dropout=0.0, batch_first=True)
        x, dim = torch.randn(4, 6, 16), 0
    else:
        m, x, dim = SeqFirstAttention(), torch.randn(6, 4, 16), 1
    model = dm_compile(m, (x,), mesh=dm.DeviceMesh((2,)), placements={0: [S(dim)]},
                       output_placements=[[S(dim)]])
    got = model.run(x)[0].full_tensor()
    with torch.no_grad():
        want = m(x)
    assert torch.allclose(got, want, rtol=1e-5, atol=1e-5), (got - want).abs().max()
    assert model.num_collectives() == 0, model.report()


def test_linear_over_leading_dims_with_tensor_parallel_weights():
    # The same contraction over leading dims with Megatron's column- then
    # row-sharded weights: one all_reduce, as for a 2-D input.
    torch.manual_seed(8)
    m = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 8))
    x = torch.randn(3, 4, 8).transpose(0, 1)
    check(m, (x,), placements={"0.weight": [S(0)], "0.bias": [S(0)], "2.weight": [S(1)]},
          collectives=1)


# -- _StridedShard: DTensor's spelling of a nested shard order ----------------

@pytest.mark.parametrize("mesh_shape,placements,want", [
    # FSDP2 over data-parallel with tensor-parallel shards of the same dim:
    # the tp shard is applied first.
    ((2, 2), lambda SS: [SS(0, split_factor=2), S(0)], "[S(0)[1], S(0)[0]]"),
    ((3, 2), lambda SS: [SS(0, split_factor=2), S(0)], "[S(0)[1], S(0)[0]]"),
    ((2, 2, 2), lambda SS: [SS(1, split_factor=4), S(1), S(1)], "[S(1)[2], S(1)[0], S(1)[1]]"),
    ((2, 2, 2), lambda SS: [SS(1, split_factor=2), S(0), S(1)], "[S(1)[1], S(0), S(1)[0]]"),
    # A split factor of 1 is a plain shard.
    ((2, 2), lambda SS: [SS(0, split_factor=1), S(0)], "[S(0), S(0)]"),
])
def test_strided_shard_is_a_shard_order(mesh_shape, placements, want):
    from torch.distributed.tensor.placement_types import _StridedShard
    from dtensor_mlir.torch import placements_of
    got = placements_of(placements(_StridedShard), mesh_shape)
    assert "[" + ", ".join(p.spec() for p in got) + "]" == want


def test_strided_shard_of_a_view_is_an_error():
    # A split factor that no order of the mesh dims gives: the strided layout
    # of a view ((T, B) merged with B sharded), which has no counterpart.
    from torch.distributed.tensor.placement_types import _StridedShard
    from dtensor_mlir.torch import placements_of
    with pytest.raises(dm.DTensorError, match=r"_StridedShard\(0, split_factor=3\) on mesh dim 0 is "
                                              r"not a shard order"):
        placements_of([_StridedShard(0, split_factor=3)], (2,))
    with pytest.raises(dm.DTensorError, match="need the mesh's shape"):
        placements_of([_StridedShard(0, split_factor=2), S(0)])


def test_strided_shard_weights_compile():
    # A weight laid out as FSDP2 + TP lay it out on a 2x2 mesh, given as
    # DTensor placements: the same numbers as eager, and our layout of it is
    # DTensor's (checked shard by shard in test_dtensor_models.py).
    from torch.distributed.tensor.placement_types import _StridedShard
    torch.manual_seed(9)
    m = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 8))
    check(m, (torch.randn(4, 8),), mesh=(2, 2),
          placements={"0.weight": [_StridedShard(0, split_factor=2), S(0)],
                      "2.weight": [R(), S(1)]})


@pytest.mark.parametrize("shard", [0, 1, 2])
def test_group_norm_training_step(shard):
    # A diffusion U-Net's block trains: group norm's gradient (PyTorch's
    # decomposition of native_group_norm_backward, which allocates with
    # empty_permuted), affine and not, batch-, channel- or height-sharded.
    torch.manual_seed(0)
    m = nn.Sequential(nn.Conv2d(4, 8, 3, padding=1), nn.GroupNorm(2, 8), nn.SiLU(),
                      nn.Conv2d(8, 4, 1), nn.GroupNorm(4, 4, affine=False))
    check_step(m, lambda mod, t: (mod(t) ** 2).mean(), (torch.randn(2, 4, 6, 6),),
               placements={0: [S(shard)]})


@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("shard", [0, 1])
def test_scatter_reduce(reduce, include_self, shard):
    # Every reduction, with and without self's elements, positions no index
    # names kept; the index and source sharded along the scatter dim (a
    # Partial of the reduction) or across it.
    torch.manual_seed(3)
    index = torch.tensor([[0, 2, 2, 5], [1, 1, 4, 0], [3, 3, 3, 3], [0, 5, 2, 1]])
    f = Fn(lambda x, i, s: x.scatter_reduce(1, i, s, reduce, include_self=include_self))
    check(f, (torch.randn(4, 6), index, torch.randn(4, 4)), placements={1: [S(shard)], 2: [S(shard)]})
    if reduce in ("sum", "prod", "amax", "amin"):
        ints = torch.randint(-4, 5, (4, 6))
        check(f, (ints, index, torch.randint(-4, 5, (4, 4))), placements={1: [S(shard)], 2: [S(shard)]})


@pytest.mark.parametrize("conv", [
    nn.Conv1d(4, 6, 3, padding=1), nn.Conv1d(4, 6, 3, stride=2, dilation=2, padding=2),
    nn.Conv1d(4, 4, 5, padding=2, groups=4), nn.ConvTranspose1d(4, 3, 4, stride=2, padding=1)])
@pytest.mark.parametrize("shard", [0, 2])
def test_1d_convolution(conv, shard):
    # 1-D convolutions (audio, sequences) as the 2-D ones with a height of
    # 1: plain, strided and dilated, depthwise, transposed; batch- or
    # length-sharded (halo exchanges along the length); forward and a
    # training step.
    torch.manual_seed(10)
    x = torch.randn(2, 4, 12)
    check(nn.Sequential(conv), (x,), placements={0: [S(shard)]}, tol=1e-5)
    check_step(nn.Sequential(conv, nn.Tanh()), lambda mod, t: (mod(t) ** 2).mean(), (x,),
               placements={0: [S(shard)]})


@pytest.mark.parametrize("layer", [
    nn.Conv3d(3, 4, 3, padding=1), nn.Conv3d(3, 4, 3, stride=2, padding=1),
    nn.Conv3d(4, 6, (3, 1, 2), groups=2, padding=(1, 0, 1), dilation=(1, 1, 2)),
    nn.ConvTranspose3d(3, 2, 3, stride=2, padding=1, output_padding=1),
    nn.MaxPool3d(3, stride=2, padding=1), nn.MaxPool3d(2, ceil_mode=True),
    nn.AvgPool3d(2), nn.AvgPool3d(3, stride=2, padding=1, count_include_pad=False)])
@pytest.mark.parametrize("shard", [0, 2, 4])
def test_3d_convolution_and_pooling(layer, shard):
    # Video and volume layers: 3-D convolutions (plain, strided, grouped and
    # dilated, transposed) and pooling, batch-, depth- or width-sharded
    # (halo exchanges along the sharded dim); forward and a training step.
    torch.manual_seed(12)
    c = 4 if getattr(layer, "groups", 1) == 2 else 3
    x = torch.randn(2, c, 6, 5, 7)
    check(nn.Sequential(layer), (x,), placements={0: [S(shard)]}, tol=1e-5)
    check_step(nn.Sequential(nn.Conv3d(c, c, 1), layer, nn.Tanh()),
               lambda mod, t: (mod(t) ** 2).mean(), (x,), placements={0: [S(shard)]})


@pytest.mark.parametrize("size", [(3, 4), (7, 5), (13, 9)])
@pytest.mark.parametrize("shard", [0, 2, 3])
def test_adaptive_pooling_with_windows_of_several_sizes(size, shard):
    # Output position o covers floor(o * In / Out) .. ceil((o + 1) * In /
    # Out): windows of different sizes (and overlapping ones when growing);
    # max pooling propagates NaN.
    torch.manual_seed(19)
    x = torch.randn(2, 3, 10, 7)
    x[0, 0, 3, 3] = float("nan")
    check(Fn(lambda t: F.adaptive_avg_pool2d(t, size)), (x,), placements={0: [S(shard)]}, tol=1e-6)
    check(Fn(lambda t: F.adaptive_max_pool2d(t, size)), (x,), placements={0: [S(shard)]}, tol=0)
    # The indices PyTorch picks (the first max scanning h then w; ties from
    # rounding), and training steps through both (their gradients).
    ties = (x.nan_to_num() * 2).round()
    check(Fn(lambda t: F.adaptive_max_pool2d(t, size, return_indices=True)), (ties,),
          placements={0: [S(shard)]}, tol=0)
    for pool in (nn.AdaptiveAvgPool2d(size), nn.AdaptiveMaxPool2d(size)):
        net = nn.Sequential(nn.Conv2d(3, 4, 3), pool, nn.Flatten(),
                            nn.Linear(4 * size[0] * size[1], 5))
        check(net, (x.nan_to_num(),), placements={0: [S(shard)]})
        check_step(net, lambda mod, t: (mod(t) ** 2).mean(), (x.nan_to_num(),),
                   placements={0: [S(shard)]})


@pytest.mark.parametrize("conv", [
    nn.ConvTranspose2d(4, 6, 3, groups=2), nn.ConvTranspose2d(4, 4, 4, stride=2, padding=1, groups=4),
    nn.ConvTranspose1d(6, 3, 3, stride=2, groups=3, output_padding=1, dilation=2),
    nn.ConvTranspose3d(4, 2, 2, stride=2, groups=2)])
@pytest.mark.parametrize("shard", [0, 1, 2])
def test_grouped_transposed_convolution(conv, shard):
    # Per group, the input gradient of the convolution it transposes
    # (depthwise too); sharded channels shard the groups.
    torch.manual_seed(21)
    x = torch.randn((2, conv.in_channels) + (5,) * (conv.weight.dim() - 2))
    check(nn.Sequential(conv), (x,), placements={0: [S(shard)]}, tol=1e-5)


def test_index_tensors_on_dims_apart():
    # x[i, :, j]: index tensors on dims that are not consecutive put the
    # broadcast index dims first (PyTorch's rule); consecutive ones keep
    # their place; negative indices count from the end.
    torch.manual_seed(22)
    x = torch.randn(4, 5, 6, 3)
    i, j = torch.randint(0, 4, (2, 3)), torch.randint(-6, 6, (3,))
    k = torch.randint(0, 5, (2, 1))
    for shard in (0, 1, 2):
        p = {0: [S(shard)]}
        check(Fn(lambda t, a, b: t[a, :, b]), (x, i, j), placements=p)
        check(Fn(lambda t, a, b: t[:, a, :, b % 3]), (x, k, j), placements=p)
        check(Fn(lambda t, a, b: t[:, a, b]), (x, k, j), placements=p)


def test_index_put_with_several_index_tensors_and_fold():
    # x[i, :, j] = v and index_put(..., accumulate=True) with index tensors
    # on dims apart; F.fold (col2im: an accumulating index_put with two
    # index tensors, and with padding a negative pad that crops).
    torch.manual_seed(23)
    x = torch.randn(4, 5, 6)
    i, j = torch.tensor([0, 2, 3]), torch.tensor([1, 1, 4])

    def put(t, a, b, v):
        t = t.clone()
        t[a, :, b] = v
        return t
    for shard in (0, 1):
        p = {0: [S(shard)]}
        check(Fn(put), (x, i, j, torch.randn(3, 5)), placements=p)
        check(Fn(lambda t, a, b, v: t.index_put((a, b), v, accumulate=True)),
              (x, i, j, torch.randn(3, 6)), placements=p)
        check(nn.Fold((4, 4), 2, stride=2), (torch.randn(2, 12, 4),), placements=p)
        check(nn.Fold((5, 5), 3, padding=1, stride=2), (torch.randn(2, 18, 9),), placements=p)
        check(Fn(lambda t: F.pad(t, (-1, 2, 0, -2))), (x,), placements=p)


@pytest.mark.parametrize("resize", [dict(size=(5, 9)), dict(scale_factor=1.5), dict(size=(2, 3)),
                                    dict(size=(8, 7))])
@pytest.mark.parametrize("shard", [0, 2, 3])
def test_nearest_resize_to_any_size(resize, shard):
    # PyTorch's source index (floor(o * scale) in float, the last one at
    # most), one pass per spatial dim; and its gradient in a training step.
    torch.manual_seed(24)
    x = torch.randn(2, 3, 4, 6)
    check(Fn(lambda t: F.interpolate(t, **resize)), (x,), placements={0: [S(shard)]}, tol=0)
    net = nn.Sequential(nn.Conv2d(3, 3, 1), nn.Upsample(**resize), nn.Tanh())
    check_step(net, lambda mod, t: (mod(t) ** 2).mean(), (x,), placements={0: [S(shard)]})


@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align_corners", [False, True])
def test_grid_sample(mode, padding_mode, align_corners):
    # Each output pixel reads the input where its grid entry points (some
    # outside the input: zeros or the border); batch-sharded input and grid
    # stay local, a sharded H or W sums as a Partial. A spatial transformer
    # (affine_grid, then grid_sample) too.
    torch.manual_seed(25)
    x, grid = torch.randn(2, 3, 5, 6), torch.rand(2, 4, 7, 2) * 2.4 - 1.2
    f = Fn(lambda t, g: F.grid_sample(t, g, mode=mode, padding_mode=padding_mode,
                                      align_corners=align_corners))
    check(f, (x, grid), placements={0: [S(0)], 1: [S(0)]}, collectives=1)
    for shard in (2, 3):
        check(f, (x, grid), placements={0: [S(shard)]})
    theta = torch.tensor([[[0.9, -0.2, 0.1], [0.3, 1.1, -0.2]]] * 2)
    stn = Fn(lambda t, th: F.grid_sample(t, F.affine_grid(th, (2, 3, 4, 4),
                                                          align_corners=align_corners),
                                         mode=mode, padding_mode=padding_mode,
                                         align_corners=align_corners))
    check(stn, (x, theta), placements={0: [S(0)], 1: [S(0)]})


@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align_corners", [False, True])
def test_grid_sample_training_step(mode, padding_mode, align_corners):
    # grid_sampler_2d_backward: a spatial transformer whose grid comes from a
    # localization layer (the grid's gradient: the bilinear weights'
    # derivatives, 0 where border padding clips) sampling a convolution's
    # output (the input's gradient: the forward's weights transposed).
    class Stn(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(3, 4, 3, padding=1)
            self.loc = nn.Linear(3 * 5 * 6, 6)

        def forward(self, x):
            theta = self.loc(x.flatten(1)).view(-1, 2, 3) * 0.6
            grid = F.affine_grid(theta, (x.shape[0], 4, 7, 5), align_corners=align_corners)
            return F.grid_sample(self.conv(x), grid, mode=mode, padding_mode=padding_mode,
                                 align_corners=align_corners)
    torch.manual_seed(26)
    check_step(Stn(), lambda mod, t: (mod(t) ** 2).mean(), (torch.randn(4, 3, 5, 6),),
               placements={0: [S(0)]})


@pytest.mark.parametrize("pool", [
    dict(kernel_size=3, stride=2, ceil_mode=True),
    dict(kernel_size=3, stride=2, padding=1, ceil_mode=True),
    dict(kernel_size=3, stride=2, padding=1, ceil_mode=True, count_include_pad=False),
    dict(kernel_size=2, ceil_mode=True)])
def test_average_pooling_with_ceil_mode_windows(pool):
    # A ceil_mode window reaching past the padded input divides by its size
    # clipped to it (EfficientNet's pooler), forward and gradient.
    torch.manual_seed(26)
    x = torch.randn(2, 3, 7, 8)
    for shard in (0, 2):
        check(nn.AvgPool2d(**pool), (x,), placements={0: [S(shard)]}, tol=1e-6)
    check_step(nn.Sequential(nn.Conv2d(3, 3, 1), nn.AvgPool2d(**pool), nn.Tanh()),
               lambda mod, t: (mod(t) ** 2).mean(), (x,), placements={0: [S(2)]})
    check(nn.AvgPool3d(**pool), (torch.randn(2, 3, 5, 7, 8),), placements={0: [S(2)]}, tol=1e-6)
    # A kernel far larger than the input (EfficientNet's pooler: 2,560 over
    # a 1x1 map) reads no further than the input: no huge padded tensor.
    check(nn.AvgPool2d(4096, ceil_mode=True), (torch.randn(2, 3, 3, 2),), tol=1e-6)


def test_local_response_norm():
    # LocalResponseNorm pools the squares over channels with a 3-D average
    # pooling of a (N, 1, C, H, W) view.
    torch.manual_seed(13)
    for shard in (0, 1, 3):
        check(nn.LocalResponseNorm(3), (torch.randn(2, 5, 4, 4),), placements={0: [S(shard)]})


@pytest.mark.parametrize("shard", [0, 1])
def test_running_extremes_and_log_cumsum_exp(shard):
    # cummax / cummin (values and the index PyTorch gives: the last of
    # ties, the last NaN once one is seen) and logcumsumexp (stable with
    # large and infinite values), with the scanned dim sharded or not.
    x = torch.tensor([[1., 3., 3., float("nan"), 2., 5.],
                      [-float("inf"), -float("inf"), 0., 0., 7., float("inf")],
                      [2., 1., 1., 0., 2., -1.], [0., 0., 0., 0., 0., 0.]])
    for f in (lambda t: torch.cummax(t, 1), lambda t: torch.cummin(t, 1),
              lambda t: torch.logcumsumexp(t, 1), lambda t: torch.logcumsumexp(t * 300, 0)):
        check(Fn(f), (x,), placements={0: [S(shard)]})
    ints = torch.randint(-3, 4, (6, 5))
    check(Fn(lambda t: torch.cummax(t, 0)), (ints,), placements={0: [S(shard)]})


@pytest.mark.parametrize("p", [0.0, 1.0, 2.0, 3.0, float("inf")])
def test_cdist(p):
    torch.manual_seed(14)
    a, b = torch.randn(4, 5, 3), torch.randn(4, 6, 3)
    if p == 0:
        a, b = a.round(), b.round()
    f = Fn(lambda u, v: torch.cdist(u, v, p=p))
    check(f, (a, b), placements={0: [S(0)], 1: [S(0)]}, tol=1e-5)
    check(f, (a, b), placements={0: [S(2)], 1: [S(2)]}, tol=1e-5)  # features: a Partial
    check(Fn(lambda u, v: torch.cdist(u, v, p=p)), (a[0], b[0]), placements={0: [S(0)]}, tol=1e-5)


class _Scaled(nn.Module):
    """f(x * w): a parameter in front of an op, so a training step's
    gradient flows through the op's backward."""
    def __init__(self, f, n):
        super().__init__()
        self.w = nn.Parameter(torch.linspace(0.5, 1.5, n))
        self.f = f

    def forward(self, x):
        return self.f(x * self.w)


@pytest.mark.parametrize("p", [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, float("inf")])
@pytest.mark.parametrize("shard", [0, 1])
def test_cdist_gradient(p, shard):
    # _cdist_backward: PyTorch's formula per p (sign for 1, diff / d for 2,
    # the max's sign for inf, powers otherwise, 0 where d is 0), for both
    # operands (the second through the swapped op).
    torch.manual_seed(14)
    m = _Scaled(lambda t: torch.cdist(t, t.flip(1)[:, :5] * 0.7, p=p), 8)
    check_step(m, lambda mod, t: (mod(t) ** 2).mean(), (torch.randn(4, 6, 8),),
               placements={0: [S(shard)]})


@pytest.mark.parametrize("mode, padding_idx, weighted", [
    ("sum", None, False), ("mean", None, False), ("sum", 2, False), ("mean", 4, False),
    ("sum", None, True), ("max", None, False), ("max", 4, False)])
def test_embedding_bag_training_step(mode, padding_idx, weighted):
    # _embedding_bag_backward: each position's row gets its bag's gradient
    # (sum and mean: per-sample weights, a mean's bag size, an empty bag,
    # padding_idx left out); max: each feature's gradient goes to the row
    # that held the bag's maximum there (the forward's max indices); the
    # table whole or vocab-sharded.
    class Bags(nn.Module):
        def __init__(self):
            super().__init__()
            self.e = nn.EmbeddingBag(10, 4, mode=mode, padding_idx=padding_idx)
            self.lin = nn.Linear(4, 3)

        def forward(self, ids, offsets, w):
            return self.lin(self.e(ids, offsets, per_sample_weights=w if weighted else None))
    torch.manual_seed(16)
    ids = torch.tensor([1, 2, 4, 5, 4, 3, 2, 9, 0, 0])
    args = (ids, torch.tensor([0, 2, 2, 5]), torch.rand(10))
    loss = lambda mod, i, o, w: (mod(i, o, w) ** 2).mean()  # noqa: E731
    check_step(Bags(), loss, args)
    check_step(Bags(), loss, args, placements={"e.weight": [S(0)]})


def test_bicubic_resizing_in_a_training_step():
    # A training step calls upsample_bicubic2d.default (export reaches its
    # .vec overload): decomposed there too.
    class Resize(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(2, 3, 3, padding=1)

        def forward(self, x):
            return self.conv(F.interpolate(x, scale_factor=2, mode="bicubic"))
    torch.manual_seed(17)
    check_step(Resize(), lambda mod, t: mod(t).pow(2).mean(), (torch.randn(2, 2, 5, 5),),
               placements={0: [S(0)]})


@pytest.mark.parametrize("mode, dims, align_corners, scale", [
    ("trilinear", (4, 3, 5), False, 2), ("trilinear", (3, 4, 4), True, 2),
    ("trilinear", (4, 5, 3), False, 1.5), ("linear", (5,), False, 2), ("linear", (7,), True, 3)])
def test_linear_resizing_in_a_training_step(mode, dims, align_corners, scale):
    # upsample_trilinear3d.default (decomposed) and the gradients of linear
    # and trilinear resizing (upsample_linear1d_backward,
    # upsample_trilinear3d_backward: the transposes of their separable
    # passes), batch- or depth-sharded; a scale factor that is not whole.
    conv = {1: nn.Conv1d, 3: nn.Conv3d}[len(dims)]

    class Resize(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = conv(2, 3, 3, padding=1)
            self.b = conv(3, 1, 1)

        def forward(self, x):
            return self.b(F.interpolate(self.a(x), scale_factor=scale, mode=mode,
                                        align_corners=align_corners))
    torch.manual_seed(19)
    x = torch.randn(4, 2, *dims)
    for shard in (0, 2):
        check_step(Resize(), lambda mod, t: mod(t).pow(2).mean(), (x,), mesh=(4,),
                   placements={0: [S(shard)]})


@pytest.mark.parametrize("size, scale, align_corners", [
    ((10, 7), None, False), ((3, 4), None, False), ((10, 7), None, True), (None, 1.7, False),
    ((1, 9), None, True)])
def test_bicubic_resizing_gradient(size, scale, align_corners):
    # upsample_bicubic2d_backward: a parameter resized (a ViT's position
    # embeddings interpolated to another grid) gets the transpose of the two
    # cubic passes: up and down, align_corners, a scale factor, a size of 1.
    class Grid(nn.Module):
        def __init__(self):
            super().__init__()
            self.pos = nn.Parameter(torch.randn(1, 3, 5, 6))

        def forward(self, x):
            p = F.interpolate(self.pos, size=size, scale_factor=scale, mode="bicubic",
                              align_corners=align_corners)
            return x * p
    torch.manual_seed(18)
    out = size or F.interpolate(torch.zeros(1, 3, 5, 6), scale_factor=scale,
                                mode="bicubic").shape[2:]
    check_step(Grid(), lambda mod, t: mod(t).pow(2).mean(), (torch.randn(2, 3, *out),),
               placements={0: [S(0)]})


def test_kthvalue_and_randint():
    # kthvalue: element k - 1 of the stable sort (values and indices, the
    # gradient to the element picked). randint: integers in [low, high),
    # the same global tensor whatever the sharding.
    torch.manual_seed(15)
    x = torch.randn(4, 6, 8)
    for shard in (0, 2):
        check(Fn(lambda t: t.kthvalue(3, -1)), (x,), placements={0: [S(shard)]})
        check(Fn(lambda t: t.kthvalue(2, 1, keepdim=True)), (x,), placements={0: [S(shard)]})
        check_step(_Scaled(lambda t: t.kthvalue(2, -1).values, 8),
                   lambda mod, t: (mod(t) ** 2).mean(), (x,), placements={0: [S(shard)]})
    draws = []
    for placements in ({0: [S(0)]}, {0: [S(1)]}):
        model = dm_compile(Fn(lambda t: (torch.randint(-2, 5, (64, 64)) + t.long(),
                                         torch.randint_like(t, 3))),
                           (torch.zeros(64, 64),), mesh=dm.DeviceMesh((2,)),
                           placements=placements)
        assert model.takes_rng_seed
        model.set_rng_seed(3)
        ints, like = [o.full_tensor() for o in model.run(torch.zeros(64, 64))]
        assert ints.dtype == torch.int64 and like.dtype == torch.float32
        assert ints.min() == -2 and ints.max() == 4 and abs(ints.float().mean() - 1) < 0.1
        assert set(like.unique().tolist()) == {0.0, 1.0, 2.0}
        draws.append(ints)
    assert torch.equal(draws[0], draws[1])


def test_bilinear_erfinv_and_triangle_indices():
    torch.manual_seed(15)
    x2 = torch.randn(4, 16)
    check(nn.Bilinear(16, 8, 4), (x2, torch.randn(4, 8)), placements={0: [S(0)], 1: [S(0)]})
    check(nn.Bilinear(16, 8, 4, bias=False), (torch.randn(4, 3, 16), torch.randn(4, 3, 8)),
          placements={0: [S(2)], 1: [S(0)]})
    edges = torch.tensor([[-1., 1., 0., 0.999999, -0.5, 1e-8, 1.5, 0.9]] * 2)
    check(Fn(torch.erfinv), (edges,), placements={0: [S(1)]}, tol=1e-6)
    check(Fn(lambda t: torch.erfinv(t.tanh())), (x2.double(),), placements={0: [S(0)]},
          tol=1e-12)
    m = torch.randn(5, 5)
    check(Fn(lambda t: t[torch.tril_indices(5, 5, -1).unbind(0)]), (m,), placements={0: [S(0)]})
    check(Fn(lambda t: t[torch.triu_indices(5, 4, 1).unbind(0)]), (m[:, :4],),
          placements={0: [S(1)]})


class HFStyleAttention(nn.Module):
    """Hugging Face GPT-2's attention as transformers 5 writes it: the
    attention output reshaped, transposed and viewed. PyTorch's own
    run_decompositions fails on it (the decomposed attention's strides make
    the last view invalid); attention is lowered whole instead."""

    def __init__(self):
        super().__init__()
        self.c_attn = nn.Linear(32, 96)
        self.c_proj = nn.Linear(32, 32)

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.c_attn(x).split(c, dim=2)
        q, k, v = (z.view(b, t, -1, 8).transpose(1, 2) for z in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        y = y.reshape(b, -1, t, 8).transpose(1, 2).reshape(b, t, -1)
        return self.c_proj(y.view(-1, c)).view(b, t, c)


def test_attention_lowered_whole():
    torch.manual_seed(16)
    x = torch.randn(2, 8, 32)
    check(HFStyleAttention().eval(), (x,), placements={0: [S(0)]}, collectives=1)
    # Grouped-query heads, bool masks (a row with every key masked gives 0),
    # float masks with a scale, causal; batch-, head- or query-sharded.
    q, k, v = torch.randn(2, 4, 5, 8), torch.randn(2, 2, 6, 8), torch.randn(2, 2, 6, 3)
    bool_mask = torch.rand(5, 6) > 0.4
    bool_mask[1] = False
    float_mask = torch.randn(2, 1, 5, 6)
    attend = [
        (lambda a, b, c: F.scaled_dot_product_attention(a, b, c, enable_gqa=True), ()),
        (lambda a, b, c, m: F.scaled_dot_product_attention(a, b, c, attn_mask=m, enable_gqa=True),
         (bool_mask,)),
        (lambda a, b, c, m: F.scaled_dot_product_attention(a, b, c, attn_mask=m, scale=0.3,
                                                           enable_gqa=True), (float_mask,)),
        (lambda a, b, c: F.scaled_dot_product_attention(a, b, c, is_causal=True, enable_gqa=True),
         ())]
    for f, extra in attend:
        for placements in ({0: [S(0)], 1: [S(0)], 2: [S(0)]}, {0: [S(1)], 1: [S(1)], 2: [S(1)]},
                           {0: [S(2)]}):
            check(Fn(f), (q, k, v) + extra, placements=placements)
    # Multi-query attention: one key and value head broadcast to every query head.
    check(Fn(lambda a, b, c: F.scaled_dot_product_attention(a, b, c, is_causal=True)),
          (q, k[:, :1], v[:, :1]), placements={0: [S(1)]})
    model = dm_compile(Fn(attend[0][0]), (q, k, v), mesh=dm.DeviceMesh((2,)))
    assert "scaled_dot_product" not in model.mlir
    with pytest.raises(dm.DTensorError, match="attention with dropout"):
        dm_compile(Fn(lambda a, b, c: F.scaled_dot_product_attention(a, b, c, dropout_p=0.1)),
                   (q, q, q), mesh=dm.DeviceMesh((2,)))


class GroupedExperts(nn.Module):
    """A mixture-of-experts layer as Hugging Face transformers 5 runs it:
    tokens sorted by expert, counted per expert with histc, grouped matmuls
    over the sorted rows (cumulative offsets), then put back in order."""

    def __init__(self, e=4, d=8, h=16):
        super().__init__()
        self.router = nn.Linear(d, e)
        self.w1 = nn.Parameter(torch.randn(e, d, h) * 0.3)
        self.w2 = nn.Parameter(torch.randn(e, h, d) * 0.3)

    def forward(self, x):
        weights, idx = torch.topk(self.router(x).softmax(-1), 2)
        ids, perm = torch.sort(idx.reshape(-1), stable=True)
        rows = x[perm // 2]
        counts = torch.histc(ids.float(), bins=4, min=0, max=3)
        offs = torch.cumsum(counts, 0, dtype=torch.int32)
        mid = F.silu(torch._grouped_mm(rows, self.w1, offs=offs))
        out = torch._grouped_mm(mid, self.w2, offs=offs) * weights.reshape(-1)[perm].unsqueeze(-1)
        back = torch.zeros(x.shape[0] * 2, x.shape[1]).index_copy(0, perm, out)
        return back.view(-1, 2, x.shape[1]).sum(1)


def test_grouped_experts_histc_and_as_strided():
    torch.manual_seed(17)
    x = torch.randn(12, 8)
    check(GroupedExperts().eval(), (x,), placements={0: [S(0)]}, collectives=1)
    check(GroupedExperts().eval(), (x,), placements={"w1": [S(0)], "w2": [S(0)]})
    # histc: a given range (values outside not counted, the max in the last
    # bin), the data's range, one repeated value (the range widened by 1).
    for t in (torch.randn(4, 6), torch.full((3, 4), 2.0),
              torch.tensor([[0., 1., 2.5, 3., 4., 5.]] * 2)):
        for lo, hi in ((0, 0), (-1, 2), (1, 4)):
            check(Fn(lambda u, lo=lo, hi=hi: torch.histc(u, 5, lo, hi)), (t,),
                  placements={0: [S(1)]}, tol=0)
    # as_strided: a restride that keeps every element (adaptive pooling of a
    # transposed input decomposes so), and a strided read of a whole storage.
    check(Fn(lambda t: F.adaptive_avg_pool1d(t.transpose(1, 2), 1)), (torch.randn(2, 6, 4),),
          placements={0: [S(0)]})
    check(Fn(lambda t: torch.as_strided(t * 2, (3, 4), (2, 1), 1)), (torch.randn(4, 4),),
          placements={0: [S(0)]})
    check(Fn(lambda t: torch.as_strided(t + 1, (5, 3), (1, 5))), (torch.randn(15),),
          placements={0: [S(0)]})


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
@pytest.mark.parametrize("shard", [0, 2, 3])
def test_padding_modes(mode, shard):
    # Reflection (integer index arithmetic: abs on integers), replication
    # and circular (copy) padding, batch-, height- or width-sharded.
    torch.manual_seed(11)
    check(Fn(lambda t: F.pad(t, (1, 1, 2, 2), mode=mode)), (torch.randn(2, 3, 8, 8),),
          placements={0: [S(shard)]})


@pytest.mark.parametrize("affine", [False, True])
@pytest.mark.parametrize("shard", [0, 1])
def test_instance_norm(affine, shard):
    # Instance norm: batch norm without running statistics of a (1, N * C,
    # H, W) view; forward and a training step.
    torch.manual_seed(12)
    x = torch.randn(2, 4, 6, 6)
    check(nn.InstanceNorm2d(4, affine=affine), (x,), placements={0: [S(shard)]})
    check_step(nn.Sequential(nn.Conv2d(4, 4, 3), nn.InstanceNorm2d(4, affine=affine), nn.ReLU()),
               lambda mod, t: (mod(t) ** 2).mean(), (x,), placements={0: [S(shard)]})


def _put_rows(t, i, v):
    t = t.clone()
    t[i] = v
    return t


def _put_cols(t, i, v):
    t = t.clone()
    t[:, i] = v
    return t


@pytest.mark.parametrize("case", [
    (lambda t: t.index_add(0, torch.tensor([0, 2, 0]), t[:3] * 2), (torch.randn(4, 6),)),
    (lambda t, s: t.index_add(1, torch.tensor([1, 1, 4]), s), (torch.randn(4, 6), torch.randn(4, 3))),
    (_put_rows, (torch.randn(4, 6), torch.tensor([1, 3]), torch.randn(2, 6))),
    (lambda t, i: _put_rows(t, i, 1.5), (torch.randn(4, 6), torch.tensor([[0, 2], [3, -1]]))),
    (_put_cols, (torch.randn(4, 6), torch.tensor([5, 0, 2]), torch.randn(4, 3))),
    (lambda t, s: t.index_copy(0, torch.tensor([3, 0]), s), (torch.randn(4, 6), torch.randn(2, 6))),
    (lambda t: t.index_fill(1, torch.tensor([0, 2]), -1.0), (torch.randn(4, 6),)),
])
@pytest.mark.parametrize("shard", [0, 1])
def test_index_put(case, shard):
    # x[i] = v, x[:, i] = v, index_add (duplicates add up), index_copy,
    # index_fill (index_put with one index tensor, negative indices
    # wrapped), the tensor sharded across or along the written dim.
    fn, args = case
    check(Fn(fn), args, placements={0: [S(shard)]})


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_embedding_bag(mode):
    # EmbeddingBag (DLRM's sparse features): fixed bags of 2-D ids (batch-
    # or vocab-sharded tables), 1-D ids with offsets (an empty bag gives
    # 0), include_last_offset, padding_idx left out; per-sample weights.
    torch.manual_seed(13)
    ids2 = torch.randint(0, 10, (4, 3))
    ids1 = torch.tensor([1, 2, 4, 5, 4, 3, 2, 9, 0])
    offs = torch.tensor([0, 2, 2, 5])
    table = torch.randn(10, 4)
    check(nn.EmbeddingBag(10, 4, mode=mode), (ids2,), placements={0: [S(0)]})
    check(nn.EmbeddingBag(10, 4, mode=mode), (ids2,), placements={"weight": [S(0)]})
    check(Fn(lambda w, i, o: F.embedding_bag(i, w, o, mode=mode)), (table, ids1, offs),
          placements={1: [S(0)]})
    check(Fn(lambda w, i, o: F.embedding_bag(i, w, torch.cat([o, torch.tensor([9])]), mode=mode,
                                             include_last_offset=True)),
          (table, ids1, offs), placements={0: [S(0)]})
    check(Fn(lambda w, i, o: F.embedding_bag(i, w, o, mode=mode, padding_idx=4)), (table, ids1, offs))
    if mode == "sum":
        check(Fn(lambda w, i, o, p: F.embedding_bag(i, w, o, mode="sum", per_sample_weights=p)),
              (table, ids1, offs, torch.rand(9)), placements={1: [S(0)], 3: [S(0)]})


@pytest.mark.parametrize("case", [
    (lambda a: a.unfold(1, 2, 2), (torch.randn(4, 6),), [0, 1]),
    (lambda a: a.unfold(1, 3, 1), (torch.randn(4, 6),), [0, 1]),
    # ViT-style patches: windows along H, then W, flattened
    (lambda a: a.unfold(2, 4, 4).unfold(3, 4, 4).reshape(2, 3, 4, 16), (torch.randn(2, 3, 8, 8),), [0, 2]),
    (lambda a: torch.diagonal(a[:, :4]).sum(), (torch.randn(4, 6),), [0, 1]),
    (lambda a: torch.diagonal(a, 1), (torch.randn(4, 6),), [0, 1]),
    (lambda a: torch.diagonal(a, -2), (torch.randn(4, 6),), [0, 1]),
    (lambda a: torch.diagonal(a, 0, 1, 2), (torch.randn(3, 4, 5),), [0, 1]),
])
def test_windows_and_diagonals(case):
    # Tensor.unfold (sliding windows as a windowed read: halos along a
    # sharded dim), diagonal (offsets either way, any two dims).
    fn, args, shards = case
    for shard in shards:
        check(Fn(fn), args, placements={0: [S(shard)]})


def test_rrelu_in_eval_is_a_leaky_relu():
    check(nn.RReLU().eval(), (torch.randn(4, 6),), placements={0: [S(0)]})


_bounds = torch.tensor([-1.0, -0.2, 0.0, 0.7, 1.0])


@pytest.mark.parametrize("case", [
    (lambda a: a.median(1), (torch.randn(4, 6),), {0: [S(1)]}),
    (lambda a: a.median(0, keepdim=True), (torch.randn(4, 6),), {0: [S(0)]}),
    (lambda a: torch.median(a, 1).values, (torch.randn(2, 5, 3),), {0: [S(1)]}),
    (lambda a: a.median(), (torch.randn(4, 6),), {0: [S(0)]}),
    (lambda a: torch.bucketize(a, _bounds), (torch.randn(4, 6),), {0: [S(1)]}),
    (lambda a: torch.bucketize(a.round(), _bounds.round(), right=True, out_int32=True),
     (torch.randn(4, 6),), {0: [S(0)]}),
    (lambda a, b: torch.bucketize(a, b), (torch.randn(4, 6), torch.linspace(-1, 1, 8)), {1: [S(0)]}),
    (lambda a: torch.searchsorted(_bounds, a), (torch.randn(4, 6),), {0: [S(1)]}),
    (lambda a: torch.searchsorted(_bounds, a, side="right"), (torch.randn(4, 6),), {0: [S(0)]}),
    (lambda s, a: torch.searchsorted(s, a), (torch.sort(torch.randn(4, 5), 1).values, torch.randn(4, 6)),
     {0: [S(0)], 1: [S(0)]}),
])
def test_median_and_bucketing(case):
    # median (the lower one, with its index; along a sharded dim too) from
    # the stable sort's ranks; bucketize / searchsorted as a count of the
    # boundaries below each value (a Partial sum over sharded boundaries).
    fn, args, placements = case
    check(Fn(fn), args, placements=placements)


# -- complex values and FFTs ---------------------------------------------------

@pytest.mark.parametrize("name, fn", [
    ("fft", lambda t: torch.view_as_real(torch.fft.fft(t, dim=-1))),
    ("ifft ortho", lambda t: torch.view_as_real(torch.fft.ifft(torch.complex(t, t.flip(0)), dim=1,
                                                                norm="ortho"))),
    ("fftn", lambda t: torch.fft.fftn(t, dim=(1, 2)).real),
    ("fft2 forward-normed", lambda t: torch.fft.fft2(t, norm="forward").imag),
    ("rfft", lambda t: torch.view_as_real(torch.fft.rfft(t, dim=-1))),
    ("rfft2", lambda t: torch.fft.rfft2(t).abs()),
    ("irfft even", lambda t: torch.fft.irfft(torch.fft.rfft(t, dim=-1), n=8, dim=-1)),
    ("irfft odd", lambda t: torch.fft.irfft(torch.fft.rfft(t, dim=1), n=5, dim=1)),
    ("irfftn", lambda t: torch.fft.irfftn(torch.fft.rfftn(t, dim=(1, 2)) * 0.5, s=(5, 8),
                                          dim=(1, 2))),
    ("round trip", lambda t: torch.fft.ifft(torch.fft.fft(t, dim=-1), dim=-1).real),
])
@pytest.mark.parametrize("shard", [0, 2])
def test_fft(name, fn, shard):
    # FFTs as DFTs over each transformed dim (complex values as their two
    # real parts): fft, ifft, fftn, rfft, irfft (even and odd lengths), the
    # three normalizations; batch-sharded (local) or sharded along a
    # transformed dim (a Partial sum).
    x = torch.randn(3, 5, 8)
    check(Fn(fn), (x,), placements={0: [S(shard)]}, tol=1e-4)


def test_complex_arithmetic():
    # Complex +, -, *, / (with real and scalar operands), abs, angle, conj,
    # polar and view_as_complex, views and sums of complex tensors.
    def f(a, b):
        z = torch.view_as_complex(a)
        w = torch.polar(b.abs() + 0.5, b)
        u = (z * w + z.conj() - 2.0 * w) / (w + 1.5)
        v = u.transpose(0, 1).reshape(-1).sum() + u.mean(0).sum()
        m = torch.where(b > 0, u, b)  # a real value beside a complex one
        c = torch.cat([u, b], dim=1)
        return (torch.view_as_real(u), u.abs(), u.angle(), torch.view_as_real(v), (z + b).real,
                torch.view_as_real(m), torch.view_as_real(c))
    args = (torch.randn(4, 6, 2), torch.randn(4, 6))
    check(Fn(f), args, placements={0: [S(0)], 1: [S(0)]}, tol=1e-4)
    check(Fn(f), args, placements={0: [S(1)], 1: [S(1)]}, tol=1e-4)


class _ComplexRotary(nn.Module):
    """Rotary position embeddings as Meta's LLaMA reference code writes them
    (and torchtitan): pairs of features viewed as complex numbers, multiplied
    by unit complex numbers from torch.polar, viewed back as real."""
    def __init__(self, dim=8, seq=6):
        super().__init__()
        self.q = nn.Linear(dim, dim, bias=False)
        freqs = 1.0 / (10000 ** (torch.arange(0, dim, 2).float() / dim))
        angles = torch.outer(torch.arange(seq).float(), freqs)
        self.register_buffer("freqs_cis", torch.polar(torch.ones_like(angles), angles))

    def forward(self, x):
        q = self.q(x)
        qc = torch.view_as_complex(q.float().reshape(*q.shape[:-1], -1, 2))
        return torch.view_as_real(qc * self.freqs_cis).flatten(2)


def test_complex_rotary_embeddings():
    # A complex buffer (the rotations), complex products, and their
    # gradient (products with conjugates) in a training step.
    torch.manual_seed(27)
    x = torch.randn(2, 6, 8)
    check(_ComplexRotary(), (x,), placements={0: [S(0)]})
    check_step(_ComplexRotary(), lambda mod, t: (mod(t) ** 2).mean(), (x,),
               placements={0: [S(0)]})


def test_fft_training_step():
    # The gradient of a real FFT (FNet's token mixing, a spectral filter):
    # the transposed DFTs of the backward.
    class Spectral(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(8, 8)
            self.filt = nn.Parameter(torch.randn(5, 5))

        def forward(self, x):
            h = torch.fft.rfft(self.lin(x), dim=-1) * self.filt
            return torch.fft.irfft(h, n=8, dim=-1) + torch.fft.fftn(x, dim=(1, 2)).real
    torch.manual_seed(28)
    check_step(Spectral(), lambda mod, t: (mod(t) ** 2).mean(), (torch.randn(2, 5, 8),),
               placements={0: [S(0)]})


def test_unsupported_complex_op_names_it():
    # A complex value reaching an op without a complex lowering is an error
    # naming the op and the user's line, not a wrong program.
    with pytest.raises(dm.DTensorError, match="of a complex tensor is not supported"):
        dm_compile(Fn(lambda t: torch.view_as_real(torch.exp(torch.fft.fft(t)))),
                   (torch.randn(2, 4),), mesh=dm.DeviceMesh((2,)))


def test_complex_inputs_and_outputs():
    # A complex input and a complex output travel as their parts on a last
    # dim of 2 and come back complex.
    z = torch.complex(torch.randn(4, 6), torch.randn(4, 6))
    check(Fn(lambda t: torch.fft.fft(t * 2.0, dim=1)), (z,), placements={0: [S(0)]}, tol=1e-4)


# -- dtypes: accumulation, promotion, casts (found by probing) ----------------

@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_half_reductions_and_contractions_accumulate_in_f32(dtype):
    """PyTorch sums, means, variances, matmuls, cumsums and norms of f16 /
    bf16 accumulate in f32 and round once: a sum of 4,096 ones is 4,096 (in
    the half type it stalled at 2,048 for f16, 256 for bf16). Sharded along
    the reduced dims: the f32 Partial sums are reduced before the rounding."""
    x = torch.ones(64, 64, dtype=dtype)
    x[:, 0] = 3
    w = torch.ones(64, 8, dtype=dtype)
    b = torch.full((8,), 0.5, dtype=dtype)
    fn = Fn(lambda x, w, b: (x.sum(), x.mean(), x.var(1), x.std(0), x @ w, F.linear(x, w.t(), b),
                             x.cumsum(1), F.layer_norm(x, (64,)), torch.log_softmax(x, -1),
                             torch.addmm(b, x, w), torch.bmm(x[None], w[None])))
    for placements in ({0: [S(1)], 1: [S(0)]}, {0: [S(0)]}):
        model = check(fn, (x, w, b), placements=placements, tol=1e-2)
    got = [o.full_tensor() for o in model.run(x, w, b)]
    assert got[0].item() == 64 * 66 and got[1].item() == 66 * 64 / 4096
    assert got[4][0, 0].item() == 66 and got[6][0, -1].item() == 66
    assert "f32" in model.mlir


def test_half_contraction_over_a_sharded_dim():
    """x @ w in bf16 with the contraction dim sharded over 3 ranks: each
    rank's f32 partial sum, reduced, then rounded once (run() checks every
    rank against the global program)."""
    torch.manual_seed(0)
    x, w = torch.randn(4, 96).bfloat16(), torch.randn(96, 5).bfloat16()
    check(Fn(lambda x, w: (x @ w, x.sum(1))), (x, w), mesh=(3,),
          placements={0: [S(1)], 1: [S(0)]}, tol=2e-2)


def test_comparisons_promote_their_operands():
    """Comparisons are computed in torch.result_type of their operands (not
    the first operand's type): i64 < f32 in f32, bool vs i64 in i64, an int
    tensor against 2.5 in float, f16 against bf16 in f32; bools compare as
    0 / 1 (unsigned)."""
    i64 = torch.tensor([1, 2, 3, 2 ** 33, -7, 14])
    f32 = torch.tensor([1.5, 2.0, 3.0001, 1.0, -7.0, 14.5])
    f16 = f32.half()
    i32 = torch.tensor([1, 2, 3, 5, -8, 14], dtype=torch.int32)
    m = torch.tensor([True, True, False, False, True, False])
    bf = f32.bfloat16()
    check(Fn(lambda i64, f32, f16, i32, m, bf: (
        i64 < f32, f16 == f32, i32 < i64, i64 == f32, m < i64, m == i64, m > i64,
        i64 >= 2.5, i64 == 2.5, i64 < -0.5, i64 > 1e10, f16 < bf, m > m.flip(0),
        torch.maximum(m, m.flip(0)), torch.minimum(m, m.flip(0)))),
        (i64, f32, f16, i32, m, bf), placements={0: [S(0)], 4: [S(0)]})


def test_casts_to_bool_and_bool_arithmetic():
    """.bool() is `x != 0` (NaN true, -0.0 false); bool + bool is a logical
    or and bool * bool an and, as in PyTorch."""
    x = torch.tensor([-0.0, 0.5, 2.0, float("nan"), 0.0, -3.0])
    i = torch.tensor([0, 1, 2, -1, 4, 3])
    a = torch.tensor([True, True, False, False, True, False])
    b = torch.tensor([True, False, True, False, True, True])
    check(Fn(lambda x, i, a, b: (x.bool(), i.bool(), a + b, (a + b).sum(), a * b,
                                 x.to(torch.bool).float(), x.half().bool(), i.to(torch.int8).bool())),
          (x, i, a, b), placements={0: [S(0)], 2: [S(0)]})


def test_cat_stack_and_where_promote_mixed_dtypes():
    a, b = torch.arange(4), torch.randn(4)
    check(Fn(lambda a, b: (torch.cat([a, b > 0]), torch.cat([b, a.half()]), torch.cat([b, a]),
                           torch.stack([b, a]), torch.where(b > 0, a, b),
                           torch.where(b > 0, b.half(), a), torch.where(b > 0, a, 2.5))),
          (a, b), placements={1: [S(0)]})


def test_integer_pow_and_half_types_across():
    """int ** int stays integer (square and multiply, PyTorch's rule for
    negative exponents: 1, +-1 or 0); f16 and bf16 meet through f32."""
    a = torch.tensor([2, 3, -2, 5, 1, -1, 0, 7])
    e = torch.tensor([3, 0, 3, 1, -5, -3, 2, -1])
    f = torch.randn(8)
    check(Fn(lambda a, e, f: (a ** e, a.abs() ** 3, a.to(torch.int32) ** e.abs().to(torch.int32),
                              f.half().to(torch.bfloat16), f.bfloat16().to(torch.float16),
                              f.half() < f.bfloat16())),
          (a, e, f), placements={0: [S(0)], 1: [S(0)]})


def test_variance_without_degrees_of_freedom_and_means_of_nothing():
    """var / std divide by max(0, N - correction) (0 / 0 is NaN, x / 0 inf),
    a mean or a variance over a dim of length 0 is NaN, as PyTorch."""
    x = torch.tensor([[1., 2., 4.]])
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(Fn(lambda x: (x.var(0), x.std(1, correction=3), torch.var_mean(x, 0)[0],
                            x.var(1, correction=5))), (x,), placements={0: [S(1)]})
        check(Fn(lambda x: (x.mean(0), x.var(0, correction=0), x.sum(0))), (torch.randn(0, 3),))


@pytest.mark.parametrize("fn", [
    lambda a: a.softmax(-1), lambda a: F.log_softmax(a, 0), lambda a: a.cumsum(0),
    lambda a: a.flip(0), lambda a: a.sort()[0], lambda a: a.sort()[1], lambda a: a.argmax(0),
    lambda a: a.max(0)[1], lambda a: a.cummax(0)[1], lambda a: a.topk(1)[0],
    lambda a: a.reshape(1).topk(0)[0], lambda a: a.argmax(), lambda a: a.long().cumsum(0)])
def test_ops_along_a_dim_of_a_0d_tensor(fn):
    check(Fn(fn), (torch.tensor(3.0),))


def test_view_as_another_dtype():
    """Tensor.view(dtype) reinterprets the bits (arith.bitcast) between types
    of one width, sharded too; another width is a clear error."""
    x = torch.tensor([1.5, -2.0, 0.25, 3.0, 1e-3, -7.0])
    check(Fn(lambda x: x.view(torch.int32) + 1), (x,), placements={0: [S(0)]})
    check(Fn(lambda x: (x.view(torch.int32) + 1).view(torch.float32)), (x,), placements={0: [S(0)]})
    check(Fn(lambda x: x.half().view(torch.int16)), (x,), placements={0: [S(0)]})
    check(Fn(lambda x: x.half().view(torch.bfloat16).float()), (x,))
    with pytest.raises(dm.DTensorError, match=r"test_importer.py:\d+.*view\(torch.int16\).*another width"):
        dm_compile(Fn(lambda x: x.view(torch.int16) + 0), (torch.randn(4),), mesh=dm.DeviceMesh((2,)))
    check(Fn(lambda x: x.view(torch.float32) * 2), (torch.randn(4),))


def test_eye_inside_forward():
    """torch.eye compares two uint8 ranges (held as i16, exact in 0..255)."""
    check(Fn(lambda x: x + torch.eye(4) + torch.eye(4, 6)[:, :4]), (torch.randn(4, 4),),
          placements={0: [S(0)]})
    with pytest.raises(dm.DTensorError, match="uint8"):
        dm_compile(Fn(lambda x: (torch.arange(4, dtype=torch.uint8) + 250).float() + x),
                   (torch.randn(4),), mesh=dm.DeviceMesh((2,)))


def test_dtensor_inputs_give_the_mesh_and_partial_outputs():
    """With no DTensor parameter, DTensor inputs give the mesh; a Partial
    output placement asked for an element-wise result is reached by
    redistributing (R -> P, or S -> P locally), and the rank's terms sum to
    the value; an integer one is an error naming the output."""
    from torch.distributed._local_tensor import LocalTensorMode
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.tensor import Shard as TS, distribute_tensor
    import torch.distributed as dist
    if not dist.is_initialized():  # (as large as any mesh of these tests)
        dist.init_process_group("fake", rank=0, world_size=8)
    a = torch.randn(7, 5)
    with LocalTensorMode(3):
        mesh = init_device_mesh("cpu", (3,))
        da = distribute_tensor(a, mesh, [TS(0)])
        model = dm_compile(Fn(lambda a: a.sum(0)), (da,))
    assert model.mesh.shape == (3,)
    assert torch.allclose(model.run(a)[0].full_tensor(), a.sum(0), atol=1e-5)
    x = torch.randn(7, 5)
    for ps in ([P("sum"), S(0)], [S(0), P("sum")], [P("max"), R()]):
        m = dm_compile(Fn(lambda a: a * 2), (x,), mesh=dm.DeviceMesh((2, 3)),
                       placements={0: [S(1), R()]}, output_placements=[ps])
        o = m.run(x)[0]
        assert o.placements == "[" + ", ".join(p.spec() for p in ps) + "]"
        assert torch.allclose(o.full_tensor(), x * 2, atol=1e-5)
    with pytest.raises(dm.DTensorError, match="output 0.*integer"):
        dm_compile(Fn(lambda a: a * 2), (torch.arange(6),), mesh=dm.DeviceMesh((2,)),
                   output_placements=[[P("sum")]])


def test_training_step_takes_dtensor_inputs_placements():
    """compile_training_step reads a DTensor input's placements and mesh as
    compile() does (found by probing: it was read as a plain tensor, so
    replicated, and another plan compiled without a word)."""
    from torch.distributed._local_tensor import LocalTensorMode
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.tensor import Shard as TS, distribute_tensor
    from dtensor_mlir.torch import compile_training_step
    import torch.distributed as dist
    if not dist.is_initialized():  # (as large as any mesh of these tests)
        dist.init_process_group("fake", rank=0, world_size=8)
    torch.manual_seed(0)
    module = torch.nn.Sequential(torch.nn.Linear(6, 8), torch.nn.Tanh(), torch.nn.Linear(8, 2))
    x = torch.randn(6, 6)
    loss = lambda m, a: m(a).square().mean()
    given = compile_training_step(module, loss, (x,), mesh=dm.DeviceMesh((2,)),
                                  placements={0: [S(0)]})
    with LocalTensorMode(2):
        mesh = init_device_mesh("cpu", (2,))
        dx = distribute_tensor(x, mesh, [TS(0)])
        read = compile_training_step(module, loss, (dx,))
    assert read.mesh.shape == (2,)
    assert str(read.compiled) == str(given.compiled)
    outs = read.run(x)
    assert torch.allclose(outs[0].full_tensor(), loss(module, x).detach(), atol=1e-5)


def test_submesh_dtensors_lift_to_the_root_mesh():
    """torchtitan-style 2-D parallelism: parallelize_module on mesh["tp"] of
    a (dp, tp) mesh, the input batch-sharded on the whole mesh. A sub-mesh
    DTensor is replicated over the root's other dims (found by probing: "the
    module's DTensors live on a (2,) mesh, not (2, 2)"). One all_reduce over
    tp, as Megatron; the output asked [S(0), R] needs nothing more."""
    from torch.distributed._local_tensor import LocalTensorMode
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.tensor import Shard as TS, Replicate as TR, distribute_tensor
    from torch.distributed.tensor.parallel import (parallelize_module, ColwiseParallel,
                                                   RowwiseParallel)
    import copy
    import torch.distributed as dist
    if not dist.is_initialized():  # (as large as any mesh of these tests)
        dist.init_process_group("fake", rank=0, world_size=8)
    torch.manual_seed(0)
    mlp = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 8))
    x = torch.randn(6, 8)
    with LocalTensorMode(4):
        mesh = init_device_mesh("cpu", (2, 2), mesh_dim_names=("dp", "tp"))
        pm = parallelize_module(copy.deepcopy(mlp), mesh["tp"],
                                {"0": ColwiseParallel(), "2": RowwiseParallel()})
        dx = distribute_tensor(x, mesh, [TS(0), TR()])
        m = dm_compile(pm, (dx,), output_placements=[[S(0), R()]])
    o = m.run(x)[0]
    assert m.mesh.shape == (2, 2)
    assert m.report()["collectives"].keys() == {"all_reduce"}, m.report()
    assert m.report()["collectives"]["all_reduce"]["count"] == 1
    assert m.report()["collectives"]["all_reduce"]["mesh_dims"] == [["tp"]]
    assert torch.allclose(o.full_tensor(), mlp(x), atol=1e-5)


@pytest.mark.parametrize("ranks", [2, 4])
def test_partial_outputs_stay_partial(ranks):
    """A Partial output placement where the producer makes Partial terms
    keeps them, as DTensor does: a K-sharded matmul (and nn.Linear), a sum
    over a sharded dim. Found by probing: the output was hinted replicated,
    so the matmul gathered both inputs (2 all_gathers) and then split the
    value into terms again; DTensor makes no collective."""
    torch.manual_seed(0)
    x, w = torch.randn(4, 8), torch.randn(8, 3)
    lin = torch.nn.Linear(8, 3, bias=False)
    cases = [(Fn(lambda a, b: a @ b), (x, w), {0: [S(1)], 1: [S(0)]}),
             (Fn(lambda a: a.sum(1)), (x,), {0: [S(1)]}),
             (lin, (x,), {0: [S(1)], "weight": [S(1)]})]
    for module, args, placements in cases:
        m = dm_compile(module, args, mesh=dm.DeviceMesh((ranks,)), placements=placements,
                       output_placements=[[P("sum")]])
        o = m.run(*args)[0]
        assert m.num_collectives() == 0, m.report()
        assert o.placements == "[P(sum)]"
        assert torch.allclose(o.full_tensor(), module(*args).detach(), atol=1e-5)
