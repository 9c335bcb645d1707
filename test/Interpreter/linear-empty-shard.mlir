// RUN: dtensor-run %s --verify | FileCheck %s
// RUN: dtensor-run %s --verify --rank-threads=2 | FileCheck %s
// RUN: %if mpi %{ dtensor-run %s --verify --target=mpi | FileCheck %s --check-prefix=MPI %}

// x[b, s, k] * w[k, n] over x's leading dims (the PyTorch importer's
// F.linear and `x @ w` on a 3-D x) runs on BLAS with the leading dims as its
// rows. With w's 5 columns on 4 ranks (2, 2, 1, 0), the last rank's result
// has no columns: its rows are still x's (they were taken from the result,
// 0 of them, and the compiled program failed to run on that rank).

dtensor.mesh @mesh shape = [4]

// MPI: verified @linear on target mpi: 1 output(s) of 4 MPI process(es) match the interpreter
// CHECK: verified @linear: 1 output(s) of the compiled program match the original on 4 rank(s)
func.func @linear(%mesh: !dtensor.device_mesh<@mesh>,
                  %x: tensor<4x8x6xf32, #dtensor.spec<@mesh, [R]>>,
                  %w: tensor<6x5xf32, #dtensor.spec<@mesh, [S(1)]>>)
    -> tensor<4x8x5xf32, #dtensor.spec<@mesh, [S(2)]>> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8x5xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8x5xf32>) -> tensor<4x8x5xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>,
                                        affine_map<(d0, d1, d2, d3) -> (d3, d2)>,
                                        affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>],
                       iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<4x8x6xf32, #dtensor.spec<@mesh, [R]>>, tensor<6x5xf32, #dtensor.spec<@mesh, [S(1)]>>)
      outs(%f : tensor<4x8x5xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<4x8x5xf32>
  %h = dtensor.hint %y, %mesh : tensor<4x8x5xf32>, !dtensor.device_mesh<@mesh> -> tensor<4x8x5xf32, #dtensor.spec<@mesh, [S(2)]>>
  return %h : tensor<4x8x5xf32, #dtensor.spec<@mesh, [S(2)]>>
}
