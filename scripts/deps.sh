#!/usr/bin/env bash
# Checks for what hashlab needs to build, test and plot, and installs what is missing with
# apt-get (through sudo when not root), saying what it does. The CUDA toolkit is not installed
# here: without nvcc the script says what to install and fails.
set -euo pipefail

say() { echo "deps: $*"; }
missing_pkgs=()

if ! command -v nvcc >/dev/null 2>&1 && [ ! -x /usr/local/cuda/bin/nvcc ]; then
  say "the CUDA toolkit (nvcc) is missing."
  say "install CUDA >= 12 from https://developer.nvidia.com/cuda-downloads (Debian/Ubuntu: the"
  say "'cuda-toolkit' package of NVIDIA's repository, or 'nvidia-cuda-toolkit'), then put nvcc on PATH."
  exit 1
fi
if ! command -v nvcc >/dev/null 2>&1; then
  say "nvcc is in /usr/local/cuda/bin but not on PATH; CMake will find it there."
fi

command -v cmake >/dev/null 2>&1 || missing_pkgs+=(cmake)
command -v g++ >/dev/null 2>&1 || missing_pkgs+=(g++)

# A library installed under a prefix named in CMAKE_PREFIX_PATH (colon-separated, as CMake reads
# it) counts too: CMake finds it there.
have_header() {
  local prefix prefixes
  [ -e "/usr/include/$1" ] || [ -e "/usr/local/include/$1" ] && return 0
  IFS=: read -ra prefixes <<< "${CMAKE_PREFIX_PATH:-}"
  for prefix in "${prefixes[@]}"; do [ -n "$prefix" ] && [ -e "$prefix/include/$1" ] && return 0; done
  return 1
}
have_header boost/program_options.hpp || missing_pkgs+=(libboost-program-options-dev)
have_header gtest/gtest.h || missing_pkgs+=(libgtest-dev)
# MPI for the servers layer's mpirun launcher (servers/mpi; CMake builds it when it finds MPI).
command -v mpicxx >/dev/null 2>&1 || missing_pkgs+=(libopenmpi-dev openmpi-bin)

# The claim files are TOML: Python >= 3.11 reads them (tomllib), older ones need tomli. The
# own-data test compares hashlab's answers with pandas'.
# A success is remembered: these imports take a second, and the checks below ask three times.
python_ok() { [ -n "${python_is_ok:-}" ] || { python3 -c 'import matplotlib, numpy, pandas
try:
    import tomllib
except ModuleNotFoundError:
    import tomli' >/dev/null 2>&1 && python_is_ok=1; }; }
command -v python3 >/dev/null 2>&1 || missing_pkgs+=(python3)
# Debian's python3-matplotlib serves the system interpreter only; another python3 (pyenv,
# a venv) gets pip below.
system_python() { [ "$(python3 -c 'import sys; print(sys.prefix)' 2>/dev/null)" = /usr ]; }
if ! python_ok && { ! command -v python3 >/dev/null 2>&1 || system_python; }; then
  missing_pkgs+=(python3-matplotlib python3-numpy python3-pandas)
  python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null || missing_pkgs+=(python3-tomli)
fi
# The Python package's extension (python/, built by `make` when nanobind is there) compiles
# against the interpreter's headers: Debian's python3-dev for the system interpreter.
if command -v python3 >/dev/null 2>&1 && system_python && ! python3 -c 'import os, sys, sysconfig
sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")))' 2>/dev/null; then
  missing_pkgs+=(python3-dev)
fi

if [ ${#missing_pkgs[@]} -gt 0 ]; then
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null 2>&1 || { say "missing ${missing_pkgs[*]} and no sudo to install them"; exit 1; }
    sudo="sudo"
  fi
  say "installing ${missing_pkgs[*]} with apt-get (log: /tmp/hashlab-deps.log)"
  if ! { $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq \
           --no-install-recommends "${missing_pkgs[@]}"; } > /tmp/hashlab-deps.log 2>&1; then
    tail -20 /tmp/hashlab-deps.log
    say "apt-get failed; see /tmp/hashlab-deps.log"
    exit 1
  fi
fi

# python3 may not be the system interpreter that apt-get installs into (pyenv, venv): use pip.
if ! python_ok; then
  say "python3 ($(command -v python3)) cannot import matplotlib, numpy, pandas and a TOML reader; installing plots/requirements.txt with pip"
  python3 -m pip install --quiet --disable-pip-version-check -r "$(dirname "$0")/../plots/requirements.txt" 2>&1 \
    | grep -v "Running pip as the 'root' user" || true
fi
python_ok || { say "python3 still cannot import matplotlib, numpy, pandas and tomllib (or tomli)"; exit 1; }

# PEP 668: a system python marked EXTERNALLY-MANAGED (Debian 12's) refuses pip installs into
# the site-packages that apt owns. There pip installs for this user only (~/.local), which
# cannot overwrite apt's files; --break-system-packages is the flag pip wants for that.
# A venv or pyenv python is not marked and takes a plain install.
pip_flags=()
if python3 -c 'import os, sys, sysconfig; sys.exit(sys.prefix != sys.base_prefix or not os.path.exists(
    os.path.join(sysconfig.get_path("stdlib"), "EXTERNALLY-MANAGED")))' 2>/dev/null; then
  pip_flags=(--user --break-system-packages)
fi

# The Python package (python/): nanobind builds its extension inside `make`, pytest runs its
# tests in `make test`, scikit-build-core is `pip install .`'s build backend. None is on Debian
# in a recent enough version, so pip; without them (no network) the package's tests are left out.
python_pkgs=()
python3 -c 'import nanobind' >/dev/null 2>&1 || python_pkgs+=("nanobind>=2.0")
python3 -c 'import scikit_build_core' >/dev/null 2>&1 || python_pkgs+=("scikit-build-core>=0.10")
python3 -c 'import pytest' >/dev/null 2>&1 || python_pkgs+=("pytest>=7")
if [ ${#python_pkgs[@]} -gt 0 ]; then
  say "installing ${python_pkgs[*]} with pip for the Python package (log: /tmp/hashlab-deps-python.log)"
  python3 -m pip install --quiet --disable-pip-version-check --retries 1 --timeout 10 \
    ${pip_flags[@]+"${pip_flags[@]}"} "${python_pkgs[@]}" >> /tmp/hashlab-deps-python.log 2>&1 ||
    say "pip could not install ${python_pkgs[*]} (see /tmp/hashlab-deps-python.log): the Python package's extension and tests will be left out of the build"
fi

# NCCL for the servers layer (servers/): from the system or the CUDA toolkit, else the PyPI wheel
# for this CUDA's major version (headers and library; CMake finds it, cmake/nccl.cmake).
have_nccl() {
  local cuda_include
  cuda_include="$(dirname "$(dirname "$(command -v nvcc 2>/dev/null || echo /usr/local/cuda/bin/nvcc)")")/include"
  have_header nccl.h || [ -e "$cuda_include/nccl.h" ] || [ -e /usr/local/cuda/include/nccl.h ] ||
    python3 -c 'import nvidia.nccl as n, os, sys; sys.exit(not os.path.exists(os.path.join(list(n.__path__)[0], "include", "nccl.h")))' >/dev/null 2>&1
}
if ! have_nccl; then
  cuda_major="$(PATH=$PATH:/usr/local/cuda/bin nvcc --version | sed -n 's/.*release \([0-9]*\)\..*/\1/p')"
  nccl_wheel="nvidia-nccl-cu${cuda_major:-13}"
  say "NCCL not found; installing $nccl_wheel with pip (log: /tmp/hashlab-deps-nccl.log)"
  python3 -m pip install --quiet --disable-pip-version-check ${pip_flags[@]+"${pip_flags[@]}"} "$nccl_wheel" \
    > /tmp/hashlab-deps-nccl.log 2>&1 ||
    say "$nccl_wheel could not be installed (see /tmp/hashlab-deps-nccl.log): the servers layer builds its local backend only"
fi

# Optional: tpchgen-cli (TPC-H data, make tpch-data) and pyarrow (Parquet for scripts/to_npy.py;
# without it TPC-H goes through CSV and pandas). Neither is on Debian, so pip, one package at a
# time; a failure (no network, no wheel) costs only those features, not the build or the tests.
here="$(cd "$(dirname "$0")" && pwd)"
have_tpchgen() { (cd "$here" && python3 -c "import tpch; tpch.find_generator()${1:-}") >/dev/null 2>&1; }
if ! have_tpchgen "; import pyarrow"; then
  failed=()
  while read -r req; do
    name="${req%%[<>=]*}"
    case "$name" in
      ''|'#'*) continue ;;
      tpchgen-cli) have_tpchgen && continue ;;
      *) python3 -c "import $name" >/dev/null 2>&1 && continue ;;
    esac
    say "installing $req with pip (log: /tmp/hashlab-deps-data.log)"
    python3 -m pip install --quiet --disable-pip-version-check --retries 1 --timeout 10 \
      ${pip_flags[@]+"${pip_flags[@]}"} "$req" >> /tmp/hashlab-deps-data.log 2>&1 || failed+=("$name")
  done < "$here/requirements-data.txt"
  if ! have_tpchgen && [[ " ${failed[*]:-} " == *" tpchgen-cli "* ]]; then
    say "tpchgen-cli could not be installed (see /tmp/hashlab-deps-data.log): TPC-H data generation will be unavailable"
  elif ! have_tpchgen; then
    say "pip has tpchgen-cli but its executable is not found (set TPCHGEN_CLI=path): TPC-H data generation will be unavailable"
  elif [ ${#failed[@]} -gt 0 ]; then
    say "${failed[*]} could not be installed (see /tmp/hashlab-deps-data.log): Parquet input will be unavailable; TPC-H data goes through CSV"
  fi
fi
say "ok (nvcc $(PATH=$PATH:/usr/local/cuda/bin nvcc --version | sed -n 's/.*release \([0-9.]*\).*/\1/p'), cmake $(cmake --version | head -n1 | awk '{print $3}'))"
