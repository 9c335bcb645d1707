# -*- Python -*-
# lit configuration for dtensor-mlir's regression tests.

import os
import platform
import shutil
import subprocess

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "DTENSOR"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test", ".c"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "conftest.py",
                   "__pycache__"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.dtensor_obj_root, "test")

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%examples", os.path.join(config.dtensor_src_root, "examples")))

llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

tool_dirs = [config.dtensor_tools_dir, config.llvm_tools_dir]
tools = ["dtensor-opt", "dtensor-plan", "dtensor-run", "dtensor-translate",
         "dtensor-build", "dtensor-rt-test", "dtensor-capi-test"]
llvm_config.add_tool_substitutions(tools, tool_dirs)

# The source and build trees, and the compilers of the build (for tests that
# install it and build a project against it).
config.substitutions.append(("%dtensor_src_root", config.dtensor_src_root))
config.substitutions.append(("%dtensor_obj_root", config.dtensor_obj_root))
config.substitutions.append(("%dtensor_cxx", getattr(config, "dtensor_cxx_compiler", "c++")))
config.substitutions.append(("%dtensor_cc", getattr(config, "dtensor_c_compiler", "cc")))
if shutil.which("cmake") and shutil.which("ninja"):
    config.available_features.add("cmake")

# The Python package (DTENSOR_ENABLE_PYTHON): %venv_python is the project's
# .venv interpreter, importing this build's package.
if getattr(config, "dtensor_enable_python", "OFF") in ("ON", "1", "TRUE") and \
        os.path.exists(os.path.join(config.dtensor_obj_root, "python_packages")):
    config.available_features.add("python")
    config.substitutions.append(("%venv_python", config.dtensor_python))
    config.environment["PYTHONPATH"] = os.path.join(config.dtensor_obj_root,
                                                    "python_packages")
    config.environment["DTENSOR_SRC_ROOT"] = config.dtensor_src_root
    config.environment["PYTHONDONTWRITEBYTECODE"] = "1"
    # The PyTorch suites (test/torch) need torch in the .venv
    # (scripts/setup-torch.sh); everything else runs without it.
    import subprocess
    try:
        if subprocess.run([config.dtensor_python, "-c", "import torch"],
                          capture_output=True, timeout=120).returncode == 0:
            config.available_features.add("torch")
        # Hugging Face transformers (scripts/setup-torch.sh installs it) for
        # the suite of its models.
        if subprocess.run([config.dtensor_python, "-c", "import transformers"],
                          capture_output=True, timeout=120).returncode == 0:
            config.available_features.add("transformers")
    except (OSError, subprocess.TimeoutExpired):
        pass

# A sanitizer build (scripts/sanitize.sh): its own signal handlers report
# crashes, and tests that need our crash message are unsupported there.
if "-fsanitize=address" in getattr(config, "dtensor_cxx_flags", ""):
    config.available_features.add("asan")

# Compiled programs run as mpirun jobs where Open MPI and the runtime are
# (scripts/setup.sh installs Open MPI; the build makes the runtime).
if shutil.which("mpirun") and os.path.exists(
        os.path.join(config.dtensor_obj_root, "lib", "dtensor-rt.env")):
    config.available_features.add("mpi")
    # %mpirun: Open MPI's launcher for any number of processes, also as
    # root. Under a sanitizer build, leak checking is off in the MPI
    # processes: Open MPI's dlopen'ed plugins leak by design and unload before
    # LeakSanitizer could attribute (or suppress) their allocations.
    launcher = "mpirun --oversubscribe"
    if os.getuid() == 0:
        launcher += " --allow-run-as-root"
    if "ASAN_OPTIONS" in os.environ:
        launcher = "env ASAN_OPTIONS=%s:detect_leaks=0 %s" % (
            os.environ["ASAN_OPTIONS"], launcher)
    # Every job gets a TMPDIR of its own (see mpirun-private-tmp.sh): lit's
    # workers share one, and Open MPI 4's session directories race in it.
    launcher = "bash %s %s" % (
        os.path.join(config.test_source_root, "mpirun-private-tmp.sh"), launcher)
    config.substitutions.append(("%mpirun", launcher))
    # Open MPI wants a home directory and, when run as root, says so.
    for var in ["HOME", "OMPI_ALLOW_RUN_AS_ROOT", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM",
                "ASAN_OPTIONS", "UBSAN_OPTIONS", "ASAN_SYMBOLIZER_PATH"]:
        if var in os.environ:
            config.environment[var] = os.environ[var]

# The CUDA flavours: emitted .cu programs build with nvcc wherever the runtime
# has them (cuda-build: nvcc, cuBLAS and NCCL were found); they run only where
# nvidia-smi lists a GPU (cuda-gpu). Without one, the GPU runs are reported
# as unsupported, never as passed.
rt_env = os.path.join(config.dtensor_obj_root, "lib", "dtensor-rt.env")
if os.path.exists(rt_env):
    with open(rt_env) as f:
        if "DTENSOR_RT_NVCC=" in f.read():
            config.available_features.add("cuda-build")
# glibc's vector math (libmvec) for every function the runtime declares
# simd: x86-64, glibc 2.35 or later, and emitted programs built by g++ (the
# runtime's compiler; clang maps only some, see dtensor-build).
libc, libc_version = platform.libc_ver()
if platform.machine() == "x86_64" and libc == "glibc" and os.path.exists(rt_env):
    with open(rt_env) as f:
        rt_cxx = [l.split("=", 1)[1].strip().strip("'\"")
                  for l in f if l.startswith("DTENSOR_RT_CXX=")]
    try:
        new_enough = tuple(int(p) for p in libc_version.split(".")[:2]) >= (2, 35)
        gnu = bool(rt_cxx) and "Free Software Foundation" in subprocess.run(
            [rt_cxx[0], "--version"], capture_output=True, text=True,
            timeout=30).stdout
        if new_enough and gnu:
            config.available_features.add("libmvec")
    except (ValueError, OSError, subprocess.TimeoutExpired):
        pass

if shutil.which("nvidia-smi"):
    import subprocess
    try:
        listed = subprocess.run(["nvidia-smi", "-L"], capture_output=True,
                                text=True, timeout=60)
        gpus = listed.stdout.count("GPU ") if listed.returncode == 0 else 0
        if gpus:
            config.available_features.add("cuda-gpu")
        for n in (2, 4, 8):
            if gpus >= n:
                config.available_features.add("cuda-gpus-%d" % n)
    except (OSError, subprocess.SubprocessError):
        pass
# DTENSOR_MPIRUN(_FLAGS): dtensor-run --target's launcher, e.g. the
# compute-sanitizer wrapper of scripts/gpu-check.sh --sanitize.
for var in ["CUDA_VISIBLE_DEVICES", "NCCL_DEBUG", "LOCAL_RANK", "DTENSOR_MPIRUN",
            "DTENSOR_MPIRUN_FLAGS"]:
    if var in os.environ:
        config.environment[var] = os.environ[var]
