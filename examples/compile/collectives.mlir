// Programs whose collectives dtensor-optimize-collectives (in dtensor-compile)
// moves or merges; see test/examples/compile.test (OPT).
//
//   dtensor-run examples/compile/collectives.mlir --all-entries --verify --pipeline dtensor-compile --report

dtensor.mesh @mesh shape = [4] names = ["tp"]

#x = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
#id = affine_map<(i) -> (i)>

// A weight gathered inside a loop that does not change it: the all_gather
// runs once, before the loop, not ten times.
func.func @invariant_gather(%m: !dtensor.device_mesh<@mesh>,
                            %h0: tensor<8x8xf32, #dtensor.spec<@mesh, [R]>>,
                            %w: tensor<8x8xf32, #dtensor.spec<@mesh, [S(0)]>>)
    -> tensor<8x8xf32, #dtensor.spec<@mesh, [R]>> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c10 = arith.constant 10 : index
  %zero = arith.constant 0.0 : f32
  %r = scf.for %i = %c0 to %c10 step %c1 iter_args(%h = %h0) -> (tensor<8x8xf32, #dtensor.spec<@mesh, [R]>>) {
    %wr = dtensor.redistribute %w, %m
        : tensor<8x8xf32, #dtensor.spec<@mesh, [S(0)]>>, !dtensor.device_mesh<@mesh>
        -> tensor<8x8xf32, #dtensor.spec<@mesh, [R]>>
    %e = tensor.empty() : tensor<8x8xf32>
    %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
    %p = linalg.matmul ins(%h, %wr : tensor<8x8xf32, #dtensor.spec<@mesh, [R]>>, tensor<8x8xf32, #dtensor.spec<@mesh, [R]>>)
        outs(%z : tensor<8x8xf32>) -> tensor<8x8xf32>
    %t = math.tanh %p : tensor<8x8xf32>
    %n = dtensor.distribute_tensor %t, %m : tensor<8x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<8x8xf32, #dtensor.spec<@mesh, [R]>>
    scf.yield %n : tensor<8x8xf32, #dtensor.spec<@mesh, [R]>>
  }
  return %r : tensor<8x8xf32, #dtensor.spec<@mesh, [R]>>
}

// Vocab-parallel logits (columns sharded): the row max is computed twice
// (once to stabilise the softmax, once for the log-sum-exp), as a program
// traced op by op writes it. The two max reductions are one after CSE, and
// so are their all_reduces: 2 collectives (the max and the sum), not 3.
func.func @shared_max(%m: !dtensor.device_mesh<@mesh>,
                      %l: tensor<4x16xf32, #dtensor.spec<@mesh, [S(1)]>>)
    -> (tensor<4x16xf32, #dtensor.spec<@mesh, [S(1)]>>, tensor<4xf32, #dtensor.spec<@mesh, [R]>>) {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %er = tensor.empty() : tensor<4xf32>
  %ex = tensor.empty() : tensor<4x16xf32>
  %mi1 = linalg.fill ins(%ninf : f32) outs(%er : tensor<4xf32>) -> tensor<4xf32>
  %max1 = linalg.generic {indexing_maps = [#x, #row], iterator_types = ["parallel", "reduction"]}
      ins(%l : tensor<4x16xf32, #dtensor.spec<@mesh, [S(1)]>>) outs(%mi1 : tensor<4xf32>) {
  ^bb0(%a: f32, %c: f32):
    %r = arith.maximumf %c, %a : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %shifted = linalg.generic {indexing_maps = [#x, #row, #x], iterator_types = ["parallel", "parallel"]}
      ins(%l, %max1 : tensor<4x16xf32, #dtensor.spec<@mesh, [S(1)]>>, tensor<4xf32>) outs(%ex : tensor<4x16xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %d = arith.subf %a, %b : f32
    linalg.yield %d : f32
  } -> tensor<4x16xf32>
  // The log-sum-exp computes the max again.
  %mi2 = linalg.fill ins(%ninf : f32) outs(%er : tensor<4xf32>) -> tensor<4xf32>
  %max2 = linalg.generic {indexing_maps = [#x, #row], iterator_types = ["parallel", "reduction"]}
      ins(%l : tensor<4x16xf32, #dtensor.spec<@mesh, [S(1)]>>) outs(%mi2 : tensor<4xf32>) {
  ^bb0(%a: f32, %c: f32):
    %r = arith.maximumf %c, %a : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %zs = linalg.fill ins(%zero : f32) outs(%er : tensor<4xf32>) -> tensor<4xf32>
  %sum = linalg.generic {indexing_maps = [#x, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%l, %max2 : tensor<4x16xf32, #dtensor.spec<@mesh, [S(1)]>>, tensor<4xf32>) outs(%zs : tensor<4xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %d = arith.subf %a, %b : f32
    %e = math.exp %d : f32
    %s = arith.addf %c, %e : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %lse = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%sum, %max2 : tensor<4xf32>, tensor<4xf32>) outs(%er : tensor<4xf32>) {
  ^bb0(%s: f32, %mx: f32, %c: f32):
    %g = math.log %s : f32
    %r = arith.addf %g, %mx : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %sd = dtensor.distribute_tensor %shifted, %m : tensor<4x16xf32>, !dtensor.device_mesh<@mesh> -> tensor<4x16xf32, #dtensor.spec<@mesh, [S(1)]>>
  %ld = dtensor.distribute_tensor %lse, %m : tensor<4xf32>, !dtensor.device_mesh<@mesh> -> tensor<4xf32, #dtensor.spec<@mesh, [R]>>
  return %sd, %ld : tensor<4x16xf32, #dtensor.spec<@mesh, [S(1)]>>, tensor<4xf32, #dtensor.spec<@mesh, [R]>>
}
