#!/usr/bin/env bash
# Every kernel variant, both precisions and several work-group shapes (one
# overhanging the grid, one not a power of two), on a small grid under
# oclgrind, a second OpenCL implementation that reports data races,
# uninitialised reads and API misuse. Any report fails.
# Usage: oclgrind_kernels.sh <d2q9-bgk> [<mpiexec>]   (exit 77: cannot run here, and why)
set -u
exe=$1
mpiexec=${2:-}
if ! command -v oclgrind >/dev/null; then echo "skipped: oclgrind is not installed (apt-get install oclgrind)"; exit 77; fi
if ldd "$exe" | grep -q libasan; then
  echo "skipped: $exe is an AddressSanitizer build, which oclgrind's library preload cannot run"; exit 77
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
printf '13\n11\n6\n10\n0.1\n0.02\n1.7\n' > "$dir/in.params"
printf '0 0 1\n5 5 1\n6 9 1\n12 10 1\n' > "$dir/obs.dat"
status=0
# check LABEL COMMAND...: runs the command; any output or a failure is a report.
check() {
  local label=$1
  shift
  local out rc
  # Each run writes into a folder of its own: a run never meets another's outputs.
  rm -rf "$dir/out" && mkdir "$dir/out"
  out=$("$@" 2>&1)
  rc=$?
  if [ $rc -ne 0 ] || [ -n "$out" ]; then
    echo "FAIL: $label (exit $rc):"; echo "$out" | head -20; status=1
  else
    echo "ok: $label"
  fi
}
for variant in split fused fused-rows blocked; do
  for precision in float double; do
    shapes="4x2 5x3 1x1 16x1"
    [ $variant = fused-rows ] && shapes=auto  # a row per work-item: no shape to choose
    # Tiles that do not divide the grid, launches of 3 steps and a last one of 0-2.
    extra=()
    [ $variant = blocked ] && extra=(--block-steps 3 --tile 5x4)
    for shape in $shapes; do
      check "$variant $precision $shape ${extra[*]}" oclgrind --data-races --uninitialized --check-api "$exe" \
        "$dir/in.params" "$dir/obs.dat" -o "$dir/out" -q --no-png --kernel-variant $variant -p $precision -l $shape \
        "${extra[@]}"
    done
  done
done
# 16-bit storage: the same kernels through the load/store helpers.
# The blocked kernel walks each step's window with 16-bit storage: one case
# whose window rows are wider than the work-group (a walk step of no whole row).
for run in "fused 5x3 fp16s" "fused 4x2 fp16c" "fused-rows auto fp16c" "blocked 8x2 fp16s --tile 4x6" \
  "blocked 5x1 fp16c --block-steps 3 --tile 9x4"; do
  set -- $run
  variant=$1 shape=$2 precision=$3
  shift 3
  check "$variant $precision $shape $*" oclgrind --data-races --uninitialized --check-api "$exe" "$dir/in.params" \
    "$dir/obs.dat" -o "$dir/out" -q --no-png --kernel-variant $variant -p $precision -l $shape "$@"
done
# What problem files add (issue #26): two measured bodies (the forces'
# reductions), TRT, a ramped parabolic inlet, an outlet, probes; and regularised BGK.
cat > "$dir/bodies.toml" <<'TOML'
[grid]
nx = 13
ny = 11
[flow]
steps = 6
viscosity = 0.05
collision = "trt"
inlet_ramp = 4
[edges]
left = { inlet_velocity = { parabolic = 0.05 } }
right = { outlet_density = 1.0 }
bottom = "wall"
top = "wall"
[[obstacle]]
name = "a"
circle = { center = [4.0, 5.0], radius = 1.5 }
[[obstacle]]
name = "b"
rectangle = { from = [8, 3], to = [9, 6] }
[probes]
every = 2
p = [6, 5]
TOML
sed 's/collision = "trt"/collision = "regularised"/' "$dir/bodies.toml" > "$dir/regularised.toml"
# and with body a's circle as a curved wall (interpolated bounce-back: link planes after the obstacle bytes)
sed 's/^name = "a"$/name = "a"\nboundary = "interpolated"/' "$dir/bodies.toml" > "$dir/curved.toml"
grep -q interpolated "$dir/curved.toml" || { echo "FAIL: curved.toml was not made"; exit 1; }
for problem in bodies curved; do
  for run in "split 4x2 float" "fused 5x3 float" "fused-rows auto float" "blocked 4x2 float --tile 5x4" \
             "fused 4x2 fp16s" "fused 4x2 double"; do
    set -- $run
    variant=$1 shape=$2 precision=$3
    shift 3
    check "$problem $variant $precision $shape $*" oclgrind --data-races --uninitialized --check-api "$exe" \
      "$dir/$problem.toml" -o "$dir/out" -q --no-png --kernel-variant $variant -p $precision -l $shape "$@"
  done
done
check "regularised fused float" oclgrind --data-races --uninitialized --check-api "$exe" "$dir/regularised.toml" \
  -o "$dir/out" -q --no-png --kernel-variant fused -l 4x2
# The slab kernels (edge bands, then the interior: launches from a first group row)
# on 2 and 3 ranks. Without --uninitialized: oclgrind's shadow of a buffer
# keeps only the last host write into it (ShadowMemory::allocate), so the
# halo rows written each step make the rest of the lattice look uninitialised.
if [ -z "$mpiexec" ]; then
  echo "not run: the slab kernels ($exe was built without MPI)"
else
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
  # ranks, shape, extra options: even splits, and a one-row top slab with the
  # accelerated row (9) in the middle slab.
  # Two take 16-bit storage. The default on oclgrind's device is blocked,
  # whose slabs these grids are too thin for: they fall back to the one-step
  # kernel. The last run takes blocked's slab kernel itself (halo rows 2
  # deep, slabs of 8 and 3 rows).
  for run in "2 4x2" "2 5x3" "3 4x2" "3 16x1" "3 4x1 --slab-rows 3,7,1" "3 auto --slab-rows 3,7,1" \
             "2 4x2 -p fp16s" "3 auto -p fp16c" "2 16x1 --kernel-variant blocked --tile 5x4 --block-steps 2"; do
    set -- $run
    ranks=$1 shape=$2
    shift 2
    precisions="-p float,-p double"
    case "$*" in *-p*) precisions=" " ;; esac  # the run names its own
    IFS=, read -r -a precision_args <<< "$precisions"
    for precision in "${precision_args[@]}"; do
      check "slabs on $ranks ranks, $shape $precision $*" "$mpiexec" --oversubscribe -np $ranks oclgrind \
        --data-races --check-api "$exe" "$dir/in.params" "$dir/obs.dat" -o "$dir/out" -q --no-png $precision \
        -l $shape "$@"
    done
  done
  for problem in bodies curved; do
    check "slabs on 3 ranks, $problem, ramped parabolic inlet" "$mpiexec" --oversubscribe -np 3 oclgrind --data-races \
      --check-api "$exe" "$dir/$problem.toml" -o "$dir/out" -q --no-png -l 4x1
  done
fi
exit $status
