#!/usr/bin/env bash
# Every single-device kernel variant, both precisions and several
# work-group shapes (one overhanging the grid, one not a power of two), on a
# small grid under oclgrind, a second OpenCL implementation that reports data
# races, uninitialised reads and API misuse. Any report fails.
# Usage: oclgrind_kernels.sh <d2q9-bgk>   (exit 77: cannot run here, and why)
set -u
exe=$1
if ! command -v oclgrind >/dev/null; then echo "skipped: oclgrind is not installed (apt-get install oclgrind)"; exit 77; fi
if ldd "$exe" | grep -q libasan; then
  echo "skipped: $exe is an AddressSanitizer build, which oclgrind's library preload cannot run"; exit 77
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
printf '13\n11\n6\n10\n0.1\n0.02\n1.7\n' > "$dir/in.params"
printf '0 0 1\n5 5 1\n6 9 1\n12 10 1\n' > "$dir/obs.dat"
status=0
for variant in split fused fused-x2 fused-rows; do
  for precision in float double; do
    shapes="4x2 5x3 1x1 16x1"
    [ $variant = fused-rows ] && shapes=auto  # a row per work-item: no shape to choose
    for shape in $shapes; do
      out=$(oclgrind --data-races --uninitialized --check-api "$exe" "$dir/in.params" "$dir/obs.dat" -o "$dir" -q \
              --no-png --kernel-variant $variant -p $precision -l $shape 2>&1)
      rc=$?
      if [ $rc -ne 0 ] || [ -n "$out" ]; then
        echo "FAIL: $variant $precision $shape (exit $rc):"; echo "$out" | head -20; status=1
      else
        echo "ok: $variant $precision $shape"
      fi
    done
  done
done
# Not run: the slab kernels (their lattices are filled with clEnqueueFillBuffer,
# which oclgrind does not count as initialising memory).
echo "not run under oclgrind: the slab kernels (see the comment in this script)"
exit $status
