// Ranks on threads (--rank-threads) compute exactly what one thread does, and
// an error some ranks hit is reported as a serial run reports it: once, at
// the lowest such rank.
//
// RUN: rm -rf %t && mkdir -p %t/one %t/four
// RUN: dtensor-run %s --entry tp_block --rank-threads 1 --output-dir %t/one --quiet
// RUN: dtensor-run %s --entry tp_block --rank-threads 4 --output-dir %t/four --quiet
// RUN: cmp %t/one/out0.rank0.npy %t/four/out0.rank0.npy
// RUN: cmp %t/one/out0.rank3.npy %t/four/out0.rank3.npy
// RUN: cmp %t/one/out1.rank2.npy %t/four/out1.rank2.npy
// RUN: not dtensor-run %s --entry out_of_bounds --rank-threads 4 2>&1 | FileCheck %s --check-prefix=OOB --implicit-check-not=error:
// RUN: not dtensor-run %s --entry out_of_bounds --rank-threads 1 2>&1 | FileCheck %s --check-prefix=OOB --implicit-check-not=error:

dtensor.mesh @mesh shape = [4] names = ["tp"]

#id = affine_map<(d0, d1) -> (d0, d1)>

// Every rank's shards differ, so every rank runs every op; the tensors are
// large enough (>= 16K elements) that their ranks run on threads; the
// reduction sums chunks of elements on threads.
func.func @tp_block(%m: !dtensor.device_mesh<@mesh>, %x: tensor<128x256xf32>,
                    %w1: tensor<256x64xf32>, %w2: tensor<64x256xf32>)
    -> (tensor<128x256xf32>, tensor<128x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %r = dtensor.mesh_coord %m mesh_dims = [0] : !dtensor.device_mesh<@mesh> -> index
  %ri = arith.index_cast %r : index to i64
  %rf = arith.sitofp %ri : i64 to f32
  %s1 = tensor.splat %rf : tensor<256x64xf32>
  %w1r = arith.addf %w1, %s1 : tensor<256x64xf32>
  %e = tensor.empty() : tensor<128x64xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<128x64xf32>) -> tensor<128x64xf32>
  %a = linalg.matmul ins(%x, %w1r : tensor<128x256xf32>, tensor<256x64xf32>) outs(%z : tensor<128x64xf32>) -> tensor<128x64xf32>
  %g = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<128x64xf32>) outs(%e : tensor<128x64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %t = math.tanh %v : f32
    linalg.yield %t : f32
  } -> tensor<128x64xf32>
  %f = tensor.empty() : tensor<128x256xf32>
  %y = linalg.fill ins(%zero : f32) outs(%f : tensor<128x256xf32>) -> tensor<128x256xf32>
  %p = linalg.matmul ins(%g, %w2 : tensor<128x64xf32>, tensor<64x256xf32>) outs(%y : tensor<128x256xf32>) -> tensor<128x256xf32>
  %h = dtensor.all_reduce %p, %m mesh_dims = [0] reduce = sum : tensor<128x256xf32>, !dtensor.device_mesh<@mesh> -> tensor<128x256xf32>
  return %h, %g : tensor<128x256xf32>, tensor<128x64xf32>
}

// Ranks 2 and 3 read the table out of bounds (at 8 and 12); the error names
// rank 2 only, whichever thread finished first.
// OOB: error: 'linalg.generic' op reads a tensor out of bounds with tensor.extract in its body on rank 2
func.func @out_of_bounds(%m: !dtensor.device_mesh<@mesh>, %table: tensor<8xf32>)
    -> tensor<128x128xf32> {
  %c4 = arith.constant 4 : index
  %r = dtensor.mesh_coord %m mesh_dims = [0] : !dtensor.device_mesh<@mesh> -> index
  %i = arith.muli %r, %c4 : index
  %e = tensor.empty() : tensor<128x128xf32>
  %g = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]}
      outs(%e : tensor<128x128xf32>) {
  ^bb0(%o: f32):
    %v = tensor.extract %table[%i] : tensor<8xf32>
    linalg.yield %v : f32
  } -> tensor<128x128xf32>
  return %g : tensor<128x128xf32>
}
