// Specs inferred across boundaries that carry none: loop-carried values
// (scf.for, scf.while), branch results (scf.if) and a private function's
// arguments and results. Each function is verified on every rank against
// the global program (test/examples/compile.test).
//
//   dtensor-run examples/compile/inferred.mlir --all-entries --verify --pipeline dtensor-compile --report

dtensor.mesh @mesh shape = [2, 2] names = ["dp", "tp"]

// An accumulator that starts plain (a fill) and is added to a batch-sharded
// product every iteration: the loop carries it batch-sharded (the fill is
// made in shards once, before the loop), and only the plain result is
// gathered at the end.
func.func @accumulate(%m: !dtensor.device_mesh<@mesh>,
    %x: tensor<8x16xf32, #dtensor.spec<@mesh, [S(0), R]>>,
    %w: tensor<16x16xf32, #dtensor.spec<@mesh, [R, R]>>) -> tensor<8x16xf32> {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x16xf32>
  %acc0 = linalg.fill ins(%zero : f32) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%acc = %acc0) -> (tensor<8x16xf32>) {
    %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
    %p = linalg.matmul ins(%x, %w : tensor<8x16xf32, #dtensor.spec<@mesh, [S(0), R]>>, tensor<16x16xf32, #dtensor.spec<@mesh, [R, R]>>) outs(%z : tensor<8x16xf32>) -> tensor<8x16xf32>
    %t = math.tanh %p : tensor<8x16xf32>
    %n = arith.addf %acc, %t : tensor<8x16xf32>
    scf.yield %n : tensor<8x16xf32>
  }
  return %r : tensor<8x16xf32>
}

// A while loop carrying a counter and a plain tensor through a
// column-parallel / row-parallel pair. The carried tensor comes out of the
// row-parallel matmul as partial sums, so the loop carries it Partial: the
// next iteration's column-parallel matmul is linear in it and keeps it
// Partial until the tanh, which needs it whole (one all_reduce per
// iteration, as in Megatron), and the result is reduced once at the end.
func.func @while_mlp(%m: !dtensor.device_mesh<@mesh>,
    %x: tensor<4x8xf32, #dtensor.spec<@mesh, [S(0), R]>>,
    %w1: tensor<8x16xf32, #dtensor.spec<@mesh, [R, S(1)]>>,
    %w2: tensor<16x8xf32, #dtensor.spec<@mesh, [R, S(0)]>>) -> tensor<4x8xf32> {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<4x8xf32>
  %x0 = linalg.copy ins(%x : tensor<4x8xf32, #dtensor.spec<@mesh, [S(0), R]>>) outs(%e0 : tensor<4x8xf32>) -> tensor<4x8xf32>
  %res:2 = scf.while (%i = %c0, %h = %x0) : (i32, tensor<4x8xf32>) -> (i32, tensor<4x8xf32>) {
    %go = arith.cmpi slt, %i, %c2 : i32
    scf.condition(%go) %i, %h : i32, tensor<4x8xf32>
  } do {
  ^bb0(%j: i32, %g: tensor<4x8xf32>):
    %e1 = tensor.empty() : tensor<4x16xf32>
    %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4x16xf32>) -> tensor<4x16xf32>
    %a = linalg.matmul ins(%g, %w1 : tensor<4x8xf32>, tensor<8x16xf32, #dtensor.spec<@mesh, [R, S(1)]>>) outs(%z1 : tensor<4x16xf32>) -> tensor<4x16xf32>
    %t = math.tanh %a : tensor<4x16xf32>
    %e2 = tensor.empty() : tensor<4x8xf32>
    %z2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<4x8xf32>) -> tensor<4x8xf32>
    %b = linalg.matmul ins(%t, %w2 : tensor<4x16xf32>, tensor<16x8xf32, #dtensor.spec<@mesh, [R, S(0)]>>) outs(%z2 : tensor<4x8xf32>) -> tensor<4x8xf32>
    %k = arith.addi %j, %c1 : i32
    scf.yield %k, %b : i32, tensor<4x8xf32>
  }
  return %res#1 : tensor<4x8xf32>
}

// A branch whose two sides compute differently sharded values (copies of
// a row-sharded and a column-sharded input): either side's spec costs the
// other one move of the same size, so the result takes the first side's
// spec on this tie, and the other side is redistributed at its yield.
func.func @branch(%m: !dtensor.device_mesh<@mesh>, %c: tensor<1xf32>,
    %a: tensor<8x8xf32, #dtensor.spec<@mesh, [S(0), R]>>,
    %b: tensor<8x8xf32, #dtensor.spec<@mesh, [R, S(1)]>>) -> tensor<8x8xf32> {
  %i0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %v = tensor.extract %c[%i0] : tensor<1xf32>
  %flag = arith.cmpf ogt, %v, %zero : f32
  %e = tensor.empty() : tensor<8x8xf32>
  %r = scf.if %flag -> (tensor<8x8xf32>) {
    %u = linalg.exp ins(%a : tensor<8x8xf32, #dtensor.spec<@mesh, [S(0), R]>>) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
    scf.yield %u : tensor<8x8xf32>
  } else {
    %u = linalg.negf ins(%b : tensor<8x8xf32, #dtensor.spec<@mesh, [R, S(1)]>>) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
    scf.yield %u : tensor<8x8xf32>
  }
  return %r : tensor<8x8xf32>
}

// A branch whose sides differ in cost: the then side is replicated, the
// else side row-sharded. Taking the then side's spec would all_gather the
// else side at its yield; taking the else side's costs the then side only a
// local slice, so the result is row-sharded and no collective runs.
func.func @branch_cheaper(%m: !dtensor.device_mesh<@mesh>, %c: tensor<1xf32>,
    %a: tensor<8x8xf32, #dtensor.spec<@mesh, [R, R]>>,
    %b: tensor<8x8xf32, #dtensor.spec<@mesh, [S(0), R]>>)
    -> tensor<8x8xf32, #dtensor.spec<@mesh, [S(0), R]>> {
  %i0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %v = tensor.extract %c[%i0] : tensor<1xf32>
  %flag = arith.cmpf ogt, %v, %zero : f32
  %e = tensor.empty() : tensor<8x8xf32>
  %r = scf.if %flag -> (tensor<8x8xf32>) {
    %u = linalg.exp ins(%a : tensor<8x8xf32, #dtensor.spec<@mesh, [R, R]>>) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
    scf.yield %u : tensor<8x8xf32>
  } else {
    %u = linalg.negf ins(%b : tensor<8x8xf32, #dtensor.spec<@mesh, [S(0), R]>>) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
    scf.yield %u : tensor<8x8xf32>
  }
  %rd = dtensor.distribute_tensor %r, %m : tensor<8x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<8x8xf32, #dtensor.spec<@mesh, [S(0), R]>>
  return %rd : tensor<8x8xf32, #dtensor.spec<@mesh, [S(0), R]>>
}

// A private activation with no specs in its signature: its argument takes
// the spec of its call's operand (the column-parallel output, [S(0), S(1)]),
// its result the spec it computes, and the Megatron pair around it needs a
// single all_reduce (for the plain result).
func.func private @activation(%m: !dtensor.device_mesh<@mesh>,
                              %h: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %t = math.tanh %h : tensor<4x16xf32>
  %e = tensor.empty() : tensor<4x16xf32>
  %s = linalg.mul ins(%t, %h : tensor<4x16xf32>, tensor<4x16xf32>) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %s : tensor<4x16xf32>
}

func.func @call_activation(%m: !dtensor.device_mesh<@mesh>,
    %x: tensor<4x8xf32, #dtensor.spec<@mesh, [S(0), R]>>,
    %w1: tensor<8x16xf32, #dtensor.spec<@mesh, [R, S(1)]>>,
    %w2: tensor<16x8xf32, #dtensor.spec<@mesh, [R, S(0)]>>) -> tensor<4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<4x16xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4x16xf32>) -> tensor<4x16xf32>
  %a = linalg.matmul ins(%x, %w1 : tensor<4x8xf32, #dtensor.spec<@mesh, [S(0), R]>>, tensor<8x16xf32, #dtensor.spec<@mesh, [R, S(1)]>>) outs(%z1 : tensor<4x16xf32>) -> tensor<4x16xf32>
  %g = func.call @activation(%m, %a) : (!dtensor.device_mesh<@mesh>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %e2 = tensor.empty() : tensor<4x8xf32>
  %z2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<4x8xf32>) -> tensor<4x8xf32>
  %y = linalg.matmul ins(%g, %w2 : tensor<4x16xf32>, tensor<16x8xf32, #dtensor.spec<@mesh, [R, S(0)]>>) outs(%z2 : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// A hint on a plain product: its producer computes it row-sharded (each
// rank slices its rows of the replicated inputs), so the only collective
// is the gather of the plain result.
func.func @hinted(%m: !dtensor.device_mesh<@mesh>,
    %x: tensor<8x8xf32, #dtensor.spec<@mesh, [R, R]>>,
    %w: tensor<8x8xf32, #dtensor.spec<@mesh, [R, R]>>) -> tensor<8x8xf32> {
  %e = tensor.empty() : tensor<8x8xf32>
  %zero = arith.constant 0.0 : f32
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  %y = linalg.matmul ins(%x, %w : tensor<8x8xf32, #dtensor.spec<@mesh, [R, R]>>, tensor<8x8xf32, #dtensor.spec<@mesh, [R, R]>>) outs(%z : tensor<8x8xf32>) -> tensor<8x8xf32>
  %h = dtensor.hint %y, %m priority 0 : tensor<8x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<8x8xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>
  %t = math.tanh %h : tensor<8x8xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>
  %f = dtensor.full_tensor %t, %m : tensor<8x8xf32, #dtensor.spec<@mesh, [S(0), S(1)]>>, !dtensor.device_mesh<@mesh> -> tensor<8x8xf32>
  return %f : tensor<8x8xf32>
}

// A private function first called with a partial sum takes P(sum) as its
// argument's spec (the doubling keeps it Partial); its second call passes a
// row-sharded value, which becomes the P(sum) argument with no communication
// (DTensor 2.15's S(d) -> P(sum): each rank's rows in place, zeros elsewhere).
func.func private @double(%m: !dtensor.device_mesh<@mesh>,
                          %v: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.map { arith.addf } ins(%v, %v : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>)
  return %r : tensor<4x8xf32>
}

func.func @partial_then_shard(%m: !dtensor.device_mesh<@mesh>,
    %x: tensor<4x8xf32, #dtensor.spec<@mesh, [R, S(1)]>>,
    %w: tensor<8x8xf32, #dtensor.spec<@mesh, [R, S(0)]>>,
    %y: tensor<4x8xf32, #dtensor.spec<@mesh, [R, S(0)]>>) -> tensor<4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %p = linalg.matmul ins(%x, %w : tensor<4x8xf32, #dtensor.spec<@mesh, [R, S(1)]>>, tensor<8x8xf32, #dtensor.spec<@mesh, [R, S(0)]>>) outs(%z : tensor<4x8xf32>) -> tensor<4x8xf32>
  %a = func.call @double(%m, %p) : (!dtensor.device_mesh<@mesh>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %n = linalg.negf ins(%y : tensor<4x8xf32, #dtensor.spec<@mesh, [R, S(0)]>>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %b = func.call @double(%m, %n) : (!dtensor.device_mesh<@mesh>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %s = linalg.map { arith.addf } ins(%a, %b : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>)
  return %s : tensor<4x8xf32>
}

// A loop whose body calls a private function on the carried value: the
// loop tries carrying a sharded value, then keeps the plain init (cheaper);
// the callee and the body's ops are analysed again for the carry kept, so
// none keeps a spec from the attempt given up (one gather per iteration).
func.func private @exp_of(%m: !dtensor.device_mesh<@mesh>, %v: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %e = tensor.empty() : tensor<8x8xf32>
  %r = linalg.exp ins(%v : tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %r : tensor<8x8xf32>
}

func.func @loop_call(%m: !dtensor.device_mesh<@mesh>,
    %x: tensor<8x8xf32, #dtensor.spec<@mesh, [S(0), R]>>,
    %a0: tensor<8x8xf32>, %w1: tensor<8x8xf32>, %w2: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x8xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  %r = scf.for %i = %c0 to %c2 step %c1 iter_args(%acc = %a0) -> (tensor<8x8xf32>) {
    %hc = func.call @exp_of(%m, %acc) : (!dtensor.device_mesh<@mesh>, tensor<8x8xf32>) -> tensor<8x8xf32>
    %m1 = linalg.matmul ins(%w1, %hc : tensor<8x8xf32>, tensor<8x8xf32>) outs(%z : tensor<8x8xf32>) -> tensor<8x8xf32>
    %m2 = linalg.matmul ins(%w2, %acc : tensor<8x8xf32>, tensor<8x8xf32>) outs(%z : tensor<8x8xf32>) -> tensor<8x8xf32>
    %m3 = linalg.matmul ins(%m1, %m2 : tensor<8x8xf32>, tensor<8x8xf32>) outs(%z : tensor<8x8xf32>) -> tensor<8x8xf32>
    %s = linalg.add ins(%m3, %x : tensor<8x8xf32>, tensor<8x8xf32, #dtensor.spec<@mesh, [S(0), R]>>) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
    scf.yield %s : tensor<8x8xf32>
  }
  return %r : tensor<8x8xf32>
}

// Partial products into a private function: its argument is not given
// P(product) (no redistribution reaches one from a shard, nor from R), so
// the first call reduces its operand; a fill of 1 (the product's identity)
// initializes the K-sharded product reductions on every rank.
func.func private @neg_of(%m: !dtensor.device_mesh<@mesh>, %v: tensor<8xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  %r = linalg.negf ins(%v : tensor<8xf32>) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  return %r : tensor<8xf32>
}

func.func @product_args(%m: !dtensor.device_mesh<@mesh>,
    %x: tensor<8x8xf32, #dtensor.spec<@mesh, [R, S(1)]>>,
    %y: tensor<8x8xf32, #dtensor.spec<@mesh, [R, S(0)]>>) -> (tensor<8xf32>, tensor<8xf32>) {
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<8xf32>
  %o = linalg.fill ins(%one : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %px = linalg.reduce ins(%x : tensor<8x8xf32, #dtensor.spec<@mesh, [R, S(1)]>>) outs(%o : tensor<8xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %p = arith.mulf %in, %acc : f32
      linalg.yield %p : f32
    }
  %py = linalg.reduce ins(%y : tensor<8x8xf32, #dtensor.spec<@mesh, [R, S(0)]>>) outs(%o : tensor<8xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %p = arith.mulf %in, %acc : f32
      linalg.yield %p : f32
    }
  %a = func.call @neg_of(%m, %px) : (!dtensor.device_mesh<@mesh>, tensor<8xf32>) -> tensor<8xf32>
  %b = func.call @neg_of(%m, %py) : (!dtensor.device_mesh<@mesh>, tensor<8xf32>) -> tensor<8xf32>
  return %a, %b : tensor<8xf32>, tensor<8xf32>
}
