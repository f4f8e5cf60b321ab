#!/bin/sh
# The installed C++ package as an outside project uses it: installs this
# build into a fresh prefix, builds examples/embed against it with
# find_package(d2q9) and nothing but CMAKE_PREFIX_PATH, checks that the
# program links the library alone (no backend's library), runs it on a
# cylinder from another folder with no kernels folder given, and compares its
# outputs with d2q9-bgk's run of the same problem, byte for byte.
# Usage: embed_consumer.sh BUILD_DIR SOURCE_DIR WORK_DIR D2Q9_BGK [CXX_FLAGS [LINKER_FLAGS]]
# (the flags: the build's own, so a sanitized library links into a sanitized program)
set -eu
absolute() { (cd "$(dirname "$1")" && echo "$(pwd)/$(basename "$1")"); }
build=$(absolute "$1") source=$(absolute "$2") work=$3 bgk=$(absolute "$4") cxx_flags=${5:-} linker_flags=${6:-}
problem=$source/tests/problems/cylinder_library.toml
rm -rf "$work"
mkdir -p "$work"
work=$(absolute "$work")
cmake --install "$build" --prefix "$work/prefix" >"$work/install.log"
# The documented idiom (Simulation(problem, {Backend::OpenCL})) and the public
# headers compile warning-free in a user's strict build.
cmake -S "$source/examples/embed" -B "$work/embed" -DCMAKE_PREFIX_PATH="$work/prefix" \
  -DCMAKE_CXX_FLAGS="$cxx_flags -Wall -Wextra -Werror" -DCMAKE_EXE_LINKER_FLAGS="$linker_flags" >"$work/configure.log"
cmake --build "$work/embed" >"$work/build.log" || { cat "$work/build.log"; exit 1; }
program=$work/embed/embed_cylinder
needed=$(readelf -d "$program" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
echo "embed_cylinder needs: $needed"
case " $needed" in
  *" libd2q9.so"*) ;;
  *) echo "error: embed_cylinder does not link libd2q9.so"; exit 1 ;;
esac
for backend_lib in libOpenCL libmpi libnvrtc libcuda; do
  case "$needed" in
    *"$backend_lib"*) echo "error: embed_cylinder links $backend_lib itself: a backend's library is the user's link dependency"; exit 1 ;;
  esac
done
mkdir -p "$work/elsewhere"
cd "$work/elsewhere"
env -u D2Q9_KERNELS_DIR "$program" "$problem" 0 lib
"$bgk" --no-png -q -o cli "$problem"
# A problem file's final state is final_state.vti for both (final_state_format).
for name in av_vels.dat final_state.vti forces.csv probes.csv; do
  cmp "lib/$name" "cli/$name" || { echo "error: $name differs from d2q9-bgk's"; exit 1; }
done
echo "embed_cylinder's outputs equal d2q9-bgk's"
