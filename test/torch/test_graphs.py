"""Distributed graphs from PyTorch (seed 003): per-rank FX graphs with
functional collectives (as AOTAutograd and make_fx produce them) and Dynamo
graphs that take the DeviceMesh as an opaque input and call
DTensor.from_local / redistribute / to_local. Each imports to our dialect
(async collectives with dtensor.wait; our DTensor API ops) and runs on every
rank of the interpreter; every rank must equal what LocalTensorMode computes
running the same graph."""

import pytest
import torch
import torch.distributed as dist
import torch.distributed._functional_collectives as funcol
from torch.distributed._local_tensor import LocalTensor, LocalTensorMode
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.tensor import DTensor, Partial, Replicate, Shard
from torch.fx.experimental.proxy_tensor import make_fx

import dtensor_mlir as dm
from dtensor_mlir.torch import import_graph

WORLD = 4


@pytest.fixture(scope="module", autouse=True)
def fake_pg():
    if not dist.is_initialized():
        dist.init_process_group("fake", rank=0, world_size=WORLD)
    yield


def per_rank(shape, seed):
    g = torch.Generator().manual_seed(seed)
    return LocalTensor({r: torch.randn(*shape, generator=g) for r in range(WORLD)})


def same_per_rank(got, want, tol=1e-5):
    for r in range(WORLD):
        a, b = got[r], want._local_tensors[r]
        assert a.shape == b.shape, (r, a.shape, b.shape)
        assert torch.allclose(a, b, rtol=tol, atol=tol), (r, (a - b).abs().max())


def test_functional_collectives_graph():
    mesh = init_device_mesh("cpu", (2, 2), mesh_dim_names=("dp", "tp"))
    dp, tp = mesh.get_group(0), mesh.get_group(1)

    def step(x, w):
        y = funcol.all_reduce(x @ w, "sum", tp)
        z = funcol.all_gather_tensor(y, 0, dp)
        r = funcol.reduce_scatter_tensor(z * 2, "sum", 0, dp)
        a = funcol.all_to_all_single(r, None, None, tp)
        return torch.relu(a) + funcol.all_reduce(a, "max", tp)

    gm = make_fx(step, tracing_mode="fake")(torch.randn(4, 3), torch.randn(3, 4))
    prog = import_graph(gm, mesh=dm.DeviceMesh((2, 2), ("dp", "tp")), device_mesh=mesh)
    # Async collectives, each waited on.
    assert prog.mlir.count("-> !dtensor.future<") == 5 and prog.mlir.count("dtensor.wait") == 5
    x, w = per_rank((4, 3), 0), per_rank((3, 4), 1)
    with LocalTensorMode(WORLD):
        want = gm(x, w)
    got = prog.run(x, w)[0].local_tensors()
    same_per_rank(got, want)
    counts = prog.report()["collectives"]
    assert counts["all_reduce"]["count"] == 2 and counts["all_gather"]["mesh_dims"] == [["dp"]]


def test_aot_style_graph_of_the_seed():
    # The AOTAutograd graph of seed 003: a view, all_gather_into_tensor,
    # wait_tensor, a view back, an add.
    mesh = init_device_mesh("cpu", (WORLD,))
    group = mesh.get_group(0)

    def f(x):
        v = x.to(torch.float32).view(1)
        g = funcol.all_gather_tensor(v, 0, group)
        return g.view(WORLD) + 2

    gm = make_fx(f, tracing_mode="fake")(torch.randn(1))
    prog = import_graph(gm, mesh=dm.DeviceMesh((WORLD,)), groups={group.group_name: [0]})
    x = LocalTensor({r: torch.tensor([float(r)]) for r in range(WORLD)})
    with LocalTensorMode(WORLD):
        want = gm(x)
    got = prog.run(x)[0].local_tensors()
    same_per_rank(got, want)
    assert got[2].tolist() == [2.0, 3.0, 4.0, 5.0]


def dynamo_graph(fn, *args):
    graphs = []

    def backend(gm, inputs):
        graphs.append(gm)
        return gm.forward
    torch.compile(fn, backend=backend, fullgraph=True)(*args)
    assert len(graphs) == 1
    return graphs[0]


def test_dynamo_graph_with_opaque_mesh():
    mesh = init_device_mesh("cpu", (WORLD,))

    def fn(x, mesh):
        dt = DTensor.from_local(x, mesh, [Shard(0)], run_check=False)
        r = dt.redistribute(mesh, [Replicate()])
        return r.to_local() + 2

    gm = dynamo_graph(fn, torch.randn(2, 3), mesh)
    assert any(n.op == "call_method" and n.target == "redistribute" for n in gm.graph.nodes)
    prog = import_graph(gm, mesh=dm.DeviceMesh((WORLD,)))
    assert "dtensor.from_local" in prog.mlir and "dtensor.to_local" in prog.mlir
    x = per_rank((2, 3), 3)
    with LocalTensorMode(WORLD):
        want = fn(x, init_device_mesh("cpu", (WORLD,)))
    same_per_rank(prog.run(x, mesh)[0].local_tensors(), want)
    assert prog.report()["collectives"] == {
        "all_gather": {"count": 1, "bytes": 96, "mesh_dims": [[0]]}}


def test_dynamo_graph_partial_and_2d_mesh():
    mesh = init_device_mesh("cpu", (2, 2))

    def fn(x, mesh):
        dt = DTensor.from_local(x, mesh, [Shard(1), Partial()], run_check=False)
        r = dt.redistribute(mesh, [Shard(0), Replicate()])
        return r.to_local() * 3

    gm = dynamo_graph(fn, torch.randn(4, 2), mesh)
    prog = import_graph(gm, mesh=dm.DeviceMesh((2, 2)))
    x = per_rank((4, 2), 4)
    with LocalTensorMode(WORLD):
        want = fn(x, init_device_mesh("cpu", (2, 2)))
    same_per_rank(prog.run(x, mesh)[0].local_tensors(), want)


def test_errors():
    mesh = init_device_mesh("cpu", (WORLD,))
    group = mesh.get_group(0)

    def f(x):
        return funcol.all_reduce(x, "sum", group) + 1
    gm = make_fx(f, tracing_mode="fake")(torch.randn(2))
    with pytest.raises(dm.DTensorError, match="process group .* is not a group of the mesh"):
        import_graph(gm, mesh=dm.DeviceMesh((WORLD,)))
    with pytest.raises(dm.DTensorError, match="has 4 ranks but mesh dims \\[0\\] make groups of 2"):
        def g(x):
            return funcol.all_gather_tensor(x, 0, group)
        import_graph(make_fx(g, tracing_mode="fake")(torch.randn(2)),
                     mesh=dm.DeviceMesh((2, 2)), groups={group.group_name: [0]})


def test_aot_autograd_backward_graph_outputs_line_up():
    # The graphs torch.compile's AOTAutograd hands a backend: the backward
    # returns None for inputs without a gradient; run() keeps those places
    # (it dropped them, so results no longer lined up with the graph's
    # outputs). Undecomposed graphs (the default) are refused with a hint.
    from torch._decomp import core_aten_decompositions
    from torch._dynamo.backends.common import aot_autograd
    import torch.nn.functional as F
    group = init_device_mesh("cpu", (WORLD,)).get_group(0)

    def capture(decompositions):
        graphs = {}
        backend = aot_autograd(
            fw_compiler=lambda gm, ex: graphs.setdefault("fw", gm).forward,
            bw_compiler=lambda gm, ex: graphs.setdefault("bw", gm).forward,
            decompositions=decompositions)

        def fn(x, w, y):
            return F.cross_entropy(funcol.all_reduce(F.gelu(x @ w.t()), "sum", group), y)
        x, y = torch.randn(8, 16), torch.randint(0, 16, (8,))
        w = torch.randn(16, 16, requires_grad=True)
        torch._dynamo.reset()
        torch.compile(fn, backend=backend, fullgraph=True)(x, w, y).backward()
        return graphs

    raw = capture(None)
    with pytest.raises(dm.DTensorError, match="core_aten_decompositions"):
        import_graph(raw["fw"], mesh=dm.DeviceMesh((WORLD,)), groups={group.group_name: [0]})
    bw = capture(core_aten_decompositions())["bw"]
    outs = list(bw.graph.nodes)[-1].args[0]
    prog = import_graph(bw, mesh=dm.DeviceMesh((WORLD,)), groups={group.group_name: [0]})
    g = torch.Generator().manual_seed(3)
    args = []
    for n in bw.graph.nodes:
        if n.op != "placeholder":
            continue
        v = n.meta["val"]
        make = (lambda: torch.randn(v.shape, generator=g)) if v.is_floating_point() else \
            (lambda: torch.randint(0, 2, v.shape, generator=g).to(v.dtype))
        args.append(LocalTensor({r: make() for r in range(WORLD)}))
    got = prog.run(*args)
    assert len(got) == len(outs)
    assert [o is None for o in got] == [o is None for o in outs]
    with LocalTensorMode(WORLD):
        want = bw(*args)
    for o, w in zip(got, want):
        if o is not None:
            same_per_rank(o.local_tensors(), w, tol=1e-4)
