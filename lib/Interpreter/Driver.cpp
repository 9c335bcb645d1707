//===- Driver.cpp - run and verify programs on the interpreter -----------===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//

#include "dtensor/Interpreter/Driver.h"
#include "dtensor/Dialect/DTensor/Transforms/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/Format.h"

#include <cmath>
#include <random>

using namespace mlir;
using namespace mlir::dtensor;
using namespace mlir::dtensor::interp;

std::string interp::shapeText(const Shape &s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i)
    out += (i ? "x" : "") + std::to_string(s[i]);
  return out.empty() ? "scalar" : out;
}

std::optional<Tensor> interp::generateTensor(RankedTensorType type,
                                             unsigned seed,
                                             std::string &error) {
  std::optional<DType> dt = dtypeOf(type.getElementType());
  if (!dt || !type.hasStaticShape())
    return std::nullopt;
  std::optional<Tensor> made = Tensor::create(
      *dt, Shape(type.getShape().begin(), type.getShape().end()), error);
  if (!made)
    return std::nullopt;
  Tensor &t = *made;
  std::mt19937_64 rng(seed);
  dispatch(*dt, [&](auto v) {
    using T = decltype(v);
    T *x = t.mutableData<T>();
    for (int64_t i = 0; i < t.numElements(); ++i) {
      if (isFloat(*dt))
        x[i] = T(std::uniform_real_distribution<double>(-1, 1)(rng));
      else if (*dt == DType::I1)
        x[i] = T(rng() & 1);
      else
        x[i] = T(int64_t(rng() % 17) - 8);
    }
  });
  return made;
}

bool interp::checkTensorType(const Tensor &t, RankedTensorType type,
                             std::string &why) {
  std::optional<DType> dt = dtypeOf(type.getElementType());
  if (!dt || *dt != t.dtype()) {
    why = std::string("has dtype ") + stringifyDType(t.dtype()) +
          " but the argument is " +
          (dt ? stringifyDType(*dt) : "of an unsupported type");
    return false;
  }
  if (t.rank() != type.getRank()) {
    why = "has rank " + std::to_string(t.rank()) + " but the argument has " +
          std::to_string(type.getRank());
    return false;
  }
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (!type.isDynamicDim(d) && type.getDimSize(d) != t.shape()[d]) {
      why = "has shape " + shapeText(t.shape()) + " but the argument needs " +
            std::to_string(type.getDimSize(d)) + " in dim " + std::to_string(d);
      return false;
    }
  return true;
}

double interp::verifyTolerance(DType dt) {
  // Relative (plus absolute) error of a few units in the last place of the
  // type: the compiled program rounds partial results (a shard's sum) that
  // the global program does not. f16 has 11 significand bits, bf16 8.
  switch (dt) {
  // f32: 1e-4. A training step's gradients come out of long chains of
  // reductions whose order partitioning changes (partial sums, then a
  // collective): MobileViT's step differed from its global program by 6e-5
  // of its largest gradient, all rounding (in f64 the two agree to 1e-12),
  // and 1e-5 failed it.
  case DType::F32: return 1e-4;
  case DType::F64: return 1e-12;
  case DType::F16: return 1e-2;
  case DType::BF16: return 5e-2;
  default: return 0;
  }
}

static double rtolOverride = NAN, atolOverride = NAN;

void interp::setToleranceOverride(double rtol, double atol) {
  rtolOverride = rtol;
  atolOverride = atol;
}

Tolerance interp::effectiveTolerance(DType dt, double tol) {
  if (!isFloat(dt))
    return {};
  Tolerance t;
  t.rtol = std::isnan(rtolOverride) ? tol : rtolOverride;
  t.atol = std::isnan(atolOverride) ? tol : atolOverride;
  t.scaleAtol = std::isnan(atolOverride);
  return t;
}

std::optional<std::string> interp::compareWithin(const Tensor &got,
                                                 const Tensor &want,
                                                 const Tolerance &tol) {
  if (got.shape() != want.shape())
    return "shape " + shapeText(got.shape()) + ", expected " +
           shapeText(want.shape());
  if (got.dtype() != want.dtype())
    return std::string("dtype ") + stringifyDType(got.dtype()) + ", expected " +
           stringifyDType(want.dtype());
  double rtol = tol.rtol, atol = tol.atol, scale = 1;
  if (tol.scaleAtol) {
    for (int64_t i = 0; i < want.numElements(); ++i) {
      double b = std::fabs(want.at(i));
      if (std::isfinite(b))
        scale = std::max(scale, b);
    }
    atol *= scale;
  }
  int64_t first = -1, worst = -1, bad = 0;
  double worstErr = -1;
  for (int64_t i = 0; i < got.numElements(); ++i) {
    double a = got.at(i), b = want.at(i);
    double err = std::fabs(a - b);
    bool nanDiffers = std::isnan(a) != std::isnan(b);
    if (!(err > atol + rtol * std::fabs(b)) && !nanDiffers)
      continue;
    ++bad;
    if (first < 0)
      first = i;
    double e = nanDiffers ? INFINITY : err;
    if (e > worstErr) {
      worstErr = e;
      worst = i;
    }
  }
  if (first < 0)
    return std::nullopt;
  std::string s;
  llvm::raw_string_ostream os(s);
  auto element = [&](int64_t i) {
    os << "element " << i << " is " << llvm::format("%g", got.at(i))
       << ", expected " << llvm::format("%g", want.at(i));
  };
  element(first);
  os << " (tolerance: |error| <= " << llvm::format("%g", atol);
  if (scale > 1)
    os << " (" << llvm::format("%g", tol.atol) << " * the largest |expected|)";
  os << " + " << llvm::format("%g", rtol) << " * |expected|; --rtol / --atol)";
  if (bad > 1) {
    os << "; " << bad << " of " << got.numElements()
       << " elements differ, the largest error at ";
    element(worst);
    os << " (|error| " << llvm::format("%g", worstErr) << ")";
  }
  return s;
}

static std::optional<std::string> compare(const Tensor &got,
                                          const Tensor &want) {
  return compareWithin(got, want,
                       effectiveTolerance(got.dtype(), verifyTolerance(got.dtype())));
}

func::FuncOp interp::findEntry(ModuleOp module, llvm::StringRef name) {
  if (!name.empty()) {
    auto fn = module.lookupSymbol<func::FuncOp>(name);
    return fn && !fn.isExternal() ? fn : func::FuncOp();
  }
  func::FuncOp only;
  int count = 0;
  for (auto fn : module.getOps<func::FuncOp>())
    if (!fn.isExternal() && fn.isPublic()) {
      only = fn;
      ++count;
    }
  if (count == 1)
    return only;
  auto main = module.lookupSymbol<func::FuncOp>("main");
  return main && !main.isExternal() ? main : func::FuncOp();
}

LogicalResult interp::lowerReshards(ModuleOp module) {
  bool any = false;
  module.walk([&](ReshardOp) { any = true; });
  if (!any)
    return success();
  PassManager pm(module.getContext());
  pm.addPass(createDTensorLowerRedistributePass());
  return pm.run(module);
}

FailureOr<OwningOpRef<ModuleOp>>
interp::compileModule(ModuleOp module, llvm::StringRef pipeline,
                      std::string &error) {
  OwningOpRef<ModuleOp> compiled = module.clone();
  PassManager pm(module.getContext());
  std::string parseError;
  llvm::raw_string_ostream parseOs(parseError);
  if (failed(parseModulePassPipeline(pipeline, pm, parseOs))) {
    error = "'" + pipeline.str() + "' is not a pass pipeline";
    if (!parseError.empty())
      error += ": " + llvm::StringRef(parseError).trim().str();
    return failure();
  }
  if (failed(pm.run(*compiled))) {
    error = "compiling with '" + pipeline.str() + "' failed";
    return failure();
  }
  if (failed(lowerReshards(*compiled))) {
    error = "lowering the compiled program's dtensor.reshard ops failed";
    return failure();
  }
  return compiled;
}

std::optional<std::vector<MValue>>
interp::buildArguments(Interpreter &I, func::FuncOp entry,
                       const std::map<unsigned, ArgumentInput> &inputs,
                       unsigned seed, std::string &error,
                       std::vector<std::optional<Tensor>> *globals) {
  int64_t ranks = I.numRanks();
  if (globals)
    globals->assign(entry.getNumArguments(), std::nullopt);
  for (const auto &[index, input] : inputs)
    if (index >= entry.getNumArguments()) {
      error = "input " + std::to_string(index) + ": @" +
              entry.getName().str() + " has only " +
              std::to_string(entry.getNumArguments()) + " arguments";
      return std::nullopt;
    }
  std::vector<MValue> args;
  for (auto [i, type] : llvm::enumerate(entry.getArgumentTypes())) {
    std::string argName = "argument " + std::to_string(i);
    if (llvm::isa<DeviceMeshType>(type)) {
      if (inputs.count(unsigned(i))) {
        error = "input " + std::to_string(i) + ": argument " +
                std::to_string(i) + " of @" + entry.getName().str() +
                " is the mesh handle, which the runner provides; inputs are "
                "tensor arguments";
        return std::nullopt;
      }
      args.emplace_back();
      continue;
    }
    auto tensorType = llvm::dyn_cast<RankedTensorType>(type);
    if (!tensorType && type.isIntOrIndexOrFloat()) {
      // A scalar: given as a tensor of one element (a 0-d .npy) of its type
      // (index as i64), or generated as a tensor argument is.
      Type elem = type.isIndex() ? IntegerType::get(type.getContext(), 64) : type;
      auto asTensor = RankedTensorType::get({}, elem);
      auto it = inputs.find(unsigned(i));
      std::optional<Tensor> t;
      if (it != inputs.end()) {
        const ArgumentInput &given = it->second;
        std::string from =
            given.origin.empty() ? "" : ": '" + given.origin + "'";
        if (!given.global) {
          error = argName + from + " is a scalar: give one value, not "
                                   "per-rank tensors";
          return std::nullopt;
        }
        std::string why;
        Tensor one = *given.global;
        if (one.numElements() == 1 && one.rank() > 0)
          one = one.reshaped({});
        if (!checkTensorType(one, asTensor, why)) {
          error = argName + from + " " + why + " (a scalar is given as a 0-d "
                                                "tensor of its type)";
          return std::nullopt;
        }
        t = std::move(one);
      } else {
        t = generateTensor(asTensor, seed + unsigned(i), error);
        if (!t) {
          std::string typeText;
          llvm::raw_string_ostream(typeText) << type;
          error = argName + " of type " + typeText +
                  " cannot be generated: give it as input";
          return std::nullopt;
        }
      }
      RValue scalar = dispatch(t->dtype(), [&](auto v) {
        using T = decltype(v);
        T x = t->data<T>()[0];
        return llvm::isa<FloatType>(type) ? RValue::ofFloat(double(x))
                                          : RValue::ofInt(int64_t(x));
      });
      args.push_back(MValue::same(std::move(scalar)));
      continue;
    }
    if (!tensorType) {
      error = argName + " has a type that cannot be given as input";
      return std::nullopt;
    }
    SpecAttr spec = getSpec(tensorType);
    RankedTensorType plain = RankedTensorType::get(tensorType.getShape(),
                                                   tensorType.getElementType());
    auto it = inputs.find(unsigned(i));
    const ArgumentInput *given = it == inputs.end() ? nullptr : &it->second;
    std::string from =
        given && !given->origin.empty() ? ": '" + given->origin + "'" : "";
    if (given && !given->global && given->perRank.empty()) {
      error = argName + from + ": no tensor given";
      return std::nullopt;
    }
    if (given && !given->global) {
      if (spec) {
        error = argName + " is distributed: give its global tensor, not "
                          "per-rank tensors";
        return std::nullopt;
      }
      if (int64_t(given->perRank.size()) != ranks) {
        error = argName + from + ": " + std::to_string(given->perRank.size()) +
                " per-rank tensors given for " + std::to_string(ranks) +
                " ranks";
        return std::nullopt;
      }
      MValue value;
      value.uniform = false;
      for (int64_t r = 0; r < ranks; ++r) {
        std::string why;
        if (!checkTensorType(given->perRank[r], plain, why)) {
          error = argName + " on rank " + std::to_string(r) + from + " " + why;
          return std::nullopt;
        }
        value.values.push_back(RValue::ofTensor(given->perRank[r]));
      }
      args.push_back(std::move(value));
      continue;
    }
    std::optional<Tensor> t;
    if (given) {
      std::string why;
      if (!checkTensorType(*given->global, plain, why)) {
        error = argName + from + " " + why;
        return std::nullopt;
      }
      t = given->global;
    } else {
      t = generateTensor(plain, seed + unsigned(i), error);
      if (!t) {
        std::string typeText;
        llvm::raw_string_ostream(typeText) << tensorType;
        error = argName + " of type " + typeText + " cannot be generated" +
                (error.empty() ? std::string(" (dynamic shape or unsupported "
                                             "element type): give it as input")
                               : ": " + error);
        return std::nullopt;
      }
    }
    if (globals)
      (*globals)[i] = *t;
    if (spec) {
      FailureOr<Layout> layout = I.layoutOf(tensorType, entry);
      if (failed(layout)) {
        error = argName + ": its spec is not valid on the mesh";
        return std::nullopt;
      }
      RValue d;
      d.kind = RValue::Kind::Dist;
      d.tensor = *t;
      d.dist = std::make_shared<DistTensor>(DistTensor{*t, spec, *layout});
      args.push_back(MValue::same(std::move(d)));
    } else {
      args.push_back(MValue::same(RValue::ofTensor(std::move(*t))));
    }
  }
  return args;
}

std::optional<std::vector<MValue>>
interp::localArguments(Interpreter &compiled, const std::vector<MValue> &args,
                       std::string &error, func::FuncOp entry) {
  std::vector<MValue> local;
  for (auto [i, original] : llvm::enumerate(args)) {
    MValue arg = original;
    // A stage still in the global view (before dtensor-partition) takes the
    // distributed value itself.
    if (entry && i < entry.getNumArguments() &&
        getSpec(entry.getArgument(i).getType())) {
      local.push_back(arg);
      continue;
    }
    // A plain argument the compiled entry takes as a shard: distributed as
    // its global type says.
    auto global = entry && i < entry.getNumArguments()
                      ? entry.getArgAttrOfType<TypeAttr>(unsigned(i),
                                                         kGlobalTypeAttrName)
                      : TypeAttr();
    auto globalType =
        global ? llvm::dyn_cast<RankedTensorType>(global.getValue()) : nullptr;
    if (globalType && getSpec(globalType) && !arg.values.empty() &&
        arg.on(0).kind == RValue::Kind::Tensor) {
      FailureOr<Layout> layout = compiled.layoutOf(globalType, entry);
      if (failed(layout)) {
        error = "argument " + std::to_string(i) +
                " of the compiled program: its spec is not valid on the mesh";
        return std::nullopt;
      }
      RValue d;
      d.kind = RValue::Kind::Dist;
      d.tensor = arg.on(0).tensor;
      d.dist = std::make_shared<DistTensor>(
          DistTensor{d.tensor, getSpec(globalType), *layout});
      arg = MValue::same(std::move(d));
    }
    if (!arg.values.empty() && arg.on(0).kind == RValue::Kind::Dist) {
      std::optional<MValue> shards = compiled.shardsOfDist(arg, error);
      if (!shards) {
        error = "argument " + std::to_string(i) +
                " of the compiled program: cannot hold " + error;
        return std::nullopt;
      }
      local.push_back(std::move(*shards));
    } else {
      local.push_back(arg);
    }
  }
  return local;
}

std::vector<std::string>
interp::compareOutputs(const Interpreter &compiledRun, llvm::StringRef name,
                       const std::vector<MValue> &results,
                       const std::vector<MValue> &localResults) {
  std::vector<std::string> out;
  std::string at = "@" + name.str() + " output ";
  int64_t ranks = compiledRun.numRanks();
  if (localResults.size() != results.size()) {
    out.push_back("the compiled @" + name.str() + " returns " +
                  std::to_string(localResults.size()) +
                  " values, the original " + std::to_string(results.size()));
    return out;
  }
  for (size_t i = 0; i < results.size(); ++i) {
    const MValue &want = results[i];
    const MValue &got = localResults[i];
    std::string here = at + std::to_string(i);
    if (!got.values.empty() && got.on(0).kind == RValue::Kind::Dist) {
      // A stage still in the global view: the logical values compare.
      if (want.on(0).kind != RValue::Kind::Dist) {
        out.push_back(here + ": the compiled program returns a distributed "
                             "value where the original returns a local one");
        continue;
      }
      for (int64_t r = 0; r < ranks; ++r)
        if (auto diff =
                compare(got.on(r).dist->global, want.on(r).dist->global)) {
          out.push_back(here + ": rank " + std::to_string(r) +
                        "'s logical value differs: " + *diff);
          break;
        }
      continue;
    }
    if (want.on(0).kind == RValue::Kind::Dist) {
      const DistTensor &first = *want.on(0).dist;
      std::string error;
      bool partial =
          llvm::any_of(first.layout.placements(),
                       [](const Placement &p) { return p.isPartial(); });
      if (!partial) {
        std::optional<MValue> shards = compiledRun.shardsOfDist(want, error);
        if (!shards) {
          out.push_back(here + ": cannot hold " + error);
          continue;
        }
        bool differs = false;
        for (int64_t r = 0; r < ranks && !differs; ++r)
          if (auto diff = compare(got.on(r).tensor, shards->on(r).tensor)) {
            out.push_back(here + ": rank " + std::to_string(r) +
                          "'s shard differs: " + *diff);
            differs = true;
          }
        if (differs)
          continue;
      }
      // Each group's logical value (one group on a whole mesh).
      for (const std::vector<int64_t> &group :
           compiledRun.groupsOf(first.spec)) {
        const DistTensor &d = *want.on(group.front()).dist;
        std::optional<Tensor> logical = compiledRun.assemble(
            Interpreter::gatherGroup(got, group), d.layout, d.global.dtype(),
            d.global.shape(), error);
        if (!logical) {
          out.push_back(here + ": " + error);
          break;
        }
        if (auto diff = compare(*logical, d.global)) {
          out.push_back(here + ": logical value differs" +
                        (group.size() == size_t(ranks)
                             ? std::string()
                             : " in the group of rank " +
                                   std::to_string(group.front())) +
                        ": " + *diff);
          break;
        }
      }
      continue;
    }
    if (want.on(0).kind == RValue::Kind::Int ||
        want.on(0).kind == RValue::Kind::Float) {
      for (int64_t r = 0; r < ranks; ++r) {
        const RValue &a = got.on(r), &b = want.on(r);
        bool same = a.kind == b.kind &&
                    (a.kind == RValue::Kind::Int
                         ? a.i == b.i
                         : std::fabs(a.f - b.f) <= 1e-5 * (1 + std::fabs(b.f)));
        if (!same) {
          out.push_back(here + ": rank " + std::to_string(r) +
                        "'s scalar differs");
          break;
        }
      }
      continue;
    }
    for (int64_t r = 0; r < ranks; ++r)
      if (auto diff = compare(got.on(r).tensor, want.on(r).tensor)) {
        out.push_back(here + ": rank " + std::to_string(r) +
                      " differs: " + *diff);
        break;
      }
  }
  return out;
}

std::optional<OutputView> interp::viewOutput(Interpreter &I,
                                             func::FuncOp entry,
                                             unsigned index,
                                             const MValue &m,
                                             std::string &error) {
  OutputView view;
  int64_t ranks = I.numRanks();
  const RValue &first = m.on(0);
  if (first.kind == RValue::Kind::Int || first.kind == RValue::Kind::Float) {
    view.kind = first.kind == RValue::Kind::Int ? OutputView::Kind::Int
                                                : OutputView::Kind::Float;
    view.uniform = true;
    for (int64_t r = 0; r < ranks; ++r) {
      const RValue &v = m.on(r);
      view.ints.push_back(v.i);
      view.floats.push_back(v.kind == RValue::Kind::Int ? double(v.i) : v.f);
      view.uniform &= v.i == first.i && v.f == first.f;
    }
    // Each rank's scalar as a 0-d tensor of the result's type too (an index
    // as i64), for readers of tensors (the C API, Python).
    Type type = index < entry.getNumResults() ? entry.getResultTypes()[index]
                                              : Type();
    std::optional<DType> dtype =
        type && llvm::isa<IndexType>(type) ? std::optional(DType::I64)
        : type                            ? dtypeOf(type)
                                          : std::nullopt;
    if (dtype) {
      for (int64_t r = 0; r < ranks; ++r) {
        std::string ignored;
        std::optional<Tensor> t = Tensor::create(*dtype, Shape{}, ignored);
        if (!t)
          return view;
        dispatch(*dtype, [&](auto zero) {
          using T = decltype(zero);
          T *out = t->mutableData<T>();
          if constexpr (std::is_integral_v<T>)
            *out = T(view.ints[r]);
          else
            *out = T(view.kind == OutputView::Kind::Int ? double(view.ints[r])
                                                        : view.floats[r]);
        });
        view.perRank.push_back(std::move(*t));
      }
      if (view.uniform)
        view.global = view.perRank.front();
    }
    return view;
  }
  if (first.kind == RValue::Kind::Dist) {
    const DistTensor &d = *first.dist;
    llvm::raw_string_ostream(view.spec) << d.spec;
    std::optional<MValue> shards = I.shardsOfDist(m, error);
    if (!shards) {
      error = "output " + std::to_string(index) + ": cannot hold " + error;
      return std::nullopt;
    }
    for (int64_t r = 0; r < ranks; ++r)
      view.perRank.push_back(shards->on(r).tensor);
    // Groups of a sub-mesh may hold different logical values: then there
    // is no one global tensor to show, only every rank's shard.
    if (!m.uniform && I.groupsOf(d.spec).size() > 1) {
      view.spec.clear();
      view.uniform = false;
      return view;
    }
    view.global = d.global;
    view.uniform = llvm::all_of(d.layout.placements(), [](const Placement &p) {
      return p.isReplicate();
    });
    return view;
  }
  for (int64_t r = 0; r < ranks; ++r)
    view.perRank.push_back(m.on(r).tensor);
  view.uniform = true;
  if (!m.uniform)
    for (int64_t r = 1; r < ranks && view.uniform; ++r)
      view.uniform = m.on(r).tensor.sameContents(first.tensor);
  // A local-view result that is a shard of a global value.
  auto global = index < entry.getNumResults()
                    ? entry.getResultAttrOfType<TypeAttr>(index,
                                                          kGlobalTypeAttrName)
                    : TypeAttr();
  auto globalType =
      global ? llvm::dyn_cast<RankedTensorType>(global.getValue()) : nullptr;
  // On a sub-mesh each group has its own global value: shown per rank.
  if (globalType && getSpec(globalType) &&
      I.groupsOf(getSpec(globalType)).size() == 1) {
    llvm::raw_string_ostream(view.spec) << getSpec(globalType);
    FailureOr<Layout> layout = I.layoutOf(globalType, entry);
    if (failed(layout)) {
      error = "output " + std::to_string(index) +
              ": its global spec is not valid on the mesh";
      return std::nullopt;
    }
    std::optional<Tensor> logical =
        I.assemble(m, *layout, first.tensor.dtype(),
                   Shape(globalType.getShape().begin(),
                         globalType.getShape().end()),
                   error);
    if (!logical) {
      error = "output " + std::to_string(index) + ": " + error;
      return std::nullopt;
    }
    view.global = std::move(*logical);
    return view;
  }
  if (view.uniform)
    view.global = first.tensor;
  return view;
}

LogicalResult interp::runEntry(ModuleOp program, ModuleOp compiled,
                               func::FuncOp entry,
                               const std::map<unsigned, ArgumentInput> &inputs,
                               unsigned seed, RunOutcome &outcome,
                               std::string &error) {
  // The types as every pass checks them first (an integer Partial(avg)
  // over two mesh dims, which has no value, included).
  if (failed(dtensor::verifyDistributedTypes(program))) {
    error = "the program's distributed types are invalid (the diagnostics "
            "say where)";
    return failure();
  }
  Interpreter reference(program);
  std::optional<std::vector<MValue>> args =
      buildArguments(reference, entry, inputs, seed, error);
  if (!args)
    return failure();
  if (failed(reference.run(entry, *args, outcome.results))) {
    error = "@" + entry.getName().str() + " failed to run";
    return failure();
  }
  outcome.report = reference.report();
  if (!compiled)
    return success();
  auto compiledEntry = compiled.lookupSymbol<func::FuncOp>(entry.getName());
  if (!compiledEntry || compiledEntry.isExternal()) {
    error = "the compiled program has no function @" + entry.getName().str();
    return failure();
  }
  Interpreter compiledRun(compiled);
  std::optional<std::vector<MValue>> local =
      localArguments(compiledRun, *args, error, compiledEntry);
  if (!local)
    return failure();
  if (failed(compiledRun.run(compiledEntry, *local, outcome.compiledResults))) {
    error = "the compiled @" + entry.getName().str() + " failed to run";
    return failure();
  }
  outcome.mismatches = compareOutputs(compiledRun, entry.getName(),
                                      outcome.results, outcome.compiledResults);
  outcome.report = compiledRun.report();
  return success();
}
