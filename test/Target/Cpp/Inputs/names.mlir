// Symbols that are not C++ identifiers (quoted MLIR names, '.', '-', '_').
dtensor.mesh @"my mesh-1" shape = [2]

func.func private @"helper.v2"(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = arith.addf %x, %x : tensor<4xf32>
  return %y : tensor<4xf32>
}

func.func @"main_entry.x"(%m: !dtensor.device_mesh<@"my mesh-1">,
    %x: tensor<4xf32, #dtensor.spec<@"my mesh-1", [S(0)]>>)
    -> tensor<4xf32, #dtensor.spec<@"my mesh-1", [R]>> {
  %r = dtensor.redistribute %x, %m : tensor<4xf32, #dtensor.spec<@"my mesh-1", [S(0)]>>, !dtensor.device_mesh<@"my mesh-1"> -> tensor<4xf32, #dtensor.spec<@"my mesh-1", [R]>>
  %l = dtensor.to_local %r : tensor<4xf32, #dtensor.spec<@"my mesh-1", [R]>> -> tensor<4xf32>
  %h = func.call @"helper.v2"(%l) : (tensor<4xf32>) -> tensor<4xf32>
  %d = dtensor.distribute_tensor %h, %m : tensor<4xf32>, !dtensor.device_mesh<@"my mesh-1"> -> tensor<4xf32, #dtensor.spec<@"my mesh-1", [R]>>
  return %d : tensor<4xf32, #dtensor.spec<@"my mesh-1", [R]>>
}
