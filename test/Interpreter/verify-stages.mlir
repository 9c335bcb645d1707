// --verify checks any pipeline stage (--compiled's help says so): a stage
// still in the global view (before dtensor-partition) takes the distributed
// arguments themselves and its outputs compare as logical values. It was
// given each rank's shard instead: full_tensor then read a distributed
// value's layout that was not there (a segmentation fault), and a propagated
// program "differed" from itself.
// RUN: dtensor-run %s --entry gather --verify --pipeline=canonicalize | FileCheck %s --check-prefix=GATHER
// RUN: dtensor-run %s --entry gather --verify --pipeline=dtensor-normalize-specs | FileCheck %s --check-prefix=GATHER
// RUN: dtensor-run %s --entry gather --verify --compiled=%s | FileCheck %s --check-prefix=GATHER
// RUN: dtensor-run %s --entry row_max --verify --pipeline=dtensor-normalize-specs,dtensor-propagate | FileCheck %s --check-prefix=ROWMAX
// RUN: dtensor-run %s --entry row_max --verify --pipeline=dtensor-normalize-specs,dtensor-propagate,dtensor-insert-redistribute | FileCheck %s --check-prefix=ROWMAX
// RUN: dtensor-run %s --entry row_max --verify | FileCheck %s --check-prefix=ROWMAX
// --pipeline in --pass-pipeline's form (the module's anchor) compiles; a
// module pass nested under func.func is an error (MLIR's parser aborted):
// RUN: dtensor-run %s --entry row_max --verify --pipeline='builtin.module(dtensor-compile)' | FileCheck %s --check-prefix=ROWMAX
// RUN: not dtensor-run %s --entry row_max --verify --pipeline='func.func(dtensor-compile)' 2>&1 | FileCheck %s --check-prefix=NEST
// NEST: error: --pipeline 'func.func(dtensor-compile)' is not a pass pipeline: 'dtensor-compile' runs on 'builtin.module' ops and cannot be nested in 'func.func(...)'
// A global-view stage cannot be emitted as C++ (a clear error, no crash):
// RUN: %if mpi %{ not dtensor-run %s --entry gather --verify --pipeline=canonicalize --target=mpi 2>&1 | FileCheck %s --check-prefix=EMIT %}

// GATHER: verified @gather: 1 output(s) of the compiled program match the original on 8 rank(s)
// ROWMAX: verified @row_max: 1 output(s) of the compiled program match the original on 8 rank(s)
// EMIT: error: 'func.func' op has a global-view (spec-typed) value

dtensor.mesh @m3 shape = [2, 2, 2]

func.func @gather(%mh: !dtensor.device_mesh<@m3>, %x: tensor<4xf32, #dtensor.spec<@m3, [S(0), R, S(0)]>>) -> tensor<4xf32> {
  %g = dtensor.full_tensor %x, %mh : tensor<4xf32, #dtensor.spec<@m3, [S(0), R, S(0)]>>, !dtensor.device_mesh<@m3> -> tensor<4xf32>
  return %g : tensor<4xf32>
}

func.func @row_max(%mh: !dtensor.device_mesh<@m3>, %x: tensor<5x3xf32, #dtensor.spec<@m3, [S(0), S(1), R]>>) -> tensor<5xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<5xf32>
  %z = linalg.fill ins(%ninf : f32) outs(%e : tensor<5xf32>) -> tensor<5xf32>
  %r = linalg.reduce ins(%x : tensor<5x3xf32, #dtensor.spec<@m3, [S(0), S(1), R]>>) outs(%z : tensor<5xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %s = arith.maximumf %in, %acc : f32
      linalg.yield %s : f32
    }
  %y = math.exp %r : tensor<5xf32>
  return %y : tensor<5xf32>
}
