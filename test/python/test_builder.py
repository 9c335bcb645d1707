"""dtensor_mlir.builder: global-view programs built from Python (no PyTorch).

Every op against numpy on the interpreter (the global program) and the
compiled program verified on every rank; the text round-trips through the
parser; locations point here; misuse raises DTensorError naming the op."""

import math
import os
import re
import sys

import numpy as np
import pytest

import dtensor_mlir as dm
from dtensor_mlir.builder import DTYPES, FunctionBuilder, ProgramBuilder, Value

S, R, P = dm.Shard, dm.Replicate, dm.Partial
MESH = dm.DeviceMesh((2, 2), ("dp", "tp"))
HERE = os.path.basename(__file__)


def line_of(marker: str) -> int:
    """The line of this file holding `marker` (for location checks)."""
    with open(__file__) as f:
        for i, line in enumerate(f, 1):
            if marker in line and "line_of(" not in line:
                return i
    raise AssertionError(marker)


def rand(shape, low=-1.0, high=1.0, seed=0):
    return np.random.default_rng(seed).uniform(low, high, shape).astype(np.float32)


def run_both(b: ProgramBuilder, inputs=None, entry=""):
    """The module, and a run of its global program and its dtensor-compile'd
    program on every rank (checked against each other)."""
    module = b.build()
    compiled = module.compile("dtensor-compile")
    r = dm.run(module, compiled=compiled, inputs=inputs or {}, entry=entry)
    assert r.verified, r.mismatches
    return module, r


# ---------------------------------------------------------------------------
# The example
# ---------------------------------------------------------------------------


def build_mlp(redistribute_output: bool):
    b = ProgramBuilder(MESH)
    with b.function("mlp") as f:
        x = f.argument((8, 16), "f32", [dm.Shard(0), dm.Replicate()])
        w1 = f.argument((16, 32), "f32", [dm.Replicate(), dm.Shard(1)])
        w2 = f.argument((32, 16), "f32", [dm.Replicate(), dm.Shard(0)])
        h = f.relu(f.matmul(x, w1))  # MLP-RELU
        y = f.matmul(h, w2)
        if redistribute_output:
            f.returns(f.redistribute(y, [dm.Shard(0), dm.Replicate()]))  # MLP-RETURN
        else:
            f.returns(y)
    return b, (x, w1, w2)


@pytest.mark.parametrize("redistribute_output", [True, False])
def test_megatron_mlp_one_all_reduce(redistribute_output):
    b, (x, w1, w2) = build_mlp(redistribute_output)
    module = b.build()
    assert isinstance(module, dm.Module)
    xa, w1a, w2a = rand((8, 16), seed=1), rand((16, 32), seed=2), rand((32, 16), seed=3)
    assert b.inputs({x: xa, w1: w1a, w2: w2a}).keys() == {1, 2, 3}   # 0 is the mesh
    result = dm.run(module, compiled=module.compile("dtensor-compile"),
                    inputs=b.inputs({x: xa, w1: w1a, w2: w2a}))
    assert result.verified and result.num_ranks == 4
    report = result.report()
    assert report["collectives"]["all_reduce"]["count"] == 1
    assert report["collectives"]["all_reduce"]["mesh_dims"] == [["tp"]]
    if redistribute_output:
        assert report["total"]["count"] == 1
    else:
        # A plain result is whole on every rank: the dp shards are gathered.
        assert report["total"]["count"] == 2
        assert report["collectives"]["all_gather"]["mesh_dims"] == [["dp"]]
    out = result.outputs[0]
    assert out.placements == ("[S(0), R]" if redistribute_output else None)
    want = np.maximum(xa.astype(np.float64) @ w1a, 0) @ w2a
    np.testing.assert_allclose(out.full_tensor(), want, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(result.compiled_outputs[0].full_tensor(), want,
                               rtol=1e-5, atol=1e-5)


def test_text_round_trips_through_the_parser():
    b, _ = build_mlp(True)
    text = b.text()
    assert text.startswith('dtensor.mesh @mesh shape = [2, 2] names = ["dp", "tp"]')
    assert "func.func @mlp(%mesh: !dtensor.device_mesh<@mesh>" in text
    assert "tensor<8x16xf32, #dtensor.spec<@mesh, [S(0), R]>>" in text
    # Built module == text parsed by hand == its own printed form parsed again.
    built = str(b.build())
    parsed = dm.Module.parse(text, "mlp.mlir")
    assert str(parsed) == built
    assert str(dm.Module.parse(built, "again.mlir")) == built
    # text() is stable: calling it (or build) twice gives the same program.
    assert b.text() == text


def test_locations_point_at_the_users_lines():
    b, _ = build_mlp(True)
    text = b.text()
    relu_line, ret_line = line_of("# MLP-RELU"), line_of("# MLP-RETURN")
    # Every op carries this file's line; the column is the call's.
    col = 1
    if sys.version_info >= (3, 11):   # the call's column, from co_positions
        with open(__file__) as f:
            col = f.read().splitlines()[relu_line - 1].index("f.relu(") + 1
    assert re.search(rf'arith.maximumf .* loc\("[^"]*{HERE}":{relu_line}:{col}\)', text)
    assert re.search(rf'dtensor.distribute_tensor .* loc\("[^"]*{HERE}":{ret_line}:\d+\)', text)
    # Every op (body ops too), argument and the function: 20 locations, all here.
    files = re.findall(r'loc\("([^"]*)":\d+:\d+\)', text)
    assert len(files) == 20 and all(os.path.basename(p) == HERE for p in files)
    # A compiler diagnostic at a built op points here: partitioning without
    # propagation finds the first matmul's plain accumulator.
    with pytest.raises(dm.DTensorError,
                       match=rf"{HERE}:{relu_line}:\d+: error: 'linalg.matmul' op mixes "
                             "distributed and plain tensors"):
        b.build().compile("dtensor-partition")


# ---------------------------------------------------------------------------
# Every op against numpy
# ---------------------------------------------------------------------------

def np_gelu(x):
    return 0.5 * x * (1 + np.vectorize(math.erf)(x / math.sqrt(2)))


def np_softmax(x, axis=-1):
    e = np.exp(x - x.max(axis, keepdims=True))
    return e / e.sum(axis, keepdims=True)


# (id, argument specs [(shape, placements, low, high)], build(f, *args), numpy(*arrays))
A = ((4, 6), [S(0), R()], -1, 1)
B = ((4, 6), [R(), S(1)], 0.5, 2)       # positive: a divisor
W = ((6, 8), [R(), S(1)], -1, 1)
V = ((6,), None, -1, 1)                 # plain
X3 = ((2, 4, 6), [S(0), S(1)], -1, 1)
W3 = ((2, 6, 4), [S(0), R()], -1, 1)

OPS = [
    ("add", [A, B], lambda f, a, b: f.add(a, b), lambda a, b: a + b),
    ("sub", [A, B], lambda f, a, b: f.sub(a, b), lambda a, b: a - b),
    ("mul", [A, B], lambda f, a, b: f.mul(a, b), lambda a, b: a * b),
    ("div", [A, B], lambda f, a, b: f.div(a, b), lambda a, b: a / b),
    ("maximum", [A, B], lambda f, a, b: f.maximum(a, b), np.maximum),
    ("minimum", [A, B], lambda f, a, b: f.minimum(a, b), np.minimum),
    ("operators", [A, B], lambda f, a, b: 0.5 + (a + b) * 2.0 - b / (1.0 / b) + (-a),
     lambda a, b: 0.5 + (a + b) * 2.0 - b / (1.0 / b) - a),
    ("scalars", [A], lambda f, a: 1.5 - 3 * a + f.maximum(a, 0.25),
     lambda a: 1.5 - 3 * a + np.maximum(a, 0.25)),
    ("broadcast", [A, V], lambda f, a, v: a + v, lambda a, v: a + v),
    ("broadcast_unit", [((4, 1), [S(0), R()], -1, 1), ((1, 6), None, -1, 1)],
     lambda f, a, b: f.mul(a, b), lambda a, b: a * b),
    ("relu", [A], lambda f, a: f.relu(a), lambda a: np.maximum(a, 0)),
    ("exp", [A], lambda f, a: f.exp(a), np.exp),
    ("tanh", [A], lambda f, a: f.tanh(a), np.tanh),
    ("neg", [A], lambda f, a: f.neg(a), lambda a: -a),
    ("log", [B], lambda f, b: f.log(b), np.log),
    ("sqrt_rsqrt", [B], lambda f, b: f.sqrt(b) + f.rsqrt(b), lambda b: np.sqrt(b) + 1 / np.sqrt(b)),
    ("gelu", [A], lambda f, a: f.gelu(a), np_gelu),
    ("gelu_tanh", [A], lambda f, a: f.gelu(a, approximate="tanh"),
     lambda a: 0.5 * a * (1 + np.tanh(math.sqrt(2 / math.pi) * (a + 0.044715 * a ** 3)))),
    ("silu", [A], lambda f, a: f.silu(a), lambda a: a / (1 + np.exp(-a))),
    ("sigmoid", [A], lambda f, a: f.sigmoid(a), lambda a: 1 / (1 + np.exp(-a))),
    ("matmul", [A, W], lambda f, a, w: f.matmul(a, w), lambda a, w: a @ w),
    ("matmul_operator", [A, W], lambda f, a, w: a @ w, lambda a, w: a @ w),
    ("batch_matmul", [X3, W3], lambda f, x, w: f.matmul(x, w), lambda x, w: x @ w),
    ("bmm", [X3, W3], lambda f, x, w: f.bmm(x, w), lambda x, w: x @ w),
    ("transpose", [W], lambda f, w: f.transpose(w), lambda w: w.T),
    ("transpose_T", [A, B], lambda f, a, b: a @ b.T, lambda a, b: a @ b.T),
    ("permute", [X3], lambda f, x: f.transpose(x, (2, 0, 1)), lambda x: x.transpose(2, 0, 1)),
    ("sum0", [A], lambda f, a: f.sum(a, 0), lambda a: a.sum(0)),
    ("sum1", [A], lambda f, a: f.sum(a, 1), lambda a: a.sum(1)),
    ("sum_keepdim", [A], lambda f, a: f.sum(a, -1, keepdim=True),
     lambda a: a.sum(-1, keepdims=True)),
    ("max_keepdim0", [A], lambda f, a: f.max(a, 0, keepdim=True),
     lambda a: a.max(0, keepdims=True)),
    ("mean_keepdim_1d", [V], lambda f, v: f.mean(v, 0, keepdim=True),
     lambda v: v.mean(0, keepdims=True)),
    ("sum_to_0d", [V], lambda f, v: f.sum(v, 0), lambda v: v.sum(0)),
    ("max0", [A], lambda f, a: f.max(a, 0), lambda a: a.max(0)),
    ("max1", [A], lambda f, a: f.max(a, 1), lambda a: a.max(1)),
    ("min3d", [X3], lambda f, x: f.min(x, 1), lambda x: x.min(1)),
    ("mean", [A], lambda f, a: f.mean(a, 1), lambda a: a.mean(1)),
    ("softmax", [A], lambda f, a: f.softmax(a), np_softmax),
    ("softmax_3d", [X3], lambda f, x: f.softmax(x, dim=-1), np_softmax),
    ("softmax_dim0", [A], lambda f, a: f.softmax(a, dim=0), lambda a: np_softmax(a, 0)),
    ("reshape_split", [A], lambda f, a: f.reshape(a, (2, 2, 6)), lambda a: a.reshape(2, 2, 6)),
    ("reshape_merge", [X3], lambda f, x: f.reshape(x, (8, 6)), lambda x: x.reshape(8, 6)),
    ("reshape_infer", [A], lambda f, a: f.reshape(a, (-1,)), lambda a: a.reshape(-1)),
    ("reshape_regroup", [A], lambda f, a: f.reshape(a, (6, 4)), lambda a: a.reshape(6, 4)),
    ("reshape_to_0d", [((1, 1), [R(), R()], -1, 1)], lambda f, a: f.reshape(a, ()),
     lambda a: a.reshape(())),
    ("full", [A], lambda f, a: a + f.full((4, 6), 0.5), lambda a: a + 0.5),
    ("zeros_ones", [A], lambda f, a: a * f.ones((4, 6)) + f.zeros((6,)),
     lambda a: a),
    ("constant", [A], lambda f, a: a * f.constant(np.arange(24, dtype=np.float32).reshape(4, 6)),
     lambda a: a * np.arange(24).reshape(4, 6)),
    ("constant_splat", [A], lambda f, a: a - f.constant(np.full((6,), 2, np.float32)),
     lambda a: a - 2),
    ("cast_roundtrip", [A], lambda f, a: f.cast(f.cast(a, "f64") * 2.0, "f32"), lambda a: a * 2),
    ("redistribute", [A], lambda f, a: f.redistribute(a, [R(), S(1)]), lambda a: a),
    ("redistribute_plain", [A, W], lambda f, a, w: f.redistribute(a @ w, [S(1), S(0)]),
     lambda a, w: a @ w),
    ("redistribute_partial", [A, W], lambda f, a, w: f.redistribute(a @ w, [P(), R()]),
     lambda a, w: a @ w),
    ("distribute_tensor", [V], lambda f, v: f.distribute_tensor(v, [S(0), R()], src_data_rank=1),
     lambda v: v),
    ("hint", [A, W], lambda f, a, w: f.tanh(f.hint(a @ w, [S(0), S(1)], priority=1)),
     lambda a, w: np.tanh(a @ w)),
    ("full_tensor", [A], lambda f, a: f.full_tensor(f.exp(f.redistribute(a, [S(1), S(0)]))),
     np.exp),
    ("local_roundtrip", [A], lambda f, a: f.from_local(f.to_local(a) * 2.0, [S(0), R()]),
     lambda a: 2 * a),
]


def build_case(args, fn, dtype="f32"):
    b = ProgramBuilder(MESH)
    with b.function("f") as f:
        values = [f.argument(shape, dtype, ps) for shape, ps, _, _ in args]
        out = fn(f, *values)
        f.returns(*(out if isinstance(out, tuple) else (out,)))
    return b, values


@pytest.mark.parametrize("name,args,fn,ref", OPS, ids=[c[0] for c in OPS])
def test_op_against_numpy(name, args, fn, ref):
    b, values = build_case(args, fn)
    arrays = [rand(shape, lo, hi, seed=i) for i, (shape, _, lo, hi) in enumerate(args)]
    _, r = run_both(b, b.inputs(dict(zip(values, arrays))))
    want = ref(*(a.astype(np.float64) for a in arrays))
    got = r.outputs[0].full_tensor()
    assert got.shape == np.shape(want) and got.dtype == np.float32
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(r.compiled_outputs[0].full_tensor(), want, rtol=1e-5, atol=1e-5)


def test_distributed_results_keep_their_placements():
    b = ProgramBuilder(MESH)
    with b.function("f") as f:
        a = f.argument((4, 6), "f32", [S(0), R()])
        f.returns(f.redistribute(a, [R(), S(1)]), f.hint(a * 2.0, [S(1), S(0)]), a)
    xa = rand((4, 6))
    _, r = run_both(b, {1: xa})
    assert [o.placements for o in r.outputs] == ["[R, S(1)]", "[S(1), S(0)]", "[S(0), R]"]
    for o, want in zip(r.compiled_outputs, (xa, 2 * xa, xa)):
        np.testing.assert_allclose(o.full_tensor(), want, rtol=1e-6)
    # One all_gather-style move for the redistribute ([S(0), R] -> [R, S(1)]).
    assert r.report()["total"]["count"] >= 1


def test_to_local_gives_every_rank_its_shard():
    b = ProgramBuilder(MESH)
    with b.function("f") as f:
        a = f.argument((4, 6), "f32", [S(0), S(1)])
        f.returns(f.to_local(a))
    xa = rand((4, 6))
    _, r = run_both(b, {1: xa})
    shards = r.outputs[0].to_local().local_tensors
    for rank, (i, j) in enumerate([(0, 0), (0, 1), (1, 0), (1, 1)]):
        np.testing.assert_array_equal(shards[rank], xa[2 * i:2 * i + 2, 3 * j:3 * j + 3])


# ---------------------------------------------------------------------------
# Element types
# ---------------------------------------------------------------------------


def to_bf16(a: np.ndarray) -> np.ndarray:
    """float32 values rounded to bfloat16 (nearest even), as float32."""
    u = np.ascontiguousarray(a, np.float32).view(np.uint32).astype(np.uint64)
    u = ((u + 0x7FFF + ((u >> 16) & 1)) & 0xFFFF0000).astype(np.uint32)
    return u.view(np.float32)


def test_f64():
    b = ProgramBuilder(MESH)
    with b.function("f") as f:
        x = f.argument((4, 6), "f64", [S(0), R()])
        w = f.argument((6, 8), np.float64, [R(), S(1)])
        f.returns(f.softmax(f.gelu(x @ w)), f.sum(f.exp(x), 1))
    xa, wa = rand((4, 6)).astype(np.float64), rand((6, 8), seed=1).astype(np.float64)
    _, r = run_both(b, b.inputs({x: xa, w: wa}))
    np.testing.assert_allclose(r.outputs[0].full_tensor(), np_softmax(np_gelu(xa @ wa)), rtol=1e-12)
    np.testing.assert_allclose(r.outputs[1].full_tensor(), np.exp(xa).sum(1), rtol=1e-12)
    assert r.outputs[0].full_tensor().dtype == np.float64


@pytest.mark.parametrize("dtype,np_dtype", [("i32", np.int32), ("i64", np.int64)])
def test_integers(dtype, np_dtype):
    b = ProgramBuilder(MESH)
    with b.function("f") as f:
        x = f.argument((4, 6), dtype, [S(0), R()])
        w = f.argument((6, 4), dtype, [R(), S(1)])
        y = f.relu(-(x @ w) + 3)
        f.returns(y, f.maximum(x, 2) * x - x, f.max(x, 1), f.min(w, 0), f.cast(x, "f32"),
                  f.transpose(w))
    rng = np.random.default_rng(0)
    xa = rng.integers(-5, 5, (4, 6)).astype(np_dtype)
    wa = rng.integers(-5, 5, (6, 4)).astype(np_dtype)
    _, r = run_both(b, b.inputs({x: xa, w: wa}))
    wants = [np.maximum(-(xa @ wa) + 3, 0), np.maximum(xa, 2) * xa - xa, xa.max(1), wa.min(0),
             xa.astype(np.float32), wa.T]
    for o, want in zip(r.outputs, wants):
        got = o.full_tensor()
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)


def test_f16():
    b = ProgramBuilder(MESH)
    with b.function("f") as f:
        x = f.argument((4, 6), "f16", [S(0), R()])
        w = f.argument((6, 8), "float16", [R(), S(1)])
        f.returns(f.silu(x @ w) + 1.0, f.cast(x, "f32"))
    xa = rand((4, 6)).astype(np.float16)
    wa = rand((6, 8), seed=1).astype(np.float16)
    _, r = run_both(b, b.inputs({x: xa, w: wa}))
    got = r.outputs[0].full_tensor()
    assert got.dtype == np.float16
    m = xa.astype(np.float32) @ wa.astype(np.float32)
    np.testing.assert_allclose(got, m / (1 + np.exp(-m)) + 1, rtol=1e-2, atol=1e-2)
    np.testing.assert_array_equal(r.outputs[1].full_tensor(), xa.astype(np.float32))


def test_bf16_through_casts():
    # numpy has no bfloat16: the program takes and gives f32, computing in bf16.
    b = ProgramBuilder(MESH)
    with b.function("f") as f:
        x = f.argument((4, 6), "f32", [S(0), R()])
        w = f.argument((6, 8), "f32", [R(), S(1)])
        xb, wb = f.cast(x, "bf16"), f.cast(w, "bfloat16")
        assert xb.dtype == "bf16"
        h = f.tanh(xb @ wb)
        f.returns(f.cast(h, "f32"), f.cast(f.cast(xb, "f16"), "f32"))
    xa, wa = rand((4, 6)), rand((6, 8), seed=1)
    _, r = run_both(b, b.inputs({x: xa, w: wa}))
    want = np.tanh(to_bf16(xa).astype(np.float64) @ to_bf16(wa))
    np.testing.assert_allclose(r.outputs[0].full_tensor(), want, rtol=2e-2, atol=2e-2)
    np.testing.assert_array_equal(r.outputs[1].full_tensor(), to_bf16(xa))


def test_all_dtypes_build():
    assert set(DTYPES) == {"f32", "f64", "f16", "bf16", "i32", "i64"}
    b = ProgramBuilder(MESH)
    with b.function("f") as f:
        outs = []
        for a in [f.argument((4, 4), dt, [S(0), S(1)]) for dt in DTYPES]:
            dt = a.dtype
            outs.append(f.transpose(a) * a + f.full((4, 4), 2, dt))
        f.returns(*outs)
    text = b.text()
    for dt in DTYPES:
        assert f"tensor<4x4x{dt}, #dtensor.spec<@mesh, [S(0), S(1)]>>" in text
    run_both(b)   # generated inputs; bf16 outputs cannot be read into numpy


# ---------------------------------------------------------------------------
# Several functions, calls, plain arguments
# ---------------------------------------------------------------------------


def test_calls_between_functions():
    b = ProgramBuilder(MESH)
    with b.function("layer") as g:
        a = g.argument((4, 8), "f32")          # plain: takes its caller's layout
        w = g.argument((8, 8), "f32", [R(), S(1)])
        g.returns(g.tanh(a @ w), g.sum(a, 1))
    with b.function("main") as f:
        x = f.argument((4, 8), "f32", [S(0), R()], name="x")
        w = f.argument((8, 8), "f32", [R(), S(1)], name="w")
        bias = f.argument((8,), "f32", name="bias")
        h, s1 = f.call(g, f.relu(x + bias), w)
        h2, s2 = f.call(g, h, w)
        f.returns(h2, s1 + s2)
    text = b.text()
    assert "func.func private @layer(" in text and "func.func @main(" in text
    assert "func.call @layer(%mesh, " in text
    assert "%x: tensor<4x8xf32, #dtensor.spec<@mesh, [S(0), R]>>" in text
    xa, wa, ba = rand((4, 8)), rand((8, 8), seed=1), rand((8,), seed=2)
    _, r = run_both(b, b.inputs({x: xa, w: wa, bias: ba}))   # main: the one public function
    h = np.tanh(np.maximum(xa + ba, 0).astype(np.float64) @ wa)
    h2 = np.tanh(h @ wa)
    np.testing.assert_allclose(r.outputs[0].full_tensor(), h2, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(r.outputs[1].full_tensor(),
                               np.maximum(xa + ba, 0).sum(1) + h.sum(1), rtol=1e-5, atol=1e-5)


def test_several_public_functions_and_no_results():
    b = ProgramBuilder(dm.DeviceMesh(4))
    with b.function("first") as f:
        x = f.argument((8,), "f32", [S(0)])
        f.returns(f.full_tensor(x))
    with b.function("second", private=False) as g:
        g.argument((8,), "i64", [R()])
        g.returns()
    assert b.functions == ["first", "second"]
    text = b.text()
    assert "func.func @second(" in text and "  return loc(" in text
    module = b.build()
    xa = rand((8,))
    r = dm.run(module, compiled=module.compile(), entry="first", inputs={1: xa})
    assert r.verified
    np.testing.assert_array_equal(r.outputs[0].full_tensor(), xa)
    r = dm.run(module, compiled=module.compile(), entry="second")
    assert r.verified and r.outputs == []


# ---------------------------------------------------------------------------
# Misuse: DTensorError naming the op, before any text exists
# ---------------------------------------------------------------------------


def expect(op: str, pattern: str):
    """pytest.raises for a builder error of `op` at a line of this file."""
    return pytest.raises(dm.DTensorError, match=rf"{HERE}:\d+: {op}: .*{pattern}")


def test_matmul_shape_mismatch():
    b = ProgramBuilder(MESH)
    with b.function("f") as f:
        x = f.argument((8, 16), "f32", [S(0), R()])
        w = f.argument((32, 16), "f32")
        with expect("matmul", r"contraction dims differ: \(8, 16\) @ \(32, 16\) \(16 != 32\)"):
            f.matmul(x, w)
        with expect("matmul", "both operands 2-D or both 3-D"):
            f.matmul(x, f.sum(w, 0))
        f.returns(x)


def test_dtype_mix():
    b = ProgramBuilder(MESH)
    with b.function("f") as f:
        x = f.argument((4, 4), "f32")
        y = f.argument((4, 4), "f64")
        i = f.argument((4, 4), "i32")
        with expect("add", "operands have dtypes f32 and f64: cast one"):
            f.add(x, y)
        with expect("matmul", "dtypes f32 and i32"):
            x @ i
        with expect("mul", "float scalar 0.5 with an i32 tensor"):
            i * 0.5
        with expect("exp", "needs a float tensor, got i32"):
            f.exp(i)
        with expect("full", "does not fit in i32"):
            f.full((2,), 2 ** 40, "i32")
        f.returns(x)


def test_shard_dim_out_of_range():
    b = ProgramBuilder(MESH)
    with b.function("f") as f:
        with expect("argument", r"Shard\(2\) on mesh dim 0 is out of range for a 2-D tensor"):
            f.argument((4, 4), "f32", [S(2), R()])
        x = f.argument((4, 4), "f32", [S(-1), R()])       # negative: normalized
        assert x.placements == (S(1), R())
        with expect("redistribute", r"Shard\(-3\) on mesh dim 1 is out of range"):
            f.redistribute(x, [R(), S(-3)])
        with expect("argument", r"1 placement\(s\) for a 2-D mesh"):
            f.argument((4,), "f32", [S(0)])
        with expect("argument", "Partials of one kind only"):
            f.argument((4,), "f32", [P("sum"), P("max")])
        with expect("argument", "shard orders of tensor dim 0"):
            f.argument((4,), "f32", [S(0, order=1), S(0)])
        f.returns(x)


def test_value_of_another_function():
    b = ProgramBuilder(MESH)
    with b.function("g") as g:
        y = g.argument((4,), "f32")
        g.returns(y)
    with b.function("f") as f:
        x = f.argument((4,), "f32")
        with expect("returns", "result 0 %arg0 belongs to function 'g', not to 'f'"):
            f.returns(y)
        with expect("add", "belongs to function 'g'"):
            x + y
        f.returns(x)
    b.build()


def test_function_used_after_it_is_closed():
    b = ProgramBuilder(MESH)
    with b.function("f") as f:
        x = f.argument((4,), "f32")
        f.returns(x)
    with expect("relu", "function 'f' is closed"):
        f.relu(x)
    with expect("neg", "function 'f' is closed"):
        -x
    with expect("argument", "function 'f' is closed"):
        f.argument((4,), "f32")
    # Within the block, nothing after returns.
    with b.function("g") as g:
        y = g.argument((4,), "f32")
        g.returns(y)
        with expect("exp", "already returned"):
            g.exp(y)
    b.build()


def test_unknown_dtype():
    b = ProgramBuilder(MESH)
    with b.function("f") as f:
        with expect("argument", r"unknown dtype 'f7' \(one of f32, f64, f16, bf16, i32, i64\)"):
            f.argument((4,), "f7")
        with expect("argument", "unknown dtype"):
            f.argument((4,), np.complex64)
        x = f.argument((4,), "f32")
        with expect("cast", "unknown dtype 'i8'"):
            f.cast(x, "i8")
        with expect("full", "unknown dtype"):
            f.full((2,), 1, "u32")
        f.returns(x)


def test_more_misuse():
    b = ProgramBuilder(MESH)
    with b.function("g") as g:
        g.returns(g.argument((4, 4), "f32", [S(0), R()]))
    with b.function("f") as f:
        x = f.argument((4, 4), "f32", [S(0), R()])
        u = f.argument((5, 4), "f32", [S(0), R()])
        v = f.argument((4, 3), "f32")
        with expect("add", r"shapes \(4, 4\) and \(4, 3\) do not broadcast"):
            x + v
        with expect("redistribute", r"mesh dim 0: cannot go from S\(0\) to P\(max\)"):
            f.redistribute(x, [P("max"), R()])
        with expect("redistribute", "an i32 value cannot go from R to P\\(sum\\)"):
            f.redistribute(f.cast(x, "i32"), [S(0), P()])
        with expect("distribute_tensor", "already distributed"):
            f.distribute_tensor(x, [R(), R()])
        with expect("distribute_tensor", r"cannot go from R to P\(product\)"):
            f.distribute_tensor(v, [P("product"), R()])
        with expect("distribute_tensor", "src_data_rank=2"):
            f.distribute_tensor(v, [R(), R()], src_data_rank=2)
        with expect("call", r"argument 0 of 'g' is \[S\(0\), R\], got plain: redistribute"):
            f.call(g, f.exp(x))
        with expect("call", "takes 1 argument"):
            f.call(g, x, x)
        with expect("to_local", "uneven shards"):
            f.to_local(u)
        with expect("from_local", r"not the local shape \(4, 3\)"):
            f.from_local(v, [S(0), R()], shape=(6, 3))
        with expect("add", "mixes a local tensor"):
            f.to_local(x) + f.full((2, 4), 1.0) + x
        with expect("sum", "dim 2 is out of range"):
            f.sum(x, 2)
        with expect("reshape", r"cannot view shape \(4, 4\) \(16 elements\) as \(3, 5\)"):
            f.reshape(x, (3, 5))
        with expect("transpose", "needs a 2-D tensor"):
            f.transpose(f.sum(x, 0))
        with expect("softmax", "needs a float tensor"):
            f.softmax(f.cast(x, "i32"))
        with expect("hint", "priority must be a non-negative integer"):
            f.hint(x, [R(), R()], priority=-1)
        with expect("gelu", "approximate must be 'none' or 'tanh'"):
            f.gelu(x, approximate="erf")
        with expect("argument", "arguments come before the function's ops"):
            f.exp(x)
            f.argument((4,), "f32")
        # Failed ops leave nothing behind.
        e, vt = f.exp(x), v.T
        before = f._lines[:]
        with expect("matmul", "contraction"):
            f.matmul(e, vt)
        with expect("sum", "out of range"):
            f.sum(e, -3, keepdim=True)
        assert f._lines == before
        f.returns(x)
    with pytest.raises(dm.DTensorError, match=rf"{HERE}:\d+: function 'h': the `with` block "
                                              r"ended without f.returns"):
        with b.function("h") as h:
            h.argument((4,), "f32")
    with pytest.raises(dm.DTensorError, match="function: 'f' is already defined"):
        b.function("f")
    with pytest.raises(dm.DTensorError, match="'mesh' is the mesh's symbol"):
        b.function("mesh")
    with pytest.raises(dm.DTensorError, match="mesh dim names must be unique"):
        ProgramBuilder(dm.DeviceMesh((2, 2), ("a", "a")))
    # What was built is still a valid program.
    b.build()


def test_without_with_blocks():
    b = ProgramBuilder(MESH)
    f = b.function("f")
    x = f.argument((4,), "f32")
    with pytest.raises(dm.DTensorError, match="function 'f' is still open"):
        b.text()
    with pytest.raises(dm.DTensorError, match="'f' is still open"):
        b.function("g")
    f.returns(x)          # outside a `with` block, returns() closes the function
    assert isinstance(f, FunctionBuilder) and f.closed and isinstance(x, Value)
    with expect("exp", "function 'f' is closed"):
        f.exp(x)
    g = b.function("g")
    g.returns(g.call(f, g.argument((4,), "f32")))
    assert "func.func private @f(" in b.text()
    b.build()


def test_failed_function_is_dropped():
    b = ProgramBuilder(MESH)
    with pytest.raises(ZeroDivisionError):
        with b.function("f") as f:
            f.returns(f.argument((4,), "f32"))
            1 / 0
    assert b.functions == []
    with b.function("g") as g:
        with expect("call", "the callee must be a function of this builder"):
            g.call(f, g.argument((4,), "f32"))
        g.returns()
    b.build()


# ---------------------------------------------------------------------------
# Random programs: whatever the builder accepts parses and verifies
# ---------------------------------------------------------------------------


def random_program(seed: int) -> ProgramBuilder:
    import random
    rng = random.Random(seed)
    mesh = dm.DeviceMesh(rng.choice([(2,), (2, 2), (4,), (1, 3)]))

    def placements(rank, partial=True):
        out = []
        for _ in range(mesh.ndim):
            k = rng.random()
            out.append(S(rng.randrange(-rank, rank)) if k < 0.4 and rank else
                       P() if k > 0.85 and partial else R())
        return out

    b = ProgramBuilder(mesh)
    dtype = rng.choice(["f32", "f64", "f16", "i32"])
    with b.function("f") as f:
        shapes = [tuple(rng.choice([1, 2, 3, 4, 6]) for _ in range(rng.randrange(4)))
                  for _ in range(3)]
        vals = [f.argument(s, dtype, placements(len(s)) if rng.random() < 0.7 else None)
                for s in shapes]
        ops = [
            lambda a, c: getattr(f, rng.choice(["add", "sub", "mul", "div", "maximum"]))(a, c),
            lambda a, c: getattr(f, rng.choice(["relu", "neg", "exp", "tanh", "gelu", "silu",
                                                "softmax", "full_tensor", "to_local"]))(a),
            lambda a, c: f.matmul(a, c),
            lambda a, c: f.transpose(a, list(reversed(range(a.ndim)))),
            lambda a, c: getattr(f, rng.choice(["sum", "max", "mean"]))(
                a, rng.randrange(-a.ndim, max(a.ndim, 1)), keepdim=rng.random() < 0.3),
            lambda a, c: f.reshape(a, rng.choice([(-1,), (1, -1), (-1, 1)])),
            lambda a, c: f.redistribute(a, placements(a.ndim)),
            lambda a, c: f.hint(a, placements(a.ndim), priority=rng.randrange(3)),
            lambda a, c: f.distribute_tensor(a, placements(a.ndim, partial=False)),
            lambda a, c: a * rng.choice([2, 0.5, -1]),
            lambda a, c: f.cast(a, rng.choice(DTYPES)),
        ]
        for _ in range(rng.randrange(1, 8)):
            try:
                vals.append(rng.choice(ops)(rng.choice(vals), rng.choice(vals)))
            except dm.DTensorError:
                pass   # a misuse the builder caught
        f.returns(*rng.sample(vals, rng.randrange(1, 3)))
    return b


def test_random_programs_always_verify():
    compiled = 0
    for seed in range(150):
        b = random_program(seed)
        module = b.build()                       # parses and verifies, or raises
        # (Element types only: the text's locations hold this file's path,
        # which may itself contain "i32", as /tmp/ci32 did.)
        if not re.search(r"[x<]i(32|64)\b", b.text()):
            # Float programs compile and match on every rank. (Integer ones
            # may not compile: an integer sum over a sharded dim is rejected.)
            r = dm.run(module, compiled=module.compile("dtensor-compile"), seed=seed)
            assert r.verified, (seed, r.mismatches)
            compiled += 1
    assert compiled > 50


def test_bf16_results_come_back_as_float32():
    # numpy has no bfloat16: bf16 results are widened to float32 (every bf16
    # value exactly), per rank and whole, as .npy files hold them.
    mesh = dm.DeviceMesh((2,), ("tp",))
    b = ProgramBuilder(mesh)
    with b.function("f") as f:
        x = f.argument((4, 6), "f32", [dm.Shard(0)])
        f.returns(f.cast(f.relu(x), "bf16"))
    m = b.build()
    xa = np.linspace(-1, 1, 24, dtype=np.float32).reshape(4, 6)
    r = dm.run(m, compiled=m.compile(), inputs=b.inputs({x: xa}))
    assert r.verified
    whole = r.outputs[0].full_tensor()
    assert whole.dtype == np.float32 and whole.shape == (4, 6)
    assert np.allclose(whole, np.maximum(xa, 0), atol=4e-3)
    # Exactly representable in bf16: the low 16 bits of every value are zero.
    assert not np.any(whole.view(np.uint32) & 0xFFFF)
    local = r.outputs[0].to_local().local_tensors
    assert local and all(v.dtype == np.float32 for v in local.values())


def test_reductions_over_an_empty_dim():
    # torch: the mean over nothing is NaN (it was 0: 1 / max(count, 1)), and
    # amax / amin over a size-0 dim are errors (it was -inf / inf).
    b = ProgramBuilder(dm.DeviceMesh(2))
    with b.function("f") as f:
        a = f.argument((0, 3), "f32", [dm.Replicate()])
        f.returns(f.mean(a, 0))
    m = b.build()
    r = dm.run(m, compiled=m.compile(), inputs=b.inputs({a: np.zeros((0, 3), np.float32)}))
    assert np.isnan(r.outputs[0].full_tensor()).all()
    assert np.isnan(r.compiled_outputs[0].full_tensor()).all() and r.verified
    for kind in ("max", "min"):
        b = ProgramBuilder(dm.DeviceMesh(2))
        with pytest.raises(dm.DTensorError, match=f"{kind}: a {kind} over dim 0 of size 0 has no value"):
            with b.function("f") as f:
                a = f.argument((0, 3), "f32", [dm.Replicate()])
                f.returns(getattr(f, kind)(a, 0))
