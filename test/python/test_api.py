"""The dtensor_mlir Python package (no PyTorch needed): vocabulary, layouts,
plans, compiling, running with numpy inputs, errors as exceptions."""

import subprocess
import sys

import numpy as np
import pytest

import dtensor_mlir as dm

ROOT = __import__("os").environ.get("DTENSOR_SRC_ROOT", "")

MLP = """
dtensor.mesh @mesh shape = [2, 2] names = ["dp", "tp"]
func.func @mlp(%m: !dtensor.device_mesh<@mesh>,
    %x: tensor<4x6xf32, #dtensor.spec<@mesh, [S(0), R]>>,
    %w1: tensor<6x8xf32, #dtensor.spec<@mesh, [R, S(1)]>>,
    %w2: tensor<8x6xf32, #dtensor.spec<@mesh, [R, S(0)]>>)
    -> tensor<4x6xf32, #dtensor.spec<@mesh, [S(0), R]>> {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<4x8xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4x8xf32>) -> tensor<4x8xf32>
  %h = linalg.matmul ins(%x, %w1 : tensor<4x6xf32, #dtensor.spec<@mesh, [S(0), R]>>, tensor<6x8xf32, #dtensor.spec<@mesh, [R, S(1)]>>) outs(%z1 : tensor<4x8xf32>) -> tensor<4x8xf32>
  %e2 = tensor.empty() : tensor<4x6xf32>
  %z2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<4x6xf32>) -> tensor<4x6xf32>
  %y = linalg.matmul ins(%h, %w2 : tensor<4x8xf32>, tensor<8x6xf32, #dtensor.spec<@mesh, [R, S(0)]>>) outs(%z2 : tensor<4x6xf32>) -> tensor<4x6xf32>
  %d = dtensor.distribute_tensor %y, %m : tensor<4x6xf32>, !dtensor.device_mesh<@mesh> -> tensor<4x6xf32, #dtensor.spec<@mesh, [S(0), R]>>
  return %d : tensor<4x6xf32, #dtensor.spec<@mesh, [S(0), R]>>
}
"""


def test_layout_uneven_and_empty_shards():
    mesh = dm.DeviceMesh((2, 4), ("dp", "tp"))
    shards = dm.layout(mesh, (9, 4), [dm.Shard(0), dm.Shard(0)])
    assert [s.local_shape for s in shards] == [
        (2, 4), (2, 4), (1, 4), (0, 4), (1, 4), (1, 4), (1, 4), (1, 4)]
    assert shards[3].offset == (9, 0)  # empty: the dim's size, as DTensor
    assert shards[5].coord == (1, 1)
    # Every row is held exactly once.
    rows = sorted(r for s in shards for r in range(s.offset[0], s.offset[0] + s.local_shape[0]))
    assert rows == list(range(9))


def test_layout_nested_order():
    mesh = dm.DeviceMesh((2, 2))
    default = dm.layout(mesh, (8,), [dm.Shard(0), dm.Shard(0)])
    nested = dm.layout(mesh, (8,), [dm.Shard(0, order=1), dm.Shard(0, order=0)])
    assert [s.offset for s in default] == [(0,), (2,), (4,), (6,)]
    # Mesh dim 1 splits first: rank (0, 1) holds the second half's first quarter.
    assert [s.offset for s in nested] == [(0,), (4,), (2,), (6,)]


def test_partial_and_replicate_layouts():
    mesh = dm.DeviceMesh(4)
    assert all(s.local_shape == (5, 3) for s in dm.layout(mesh, (5, 3), [dm.Partial("max")]))
    assert all(s.local_shape == (5, 3) for s in dm.layout(mesh, (5, 3), [dm.Replicate()]))


def test_plan():
    mesh = dm.DeviceMesh((2, 4))
    plan = dm.plan_redistribute(mesh, (64, 64), [dm.Shard(0), dm.Replicate()],
                                [dm.Replicate(), dm.Shard(1)])
    assert plan.num_collectives == 1
    assert plan.bytes_per_rank == 4096
    assert [s.kind for s in plan.steps] == ["local", "all_gather"]
    assert plan.steps[-1].after == "[R, S(1)]"
    assert plan.optimal and plan.time_us > 0
    ar = dm.plan_redistribute(mesh, (16,), [dm.Partial(), dm.Replicate()],
                              [dm.Replicate(), dm.Replicate()], dtype="f64")
    assert [s.kind for s in ar.steps] == ["all_reduce"] and ar.bytes_per_rank == 128


def test_errors_are_exceptions():
    mesh = dm.DeviceMesh((2, 4))
    with pytest.raises(dm.DTensorError, match="cannot redistribute S\\(0\\) to P\\(max\\)"):
        dm.plan_redistribute(mesh, (8, 8), [dm.Shard(0), dm.Replicate()],
                             [dm.Partial("max"), dm.Replicate()])
    with pytest.raises(dm.DTensorError, match="1 placement\\(s\\) for a 2-D mesh"):
        dm.layout(mesh, (8,), [dm.Shard(0)])
    with pytest.raises(dm.DTensorError, match="S\\(3\\)|dim 3|out of range|rank"):
        dm.layout(mesh, (8,), [dm.Shard(3), dm.Replicate()])
    with pytest.raises(dm.DTensorError, match="unknown dtype"):
        dm.plan_redistribute(mesh, (8,), [dm.Replicate()] * 2, [dm.Replicate()] * 2, dtype="f7")
    with pytest.raises(dm.DTensorError, match="positive"):
        dm.DeviceMesh((2, 0))
    with pytest.raises(dm.DTensorError, match=r"bad\.mlir:2:18: error: expected SSA operand"):
        dm.Module.parse("func.func @f() {\n  %x = arith.addf 1 }", "bad.mlir")
    # A spelling that crashes MLIR's own parser is an error here.
    with pytest.raises(dm.DTensorError, match=r"crash\.mlir:1:\d+: error"):
        dm.Module.parse("%t = linalg.transpose ins(%a : tensor<2xf32>) outs(%b : tensor<2xf32>) permutation = x", "crash.mlir")
    prog = dm.Module.parse(MLP)
    with pytest.raises(dm.DTensorError, match="'no-such-pass' is not a pass pipeline"):
        prog.compile("no-such-pass")
    # The verifier's message, at its location.
    with pytest.raises(dm.DTensorError, match=r"v\.mlir:3:\d+: error: .*S\(0\) to P\(max\)"):
        dm.Module.parse("""dtensor.mesh @g shape = [2]
func.func @f(%m: !dtensor.device_mesh<@g>, %a: tensor<3xf32, #dtensor.spec<@g, [S(0)]>>) -> tensor<3xf32, #dtensor.spec<@g, [P(max)]>> {
  %b = dtensor.redistribute %a, %m : tensor<3xf32, #dtensor.spec<@g, [S(0)]>>, !dtensor.device_mesh<@g> -> tensor<3xf32, #dtensor.spec<@g, [P(max)]>>
  return %b : tensor<3xf32, #dtensor.spec<@g, [P(max)]>>
}""", "v.mlir")


def test_pipeline_forms():
    # The module's own anchor, as --pass-pipeline writes it, compiles the
    # same (it ran nothing: a pass manager nested on modules inside the
    # module, and `verified` was still true).
    prog = dm.Module.parse(MLP)
    plain = str(prog.compile("dtensor-compile"))
    assert str(prog.compile("builtin.module(dtensor-compile)")) == plain
    assert str(prog.compile(" builtin.module(dtensor-compile, canonicalize) ")).count("dtensor.all_reduce") == 1
    # A module pass nested under func.func aborted the process (LLVM ERROR
    # in MLIR's parser); passes that run on functions still nest.
    with pytest.raises(dm.DTensorError, match=r"'dtensor-compile' runs on 'builtin.module' ops and cannot be nested in 'func.func\(...\)'"):
        prog.compile("func.func(dtensor-compile)")
    with pytest.raises(dm.DTensorError, match=r"'dtensor-partition' runs on 'builtin.module' ops"):
        prog.compile("dtensor-propagate,func.func(canonicalize,dtensor-partition)")
    assert str(prog.compile("dtensor-compile,func.func(canonicalize,cse)")).count("dtensor.all_reduce") == 1
    with pytest.raises(dm.DTensorError, match="unbalanced parentheses"):
        prog.compile("builtin.module(dtensor-compile")
    # `any(P)` at the top is the module's anchor too; a module pass nested
    # under any anchor below it (`any`, an inner `builtin.module`) would run
    # on modules inside the module: nothing was compiled, `verified` true.
    assert str(prog.compile("any(dtensor-compile)")) == plain
    assert str(prog.compile("any(canonicalize),dtensor-compile")).count("dtensor.all_reduce") == 1
    for nested in ["builtin.module(builtin.module(dtensor-compile))",
                   "func.func(any(dtensor-compile))", "any(any(dtensor-compile))",
                   "dtensor-propagate,any(dtensor-partition)"]:
        with pytest.raises(dm.DTensorError, match="runs on the module itself and cannot be nested"):
            prog.compile(nested)


def test_misuse_found_by_probing():
    # Scalar results read as 0-d arrays (full_tensor said the ranks differed,
    # to_local was empty).
    scalar = dm.Module.parse("""
func.func @f(%a: tensor<4xf32>) -> (f32, index, tensor<4xf32>) {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %x = tensor.extract %a[%c0] : tensor<4xf32>
  return %x, %c3, %a : f32, index, tensor<4xf32>
}""")
    r = dm.run(scalar, inputs={0: np.array([1.5, 2, 3, 4], np.float32)})
    assert r.outputs[0].full_tensor() == np.float32(1.5)
    assert r.outputs[0].full_tensor().shape == ()
    assert r.outputs[1].full_tensor() == 3
    assert r.outputs[0].to_local().reconcile() == np.float32(1.5)
    # An empty LocalTensor was taken as no input (random values instead).
    per_rank = dm.Module.parse("""
dtensor.mesh @mesh shape = [2]
func.func @f(%m: !dtensor.device_mesh<@mesh>, %a: tensor<2xf32>) -> tensor<2xf32> {
  return %a : tensor<2xf32>
}""")
    with pytest.raises(dm.DTensorError, match="a LocalTensor holds no rank"):
        dm.run(per_rank, inputs={1: dm.LocalTensor({})})
    with pytest.raises(dm.DTensorError, match="holds no rank"):
        dm.LocalTensor({}).reconcile()
    # NaNs at the same places reconcile.
    same = dm.LocalTensor({0: np.array([np.nan, 1], np.float32),
                           1: np.array([np.nan, 1], np.float32)})
    assert np.isnan(same.reconcile()[0])
    # A run leaves the modules it is given as they are (it lowered their
    # dtensor.reshard ops in place).
    moved = dm.Module.parse("""
dtensor.mesh @mesh shape = [2]
func.func @f(%m: !dtensor.device_mesh<@mesh>, %a: tensor<4xf32, #dtensor.spec<@mesh, [S(0)]>>)
    -> tensor<4xf32, #dtensor.spec<@mesh, [R]>> {
  %r = dtensor.redistribute %a, %m : tensor<4xf32, #dtensor.spec<@mesh, [S(0)]>>, !dtensor.device_mesh<@mesh> -> tensor<4xf32, #dtensor.spec<@mesh, [R]>>
  return %r : tensor<4xf32, #dtensor.spec<@mesh, [R]>>
}""")
    stage = moved.compile("dtensor-partition")
    before = str(stage)
    assert "dtensor.reshard" in before
    assert dm.run(moved, compiled=stage).verified
    assert str(stage) == before
    prog = dm.Module.parse(MLP)
    # Read-only and big-endian arrays are inputs (nanobind's TypeError listed
    # the binding's signature); a bad seed or an object array is an error.
    x = np.arange(24, dtype=np.float32).reshape(4, 6)
    ro = x.copy()
    ro.setflags(write=False)
    a = dm.run(prog, inputs={1: ro}).outputs[0].full_tensor()
    b = dm.run(prog, inputs={1: x.astype(">f4")}).outputs[0].full_tensor()
    assert np.array_equal(a, dm.run(prog, inputs={1: x}).outputs[0].full_tensor())
    assert np.array_equal(a, b)
    with pytest.raises(dm.DTensorError, match="seed must be an integer"):
        dm.run(prog, seed=-1)
    with pytest.raises(dm.DTensorError, match="Python objects"):
        dm.run(prog, inputs={1: np.array([[1, None]] * 4, dtype=object)})


def test_compile_and_verify_mlp():
    prog = dm.Module.parse(MLP, "mlp.mlir")
    compiled = prog.compile("dtensor-compile")
    text = str(compiled)
    assert text.count("dtensor.all_reduce") == 1
    assert "dtensor.global" in text
    x = np.arange(24, dtype=np.float32).reshape(4, 6) / 24
    w1 = np.linspace(-1, 1, 48, dtype=np.float32).reshape(6, 8)
    w2 = np.linspace(1, -1, 48, dtype=np.float32).reshape(8, 6)
    r = dm.run(prog, compiled=compiled, inputs={1: x, 2: w1, 3: w2})
    assert r.verified and r.mismatches == []
    assert r.num_ranks == 4
    want = x @ w1 @ w2
    out = r.outputs[0]
    assert out.placements == "[S(0), R]"
    np.testing.assert_allclose(out.full_tensor(), want, rtol=1e-5, atol=1e-6)
    # The compiled program's per-rank shards: rank (i, j) holds rows 2i..2i+1.
    local = r.compiled_outputs[0].to_local()
    for rank, shard in local.local_tensors.items():
        i = rank // 2
        np.testing.assert_allclose(shard, want[2 * i:2 * i + 2], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(r.compiled_outputs[0].full_tensor(), want, rtol=1e-5, atol=1e-6)
    rep = r.report()
    assert rep["total"] == {"count": 1, "bytes": 48}
    assert rep["collectives"]["all_reduce"]["mesh_dims"] == [["tp"]]
    # The same through the pipeline argument, with generated inputs.
    r2 = dm.run(MLP, pipeline="dtensor-compile", seed=3)
    assert r2.verified


def test_wrong_inputs():
    prog = dm.Module.parse(MLP)
    with pytest.raises(dm.DTensorError, match="argument 1.*shape 4x5"):
        dm.run(prog, inputs={1: np.zeros((4, 5), np.float32)})
    with pytest.raises(dm.DTensorError, match="dtype f64 but the argument is f32"):
        dm.run(prog, inputs={1: np.zeros((4, 6), np.float64)})
    with pytest.raises(dm.DTensorError, match="no such argument"):
        dm.run(prog, inputs={9: np.zeros((4, 6), np.float32)})
    with pytest.raises(dm.DTensorError, match="unsupported numpy dtype"):
        dm.run(prog, inputs={1: np.zeros((4, 6), np.complex64)})
    # A uint16 array is bf16 given by its bits (numpy has no bfloat16).
    with pytest.raises(dm.DTensorError, match="dtype bf16 but the argument is f32"):
        dm.run(prog, inputs={1: np.zeros((4, 6), np.uint16)})
    with pytest.raises(dm.DTensorError, match="distributed: give its global tensor"):
        dm.run(prog, inputs={1: dm.rank_map(4, lambda r: np.zeros((2, 6), np.float32))})
    with pytest.raises(dm.DTensorError, match="no function @nope"):
        dm.run(prog, entry="nope")


LOCAL = """
dtensor.mesh @world shape = [4]
func.func @main(%world: !dtensor.device_mesh<@world>, %x: tensor<2x3xf32>)
    -> (tensor<8x3xf32, #dtensor.spec<@world, [S(0)]>>, tensor<2x3xf32>) {
  %d = dtensor.from_local %x, %world : tensor<2x3xf32>, !dtensor.device_mesh<@world>
      -> tensor<8x3xf32, #dtensor.spec<@world, [S(0)]>>
  %p = dtensor.from_local %x, %world : tensor<2x3xf32>, !dtensor.device_mesh<@world>
      -> tensor<2x3xf32, #dtensor.spec<@world, [P(sum)]>>
  %s = dtensor.redistribute %p, %world : tensor<2x3xf32, #dtensor.spec<@world, [P(sum)]>>, !dtensor.device_mesh<@world>
      -> tensor<2x3xf32, #dtensor.spec<@world, [R]>>
  %l = dtensor.to_local %s : tensor<2x3xf32, #dtensor.spec<@world, [R]>> -> tensor<2x3xf32>
  return %d, %l : tensor<8x3xf32, #dtensor.spec<@world, [S(0)]>>, tensor<2x3xf32>
}
"""


def test_rank_map_and_reconcile():
    x = dm.rank_map(4, lambda r: np.full((2, 3), r, np.float32))
    r = dm.run(LOCAL, inputs={1: x})
    stacked, summed = r.outputs
    np.testing.assert_array_equal(stacked.full_tensor(),
                                  np.repeat(np.arange(4, dtype=np.float32), 2)[:, None] * np.ones(3))
    # The all_reduce'd value is the same on every rank: reconcile gives it.
    np.testing.assert_array_equal(summed.to_local().reconcile(), np.full((2, 3), 6, np.float32))
    with pytest.raises(dm.DTensorError, match="cannot reconcile"):
        x.reconcile()
    doubled = x.tensor_map(lambda rank, t: t * 2)
    assert doubled.local_tensors[3][0, 0] == 6


def test_import_from_venv():
    # `.venv/bin/python -c "import dtensor_mlir"` works with nothing else set.
    out = subprocess.run([sys.executable, "-c", "import dtensor_mlir; print(dtensor_mlir.Shard(1))"],
                         capture_output=True, text=True, env={"PATH": "/usr/bin:/bin"})
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "S(1)"


def test_pass_failure_carries_the_op_diagnostic():
    bad = """dtensor.mesh @mesh shape = [2, 2]
func.func @f(%m: !dtensor.device_mesh<@mesh>, %a: tensor<4x4xf32, #dtensor.spec<@mesh, [R, S(1)]>>, %b: tensor<4x4xf32, #dtensor.spec<@mesh, [R, R]>>, %c: tensor<4x4xf32, #dtensor.spec<@mesh, [R, P(sum)]>>) -> tensor<4x4xf32, #dtensor.spec<@mesh, [R, P(sum)]>> {
  %r = linalg.matmul ins(%a, %b : tensor<4x4xf32, #dtensor.spec<@mesh, [R, S(1)]>>, tensor<4x4xf32, #dtensor.spec<@mesh, [R, R]>>) outs(%c : tensor<4x4xf32, #dtensor.spec<@mesh, [R, P(sum)]>>) -> tensor<4x4xf32, #dtensor.spec<@mesh, [R, P(sum)]>>
  return %r : tensor<4x4xf32, #dtensor.spec<@mesh, [R, P(sum)]>>
}"""
    prog = dm.Module.parse(bad, "bad.mlir")
    with pytest.raises(dm.DTensorError) as err:
        prog.compile("dtensor-partition")
    text = str(err.value)
    assert "bad.mlir:3:8: error: 'linalg.matmul' op operand 1 should be S(0) on mesh dim 1" in text
    assert text.endswith("the pipeline 'dtensor-partition' failed (the diagnostics say where)")
    # The process and the module are still usable afterwards.
    assert "linalg.matmul" in str(prog)


def test_to_cpp_builds_and_runs(tmp_path):
    # The embedding path to a real executable: compile, emit C++ from Python,
    # build it with dtensor-build and run it as a 4-process MPI job; every
    # rank's shard of the result equals numpy's.
    import os
    import shutil

    prog = dm.Module.parse(MLP, "mlp.mlir")
    compiled = prog.compile("dtensor-compile")
    before = str(compiled)
    cpp = compiled.to_cpp()
    assert str(compiled) == before  # the emitter rewrites a copy
    assert '#include "dtensor_rt/Runtime.h"' in cpp
    assert cpp.count("rt::allReduce(") == 1
    cuda = compiled.to_cpp(cuda=True)
    assert "dtensor-translate --dtensor-to-cuda" in cuda
    # The global view is an error at its function, with the location.
    with pytest.raises(dm.DTensorError) as err:
        prog.to_cpp()
    text = str(err.value)
    assert "mlp.mlir:3:1: error: 'func.func' op has a global-view (spec-typed) value" in text
    assert text.endswith("the module cannot be emitted as C++ (the diagnostics say where)")

    # Under lit (test/python/api.test) the build's dtensor-build and, where
    # Open MPI is, lit's %mpirun come in the environment, and the job must
    # run; run by hand, they are looked up on PATH, and the job is skipped
    # (saying so) without them.
    import shlex
    build = os.environ.get("DTENSOR_TEST_BUILD") or shutil.which("dtensor-build")
    if os.environ.get("DTENSOR_TEST_MPIRUN"):
        launcher = shlex.split(os.environ["DTENSOR_TEST_MPIRUN"])
    elif shutil.which("mpirun"):
        launcher = [shutil.which("mpirun"), "--oversubscribe"] + (
            ["--allow-run-as-root"] if os.getuid() == 0 else [])
    else:
        launcher = None
    if not build or not launcher:
        pytest.skip("dtensor-build or mpirun not found: the executable is not run")
    (tmp_path / "mlp.cpp").write_text(cpp)
    subprocess.run([build, str(tmp_path / "mlp.cpp"), "-o", str(tmp_path / "mlp")],
                   check=True, capture_output=True, text=True)
    x = np.arange(24, dtype=np.float32).reshape(4, 6) / 24
    w1 = np.linspace(-1, 1, 48, dtype=np.float32).reshape(6, 8)
    w2 = np.linspace(1, -1, 48, dtype=np.float32).reshape(8, 6)
    for i, a in enumerate([x, w1, w2], start=1):
        np.save(tmp_path / f"in{i}.npy", a)
    (tmp_path / "mpi").mkdir()  # a private TMPDIR for Open MPI's session directory
    env = dict(os.environ, TMPDIR=str(tmp_path / "mpi"), OMP_NUM_THREADS="1")
    run = subprocess.run(launcher + ["-np", "4", str(tmp_path / "mlp")] +
                         [f"--input={i}={tmp_path}/in{i}.npy" for i in (1, 2, 3)] +
                         ["--output-dir", str(tmp_path / "out")],
                         capture_output=True, text=True, env=env, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    want = x @ w1 @ w2
    for rank in range(4):
        shard = np.load(tmp_path / "out" / f"out0.rank{rank}.npy")
        i = rank // 2
        np.testing.assert_allclose(shard, want[2 * i:2 * i + 2], rtol=1e-5, atol=1e-6)


def test_misuse_is_a_dtensor_error():
    # Found by probing: nanobind's signature dumps (TypeError) and internals'
    # AttributeErrors, and values silently truncated (Shard(0.7) was
    # Shard(0), a size of 4.9 was 4), are DTensorErrors now.
    p = dm.Module.parse("""dtensor.mesh @mesh shape = [2]
func.func @f(%m: !dtensor.device_mesh<@mesh>, %a: tensor<2xf32>) -> tensor<2xf32> {
  return %a : tensor<2xf32>
}""")
    mesh = dm.DeviceMesh(2)
    cases = [
        lambda: dm.layout(mesh, (2**63,), [dm.Shard(0)]),
        lambda: dm.layout(mesh, (4.9,), [dm.Shard(0)]),
        lambda: dm.Shard(0.7),
        lambda: dm.DeviceMesh(2.5),
        lambda: dm.DeviceMesh(True),
        lambda: dm.DeviceMesh((2, 2), ("x", "x")),
        lambda: dm.run(p, inputs={1: np.array(["a", "b"])}),
        lambda: dm.run(p, inputs={1: np.zeros(2, "datetime64[s]")}),
        lambda: dm.run(p, inputs={1: np.zeros(2, [("a", np.float32)])}),
        lambda: dm.run(p, entry=None),
        lambda: dm.run(p, compiled="x"),
        lambda: dm.run(5),
        lambda: dm.run(p, inputs=[np.zeros(2, np.float32)]),
        lambda: dm.run(p, compiled=p.compile(), pipeline="nope"),
        lambda: dm.Module.parse(b"module {}"),
        lambda: p.compile(None),
        lambda: p.to_cpp(cuda="yes"),
    ]
    for case in cases:
        with pytest.raises(dm.DTensorError):
            case()
    assert dm.DeviceMesh(np.int64(4)).shape == (4,)
    # full_tensor() is a new array each call (a write changed the next one).
    r = dm.run(p, inputs={1: np.ones(2, np.float32)})
    r.outputs[0].full_tensor()[0] = 7
    assert r.outputs[0].full_tensor()[0] == 1


def test_probed_round_7():
    # Found by probing 2026-12-01: a rank outside the mesh gave a coordinate
    # (4 on a 2x2 mesh (0, 0), -1 (1, 1)); Partial("") was taken as a sum;
    # rank_map(-1) gave an empty LocalTensor.
    mesh = dm.DeviceMesh((2, 2))
    assert mesh.coordinate(3) == (1, 1)
    for rank in [4, -1, 2**70]:
        with pytest.raises(dm.DTensorError, match="not a rank"):
            mesh.coordinate(rank)
    with pytest.raises(dm.DTensorError):
        mesh.coordinate(1.0)
    for op in ["", "prod", "band"]:
        with pytest.raises(dm.DTensorError, match="reduce_op"):
            dm.Partial(op)
    assert [dm.Partial(op).spec() for op in dm.Partial.REDUCE_OPS] == [
        "P(sum)", "P(avg)", "P(max)", "P(min)", "P(product)"]
    for n in [-1, 0]:
        with pytest.raises(dm.DTensorError, match="positive number of ranks"):
            dm.rank_map(n, lambda r: np.ones(1))


def test_probed_round_6():
    # Found by probing the embedding surfaces.
    mesh = dm.DeviceMesh(2)
    # An integer R -> P(sum) divides: refused, as dtensor-plan and the
    # compiler refuse it (the plan was returned).
    with pytest.raises(dm.DTensorError, match="integer tensor"):
        dm.plan_redistribute(mesh, (4, 4), [dm.Replicate()], [dm.Partial()], dtype="i32")
    assert dm.plan_redistribute(mesh, (4, 4), [dm.Replicate()], [dm.Partial()]).num_collectives == 0
    # Shapes are checked as layout checks them (4.7 was truncated, "44"
    # read as (4, 4), 2**64 a TypeError).
    for shape in [(4.7, 4), "44", (2**64, 4)]:
        with pytest.raises(dm.DTensorError):
            dm.plan_redistribute(mesh, shape, [dm.Shard(0)], [dm.Replicate()])
    with pytest.raises(dm.DTensorError):
        dm.plan_redistribute(mesh, (4,), [dm.Shard(0)], [dm.Replicate()], devices_per_host=2**70)
    # Bool bytes other than 0 / 1 read as numpy reads them (true): an and
    # of 2 and 1 was false, and the MPI job disagreed with the interpreter.
    p = dm.Module.parse("""func.func @f(%a: tensor<4xi1>, %b: tensor<4xi1>) -> (tensor<4xi1>, tensor<4xi8>) {
  %c = arith.andi %a, %b : tensor<4xi1>
  %e = arith.extui %a : tensor<4xi1> to tensor<4xi8>
  return %c, %e : tensor<4xi1>, tensor<4xi8>
}""")
    a = np.frombuffer(bytes([2, 1, 0, 254]), dtype=np.bool_)
    r = dm.run(p, inputs={0: a, 1: np.ones(4, np.bool_)})
    assert r.outputs[0].full_tensor().tolist() == [True, True, False, True]
    assert r.outputs[1].full_tensor().tolist() == [1, 1, 0, 1]
    # A float wider than f64 is no element type.
    with pytest.raises(dm.DTensorError, match="wider than f64"):
        dm.run(p, inputs={0: np.zeros(4, np.longdouble)})
