#!/usr/bin/env bash
# Installs the build and test dependencies on Debian 12 / Ubuntu 22.04+ (run as root, or with sudo available).
# --run: only what building and running the programs needs (the Quick start's first command),
# without the browser and fuzzing tools the tests use.
case "${1:-}" in -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac
run_only=false
[ "${1:-}" = --run ] && run_only=true
set -euo pipefail
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
# Open MPI splits a grid across devices and hosts (host/mpi/; the build works without it).
# OpenCL: ICD loader, C and C++ headers, PoCL as a CPU device where no GPU driver is present,
# oclgrind, a second OpenCL implementation the tests run the kernels under, and Mesa's rusticl
# (mesa-opencl-icd; its CPU device llvmpipe shows with RUSTICL_ENABLE=llvmpipe), a third, which
# the conformance tests run on too (ctest -L rusticl; docs/opencl-implementations.md).
# pkg-config builds a program against the installed library as a non-CMake project would (ctest -L install).
# python3 runs the validation checks (validation/*.py, standard library only).
# pybind11-dev, python3-dev and python3-numpy build the Python module d2q9 (python/), python3-pytest
# runs its tests (ctest -L python); python3-matplotlib draws examples/python's pictures.
# libcpp-httplib-dev serves the live view (--serve, docs/live-view.md).
$sudo apt-get install -y -qq --no-install-recommends \
  ca-certificates cmake make g++ pkg-config python3 \
  ocl-icd-libopencl1 ocl-icd-opencl-dev opencl-c-headers opencl-clhpp-headers pocl-opencl-icd mesa-opencl-icd clinfo \
  libboost-program-options-dev doctest-dev nlohmann-json3-dev libtomlplusplus-dev \
  libpng-dev bsdutils libopenmpi-dev openmpi-bin libxxhash-dev oclgrind \
  pybind11-dev python3-dev python3-numpy python3-pytest python3-matplotlib libcpp-httplib-dev >/dev/null
if $run_only; then echo "install-deps: done (--run: no browser or fuzzing tools)"; exit 0; fi
# Chromium, its driver and Selenium run the live view's browser tests (ctest -L browser), which
# fail without them (Debian packages them as chromium and chromium-driver; Ubuntu as
# chromium-browser and chromium-chromedriver).
browser_pkgs="chromium chromium-driver"
if ! apt-cache show chromium-driver >/dev/null 2>&1; then browser_pkgs="chromium-browser chromium-chromedriver"; fi
$sudo apt-get install -y -qq --no-install-recommends $browser_pkgs python3-selenium >/dev/null
# Python's VTK opens the .vti files a run writes as ParaView does (ctest -R vti_opens_in_vtk).
$sudo apt-get install -y -qq --no-install-recommends python3-vtk9 >/dev/null
# clang and its libFuzzer runtime, for the "fuzz" CMake preset only (Debian 12
# packages the runtime apart; older releases ship it inside clang).
fuzz_pkgs="clang"
if apt-cache show libclang-rt-14-dev >/dev/null 2>&1; then fuzz_pkgs="$fuzz_pkgs libclang-rt-14-dev"; fi
$sudo apt-get install -y -qq --no-install-recommends $fuzz_pkgs >/dev/null
echo "install-deps: done"
