// Integer reductions over a sharded dim: the accumulator's zero fill becomes
// P(sum), whose per-rank terms (0) are exact, so they compile (they were
// rejected as "would divide by the group size"). Exact on every rank.
// RUN: dtensor-run %s --all-entries --verify --pipeline dtensor-compile --report | FileCheck %s
// CHECK: verified @int_matmul_k: 1 output(s) of the compiled program match the original on 4 rank(s)
// CHECK-NEXT: communication: 1 collective
// CHECK-NEXT: all_reduce
// CHECK: verified @int_rowsum: 1 output(s) of the compiled program match the original on 4 rank(s)
// CHECK: verified 2 of 2 function(s)

dtensor.mesh @mesh shape = [2, 2] names = ["dp", "tp"]

func.func @int_matmul_k(%m: !dtensor.device_mesh<@mesh>,
                        %a: tensor<4x8xi32, #dtensor.spec<@mesh, [S(0), S(1)]>>,
                        %b: tensor<8x6xi32, #dtensor.spec<@mesh, [R, S(0)]>>)
    -> tensor<4x6xi32, #dtensor.spec<@mesh, [S(0), R]>> {
  %z = arith.constant 0 : i32
  %e = tensor.empty() : tensor<4x6xi32>
  %f = linalg.fill ins(%z : i32) outs(%e : tensor<4x6xi32>) -> tensor<4x6xi32>
  %c = linalg.matmul ins(%a, %b : tensor<4x8xi32, #dtensor.spec<@mesh, [S(0), S(1)]>>, tensor<8x6xi32, #dtensor.spec<@mesh, [R, S(0)]>>)
                     outs(%f : tensor<4x6xi32>) -> tensor<4x6xi32>
  %d = dtensor.distribute_tensor %c, %m : tensor<4x6xi32>, !dtensor.device_mesh<@mesh>
      -> tensor<4x6xi32, #dtensor.spec<@mesh, [S(0), R]>>
  return %d : tensor<4x6xi32, #dtensor.spec<@mesh, [S(0), R]>>
}

func.func @int_rowsum(%m: !dtensor.device_mesh<@mesh>,
                      %x: tensor<4x10xi64, #dtensor.spec<@mesh, [R, S(1)]>>)
    -> tensor<4xi64, #dtensor.spec<@mesh, [R, R]>> {
  %z = arith.constant 0 : i64
  %e = tensor.empty() : tensor<4xi64>
  %f = linalg.fill ins(%z : i64) outs(%e : tensor<4xi64>) -> tensor<4xi64>
  %s = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x10xi64, #dtensor.spec<@mesh, [R, S(1)]>>) outs(%f : tensor<4xi64>) {
  ^bb0(%v: i64, %acc: i64):
    %r = arith.addi %v, %acc : i64
    linalg.yield %r : i64
  } -> tensor<4xi64>
  %d = dtensor.distribute_tensor %s, %m : tensor<4xi64>, !dtensor.device_mesh<@mesh>
      -> tensor<4xi64, #dtensor.spec<@mesh, [R, R]>>
  return %d : tensor<4xi64, #dtensor.spec<@mesh, [R, R]>>
}
