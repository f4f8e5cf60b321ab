#!/bin/sh
# The installed library through pkg-config, as a project without CMake uses
# it: installs this build into a fresh prefix, compiles pkg_config_consumer.cpp
# with nothing but `pkg-config --cflags --libs d2q9` (PKG_CONFIG_PATH at the
# prefix's pkgconfig folder), and runs it from another folder with no kernels
# folder given on a few steps of the lid-driven cavity.
# Usage: pkg_config_consumer.sh BUILD_DIR SOURCE_DIR WORK_DIR CXX [CXX_FLAGS [LINKER_FLAGS]]
# (the flags: the build's own, so a sanitized library links into a sanitized program)
set -eu
absolute() { (cd "$(dirname "$1")" && echo "$(pwd)/$(basename "$1")"); }
build=$(absolute "$1") source=$(absolute "$2") work=$3 cxx=$4 cxx_flags=${5:-} linker_flags=${6:-}
steps=20
rm -rf "$work"
mkdir -p "$work"
work=$(absolute "$work")
cmake --install "$build" --prefix "$work/prefix" >"$work/install.log"
pc=$(find "$work/prefix" -name d2q9.pc)
[ -n "$pc" ] || { echo "error: the install holds no d2q9.pc"; exit 1; }
PKG_CONFIG_PATH=$(dirname "$pc")
export PKG_CONFIG_PATH
flags=$(pkg-config --cflags --libs d2q9)
echo "pkg-config --cflags --libs d2q9: $flags"
libdir=$(pkg-config --variable=libdir d2q9)
[ -f "$libdir/libd2q9.so" ] || { echo "error: pkg-config's libdir $libdir holds no libd2q9.so"; exit 1; }
# shellcheck disable=SC2086 # the flags are words
"$cxx" $cxx_flags -std=c++17 -o "$work/pkg_config_consumer" "$source/tests/tools/pkg_config_consumer.cpp" $flags \
  "-Wl,-rpath,$libdir" $linker_flags
mkdir -p "$work/elsewhere"
cd "$work/elsewhere"
status=0
env -u D2Q9_KERNELS_DIR "$work/pkg_config_consumer" "$source/inputs/examples/cavity.toml" $steps >out.txt || status=$?
cat out.txt
[ "$status" -eq 0 ] || { echo "error: pkg_config_consumer exited with $status"; exit 1; }
grep -qx "steps done: $steps" out.txt || { echo "error: the program did not report $steps steps done"; exit 1; }
echo "pkg_config_consumer built from pkg-config's flags alone and ran"
