//===- Session.cpp - start-up, flags, .npy inputs and outputs -------------===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//
//
// The .npy conventions are the interpreter's (lib/Interpreter/Tensor.cpp):
// format versions 1.0-3.0, little-endian, C order; bf16 has no numpy dtype
// and is read and written as f32.
//
//===----------------------------------------------------------------------===//

#include "Internal.h"

#include <mpi.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sys/stat.h>

namespace dtensor_rt {

namespace {

int worldRank() {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized)
    return 0;
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

} // namespace

void fail(const char *where, const std::string &message) {
  std::fprintf(stderr, "dtensor runtime: rank %d: %s%s%s\n", worldRank(),
               where ? where : "", where ? ": " : "", message.c_str());
  std::fflush(stderr);
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (initialized && !finalized)
    MPI_Abort(MPI_COMM_WORLD, 1);
  std::exit(1);
}

//===----------------------------------------------------------------------===//
// .npy
//===----------------------------------------------------------------------===//

namespace {

const char *descrOf(DType t) {
  switch (t) {
  case DType::F32: return "<f4";
  case DType::F64: return "<f8";
  case DType::F16: return "<f2";
  case DType::BF16: return "<f4";
  case DType::I1: return "|b1";
  case DType::I8: return "|i1";
  case DType::I16: return "<i2";
  case DType::I32: return "<i4";
  case DType::I64: return "<i8";
  }
  return "?";
}

/// The dtype a file with `descr` holds for a tensor of `want`, or false.
bool descrMatches(const std::string &descr, DType want) {
  if (descr.size() < 3 || descr[0] == '>')
    return false;
  std::string code = descr.substr(1);
  std::string expected = std::string(descrOf(want)).substr(1);
  return code == expected;
}

std::string field(const std::string &header, const std::string &key) {
  size_t at = header.find("'" + key + "'");
  if (at == std::string::npos)
    return "";
  at = header.find(':', at);
  if (at == std::string::npos)
    return "";
  ++at;
  while (at < header.size() && header[at] == ' ')
    ++at;
  if (at >= header.size())
    return "";
  if (header[at] == '\'') {
    size_t end = header.find('\'', at + 1);
    return end == std::string::npos ? "" : header.substr(at + 1, end - at - 1);
  }
  if (header[at] == '(') {
    size_t end = header.find(')', at);
    return end == std::string::npos ? "" : header.substr(at, end - at + 1);
  }
  size_t end = header.find_first_of(",}", at);
  std::string v = header.substr(at, end == std::string::npos ? std::string::npos
                                                              : end - at);
  while (!v.empty() && v.back() == ' ')
    v.pop_back();
  return v;
}

bool parseShapeTuple(const std::string &text, Shape &shape) {
  if (text.size() < 2 || text.front() != '(' || text.back() != ')')
    return false;
  shape.clear();
  std::string body = text.substr(1, text.size() - 2);
  size_t at = 0;
  while (at < body.size()) {
    while (at < body.size() && (body[at] == ' ' || body[at] == ','))
      ++at;
    if (at >= body.size())
      break;
    if (body[at] < '0' || body[at] > '9')
      return false;
    int64_t v = 0;
    while (at < body.size() && body[at] >= '0' && body[at] <= '9') {
      if (v > (INT64_MAX - 9) / 10)
        return false;
      v = v * 10 + (body[at++] - '0');
    }
    shape.push_back(v);
  }
  return true;
}

std::string shapeText(const Shape &s) {
  std::string out = "(";
  for (size_t i = 0; i < s.size(); ++i)
    out += (i ? ", " : "") + std::to_string(s[i]);
  if (s.size() == 1)
    out += ",";
  return out + ")";
}

struct NpyHeader {
  std::string descr;
  Shape shape;
  size_t dataOffset = 0;
};

bool readHeader(std::ifstream &in, const std::string &path, NpyHeader &h,
                std::string &error) {
  char magic[8];
  if (!in.read(magic, 8) || std::memcmp(magic, "\x93NUMPY", 6) != 0) {
    error = "'" + path + "' is not a .npy file";
    return false;
  }
  int major = static_cast<unsigned char>(magic[6]);
  size_t headerLen = 0;
  if (major == 1) {
    unsigned char b[2];
    if (!in.read(reinterpret_cast<char *>(b), 2)) {
      error = "'" + path + "' is truncated";
      return false;
    }
    headerLen = b[0] | size_t(b[1]) << 8;
    h.dataOffset = 10 + headerLen;
  } else if (major == 2 || major == 3) {
    unsigned char b[4];
    if (!in.read(reinterpret_cast<char *>(b), 4)) {
      error = "'" + path + "' is truncated";
      return false;
    }
    headerLen = b[0] | size_t(b[1]) << 8 | size_t(b[2]) << 16 |
                size_t(b[3]) << 24;
    h.dataOffset = 12 + headerLen;
  } else {
    error = "'" + path + "' has .npy format version " + std::to_string(major) +
            " (1 to 3 are read)";
    return false;
  }
  if (headerLen > (1u << 20)) {
    error = "'" + path + "' has a malformed .npy header";
    return false;
  }
  std::string header(headerLen, '\0');
  if (!in.read(&header[0], headerLen)) {
    error = "'" + path + "' is truncated";
    return false;
  }
  h.descr = field(header, "descr");
  std::string fortran = field(header, "fortran_order");
  if (h.descr.empty() || fortran.empty() ||
      !parseShapeTuple(field(header, "shape"), h.shape)) {
    error = "'" + path + "' has a malformed .npy header";
    return false;
  }
  if (fortran != "False") {
    error = "'" + path + "' is in Fortran order (C order is read)";
    return false;
  }
  return true;
}

/// Narrows f32 values read for a bf16 tensor (round to nearest even).
void narrowToBf16(const float *in, uint16_t *out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    uint32_t x;
    std::memcpy(&x, &in[i], 4);
    if ((x & 0x7fffffff) > 0x7f800000)
      out[i] = uint16_t((x >> 16) | 0x40);
    else
      out[i] = uint16_t((x + 0x7fff + ((x >> 16) & 1)) >> 16);
  }
}

} // namespace

bool readNpyBox(const std::string &path, DType dtype, const Shape &shape,
                const Shape &offsets, const Shape &sizes, Tensor &out,
                std::string &error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = "cannot open '" + path + "': " + std::strerror(errno);
    return false;
  }
  NpyHeader h;
  if (!readHeader(in, path, h, error))
    return false;
  if (!descrMatches(h.descr, dtype)) {
    error = "'" + path + "' holds dtype '" + h.descr + "', expected '" +
            descrOf(dtype) + "' (" + dtypeName(dtype) + ")";
    return false;
  }
  if (h.shape != shape) {
    error = "'" + path + "' has shape " + shapeText(h.shape) + ", expected " +
            shapeText(shape);
    return false;
  }
  for (size_t d = 0; d < shape.size(); ++d)
    if (offsets[d] < 0 || sizes[d] < 0 ||
        (sizes[d] > 0 && offsets[d] + sizes[d] > shape[d])) {
      error = "the box to read leaves '" + path + "'";
      return false;
    }
  // bf16 is stored widened to f32.
  size_t fileElem = dtype == DType::BF16 ? 4 : dtypeBytes(dtype);
  Tensor read =
      Tensor::emptyHost(dtype == DType::BF16 ? DType::F32 : dtype, sizes);
  size_t rank = shape.size();
  if (read.numel() > 0) {
    // One contiguous row (the innermost dim) at a time.
    Shape strides(rank, 1);
    for (int64_t d = static_cast<int64_t>(rank) - 2; d >= 0; --d)
      strides[d] = strides[d + 1] * shape[d + 1];
    Shape index(rank, 0);
    int64_t inner = rank ? sizes[rank - 1] : 1;
    char *dst = static_cast<char *>(read.raw());
    while (true) {
      int64_t element = 0;
      for (size_t d = 0; d < rank; ++d)
        element += (offsets[d] + (d + 1 < rank ? index[d] : 0)) * strides[d];
      in.seekg(static_cast<std::streamoff>(h.dataOffset + element * fileElem));
      if (!in.read(dst, static_cast<std::streamsize>(inner * fileElem))) {
        error = "'" + path + "' is truncated";
        return false;
      }
      dst += inner * fileElem;
      int64_t k = static_cast<int64_t>(rank) - 2;
      while (k >= 0 && ++index[k] == sizes[k]) {
        index[k] = 0;
        --k;
      }
      if (k < 0)
        break;
    }
  }
  if (dtype == DType::BF16) {
    out = Tensor::emptyHost(DType::BF16, sizes);
    narrowToBf16(read.data<float>(), out.data<uint16_t>(), read.numel());
  } else {
    out = read;
  }
  return true;
}

bool readNpy(const std::string &path, DType dtype, Tensor &out,
             std::string &error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = "cannot open '" + path + "': " + std::strerror(errno);
    return false;
  }
  NpyHeader h;
  if (!readHeader(in, path, h, error))
    return false;
  in.close();
  return readNpyBox(path, dtype, h.shape, Shape(h.shape.size(), 0), h.shape,
                    out, error);
}

bool writeNpy(const std::string &path, const Tensor &computed,
              std::string &error) {
  // Device results (CUDA flavours) are copied to the host first.
  Tensor value = computed.toHost();
  std::ofstream os(path, std::ios::binary);
  if (!os) {
    error = "cannot write '" + path + "': " + std::strerror(errno);
    return false;
  }
  std::string header = "{'descr': '" + std::string(descrOf(value.dtype())) +
                       "', 'fortran_order': False, 'shape': " +
                       shapeText(value.shape()) + ", }";
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  uint16_t len = static_cast<uint16_t>(header.size());
  os.write("\x93NUMPY\x01\x00", 8);
  char lenBytes[2] = {char(len & 0xff), char(len >> 8)};
  os.write(lenBytes, 2);
  os.write(header.data(), static_cast<std::streamsize>(header.size()));
  if (value.dtype() == DType::BF16) {
    const uint16_t *p = value.data<uint16_t>();
    for (int64_t i = 0; i < value.numel(); ++i) {
      uint32_t bits = uint32_t(p[i]) << 16;
      os.write(reinterpret_cast<const char *>(&bits), 4);
    }
  } else if (value.bytes()) {
    os.write(static_cast<const char *>(value.raw()),
             static_cast<std::streamsize>(value.bytes()));
  }
  if (!os) {
    error = "cannot write '" + path + "'";
    return false;
  }
  return true;
}

//===----------------------------------------------------------------------===//
// Session
//===----------------------------------------------------------------------===//

namespace {

const char *kUsage =
    "usage: PROGRAM [--input N=FILE.npy]... [--output-dir DIR] [--entry NAME]\n"
    "               [--batch FILE] [--repeat K] [--comm-report] [--mem-report]\n"
    "               [--help]\n"
    "  --input N=FILE.npy  argument N's global tensor (each rank reads its own\n"
    "                      box); with {rank} in FILE, one file per rank\n"
    "  --output-dir DIR    writes DIR/outN.rankR.npy for every result\n"
    "  --entry NAME        the function to run\n"
    "  --batch FILE        one entry per line: NAME N=FILE.npy...; outputs go\n"
    "                      to DIR/NAME/outN.rankR.npy\n"
    "  --repeat K          run K times, print the best time of one run\n"
    "  --comm-report       print every rank's collectives and bytes (last run)\n"
    "  --mem-report        print every rank's peak tensor bytes, footprint and\n"
    "                      allocations (last run)\n"
    "Run one process per mesh rank: mpirun -np RANKS PROGRAM ...\n";

void makeDirs(const std::string &dir) {
  std::string path;
  for (size_t at = 0; at <= dir.size(); ++at) {
    if (at == dir.size() || dir[at] == '/') {
      if (!path.empty())
        ::mkdir(path.c_str(), 0755);
    }
    if (at < dir.size())
      path += dir[at];
  }
}

bool parseInput(const std::string &spec, std::pair<int, std::string> &out) {
  size_t eq = spec.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == spec.size())
    return false;
  for (size_t i = 0; i < eq; ++i)
    if (spec[i] < '0' || spec[i] > '9')
      return false;
  if (eq > 9)
    return false;
  out = {std::atoi(spec.substr(0, eq).c_str()), spec.substr(eq + 1)};
  return true;
}

} // namespace

Session::Session(int &argc, char **&argv, int64_t meshRanks,
                 const std::vector<std::string> &entries) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int r = 0, n = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  rank_ = r;
  worldSize_ = n;

  std::string entry, batchFile;
  auto value = [&](int &i, const std::string &flag) -> std::string {
    std::string a = argv[i];
    if (a.size() > flag.size() && a.compare(0, flag.size() + 1, flag + "=") == 0)
      return a.substr(flag.size() + 1);
    if (i + 1 >= argc)
      fail(nullptr, flag + " needs a value\n" + kUsage);
    return argv[++i];
  };
  auto is = [&](const std::string &a, const std::string &flag) {
    return a == flag || a.compare(0, flag.size() + 1, flag + "=") == 0;
  };
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      if (rank_ == 0)
        std::printf("%s", kUsage);
      MPI_Finalize();
      std::exit(0);
    } else if (is(a, "--input")) {
      std::pair<int, std::string> in;
      std::string spec = value(i, "--input");
      if (!parseInput(spec, in))
        fail(nullptr, "--input '" + spec + "': expected N=path.npy");
      inputs_.push_back(in);
    } else if (is(a, "--output-dir")) {
      outputDir_ = value(i, "--output-dir");
    } else if (is(a, "--entry")) {
      entry = value(i, "--entry");
    } else if (is(a, "--batch")) {
      batchFile = value(i, "--batch");
    } else if (is(a, "--repeat")) {
      std::string k = value(i, "--repeat");
      repeats_ = std::atoi(k.c_str());
      if (repeats_ < 1)
        fail(nullptr, "--repeat '" + k + "': expected a positive count");
    } else if (a == "--comm-report") {
      commReport_ = true;
    } else if (a == "--mem-report") {
      memReport_ = true;
    } else {
      fail(nullptr, "unknown argument '" + a + "'\n" + kUsage);
    }
  }
  if (worldSize_ != meshRanks) {
    // Processes torchrun (or another launcher setting WORLD_SIZE) started
    // are each an MPI job of one: this runtime's processes find each other
    // through MPI's launcher.
    const char *launched = std::getenv("WORLD_SIZE");
    std::string other =
        launched && worldSize_ == 1 && std::string(launched) != "1"
            ? std::string("; WORLD_SIZE=") + launched +
                  " says another launcher (torchrun?) started this process, "
                  "but its processes join one job only under an MPI launcher"
            : std::string();
    fail(nullptr, "the program's mesh has " + std::to_string(meshRanks) +
                      " ranks but the job has " + std::to_string(worldSize_) +
                      " processes (run it with mpirun -np " +
                      std::to_string(meshRanks) + ")" + other);
  }
  auto known = [&](const std::string &name) {
    if (std::find(entries.begin(), entries.end(), name) == entries.end()) {
      std::string list;
      for (const std::string &e : entries)
        list += (list.empty() ? "" : ", ") + e;
      fail(nullptr, "no entry '" + name + "' (entries: " + list + ")");
    }
  };
  if (!batchFile.empty()) {
    if (!entry.empty() || !inputs_.empty())
      fail(nullptr, "--batch takes its entries and inputs from the file: no "
                    "--entry or --input with it");
    std::ifstream in(batchFile);
    if (!in)
      fail(nullptr, "cannot open the batch file '" + batchFile + "'");
    batch_ = true;
    std::string line;
    while (std::getline(in, line)) {
      std::vector<std::string> words;
      size_t at = 0;
      while (at < line.size()) {
        size_t end = line.find(' ', at);
        if (end == std::string::npos)
          end = line.size();
        if (end > at)
          words.push_back(line.substr(at, end - at));
        at = end + 1;
      }
      if (words.empty())
        continue;
      known(words[0]);
      run_.push_back(words[0]);
      inputsOf_.emplace_back();
      for (size_t w = 1; w < words.size(); ++w) {
        std::pair<int, std::string> spec;
        if (!parseInput(words[w], spec))
          fail(nullptr, "batch file '" + batchFile + "': '" + words[w] +
                            "' is not N=path.npy");
        inputsOf_.back().push_back(spec);
      }
    }
  } else {
    if (entry.empty()) {
      if (entries.size() != 1)
        fail(nullptr, "the program has several entries: choose one with "
                      "--entry");
      entry = entries.front();
    }
    known(entry);
    run_.push_back(entry);
    inputsOf_.push_back(inputs_);
  }

  // This process's GPU in the CUDA flavours: its rank among the processes
  // of its node (LOCAL_RANK as torchrun sets it, else MPI's shared-memory
  // split), modulo the GPUs it sees.
  int localRank = 0;
  if (const char *env = std::getenv("LOCAL_RANK")) {
    localRank = std::atoi(env);
  } else {
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, r, MPI_INFO_NULL,
                        &node);
    MPI_Comm_rank(node, &localRank);
    MPI_Comm_free(&node);
  }
  device::select(localRank);
}

Session::~Session() = default;

void Session::begin(const std::string &name) {
  auto it = std::find(run_.begin(), run_.end(), name);
  entry_ = name;
  inputs_ = inputsOf_[it - run_.begin()];
  inputUsed_.assign(inputs_.size(), false);
  entryOutputDir_ = outputDir_;
  if (batch_ && !outputDir_.empty())
    entryOutputDir_ = outputDir_ + "/" + name;
  if (!entryOutputDir_.empty() && rank_ == 0)
    makeDirs(entryOutputDir_);
  // Everyone writes after the directory exists.
  MPI_Barrier(MPI_COMM_WORLD);
}

void Session::startStep() {
  for (size_t i = 0; i < inputs_.size(); ++i)
    if (!inputUsed_[i])
      fail(nullptr, "--input " + std::to_string(inputs_[i].first) + "=" +
                        inputs_[i].second + ": @" + entry_ +
                        " has no tensor argument " +
                        std::to_string(inputs_[i].first) +
                        " (arguments count from 0, mesh handles included)");
  // The comm and memory reports count one run of the entry.
  resetCommStats();
  beginMemoryRun(entry_);
  resetMemPeak();
  device::synchronize();
  MPI_Barrier(MPI_COMM_WORLD);
  stepStart_ = MPI_Wtime();
}

void Session::endStep() {
  endMemoryRun();
  device::synchronize();
  double mine = MPI_Wtime() - stepStart_, slowest = 0;
  MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  if (bestStep_ < 0 || slowest < bestStep_)
    bestStep_ = slowest;
}

Tensor Session::input(int index, const InputLayout &layout,
                      const Shape &localShape) {
  std::string where = "argument " + std::to_string(index);
  const std::string *path = nullptr;
  for (size_t i = 0; i < inputs_.size(); ++i)
    if (inputs_[i].first == index) {
      path = &inputs_[i].second;
      inputUsed_[i] = true;
    }
  if (!path)
    fail(nullptr, "@" + entry_ + " " + where + " has no --input " +
                      std::to_string(index) + "=FILE.npy");
  std::string error;
  Tensor out;
  size_t at = path->find("{rank}");
  if (at != std::string::npos) {
    std::string file = *path;
    while ((at = file.find("{rank}")) != std::string::npos)
      file.replace(at, 6, std::to_string(rank_));
    if (!readNpy(file, layout.dtype, out, error))
      fail(nullptr, "@" + entry_ + " " + where + ": " + error);
    // The piece's dims that the program leaves dynamic (an uneven shard)
    // are this rank's box, as the layout core computed it.
    size_t rank = layout.globalShape.size();
    bool global = std::all_of(layout.globalShape.begin(),
                              layout.globalShape.end(),
                              [](int64_t n) { return n >= 0; });
    if (global && layout.boxes && out.shape().size() == rank) {
      const int64_t *sizes = layout.boxes + rank_ * 2 * rank + rank;
      Shape expected(sizes, sizes + rank);
      if (out.shape() != expected)
        fail(nullptr, "@" + entry_ + " " + where + ": rank " +
                          std::to_string(rank_) + "'s piece in '" + file +
                          "' has shape " + shapeText(out.shape()) +
                          ", its shard of the global " +
                          shapeText(layout.globalShape) + " has shape " +
                          shapeText(expected));
    }
  } else if (std::any_of(layout.globalShape.begin(), layout.globalShape.end(),
                         [](int64_t n) { return n < 0; })) {
    // A plain argument of dynamic shape: the file is the value, on every
    // rank (its static dims are checked below).
    if (!readNpy(*path, layout.dtype, out, error))
      fail(nullptr, "@" + entry_ + " " + where + ": " + error);
  } else {
    size_t rank = layout.globalShape.size();
    const int64_t *box = layout.boxes + rank_ * 2 * rank;
    Shape offsets(box, box + rank), sizes(box + rank, box + 2 * rank);
    if (!readNpyBox(*path, layout.dtype, layout.globalShape, offsets, sizes,
                    out, error))
      fail(nullptr, "@" + entry_ + " " + where + ": " + error);
    out = out.toDevice();
    // DTensor's R -> P on Partial inputs.
    // Mode 1 (a float sum) divides in the element type, f16 and bf16
    // through float as the interpreter does; the emitter sets it for float
    // types only.
    if (layout.partialMode == 1) {
      divideBy(out, layout.divisor);
    } else if (layout.partialMode == 2 && !layout.first[rank_]) {
      int64_t v = static_cast<int64_t>(layout.identity);
      int8_t i8 = int8_t(v);
      int16_t i16 = int16_t(v);
      int32_t i32 = int32_t(v);
      uint8_t b = uint8_t(v != 0);
      float f32 = float(layout.identity);
      double f64 = layout.identity;
      uint16_t f16 = floatToHalf(f32), bf16 = floatToBf16(f32);
      const void *id = nullptr;
      switch (out.dtype()) {
      case DType::I8: id = &i8; break;
      case DType::I16: id = &i16; break;
      case DType::I32: id = &i32; break;
      case DType::I64: id = &v; break;
      case DType::I1: id = &b; break;
      case DType::F32: id = &f32; break;
      case DType::F64: id = &f64; break;
      case DType::F16: id = &f16; break;
      case DType::BF16: id = &bf16; break;
      }
      out = fill(std::move(out), id);
    }
  }
  out = out.toDevice();
  if (localShape.size() != out.shape().size())
    fail(nullptr, "@" + entry_ + " " + where + ": rank " + std::to_string(rank_) +
                      " holds a tensor of rank " + std::to_string(out.rank()) +
                      ", the program takes rank " +
                      std::to_string(localShape.size()));
  for (size_t d = 0; d < localShape.size(); ++d)
    if (localShape[d] >= 0 && localShape[d] != out.dim(d))
      fail(nullptr, "@" + entry_ + " " + where + ": rank " +
                        std::to_string(rank_) + "'s piece has shape " +
                        shapeText(out.shape()) + ", the program takes " +
                        shapeText(localShape));
  return out;
}

void Session::output(int index, const Tensor &value) {
  if (entryOutputDir_.empty())
    return;
  std::string path = entryOutputDir_ + "/out" + std::to_string(index) +
                     ".rank" + std::to_string(rank_) + ".npy";
  std::string error;
  if (!writeNpy(path, value, error))
    fail(nullptr, "@" + entry_ + " result " + std::to_string(index) + ": " +
                      error);
}

int Session::finish() {
  if (bestStep_ >= 0 && rank_ == 0)
    std::printf("step time: %.3f ms (best of %d, slowest rank)\n",
                bestStep_ * 1e3, repeats_);
  // Every rank's `n` counts, on rank 0, rank after rank.
  auto gather = [&](const int64_t *local, int n) {
    std::vector<int64_t> all(static_cast<size_t>(worldSize_) * n);
    MPI_Gather(local, n, MPI_INT64_T, all.data(), n, MPI_INT64_T, 0,
               MPI_COMM_WORLD);
    return all;
  };
  if (commReport_) {
    const CommStats &mine = commStats();
    int64_t local[12];
    for (int k = 0; k < 6; ++k) {
      local[k] = mine.calls[k];
      local[6 + k] = mine.bytesSent[k];
    }
    std::vector<int64_t> all = gather(local, 12);
    if (rank_ == 0) {
      std::printf("communication per rank (bytes: the larger of each call's "
                  "input and output, as dtensor-opt --dtensor-comm-report "
                  "counts):\n");
      for (int64_t r = 0; r < worldSize_; ++r)
        for (int k = 0; k < 6; ++k)
          if (all[r * 12 + k])
            std::printf("  rank %lld %-15s %lld calls %lld bytes\n",
                        static_cast<long long>(r), kCollectiveNames[k],
                        static_cast<long long>(all[r * 12 + k]),
                        static_cast<long long>(all[r * 12 + 6 + k]));
    }
  }
  if (memReport_) {
    const MemStats &mine = memStats();
    int64_t local[4] = {mine.peakLiveBytes, mine.reservedBytes,
                        mine.planBytes, mine.allocations};
    std::vector<int64_t> all = gather(local, 4);
    if (rank_ == 0) {
      std::printf("memory per rank (tensor bytes at the peak of the last run, "
                  "inputs included; bytes reserved, of which the memory "
                  "plan's arena; allocator calls in the last run):\n");
      for (int64_t r = 0; r < worldSize_; ++r)
        std::printf("  rank %lld peak %lld bytes reserved %lld bytes arena "
                    "%lld bytes allocations %lld\n",
                    static_cast<long long>(r),
                    static_cast<long long>(all[r * 4]),
                    static_cast<long long>(all[r * 4 + 1]),
                    static_cast<long long>(all[r * 4 + 2]),
                    static_cast<long long>(all[r * 4 + 3]));
    }
  }
  std::fflush(stdout);
  MPI_Finalize();
  return 0;
}

} // namespace dtensor_rt
