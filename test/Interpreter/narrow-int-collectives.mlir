// RUN: dtensor-run %s --all-entries --print-values | FileCheck %s
// RUN: %if mpi %{ dtensor-run %s --all-entries --verify --target=mpi --quiet | FileCheck %s --check-prefix=MPI %}
// 8- and 16-bit integer sums and products over ranks wrap (two's
// complement, as arith.addi / muli). The MPI job saturated them: Open MPI
// 4.1's AVX reduction component gave 127 for an i8 100 + 100.
dtensor.mesh @mesh shape = [2] names = ["tp"]

func.func @i8_sum(%m: !dtensor.device_mesh<@mesh>) -> tensor<64xi8> {
  %c = arith.constant 100 : i8
  %x = tensor.splat %c : tensor<64xi8>
  %s = dtensor.all_reduce %x, %m mesh_dims = [0] reduce = sum : tensor<64xi8>, !dtensor.device_mesh<@mesh> -> tensor<64xi8>
  return %s : tensor<64xi8>
}
// CHECK-LABEL: ran @i8_sum
// CHECK: [-56, -56,

func.func @i16_sum(%m: !dtensor.device_mesh<@mesh>) -> tensor<64xi16> {
  %c = arith.constant 20000 : i16
  %x = tensor.splat %c : tensor<64xi16>
  %s = dtensor.all_reduce %x, %m mesh_dims = [0] reduce = sum : tensor<64xi16>, !dtensor.device_mesh<@mesh> -> tensor<64xi16>
  return %s : tensor<64xi16>
}
// CHECK-LABEL: ran @i16_sum
// CHECK: [-25536, -25536,

func.func @i8_reduce_scatter(%m: !dtensor.device_mesh<@mesh>) -> tensor<32xi8> {
  %c = arith.constant -100 : i8
  %x = tensor.splat %c : tensor<64xi8>
  %s = dtensor.reduce_scatter %x, %m mesh_dims = [0] scatter_dim = 0 reduce = sum : tensor<64xi8>, !dtensor.device_mesh<@mesh> -> tensor<32xi8>
  return %s : tensor<32xi8>
}
// CHECK-LABEL: ran @i8_reduce_scatter
// CHECK: [56, 56,

func.func @i8_product(%m: !dtensor.device_mesh<@mesh>) -> tensor<64xi8> {
  %c = arith.constant 100 : i8
  %x = tensor.splat %c : tensor<64xi8>
  %s = dtensor.all_reduce %x, %m mesh_dims = [0] reduce = product : tensor<64xi8>, !dtensor.device_mesh<@mesh> -> tensor<64xi8>
  return %s : tensor<64xi8>
}
// CHECK-LABEL: ran @i8_product
// CHECK: [16, 16,

// MPI: verified 4 of 4 function(s)
