// RUN: dtensor-translate --dtensor-to-cpp --split-input-file %s | FileCheck %s

// The emitted code for every collective (synchronous and started), the
// queries, uneven (dynamic) shapes, a kernel and library calls.

dtensor.mesh @mesh shape = [2, 2] names = ["dp", "tp"]

// Groups split eagerly in first-use order, colors and keys from the core:
// the first group is over "tp": ranks {0,1} and {2,3}.
// CHECK: static const int64_t [[C0:kTable[0-9]+]][] = {0LL, 0LL, 1LL, 1LL};
// CHECK-NEXT: static const int64_t [[K0:kTable[0-9]+]][] = {0LL, 1LL, 0LL, 1LL};
// CHECK: static const int64_t [[PAIRS:kTable[0-9]+]][] = {0LL, 1LL, 1LL, 0LL};

// CHECK-LABEL: {{^\[\[maybe_unused\]\]}} static std::tuple<{{.*}}> f_collectives(
// CHECK-SAME:    rt::Mesh &[[M:v[0-9]+]], rt::Tensor [[X:v[0-9]+]])
// CHECK: rt::Tensor {{v[0-9]+}} = rt::allGather([[M]], 0, [[X]], 1, "dtensor.all_gather at {{.*}}emit.mlir{{.*}}:[[@LINE+11]]:8");
// CHECK: rt::Tensor {{v[0-9]+}} = rt::allReduce([[M]], 1, [[X]], rt::Reduction::Avg, "dtensor.all_reduce at
// CHECK: rt::Tensor {{v[0-9]+}} = rt::reduceScatter([[M]], 0, [[X]], 0, rt::Reduction::Max, "dtensor.reduce_scatter at
// CHECK: rt::Tensor {{v[0-9]+}} = rt::allToAll([[M]], 2, [[X]], 0, 1, "dtensor.all_to_all at
// CHECK: rt::Tensor {{v[0-9]+}} = rt::broadcast([[M]], 0, [[X]], 1, "dtensor.broadcast at
// CHECK: rt::Tensor {{v[0-9]+}} = rt::permute([[M]], 0, [[X]], [[PAIRS]], 2, "dtensor.permute at
// CHECK: rt::Future [[F:v[0-9]+]] = rt::allReduceStart([[M]], 0, rt::release([[X]]), rt::Reduction::Sum,
// CHECK: rt::Tensor {{v[0-9]+}} = [[F]].wait();
// CHECK: return {
func.func @collectives(%m: !dtensor.device_mesh<@mesh>, %x: tensor<4x4xf32>)
    -> (tensor<4x8xf32>, tensor<4x4xf32>, tensor<2x4xf32>, tensor<1x16xf32>, tensor<4x4xf32>, tensor<4x4xf32>) {
  %g = dtensor.all_gather %x, %m mesh_dims = [1] gather_dim = 1 : tensor<4x4xf32>, !dtensor.device_mesh<@mesh> -> tensor<4x8xf32>
  %r = dtensor.all_reduce %x, %m mesh_dims = [0] reduce = avg : tensor<4x4xf32>, !dtensor.device_mesh<@mesh> -> tensor<4x4xf32>
  %s = dtensor.reduce_scatter %x, %m mesh_dims = [1] scatter_dim = 0 reduce = max : tensor<4x4xf32>, !dtensor.device_mesh<@mesh> -> tensor<2x4xf32>
  %a = dtensor.all_to_all %x, %m mesh_dims = [1, 0] split_dim = 0 concat_dim = 1 : tensor<4x4xf32>, !dtensor.device_mesh<@mesh> -> tensor<1x16xf32>
  %b = dtensor.broadcast %x, %m mesh_dims = [1] root = 1 : tensor<4x4xf32>, !dtensor.device_mesh<@mesh> -> tensor<4x4xf32>
  %p = dtensor.permute %x, %m mesh_dims = [1] source_target_pairs = [0, 1, 1, 0] : tensor<4x4xf32>, !dtensor.device_mesh<@mesh> -> tensor<4x4xf32>
  %f = dtensor.all_reduce %x, %m mesh_dims = [1] reduce = sum : tensor<4x4xf32>, !dtensor.device_mesh<@mesh> -> !dtensor.future<tensor<4x4xf32>>
  %w = dtensor.wait %f : !dtensor.future<tensor<4x4xf32>>
  %sum = arith.addf %p, %w : tensor<4x4xf32>
  return %g, %r, %s, %a, %b, %sum : tensor<4x8xf32>, tensor<4x4xf32>, tensor<2x4xf32>, tensor<1x16xf32>, tensor<4x4xf32>, tensor<4x4xf32>
}
// CHECK-LABEL: int main(int argc, char **argv) {
// CHECK-NEXT:    rt::Session session(argc, argv, 4, {"collectives"});
// CHECK-NEXT:    rt::Mesh mesh_mesh(rt::Shape{2, 2});
// CHECK-NEXT:    mesh_mesh.addGroup([[C0]], [[K0]]);
// CHECK-NEXT:    mesh_mesh.addGroup(
// CHECK-NEXT:    mesh_mesh.addGroup(
// CHECK:         rt::Tensor a1 = session.input(1, a1_layout, rt::Shape{4, 4});
// CHECK:         session.output(5, std::get<5>(results));
// CHECK:         return session.finish();

// -----

// Queries become per-rank tables from the layout core: 9 rows as [S(0),
// S(0)] are 3, 2, 2, 2 rows at offsets 0, 3, 5, 7. An uneven argument's
// local type is dynamic where ranks differ, and main reads each rank's box.

dtensor.mesh @mesh shape = [2, 2]

// CHECK-DAG: static const int64_t [[SIZES:kTable[0-9]+]][] = {3LL, 2LL, 2LL, 2LL};
// CHECK-DAG: static const int64_t [[OFFS:kTable[0-9]+]][] = {0LL, 3LL, 5LL, 7LL};
// CHECK-DAG: static const int64_t [[COORD:kTable[0-9]+]][] = {0LL, 2LL, 1LL, 3LL};
// Boxes of the 9x4 argument, per rank: offsets then sizes.
// CHECK-DAG: static const int64_t [[BOX:kTable[0-9]+]][] = {0LL, 0LL, 3LL, 4LL, 3LL, 0LL, 2LL, 4LL, 5LL, 0LL, 2LL, 4LL, 7LL, 0LL, 2LL, 4LL};
// CHECK-LABEL: {{^\[\[maybe_unused\]\]}} static {{.*}} f_queries(
// CHECK: int64_t {{v[0-9]+}} = [[SIZES]][{{v[0-9]+}}.rank()];
// CHECK: int64_t {{v[0-9]+}} = [[OFFS]][{{v[0-9]+}}.rank()];
// CHECK: int64_t {{v[0-9]+}} = [[COORD]][{{v[0-9]+}}.rank()];
// CHECK: rt::Tensor {{v[0-9]+}} = rt::extractSlice(
// CHECK-LABEL: int main(
// CHECK: rt::InputLayout a1_layout{rt::DType::F32, rt::Shape{9, 4}, [[BOX]], 0,
// CHECK: rt::Tensor a1 = session.input(1, a1_layout, rt::Shape{-1, 4});
func.func @queries(%m: !dtensor.device_mesh<@mesh>,
                   %x: tensor<?x4xf32> {dtensor.global = tensor<9x4xf32, #dtensor.spec<@mesh, [S(0), S(0)]>>})
    -> (index, index, index, tensor<?x4xf32>) {
  %n = dtensor.shard_size %m mesh_dims = [0, 1] size = 9 : !dtensor.device_mesh<@mesh> -> index
  %o = dtensor.shard_offset %m mesh_dims = [0, 1] size = 9 : !dtensor.device_mesh<@mesh> -> index
  %c = dtensor.mesh_coord %m mesh_dims = [1, 0] : !dtensor.device_mesh<@mesh> -> index
  %c0 = arith.constant 0 : index
  %one = arith.constant 1 : index
  %k = arith.subi %n, %one : index
  %s = tensor.extract_slice %x[0, 0] [%k, 4] [1, 1] : tensor<?x4xf32> to tensor<?x4xf32>
  return %n, %o, %c, %s : index, index, index, tensor<?x4xf32>
}

// -----

// A Partial argument: DTensor's R -> P(sum) on floats divides by the
// partial group's size (mode 1, divisor 2).
dtensor.mesh @mesh shape = [2]

// CHECK-LABEL: int main(
// CHECK: rt::InputLayout a1_layout{rt::DType::F32, rt::Shape{4}, {{kTable[0-9]+}}, 1, double(0x1p+1), double(0x0p+0),
func.func @partial(%m: !dtensor.device_mesh<@mesh>,
                   %x: tensor<4xf32> {dtensor.global = tensor<4xf32, #dtensor.spec<@mesh, [P(sum)]>>})
    -> tensor<4xf32> {
  %r = dtensor.all_reduce %x, %m mesh_dims = [0] reduce = sum : tensor<4xf32>, !dtensor.device_mesh<@mesh> -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// A reduction kernel (one combining op of the accumulator and a term) goes
// through rt::reduce: a part function with the accumulator in a register,
// starting from the init (part 0) or the operation's identity, running the
// nested loops in order when there is one part (the host) and stepping by
// `parts` through the flattened nest otherwise (a GPU, for few outputs); the
// combining function; the store. Row sums read adjacent terms (Inner). The
// init is written in place when this is its last use.
#in = affine_map<(d0, d1) -> (d0, d1)>
#out = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: {{^\[\[maybe_unused\]\]}} static {{.*}} f_rowsum(
// CHECK: rt::Tensor [[R:v[0-9]+]] = rt::writable(std::move(
// CHECK: const int64_t nflat = 1 * n0;
// CHECK: const int64_t nterms = 1 * n1;
// CHECK: rt::reduce<float>(nflat, nterms, rt::ReduceLayout::Inner,
// CHECK:   DTENSOR_KERNEL(int64_t flat, int64_t part, int64_t parts) -> float {
// CHECK:     const int64_t i0 = flat % n0;
// CHECK:     float acc = part == 0 ? p1[0 + i0 * s1_0] : float(float(-0x0p+0));
// CHECK:     if (parts == 1) {
// CHECK:       for (int64_t i1 = 0; i1 < n1; ++i1) {
// CHECK:         float [[A:v[0-9]+]] = p0[0 + i0 * s0_0 + i1 * s0_1];
// CHECK:         float [[S:v[0-9]+]] = float([[A]] + acc);
// CHECK:         acc = [[S]];
// CHECK:       }
// CHECK:     } else if (nterms > 0) {
// CHECK:       int64_t i1 = rest;
// CHECK:       const int64_t d1 = step;
// CHECK:       for (int64_t t = part; t < nterms; t += parts) {
// CHECK:         float [[A2:v[0-9]+]] = p0[0 + i0 * s0_0 + i1 * s0_1];
// CHECK:         acc = {{v[0-9]+}};
// CHECK:         i1 += d1;
// CHECK:       }
// CHECK:     }
// CHECK:     return acc;
// CHECK:   },
// CHECK:   DTENSOR_KERNEL(float acc, float pv) -> float {
// CHECK:     float [[C:v[0-9]+]] = float(pv + acc);
// CHECK:     return [[C]];
// CHECK:   },
// CHECK:   DTENSOR_KERNEL(int64_t flat, float acc) {
// CHECK:     const int64_t i0 = flat % n0;
// CHECK:     p1[0 + i0 * s1_0] = acc;
// CHECK:   },
// A tile of outputs (a host runs their chains of adds side by side), each
// from its start and adding its terms in order.
// CHECK-NEXT:   DTENSOR_KERNEL(int64_t flat0, int64_t count, float *accs) {
// CHECK-NEXT:     for (int64_t k = 0; k < count; ++k) {
// CHECK-NEXT:       const int64_t i0 = flat0 + k;
// CHECK-NEXT:       accs[k] = p1[0 + i0 * s1_0];
// CHECK-NEXT:     }
// CHECK-NEXT:     for (int64_t i1 = 0; i1 < n1; ++i1) {
// CHECK-NEXT:       DTENSOR_RT_SIMD
// CHECK-NEXT:       for (int64_t k = 0; k < count; ++k) {
// CHECK-NEXT:         const int64_t i0 = flat0 + k;
// CHECK-NEXT:         float acc = accs[k];
// CHECK-NEXT:         float [[A3:v[0-9]+]] = p0[0 + i0 * s0_0 + i1 * s0_1];
// CHECK-NEXT:         float [[S3:v[0-9]+]] = float([[A3]] + acc);
// CHECK-NEXT:         acc = [[S3]];
// CHECK-NEXT:         accs[k] = acc;
// CHECK-NEXT:       }
// CHECK-NEXT:     }
// CHECK-NEXT:   });
func.func @rowsum(%x: tensor<4x8xf32>, %init: tensor<4xf32>) -> tensor<4xf32> {
  %r = linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x8xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// Column sums over two reduction loops: adjacent outputs are adjacent in
// memory (Outer). With several parts the loop indices advance by the digits
// of `parts` in the nest's mixed radix, with a carry.
#in3 = affine_map<(d0, d1, d2) -> (d1, d2, d0)>
#out3 = affine_map<(d0, d1, d2) -> (d0)>
// CHECK-LABEL: {{^\[\[maybe_unused\]\]}} static {{.*}} f_colsum(
// CHECK: const int64_t nflat = 1 * n0;
// CHECK: const int64_t nterms = 1 * n1 * n2;
// CHECK: rt::reduce<int32_t>(nflat, nterms, rt::ReduceLayout::Outer,
// CHECK:     int32_t acc = part == 0 ? p1[0 + i0 * s1_0] : int32_t(-2147483648LL);
// CHECK:     } else if (nterms > 0) {
// CHECK:       int64_t rest = part, step = parts;
// CHECK:       int64_t i2 = rest % n2;
// CHECK:       const int64_t d2 = step % n2;
// CHECK:       rest /= n2;
// CHECK:       step /= n2;
// CHECK:       int64_t i1 = rest;
// CHECK:       const int64_t d1 = step;
// CHECK:       for (int64_t t = part; t < nterms; t += parts) {
// CHECK:         int32_t {{v[0-9]+}} = p0[0 + i1 * s0_0 + i2 * s0_1 + i0 * s0_2];
// CHECK:         int64_t carry = 0;
// CHECK:         i2 += d2;
// CHECK:         carry = i2 >= n2;
// CHECK:         if (carry)
// CHECK:           i2 -= n2;
// CHECK:         i1 += d1 + carry;
// CHECK:   DTENSOR_KERNEL(int32_t acc, int32_t pv) -> int32_t {
// CHECK:     int32_t [[M:v[0-9]+]] = int32_t(std::max<int32_t>(pv, acc));
// One output loop: a tile of outputs, the reduction loops outside and the
// outputs inside (a host reads the input row by row), each output from the
// part function's start and in its order.
// CHECK:   DTENSOR_KERNEL(int64_t flat0, int64_t count, int32_t *accs) {
// CHECK-NEXT:     for (int64_t k = 0; k < count; ++k) {
// CHECK-NEXT:       const int64_t i0 = flat0 + k;
// CHECK-NEXT:       accs[k] = p1[0 + i0 * s1_0];
// CHECK-NEXT:     }
// CHECK-NEXT:     for (int64_t i1 = 0; i1 < n1; ++i1) {
// CHECK-NEXT:       for (int64_t i2 = 0; i2 < n2; ++i2) {
// CHECK-NEXT:         DTENSOR_RT_SIMD
// CHECK-NEXT:         for (int64_t k = 0; k < count; ++k) {
// CHECK-NEXT:           const int64_t i0 = flat0 + k;
// CHECK-NEXT:           int32_t acc = accs[k];
// CHECK-NEXT:           int32_t [[T:v[0-9]+]] = p0[0 + i1 * s0_0 + i2 * s0_1 + i0 * s0_2];
// CHECK-NEXT:           int32_t [[C:v[0-9]+]] = int32_t(std::max<int32_t>([[T]], acc));
// CHECK-NEXT:           acc = [[C]];
// CHECK-NEXT:           accs[k] = acc;
// CHECK-NEXT:         }
// CHECK-NEXT:       }
// CHECK-NEXT:     }
// CHECK-NEXT:   });
func.func @colsum(%x: tensor<3x5x4xi32>, %init: tensor<4xi32>) -> tensor<4xi32> {
  %r = linalg.generic {indexing_maps = [#in3, #out3], iterator_types = ["parallel", "reduction", "reduction"]}
      ins(%x : tensor<3x5x4xi32>) outs(%init : tensor<4xi32>) {
  ^bb0(%a: i32, %b: i32):
    %s = arith.maxsi %a, %b : i32
    linalg.yield %s : i32
  } -> tensor<4xi32>
  return %r : tensor<4xi32>
}

// -----

// Two output loops: the tile unflattens each output's indices once, into
// arrays the term loop reads.
#in4 = affine_map<(d0, d1, d2) -> (d0, d2, d1)>
#out4 = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: {{^\[\[maybe_unused\]\]}} static {{.*}} f_sum2(
// CHECK: rt::reduce<double>(nflat, nterms, rt::ReduceLayout::Outer,
// CHECK:   DTENSOR_KERNEL(int64_t flat0, int64_t count, double *accs) {
// CHECK-NEXT:     int64_t x0[rt::kReduceTile];
// CHECK-NEXT:     int64_t x1[rt::kReduceTile];
// CHECK-NEXT:     for (int64_t k = 0; k < count; ++k) {
// CHECK-NEXT:       int64_t flat = flat0 + k;
// CHECK-NEXT:       const int64_t i1 = flat % n1;
// CHECK-NEXT:       flat /= n1;
// CHECK-NEXT:       const int64_t i0 = flat % n0;
// CHECK-NEXT:       x0[k] = i0;
// CHECK-NEXT:       x1[k] = i1;
// CHECK-NEXT:       accs[k] = p1[0 + i0 * s1_0 + i1 * s1_1];
// CHECK-NEXT:     }
// CHECK-NEXT:     for (int64_t i2 = 0; i2 < n2; ++i2) {
// CHECK-NEXT:       DTENSOR_RT_SIMD
// CHECK-NEXT:       for (int64_t k = 0; k < count; ++k) {
// CHECK-NEXT:         const int64_t i0 = x0[k];
// CHECK-NEXT:         const int64_t i1 = x1[k];
// CHECK-NEXT:         double acc = accs[k];
// CHECK-NEXT:         double [[T:v[0-9]+]] = p0[0 + i0 * s0_0 + i2 * s0_1 + i1 * s0_2];
// CHECK-NEXT:         double [[C:v[0-9]+]] = double([[T]] + acc);
// CHECK-NEXT:         acc = [[C]];
// CHECK-NEXT:         accs[k] = acc;
// CHECK-NEXT:       }
// CHECK-NEXT:     }
// CHECK-NEXT:   });
func.func @sum2(%x: tensor<3x5x4xf64>, %init: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %r = linalg.generic {indexing_maps = [#in4, #out4], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x : tensor<3x5x4xf64>) outs(%init : tensor<3x4xf64>) {
  ^bb0(%a: f64, %b: f64):
    %s = arith.addf %a, %b : f64
    linalg.yield %s : f64
  } -> tensor<3x4xf64>
  return %r : tensor<3x4xf64>
}

// -----

// A reduction whose accumulator is read twice (not one combining op) keeps
// one thread per output, the reduction loop nested inside.
#in = affine_map<(d0, d1) -> (d0, d1)>
#out = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: {{^\[\[maybe_unused\]\]}} static {{.*}} f_unsplit(
// CHECK-NOT: rt::reduce<
// CHECK: rt::parallel_for2(nflat, n0, DTENSOR_KERNEL(int64_t flat, int64_t i0) {
// CHECK:     for (int64_t i1 = 0; i1 < n1; ++i1) {
// CHECK:       float [[B:v[0-9]+]] = p1[0 + i0 * s1_0];
// CHECK-LABEL: int main(
func.func @unsplit(%x: tensor<4x8xf32>, %init: tensor<4xf32>) -> tensor<4xf32> {
  %r = linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x8xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.mulf %b, %b : f32
    %t = arith.addf %a, %s : f32
    %u = arith.addf %t, %b : f32
    linalg.yield %u : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// Symbols that are not C++ identifiers are escaped, distinctly.
dtensor.mesh @"m-1" shape = [1]
// CHECK-LABEL: {{^\[\[maybe_unused\]\]}} static {{.*}} f_a__b_x2ec(
// CHECK-LABEL: int main(
// CHECK: rt::Mesh mesh_m_x2d1(rt::Shape{1});
// CHECK: if (entry == "a_b.c") {
func.func @"a_b.c"(%x: tensor<2xf32>) -> tensor<2xf32> {
  return %x : tensor<2xf32>
}

// -----

// An element-wise chain is fused: a producer used once is computed inside
// its consumer's body, in the same order. A producer that calls a math
// function stays its own kernel (a chain of such calls per element is
// latency-bound), so scale -> tanh -> scale is two kernels.
#id = affine_map<(d0) -> (d0)>
// CHECK-LABEL: {{^\[\[maybe_unused\]\]}} static {{.*}} f_chain(
// CHECK:     rt::parallel_for2(
// CHECK-NOT:   rt::parallel_for
// CHECK:       float [[A:v[0-9]+]] = float({{v[0-9]+}} * {{v[0-9]+}});
// CHECK-NEXT:  float {{v[0-9]+}} = float(std::tanh([[A]]));
// CHECK:     rt::parallel_for2(
// CHECK-NOT: rt::parallel_for
// CHECK-LABEL: int main(
func.func @chain(%x: tensor<8xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %c = arith.constant 2.0 : f32
    %r = arith.mulf %v, %c : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = math.tanh %v : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %d = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%b : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %c = arith.constant 3.0 : f32
    %r = arith.mulf %v, %c : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  return %d : tensor<8xf32>
}

// -----

// A tensor read by computed index inside a kernel (an embedding lookup): its
// data pointer and dims are read before the kernel, which captures plain
// values only (the same text is a CUDA device lambda).
// CHECK-LABEL: {{^\[\[maybe_unused\]\]}} static {{.*}} f_lookup(
// CHECK: const float *[[P:kv[0-9]+]] = v{{[0-9]+}}.data<float>();
// CHECK-NEXT: const int64_t [[P]]_d0 = v{{[0-9]+}}.dim(0);
// CHECK-NEXT: const int64_t [[P]]_d1 = v{{[0-9]+}}.dim(1);
// CHECK: rt::parallel_for2(nflat, n1, DTENSOR_KERNEL(int64_t flat, int64_t i1) {
// CHECK: float v{{[0-9]+}} = [[P]][((0) * [[P]]_d0 + v{{[0-9]+}}) * [[P]]_d1 + v{{[0-9]+}}];
func.func @lookup(%table: tensor<10x4xf32>, %ids: tensor<3xi64>) -> tensor<3x4xf32> {
  %e = tensor.empty() : tensor<3x4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%ids : tensor<3xi64>) outs(%e : tensor<3x4xf32>) {
  ^bb0(%id: i64, %o: f32):
    %row = arith.index_cast %id : i64 to index
    %col = linalg.index 1 : index
    %v = tensor.extract %table[%row, %col] : tensor<10x4xf32>
    linalg.yield %v : f32
  } -> tensor<3x4xf32>
  return %r : tensor<3x4xf32>
}

// -----

// Elements read and written by host code go through rt::load / rt::store
// (one element copied to or from the device in the CUDA flavours).
// CHECK-LABEL: {{^\[\[maybe_unused\]\]}} static {{.*}} f_scalar(
// CHECK: float [[X:v[0-9]+]] = rt::load<float>([[T:v[0-9]+]], (0) * [[T]].dim(0) + v{{[0-9]+}});
// CHECK: rt::store<float>([[U:v[0-9]+]], (0) * [[U]].dim(0) + v{{[0-9]+}}, v{{[0-9]+}});
// CHECK: rt::store<float>([[F:v[0-9]+]], 0, [[X]]);
// CHECK: rt::store<float>([[F]], 1, [[X]]);
func.func @scalar(%t: tensor<4xf32>) -> (tensor<4xf32>, tensor<2xf32>) {
  %i = arith.constant 1 : index
  %x = tensor.extract %t[%i] : tensor<4xf32>
  %y = arith.addf %x, %x : f32
  %u = tensor.insert %y into %t[%i] : tensor<4xf32>
  %f = tensor.from_elements %x, %x : tensor<2xf32>
  return %u, %f : tensor<4xf32>, tensor<2xf32>
}

// -----

// An operand read across its rows (a transpose) runs in blocks on a host
// (rt::parallel_for2_tiled); a broadcast (stride 0 along the inner index)
// and contiguous operands keep rt::parallel_for2.
// CHECK-LABEL: {{^\[\[maybe_unused\]\]}} static {{.*}} f_transposed(
// CHECK: rt::parallel_for2_tiled(nflat, n1, DTENSOR_KERNEL(int64_t flat, int64_t i1) {
// CHECK: float {{v[0-9]+}} = p0[0 + i1 * s0_0 + i0 * s0_1];
// CHECK-LABEL: {{^\[\[maybe_unused\]\]}} static {{.*}} f_broadcast(
// CHECK: rt::parallel_for2(nflat, n1, DTENSOR_KERNEL(int64_t flat, int64_t i1) {
func.func @transposed(%x: tensor<4x3xf32>) -> tensor<3x4xf32> {
  %e = tensor.empty() : tensor<3x4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (j, i)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x3xf32>) outs(%e : tensor<3x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<3x4xf32>
  return %r : tensor<3x4xf32>
}
func.func @broadcast(%x: tensor<3x4xf32>, %b: tensor<3xf32>) -> tensor<3x4xf32> {
  %e = tensor.empty() : tensor<3x4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x, %b : tensor<3x4xf32>, tensor<3xf32>) outs(%e : tensor<3x4xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<3x4xf32>
  return %r : tensor<3x4xf32>
}

// -----

// An i1 add / sub is an exclusive or, emitted as one: `a != a` (the same
// value twice) failed -Werror=tautological-compare in the project's builds.
func.func @bool_add(%x: tensor<4xi1>) -> tensor<4xi1> {
  %e = tensor.empty() : tensor<4xi1>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : tensor<4xi1>) outs(%e : tensor<4xi1>) {
  ^bb0(%a: i1, %o: i1):
    %s = arith.addi %a, %a : i1
    linalg.yield %s : i1
  } -> tensor<4xi1>
  return %r : tensor<4xi1>
}
// CHECK-LABEL: f_bool__add(rt::Tensor v0) {
// CHECK: bool [[V:v[0-9]+]] = bool([[A:v[0-9]+]] ^ [[A]]);
