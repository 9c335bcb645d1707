// RUN: dtensor-opt %s --dtensor-propagate=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: dtensor-opt %s --dtensor-compile --dtensor-comm-report -o /dev/null 2>&1 | FileCheck %s --check-prefix=REPORT
// RUN: dtensor-opt %s --dtensor-compile=whole-function-ops=0 --dtensor-comm-report -o /dev/null 2>&1 | FileCheck %s --check-prefix=REPORT
// RUN: dtensor-run %s --entry p35 --verify --pipeline dtensor-compile --report | FileCheck %s --check-prefix=RAN

// When the whole-function solution is not kept, the plan is made again as
// it was kept. Here the plan kept is the one whose callee looks ahead at
// what its caller does with its result (the callee, called twice,
// all-reduces its sum once per call). The solution's analysis costs more,
// so the plan is made again: it was made with the callee deciding alone,
// which gathers and scatters (2 collectives, modeled 28.8 us per step
// against 15.6); the same plan as with whole-function-ops=0 now.
// (gen_compile_programs.py --reuse-callees 2x2 100 41, @p35.)
// EXPLAIN: dtensor-propagate: @p35: whole-function optimization (7 ops, 1 branch results, {{[0-9]+}} strategies, proven optimal in {{[0-9.]+}} s): modeled 1.56{{[0-9]+}}e+01 us, 320 bytes/rank; the plan 1.56{{[0-9]+}}e+01 us, 320 bytes/rank{{(; DTensor's eager choices .* bytes/rank \(the bytes bound\))?}}: kept the plan (the solution's analysis costs 2.28{{[0-9]+}}e+01 us against the plan's 1.56{{[0-9]+}}e+01 us)
// REPORT:      func @p35_f0: 1 collective, 160 bytes/rank
// REPORT-NEXT:   all_reduce      1  160 bytes
// REPORT:      func @p35: no collectives
// REPORT-NEXT:   modeled step: 15.6 us per rank
// RAN:      verified @p35: 1 output(s)
// RAN-NEXT: communication: 2 collectives, 320 bytes/rank
// RAN-NEXT:   all_reduce         2        320 bytes
dtensor.mesh @mesh shape = [2, 2] names = ["d0", "d1"]
func.func private @p35_f0(%m: !dtensor.device_mesh<@mesh>, %cx: tensor<8x5xf32>, %a3: tensor<8x5xf32, #dtensor.spec<@mesh, [P(sum), R]>>) -> tensor<8x5xf32> {
  %zero = arith.constant 0.0 : f32
  %v13 = math.tanh %cx : tensor<8x5xf32>
  %e15 = tensor.empty() : tensor<8x5xf32>
  %v14 = linalg.map { arith.addf } ins(%v13, %a3 : tensor<8x5xf32>, tensor<8x5xf32, #dtensor.spec<@mesh, [P(sum), R]>>) outs(%e15 : tensor<8x5xf32>)
  return %v14 : tensor<8x5xf32>
}
func.func @p35(%m: !dtensor.device_mesh<@mesh>, %flagin: tensor<1xf32>, %a0: tensor<8x5xf32, #dtensor.spec<@mesh, [R, R]>>, %a1: tensor<6x8xf32, #dtensor.spec<@mesh, [R, R]>>, %a2: tensor<5x5xf32, #dtensor.spec<@mesh, [R, S(0)]>>, %a3: tensor<8x5xf32, #dtensor.spec<@mesh, [P(sum), R]>>) -> tensor<8x5xf32, #dtensor.spec<@mesh, [S(1), R]>> {
  %zero = arith.constant 0.0 : f32
  %i0 = arith.constant 0 : index
  %fv = tensor.extract %flagin[%i0] : tensor<1xf32>
  %flag = arith.cmpf ogt, %fv, %zero : f32
  %y1 = scf.if %flag -> (tensor<8x5xf32>) {
    %e3 = tensor.empty() : tensor<8xf32>
    %z4 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<8xf32>) -> tensor<8xf32>
    %s5 = linalg.reduce ins(%a0 : tensor<8x5xf32, #dtensor.spec<@mesh, [R, R]>>) outs(%z4 : tensor<8xf32>) dimensions = [1]
    (%x: f32, %acc: f32) {
      %r = arith.addf %x, %acc : f32
      linalg.yield %r : f32
    }
    %e6 = tensor.empty() : tensor<8x5xf32>
    %v2 = linalg.broadcast ins(%s5 : tensor<8xf32>) outs(%e6 : tensor<8x5xf32>) dimensions = [1]
    %e8 = tensor.empty() : tensor<8x5xf32>
    %z9 = linalg.fill ins(%zero : f32) outs(%e8 : tensor<8x5xf32>) -> tensor<8x5xf32>
    %v7 = linalg.matmul ins(%v2, %a2 : tensor<8x5xf32>, tensor<5x5xf32, #dtensor.spec<@mesh, [R, S(0)]>>) outs(%z9 : tensor<8x5xf32>) -> tensor<8x5xf32>
    scf.yield %v7 : tensor<8x5xf32>
  } else {
    %e11 = tensor.empty() : tensor<8x5xf32>
    %v10 = linalg.softmax dimension(0) ins(%a0 : tensor<8x5xf32, #dtensor.spec<@mesh, [R, R]>>) outs(%e11 : tensor<8x5xf32>) -> tensor<8x5xf32>
    scf.yield %v10 : tensor<8x5xf32>
  }
  %e17 = tensor.empty() : tensor<8x5xf32>
  %v16 = linalg.negf ins(%a0 : tensor<8x5xf32, #dtensor.spec<@mesh, [R, R]>>) outs(%e17 : tensor<8x5xf32>) -> tensor<8x5xf32>
  %y12 = func.call @p35_f0(%m, %v16, %a3) : (!dtensor.device_mesh<@mesh>, tensor<8x5xf32>, tensor<8x5xf32, #dtensor.spec<@mesh, [P(sum), R]>>) -> tensor<8x5xf32>
  %y18 = func.call @p35_f0(%m, %y12, %a3) : (!dtensor.device_mesh<@mesh>, tensor<8x5xf32>, tensor<8x5xf32, #dtensor.spec<@mesh, [P(sum), R]>>) -> tensor<8x5xf32>
  %d19 = dtensor.distribute_tensor %y18, %m : tensor<8x5xf32>, !dtensor.device_mesh<@mesh> -> tensor<8x5xf32, #dtensor.spec<@mesh, [S(1), R]>>
  return %d19 : tensor<8x5xf32, #dtensor.spec<@mesh, [S(1), R]>>
}
