// RUN: dtensor-run %s --all-entries --verify --pipeline dtensor-compile --report | FileCheck %s
// RUN: dtensor-run %s --entry loss_parallel --verify --pipeline "dtensor-compile{overlap=1}" --report | FileCheck %s --check-prefix=OVERLAP
// RUN: dtensor-run %s --entry loss_parallel --verify --pipeline "dtensor-compile{bucket-bytes=0}" --report | FileCheck %s --check-prefix=APART

// DTensor's loss-parallel pattern on a 2x2 mesh (batch over dp,
// vocabulary over tp): a vocab-parallel embedding (MaskPartial), an LM
// head sharded by vocabulary rows (logits vocab-sharded), and a
// cross-entropy computed on the sharded logits: each statistic (row max,
// sum of exponentials, the label's logit) reduced over tp once, as
// DTensor's loss_parallel does, and the mean over dp. Checked on every
// rank against the global program; 8192-word vocabulary, so gathering the
// logits would cost 256 KB per rank.

// The sum of exponentials and the label's logit, both sums over tp, share
// one all_reduce (a bucket: dtensor-bucket-collectives); 5 without.
// CHECK:      verified @loss_parallel: 1 output(s)
// CHECK-NEXT: communication: 4 collectives, 1076 bytes/rank
// CHECK-NEXT:   all_reduce         4       1076 bytes  mesh dims ["tp"], ["dp"]

// APART:      verified @loss_parallel: 1 output(s)
// APART-NEXT: communication: 5 collectives, 1076 bytes/rank

// The same with overlap=1.
// OVERLAP:      verified @loss_parallel: 1 output(s)
// OVERLAP-NEXT: communication: 4 collectives, 1076 bytes/rank

// The label's logit read by `tensor.extract %logits[b, label]` (the form a
// gather or nll_loss takes) gives the same plan: the logits stay split over
// dp with the loop over b (aligned-table.mlir), and over tp each rank looks
// the label up where it holds it (dtensor-mask-lookups).
// CHECK:      verified @loss_parallel_gather: 1 output(s)
// CHECK-NEXT: communication: 4 collectives, 1076 bytes/rank

dtensor.mesh @mesh shape = [2, 2] names = ["dp", "tp"]

#b = affine_map<(b, v) -> (b)>
#bv = affine_map<(b, v) -> (b, v)>
#x = affine_map<(b, v, d) -> (b, d)>
#w = affine_map<(b, v, d) -> (v, d)>
#y = affine_map<(b, v, d) -> (b, v)>

func.func @loss_parallel(%m: !dtensor.device_mesh<@mesh>,
    %table: tensor<8192x64xf32, #dtensor.spec<@mesh, [R, S(0)]>>,
    %head: tensor<8192x64xf32, #dtensor.spec<@mesh, [R, S(0)]>>,
    %ids: tensor<8xi64, #dtensor.spec<@mesh, [S(0), R]>>,
    %labels: tensor<8xi64, #dtensor.spec<@mesh, [S(0), R]>>) -> tensor<f32> {
  %c64 = arith.constant 8192 : i64
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  // Embedding lookup.
  %e = tensor.empty() : tensor<8x64xf32>
  %emb = linalg.generic {indexing_maps = [#b, #bv], iterator_types = ["parallel", "parallel"]}
      ins(%ids : tensor<8xi64, #dtensor.spec<@mesh, [S(0), R]>>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%id: i64, %o: f32):
    %m0 = arith.remsi %id, %c64 : i64
    %m1 = arith.addi %m0, %c64 : i64
    %m2 = arith.remsi %m1, %c64 : i64
    %row = arith.index_cast %m2 : i64 to index
    %col = linalg.index 1 : index
    %v = tensor.extract %table[%row, %col] : tensor<8192x64xf32, #dtensor.spec<@mesh, [R, S(0)]>>
    linalg.yield %v : f32
  } -> tensor<8x64xf32>
  // LM head: logits = emb @ head^T, vocab-sharded.
  %le = tensor.empty() : tensor<8x8192xf32>
  %lz = linalg.fill ins(%zero : f32) outs(%le : tensor<8x8192xf32>) -> tensor<8x8192xf32>
  %logits = linalg.matmul indexing_maps = [#x, #w, #y]
      ins(%emb, %head : tensor<8x64xf32>, tensor<8192x64xf32, #dtensor.spec<@mesh, [R, S(0)]>>)
      outs(%lz : tensor<8x8192xf32>) -> tensor<8x8192xf32>
  // Row max.
  %me = tensor.empty() : tensor<8xf32>
  %mi = linalg.fill ins(%ninf : f32) outs(%me : tensor<8xf32>) -> tensor<8xf32>
  %max = linalg.generic {indexing_maps = [#bv, #b], iterator_types = ["parallel", "reduction"]}
      ins(%logits : tensor<8x8192xf32>) outs(%mi : tensor<8xf32>) {
  ^bb0(%l: f32, %acc: f32):
    %r = arith.maximumf %acc, %l : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  // Sum of exp(logit - max).
  %si = linalg.fill ins(%zero : f32) outs(%me : tensor<8xf32>) -> tensor<8xf32>
  %sum = linalg.generic {indexing_maps = [#bv, #b, #b], iterator_types = ["parallel", "reduction"]}
      ins(%logits, %max : tensor<8x8192xf32>, tensor<8xf32>) outs(%si : tensor<8xf32>) {
  ^bb0(%l: f32, %mx: f32, %acc: f32):
    %d = arith.subf %l, %mx : f32
    %x = math.exp %d : f32
    %r = arith.addf %acc, %x : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  // The label's logit: the sum over the vocabulary of (v == label ? logit : 0),
  // exact (one term is the logit, the others +0).
  %ti = linalg.fill ins(%zero : f32) outs(%me : tensor<8xf32>) -> tensor<8xf32>
  %target = linalg.generic {indexing_maps = [#bv, #b, #b], iterator_types = ["parallel", "reduction"]}
      ins(%logits, %labels : tensor<8x8192xf32>, tensor<8xi64, #dtensor.spec<@mesh, [S(0), R]>>) outs(%ti : tensor<8xf32>) {
  ^bb0(%l: f32, %lab: i64, %acc: f32):
    %v = linalg.index 1 : index
    %vi = arith.index_cast %v : index to i64
    %m0 = arith.remsi %lab, %c64 : i64
    %m1 = arith.addi %m0, %c64 : i64
    %m2 = arith.remsi %m1, %c64 : i64
    %hit = arith.cmpi eq, %vi, %m2 : i64
    %t = arith.select %hit, %l, %zero : f32
    %r = arith.addf %acc, %t : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  // loss = mean(log(sum) + max - target).
  %s0 = tensor.empty() : tensor<f32>
  %l0 = linalg.fill ins(%zero : f32) outs(%s0 : tensor<f32>) -> tensor<f32>
  %loss = linalg.generic {indexing_maps = [affine_map<(b) -> (b)>, affine_map<(b) -> (b)>, affine_map<(b) -> (b)>, affine_map<(b) -> ()>], iterator_types = ["reduction"]}
      ins(%sum, %max, %target : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) outs(%l0 : tensor<f32>) {
  ^bb0(%s: f32, %mx: f32, %t: f32, %acc: f32):
    %ls = math.log %s : f32
    %a = arith.addf %ls, %mx : f32
    %d = arith.subf %a, %t : f32
    %n = arith.constant 0.125 : f32
    %dn = arith.mulf %d, %n : f32
    %r = arith.addf %acc, %dn : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  return %loss : tensor<f32>
}

func.func @loss_parallel_gather(%m: !dtensor.device_mesh<@mesh>,
    %table: tensor<8192x64xf32, #dtensor.spec<@mesh, [R, S(0)]>>,
    %head: tensor<8192x64xf32, #dtensor.spec<@mesh, [R, S(0)]>>,
    %ids: tensor<8xi64, #dtensor.spec<@mesh, [S(0), R]>>,
    %labels: tensor<8xi64, #dtensor.spec<@mesh, [S(0), R]>>) -> tensor<f32> {
  %c64 = arith.constant 8192 : i64
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  // Embedding lookup.
  %e = tensor.empty() : tensor<8x64xf32>
  %emb = linalg.generic {indexing_maps = [#b, #bv], iterator_types = ["parallel", "parallel"]}
      ins(%ids : tensor<8xi64, #dtensor.spec<@mesh, [S(0), R]>>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%id: i64, %o: f32):
    %m0 = arith.remsi %id, %c64 : i64
    %m1 = arith.addi %m0, %c64 : i64
    %m2 = arith.remsi %m1, %c64 : i64
    %row = arith.index_cast %m2 : i64 to index
    %col = linalg.index 1 : index
    %v = tensor.extract %table[%row, %col] : tensor<8192x64xf32, #dtensor.spec<@mesh, [R, S(0)]>>
    linalg.yield %v : f32
  } -> tensor<8x64xf32>
  // LM head: logits = emb @ head^T, vocab-sharded.
  %le = tensor.empty() : tensor<8x8192xf32>
  %lz = linalg.fill ins(%zero : f32) outs(%le : tensor<8x8192xf32>) -> tensor<8x8192xf32>
  %logits = linalg.matmul indexing_maps = [#x, #w, #y]
      ins(%emb, %head : tensor<8x64xf32>, tensor<8192x64xf32, #dtensor.spec<@mesh, [R, S(0)]>>)
      outs(%lz : tensor<8x8192xf32>) -> tensor<8x8192xf32>
  // Row max.
  %me = tensor.empty() : tensor<8xf32>
  %mi = linalg.fill ins(%ninf : f32) outs(%me : tensor<8xf32>) -> tensor<8xf32>
  %max = linalg.generic {indexing_maps = [#bv, #b], iterator_types = ["parallel", "reduction"]}
      ins(%logits : tensor<8x8192xf32>) outs(%mi : tensor<8xf32>) {
  ^bb0(%l: f32, %acc: f32):
    %r = arith.maximumf %acc, %l : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  // Sum of exp(logit - max).
  %si = linalg.fill ins(%zero : f32) outs(%me : tensor<8xf32>) -> tensor<8xf32>
  %sum = linalg.generic {indexing_maps = [#bv, #b, #b], iterator_types = ["parallel", "reduction"]}
      ins(%logits, %max : tensor<8x8192xf32>, tensor<8xf32>) outs(%si : tensor<8xf32>) {
  ^bb0(%l: f32, %mx: f32, %acc: f32):
    %d = arith.subf %l, %mx : f32
    %x = math.exp %d : f32
    %r = arith.addf %acc, %x : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  // The label's logit.
  %te = tensor.empty() : tensor<8xf32>
  %target = linalg.generic {indexing_maps = [affine_map<(b) -> (b)>, affine_map<(b) -> (b)>], iterator_types = ["parallel"]}
      ins(%labels : tensor<8xi64, #dtensor.spec<@mesh, [S(0), R]>>) outs(%te : tensor<8xf32>) {
  ^bb0(%lab: i64, %o: f32):
    %m0 = arith.remsi %lab, %c64 : i64
    %m1 = arith.addi %m0, %c64 : i64
    %m2 = arith.remsi %m1, %c64 : i64
    %col = arith.index_cast %m2 : i64 to index
    %row = linalg.index 0 : index
    %v = tensor.extract %logits[%row, %col] : tensor<8x8192xf32>
    linalg.yield %v : f32
  } -> tensor<8xf32>
  // loss = mean(log(sum) + max - target).
  %s0 = tensor.empty() : tensor<f32>
  %l0 = linalg.fill ins(%zero : f32) outs(%s0 : tensor<f32>) -> tensor<f32>
  %loss = linalg.generic {indexing_maps = [affine_map<(b) -> (b)>, affine_map<(b) -> (b)>, affine_map<(b) -> (b)>, affine_map<(b) -> ()>], iterator_types = ["reduction"]}
      ins(%sum, %max, %target : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) outs(%l0 : tensor<f32>) {
  ^bb0(%s: f32, %mx: f32, %t: f32, %acc: f32):
    %ls = math.log %s : f32
    %a = arith.addf %ls, %mx : f32
    %d = arith.subf %a, %t : f32
    %n = arith.constant 0.125 : f32
    %dn = arith.mulf %d, %n : f32
    %r = arith.addf %acc, %dn : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  return %loss : tensor<f32>
}
