// RUN: dtensor-opt %s --dtensor-print-layout -o /dev/null 2>&1 | FileCheck %s
// RUN: dtensor-opt %s --dtensor-print-layout=groups=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOGROUPS
// RUN: dtensor-opt %s --dtensor-print-layout | FileCheck %s --check-prefix=IR

// The printer leaves the IR alone.
// IR-LABEL: func.func @f
// IR: dtensor.to_local

dtensor.mesh @mesh shape = [2, 2] names = ["a", "b"]
dtensor.mesh @line shape = [4]

// CHECK:      mesh @mesh: shape 2x2, 4 ranks
// CHECK-NEXT:   groups of mesh dim 0 (a): {0, 2} {1, 3}
// CHECK-NEXT:   groups of mesh dim 1 (b): {0, 1} {2, 3}
// CHECK-NEXT: mesh @line: shape 4, 4 ranks
// CHECK-NEXT:   groups of mesh dim 0 (0): {0, 1, 2, 3}
// NOGROUPS:     mesh @mesh: shape 2x2, 4 ranks
// NOGROUPS-NOT: groups of mesh dim
// NOGROUPS:     mesh @line: shape 4, 4 ranks

// Nested sharding is not flat chunking: 9 rows as [S(0), S(0)] are
// 3, 2, 2, 2 at offsets 0, 3, 5, 7 (flat would be 3, 3, 3, 0).
// CHECK-LABEL: %arg0 : tensor<9x5xf32, #dtensor.spec<@mesh, [S(0), S(0)]>>
// CHECK-NEXT:  global 9x5, placements [S(0), S(0)]
// CHECK-NEXT:  rank  coord        local_shape    offset
// CHECK-NEXT:  0     (0, 0)       3x5            (0, 0)
// CHECK-NEXT:  1     (0, 1)       2x5            (3, 0)
// CHECK-NEXT:  2     (1, 0)       2x5            (5, 0)
// CHECK-NEXT:  3     (1, 1)       2x5            (7, 0)

// Mesh dim 1 first: chunk 9 over b (5 | 4), then over a.
// CHECK-LABEL: %arg1 : tensor<9x5xf32, #dtensor.spec<@mesh, [S(0)[1], S(0)[0]]>>
// CHECK:       0     (0, 0)       3x5            (0, 0)
// CHECK-NEXT:  1     (0, 1)       2x5            (5, 0)
// CHECK-NEXT:  2     (1, 0)       2x5            (3, 0)
// CHECK-NEXT:  3     (1, 1)       2x5            (7, 0)

// Empty shards report the global size as their offset.
// CHECK-LABEL: %arg2 : tensor<1x3xf32, #dtensor.spec<@line, [S(0)]>>
// CHECK:       0     (0)          1x3            (0, 0)
// CHECK-NEXT:  1     (1)          0x3            (1, 0)
// CHECK-NEXT:  2     (2)          0x3            (1, 0)
// CHECK-NEXT:  3     (3)          0x3            (1, 0)

// Replicate and Partial dims hold whole (current) tensors; negative dims
// are normalized.
// CHECK-LABEL: %arg3 : tensor<4x6xf32, #dtensor.spec<@mesh, [P(max), S(-1)]>>
// CHECK-NEXT:  global 4x6, placements [P(max), S(1)]
// CHECK:       0     (0, 0)       4x3            (0, 0)
// CHECK-NEXT:  1     (0, 1)       4x3            (0, 3)
// CHECK-NEXT:  2     (1, 0)       4x3            (0, 0)
// CHECK-NEXT:  3     (1, 1)       4x3            (0, 3)

// Op results are printed too, after the function's arguments.
// CHECK-LABEL: %0 (dtensor.redistribute) : tensor<9x5xf32, #dtensor.spec<@mesh, [R, S(1)]>>
// CHECK:       0     (0, 0)       9x3            (0, 0)
// CHECK-NEXT:  1     (0, 1)       9x2            (0, 3)

// Values without a spec are not printed.
// CHECK-NOT: tensor<3x5xf32>{{$}}
func.func @f(%arg0: tensor<9x5xf32, #dtensor.spec<@mesh, [S(0), S(0)]>>,
             %arg1: tensor<9x5xf32, #dtensor.spec<@mesh, [S(0)[1], S(0)[0]]>>,
             %arg2: tensor<1x3xf32, #dtensor.spec<@line, [S(0)]>>,
             %arg3: tensor<4x6xf32, #dtensor.spec<@mesh, [P(max), S(-1)]>>,
             %m: !dtensor.device_mesh<@mesh>) -> tensor<?x5xf32> {
  %r = dtensor.redistribute %arg0, %m
      : tensor<9x5xf32, #dtensor.spec<@mesh, [S(0), S(0)]>>, !dtensor.device_mesh<@mesh>
      -> tensor<9x5xf32, #dtensor.spec<@mesh, [R, S(1)]>>
  %l = dtensor.to_local %arg0 : tensor<9x5xf32, #dtensor.spec<@mesh, [S(0), S(0)]>> -> tensor<?x5xf32>
  return %l : tensor<?x5xf32>
}
