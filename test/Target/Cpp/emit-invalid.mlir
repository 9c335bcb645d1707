// RUN: dtensor-translate --dtensor-to-cpp --split-input-file --verify-diagnostics %s

// What the C++ emitter does not translate is an error at the op.

dtensor.mesh @mesh shape = [2]
// expected-error @+1 {{has a global-view (spec-typed) value: run --dtensor-compile (or --dtensor-partition) before emitting C++}}
func.func @global_view(%m: !dtensor.device_mesh<@mesh>, %x: tensor<4xf32, #dtensor.spec<@mesh, [S(0)]>>) -> tensor<4xf32, #dtensor.spec<@mesh, [R]>> {
  %r = dtensor.redistribute %x, %m : tensor<4xf32, #dtensor.spec<@mesh, [S(0)]>>, !dtensor.device_mesh<@mesh> -> tensor<4xf32, #dtensor.spec<@mesh, [R]>>
  return %r : tensor<4xf32, #dtensor.spec<@mesh, [R]>>
}

// -----

// expected-error @+1 {{uses element type 'f16', which the C++ emitter does not support yet}}
func.func @half(%x: tensor<4xf16>) -> tensor<4xf16> {
  %e = tensor.empty() : tensor<4xf16>
  return %e : tensor<4xf16>
}

// -----

// expected-error @+1 {{is external; the C++ emitter needs every function's body}}
func.func private @ext(tensor<4xf32>) -> tensor<4xf32>

// -----

func.func @scalar_entry(%x: f32) -> f32 {
  // expected-error @-1 {{entry argument 0 has type 'f32'; the generated driver reads tensor and mesh arguments only}}
  return %x : f32
}

// -----

dtensor.mesh @a shape = [2]
// expected-error @+1 {{has 4 ranks and another mesh has 2}}
dtensor.mesh @b shape = [4]
func.func @two_meshes(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// -----

dtensor.mesh @mesh shape = [2]
func.func @unlowered(%m: !dtensor.device_mesh<@mesh>, %x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{is a global-view op: run --dtensor-compile}}
  %d = dtensor.distribute_tensor %x, %m : tensor<4xf32>, !dtensor.device_mesh<@mesh> -> tensor<4xf32, #dtensor.spec<@mesh, [R]>>
  %l = dtensor.to_local %d : tensor<4xf32, #dtensor.spec<@mesh, [R]>> -> tensor<4xf32>
  return %l : tensor<4xf32>
}
