// Element-wise kernels with an operand read across its rows
// (test/Target/Cpp/transposed-blocks.test): a host runs them in blocks of 16
// by 512 pairs. 37 x 1100 and 5 x 3: partial blocks along both indices, and
// a kernel smaller than one block.

dtensor.mesh @mesh shape = [2, 2] names = ["dp", "tp"]

#tr = affine_map<(i, j) -> (j, i)>
#id = affine_map<(i, j) -> (i, j)>

func.func @transpose_add(%m: !dtensor.device_mesh<@mesh>,
    %x: tensor<1100x37xf32, #dtensor.spec<@mesh, [R, R]>>,
    %y: tensor<37x1100xf32, #dtensor.spec<@mesh, [R, R]>>)
    -> tensor<37x1100xf32, #dtensor.spec<@mesh, [R, R]>> {
  %e = tensor.empty() : tensor<37x1100xf32>
  %r = linalg.generic {indexing_maps = [#tr, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %y : tensor<1100x37xf32, #dtensor.spec<@mesh, [R, R]>>, tensor<37x1100xf32, #dtensor.spec<@mesh, [R, R]>>)
      outs(%e : tensor<37x1100xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.subf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<37x1100xf32>
  %d = dtensor.distribute_tensor %r, %m : tensor<37x1100xf32>, !dtensor.device_mesh<@mesh> -> tensor<37x1100xf32, #dtensor.spec<@mesh, [R, R]>>
  return %d : tensor<37x1100xf32, #dtensor.spec<@mesh, [R, R]>>
}

func.func @transpose_small(%m: !dtensor.device_mesh<@mesh>,
    %x: tensor<3x5xi32, #dtensor.spec<@mesh, [R, R]>>)
    -> tensor<5x3xi32, #dtensor.spec<@mesh, [R, R]>> {
  %e = tensor.empty() : tensor<5x3xi32>
  %r = linalg.generic {indexing_maps = [#tr, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<3x5xi32, #dtensor.spec<@mesh, [R, R]>>) outs(%e : tensor<5x3xi32>) {
  ^bb0(%a: i32, %o: i32):
    linalg.yield %a : i32
  } -> tensor<5x3xi32>
  %d = dtensor.distribute_tensor %r, %m : tensor<5x3xi32>, !dtensor.device_mesh<@mesh> -> tensor<5x3xi32, #dtensor.spec<@mesh, [R, R]>>
  return %d : tensor<5x3xi32, #dtensor.spec<@mesh, [R, R]>>
}
