//===- dtensor-fuzz-npy.cpp - fuzz the interpreter's .npy reader ----------===//
//
// Part of dtensor-mlir.
//
//===----------------------------------------------------------------------===//
//
// Input: the bytes of a .npy file. The reader may reject it; it must never
// crash, read past the file, or allocate what the file cannot hold.
//
//===----------------------------------------------------------------------===//

#include "dtensor/Interpreter/Tensor.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <string>

using namespace mlir::dtensor::interp;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  // The reader takes a path: an anonymous in-memory file stands in.
  static int fd = memfd_create("fuzz.npy", 0);
  if (fd < 0)
    abort();
  if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != ssize_t(size))
    abort();
  std::string path = "/proc/self/fd/" + std::to_string(fd);
  std::string error;
  std::optional<Tensor> t = readNpy(path, error);
  if (t)
    (void)t->numElements();
  return 0;
}
