# Small wrappers so that each library's CMakeLists.txt stays a few lines.
# Every library is installed and exported (DTensorMLIRTargets, namespace
# DTensorMLIR::), so `find_package(DTensorMLIR)` gives embedding projects the
# same targets with their dependencies on MLIR's.

function(dtensor_install_library name)
  target_include_directories(${name} INTERFACE
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  install(TARGETS ${name}
    EXPORT DTensorMLIRTargets
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
    COMPONENT dtensor-mlir)
endfunction()

# A plain C++ library of the semantic core: no MLIR IR.
function(add_dtensor_core_library name)
  add_mlir_library(${name} ${ARGN})
  dtensor_install_library(${name})
endfunction()

# A dialect, pass or tool library.
function(add_dtensor_library name)
  add_mlir_library(${name} ${ARGN})
  dtensor_install_library(${name})
endfunction()

# A C API library (include/dtensor-c/), in MLIR's conventions.
function(add_dtensor_c_api_library name)
  add_mlir_public_c_api_library(${name} ${ARGN})
  dtensor_install_library(${name})
endfunction()

# A dialect's TableGen outputs: ops, dialect, attributes and types.
function(add_dtensor_dialect dialect dialect_namespace)
  add_mlir_dialect(${dialect} ${dialect_namespace})
endfunction()
