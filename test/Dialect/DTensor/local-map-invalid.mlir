// RUN: dtensor-opt %s -split-input-file -verify-diagnostics

dtensor.mesh @mesh shape = [2, 2]

func.func @needs_redistribute(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8x4xf32, #dtensor.spec<@mesh, [R, S(1)]>>) -> tensor<8x4xf32, #dtensor.spec<@mesh, [S(0), R]>> {
  // expected-error@+1 {{input 0 is 'tensor<8x4xf32, #dtensor.spec<@mesh, [R, S(1)]>>' but the region expects #dtensor.spec<@mesh, [S(0), R]>; redistribute it first or set redistribute_inputs}}
  %r = dtensor.local_map %x on %m : !dtensor.device_mesh<@mesh> in_specs = [#dtensor.spec<@mesh, [S(0), R]>] {
  ^bb0(%l: tensor<4x4xf32>):
    dtensor.yield %l : tensor<4x4xf32>
  } : (tensor<8x4xf32, #dtensor.spec<@mesh, [R, S(1)]>>) -> tensor<8x4xf32, #dtensor.spec<@mesh, [S(0), R]>>
  return %r : tensor<8x4xf32, #dtensor.spec<@mesh, [S(0), R]>>
}

// -----

dtensor.mesh @mesh shape = [2, 2]

func.func @count(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8x4xf32, #dtensor.spec<@mesh, [S(0), R]>>) -> tensor<8x4xf32, #dtensor.spec<@mesh, [S(0), R]>> {
  // expected-error@+1 {{has 1 input(s) but 2 in_specs; give one per input}}
  %r = dtensor.local_map %x on %m : !dtensor.device_mesh<@mesh> in_specs = [#dtensor.spec<@mesh, [S(0), R]>, #dtensor.spec<@mesh, [R, R]>] {
  ^bb0(%l: tensor<4x4xf32>):
    dtensor.yield %l : tensor<4x4xf32>
  } : (tensor<8x4xf32, #dtensor.spec<@mesh, [S(0), R]>>) -> tensor<8x4xf32, #dtensor.spec<@mesh, [S(0), R]>>
  return %r : tensor<8x4xf32, #dtensor.spec<@mesh, [S(0), R]>>
}

// -----

dtensor.mesh @mesh shape = [2, 2]

func.func @arg_type(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8x4xf32, #dtensor.spec<@mesh, [S(0), R]>>) -> tensor<8x4xf32, #dtensor.spec<@mesh, [S(0), R]>> {
  // expected-error@+1 {{body argument 0: local type 'tensor<8x4xf32>' cannot be a shard of 'tensor<8x4xf32, #dtensor.spec<@mesh, [S(0), R]>>': dim 0 has size 4 on every rank, not 8}}
  %r = dtensor.local_map %x on %m : !dtensor.device_mesh<@mesh> in_specs = [#dtensor.spec<@mesh, [S(0), R]>] {
  ^bb0(%l: tensor<8x4xf32>):
    %s = tensor.extract_slice %l[0, 0] [4, 4] [1, 1] : tensor<8x4xf32> to tensor<4x4xf32>
    dtensor.yield %s : tensor<4x4xf32>
  } : (tensor<8x4xf32, #dtensor.spec<@mesh, [S(0), R]>>) -> tensor<8x4xf32, #dtensor.spec<@mesh, [S(0), R]>>
  return %r : tensor<8x4xf32, #dtensor.spec<@mesh, [S(0), R]>>
}

// -----

dtensor.mesh @mesh shape = [2, 2]

func.func @yields(%m: !dtensor.device_mesh<@mesh>, %x: tensor<8x4xf32, #dtensor.spec<@mesh, [S(0), R]>>) -> tensor<8x4xf32, #dtensor.spec<@mesh, [S(0), R]>> {
  // expected-error@+1 {{body yields 2 value(s) for 1 result(s)}}
  %r = dtensor.local_map %x on %m : !dtensor.device_mesh<@mesh> in_specs = [#dtensor.spec<@mesh, [S(0), R]>] {
  ^bb0(%l: tensor<4x4xf32>):
    dtensor.yield %l, %l : tensor<4x4xf32>, tensor<4x4xf32>
  } : (tensor<8x4xf32, #dtensor.spec<@mesh, [S(0), R]>>) -> tensor<8x4xf32, #dtensor.spec<@mesh, [S(0), R]>>
  return %r : tensor<8x4xf32, #dtensor.spec<@mesh, [S(0), R]>>
}

// -----

dtensor.mesh @mesh shape = [2, 2]

func.func @yield_type(%m: !dtensor.device_mesh<@mesh>, %x: tensor<9x4xf32, #dtensor.spec<@mesh, [S(0), R]>>) -> tensor<9x4xf32, #dtensor.spec<@mesh, [S(0), R]>> {
  // expected-error@+1 {{yielded value 0: local type 'tensor<5x4xf32>' cannot be a shard of 'tensor<9x4xf32, #dtensor.spec<@mesh, [S(0), R]>>': dim 0 is sharded unevenly (shard sizes 4, 5), so it must be dynamic ('?') locally}}
  %r = dtensor.local_map %x on %m : !dtensor.device_mesh<@mesh> in_specs = [#dtensor.spec<@mesh, [S(0), R]>] {
  ^bb0(%l: tensor<?x4xf32>):
    %c = tensor.cast %l : tensor<?x4xf32> to tensor<5x4xf32>
    dtensor.yield %c : tensor<5x4xf32>
  } : (tensor<9x4xf32, #dtensor.spec<@mesh, [S(0), R]>>) -> tensor<9x4xf32, #dtensor.spec<@mesh, [S(0), R]>>
  return %r : tensor<9x4xf32, #dtensor.spec<@mesh, [S(0), R]>>
}

// -----

dtensor.mesh @world shape = [4]
dtensor.mesh @grid shape = [2, 2]

// An input on another mesh is seen in placements on its own mesh: in_specs
// on the handle's mesh would be a move between meshes.
func.func @other_mesh(%g: !dtensor.device_mesh<@grid>, %x: tensor<8x4xf32, #dtensor.spec<@world, [S(0)]>>) -> tensor<8x4xf32, #dtensor.spec<@grid, [S(0), R]>> {
  // expected-error@+1 {{in_specs entry 0 #dtensor.spec<@grid, [S(0), R]> is on another mesh view than input 0 'tensor<8x4xf32, #dtensor.spec<@world, [S(0)]>>'; give its placements on its own mesh (no redistribution moves a value between meshes)}}
  %r = dtensor.local_map %x on %g : !dtensor.device_mesh<@grid> in_specs = [#dtensor.spec<@grid, [S(0), R]>] {
  ^bb0(%l: tensor<4x4xf32>):
    dtensor.yield %l : tensor<4x4xf32>
  } : (tensor<8x4xf32, #dtensor.spec<@world, [S(0)]>>) -> tensor<8x4xf32, #dtensor.spec<@grid, [S(0), R]>>
  return %r : tensor<8x4xf32, #dtensor.spec<@grid, [S(0), R]>>
}
