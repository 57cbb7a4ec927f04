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
have_header benchmark/benchmark.h || missing_pkgs+=(libbenchmark-dev)
have_header gtest/gtest.h || missing_pkgs+=(libgtest-dev)

# The claim files are TOML: Python >= 3.11 reads them (tomllib), older ones need tomli.
python_ok() { python3 -c 'import matplotlib, numpy
try:
    import tomllib
except ModuleNotFoundError:
    import tomli' >/dev/null 2>&1; }
command -v python3 >/dev/null 2>&1 || missing_pkgs+=(python3)
# Debian's python3-matplotlib serves the system interpreter only; another python3 (pyenv,
# a venv) gets pip below.
system_python() { [ "$(python3 -c 'import sys; print(sys.prefix)' 2>/dev/null)" = /usr ]; }
if ! python_ok && { ! command -v python3 >/dev/null 2>&1 || system_python; }; then
  missing_pkgs+=(python3-matplotlib python3-numpy)
  python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null || missing_pkgs+=(python3-tomli)
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
  say "python3 ($(command -v python3)) cannot import matplotlib, numpy and a TOML reader; installing plots/requirements.txt with pip"
  python3 -m pip install --quiet --disable-pip-version-check -r "$(dirname "$0")/../plots/requirements.txt" 2>&1 \
    | grep -v "Running pip as the 'root' user" || true
fi
python_ok || { say "python3 still cannot import matplotlib, numpy and tomllib (or tomli)"; exit 1; }
say "ok (nvcc $(PATH=$PATH:/usr/local/cuda/bin nvcc --version | sed -n 's/.*release \([0-9.]*\).*/\1/p'), cmake $(cmake --version | head -n1 | awk '{print $3}'))"
