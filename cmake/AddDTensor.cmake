# Small wrappers so that each library's CMakeLists.txt stays a few lines.

# A plain C++ library of the semantic core: no MLIR IR.
function(add_dtensor_core_library name)
  add_mlir_library(${name} ${ARGN})
endfunction()

# A dialect, pass or tool library.
function(add_dtensor_library name)
  add_mlir_library(${name} ${ARGN})
endfunction()

# A dialect's TableGen outputs: ops, dialect, attributes and types.
function(add_dtensor_dialect dialect dialect_namespace)
  add_mlir_dialect(${dialect} ${dialect_namespace})
endfunction()
