#!/usr/bin/env bash
# Strong and weak scaling of the MPI slabs on one host's GPUs, with the launch
# users run (d2q9-mpi-bench's default: the launch decision's variant and
# shape, blocked on GPUs), as issue 45 asks for it:
#
#   scripts/device/mpi_scaling.sh [-b BUILD_DIR] OUT_DIR
#
# For each backend (BACKENDS, default "cuda opencl"), precision (PRECISIONS,
# default "float fp16s") and size S (SIZES, default "8192 16384"): S^2 on one
# GPU (the baseline, the single-device solver), S^2 on N GPUs (strong:
# efficiency T1 / (N TN)) and S x (S N) on N GPUs (weak, S^2 per GPU:
# efficiency T1 / TN), N in GPUS (default "2 4"). Each point is a fresh
# `mpirun -np N d2q9-mpi-bench`, STEPS (default 200) timed steps after WARMUP
# (default 20), under a timeout of POINT_TIMEOUT_S (default 90) seconds.
#
# Written into OUT_DIR as they come (a run cut short keeps what it had):
#   mpi_scaling.csv  one row per point: status "ok", or why not ("FAILED: <its
#                    error line>", "timeout", "skipped: budget"), with the
#                    device, backend, precision, launch, halo path and commit;
#   mpi_scaling.log  each command and its stderr's last lines;
#   mpi_scaling.md   the tables (remade after every point): efficiencies as
#                    in issue 45, then every point's GLUPS.
# No point starts after BUDGET_S seconds (default 420): the rest are recorded
# as skipped, so the script ends in about BUDGET_S + POINT_TIMEOUT_S. One
# point failing does not stop the others. D2Q9_HALOS=host in the environment
# makes every rank stage halo rows through host memory (for comparison).
#
# Four H100s, the defaults: 40 points (2 backends x 2 precisions x 2 sizes x
# 5), each a few seconds of start-up (the kernels' compile, the lattice's
# allocation) and well under a second of steps.
case "${1:-}" in -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac
set -uo pipefail
cd "$(dirname "$0")/../.."

usage="usage: $0 [-b BUILD_DIR] OUT_DIR"
build=build
while getopts "b:" opt; do
  case $opt in
    b) build=$OPTARG ;;
    *) echo "$usage" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[ $# -eq 1 ] || { echo "$usage" >&2; exit 2; }
out=$1
build=$(cd "$build" 2>/dev/null && pwd) || { echo "error: no build directory $build" >&2; exit 1; }
bench=$build/d2q9-mpi-bench
[ -x "$bench" ] || { echo "error: $bench not found: build with MPI (libopenmpi-dev) first" >&2; exit 1; }
mkdir -p "$out" || exit 1
out=$(cd "$out" && pwd)

backends=${BACKENDS:-cuda opencl}
precisions=${PRECISIONS:-float fp16s}
sizes=${SIZES:-8192 16384}
gpu_counts=${GPUS:-2 4}
steps=${STEPS:-200}
warmup=${WARMUP:-20}
point_timeout=${POINT_TIMEOUT_S:-90}
budget=${BUDGET_S:-420}
commit=${D2Q9_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}
$(git diff --quiet HEAD 2>/dev/null) || commit="$commit+changes"

csv=$out/mpi_scaling.csv
log=$out/mpi_scaling.log
md=$out/mpi_scaling.md
columns="backend,precision,scaling,size,gpus,nx,ny,steps,seconds,glups,efficiency,launch,local_size,halos,device,commit,status"
echo "$columns" >"$csv"
: >"$log"

mpirun_args=(--bind-to none)
[ "$(id -u)" -eq 0 ] && mpirun_args+=(--allow-run-as-root)
max_gpus=$(echo $gpu_counts | tr ' ' '\n' | sort -n | tail -1)
[ "$max_gpus" -gt "$(nproc)" ] && mpirun_args+=(--oversubscribe)
# Containers often forbid the ptrace-based single copy of Open MPI's shared-memory transport.
export OMPI_MCA_btl_vader_single_copy_mechanism=${OMPI_MCA_btl_vader_single_copy_mechanism:-none}
for name in LD_LIBRARY_PATH D2Q9_CACHE_DIR D2Q9_HALOS; do
  [ -n "${!name:-}" ] && mpirun_args+=(-x "$name")
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

{
  echo "== mpi_scaling $(date -u +%Y-%m-%dT%H:%MZ) on $(hostname), commit $commit, binaries $build"
  echo "mpirun: $(mpirun --version 2>&1 | head -1); args: ${mpirun_args[*]}; D2Q9_HALOS=${D2Q9_HALOS:-}"
  command -v nvidia-smi >/dev/null && nvidia-smi -L && nvidia-smi topo -m
} >>"$log" 2>&1

# The tables, from the CSV (python3 where there is one; else the CSV as columns).
write_tables() {
  if command -v python3 >/dev/null; then
    python3 - "$csv" "$md" "$commit" <<'EOF' 2>>"$log" && return
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
lines = ["# MPI scaling (scripts/device/mpi_scaling.sh), commit %s" % sys.argv[3], ""]
devices = sorted({r["device"] for r in rows if r["device"]})
lines.append("Device: %s. Default launch (d2q9-mpi-bench without -l or --kernel-variant); "
             "strong: T1 / (N TN), weak (S^2 per GPU): T1 / TN, against one GPU of the same tool." % (", ".join(devices) or "?"))
lines.append("")
sizes = sorted({int(r["size"]) for r in rows})
counts = sorted({int(r["gpus"]) for r in rows if int(r["gpus"]) > 1})
cols = []
for s in sizes:
    cols += [("strong", s), ("weak", s)]
head = ["| |"] + [" %d^2 %s %s |" % (s, "strong" if k == "strong" else "per GPU weak", " / ".join(map(str, counts))) for k, s in cols]
lines.append("".join(head))
lines.append("| --- |" + " --- |" * len(cols))
groups = []
for r in rows:
    g = (r["backend"], r["precision"])
    if g not in groups:
        groups.append(g)
def cell(b, p, k, s):
    out = []
    for n in counts:
        hit = [r for r in rows if (r["backend"], r["precision"], r["scaling"], int(r["size"]), int(r["gpus"])) == (b, p, k, s, n)]
        if not hit:
            out.append("-")
        elif hit[0]["status"] != "ok" or not hit[0]["efficiency"]:
            out.append("n/a" if hit[0]["status"] == "ok" else "x")
        else:
            out.append("%.2f" % float(hit[0]["efficiency"]))
    return " / ".join(out)
for b, p in groups:
    lines.append("| %s %s |" % ({"cuda": "CUDA", "opencl": "OpenCL"}.get(b, b), p) + "".join(" %s |" % cell(b, p, k, s) for k, s in cols))
lines += ["", "x: the point failed or was skipped (its status below); n/a: no baseline.", ""]
lines.append("| backend | precision | scaling | size | GPUs | grid | GLUPS | efficiency | launch | halos | status |")
lines.append("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
for r in rows:
    glups = "%.1f" % float(r["glups"]) if r["glups"] else ""
    eff = "%.3f" % float(r["efficiency"]) if r["efficiency"] else ""
    lines.append("| %s | %s | %s | %s | %s | %sx%s | %s | %s | %s %s | %s | %s |" % (
        r["backend"], r["precision"], r["scaling"], r["size"], r["gpus"], r["nx"], r["ny"], glups, eff,
        r["launch"], r["local_size"], r["halos"], r["status"].replace("|", "/")))
open(sys.argv[2], "w").write("\n".join(lines) + "\n")
EOF
  fi
  { echo "(python3 missing or failed: the CSV as it stands)"; column -s, -t <"$csv" 2>/dev/null || cat "$csv"; } >"$md"
}

# One point: appends its CSV row; prints its seconds (empty unless it ran).
baseline_seconds=""
point() {  # backend precision scaling size gpus
  local b=$1 p=$2 kind=$3 s=$4 n=$5
  local nx=$s ny=$s
  [ "$kind" = weak ] && ny=$((s * n))
  local status="ok" seconds="" glups="" eff="" launch="" shape="" halos="" device=""
  if [ "$SECONDS" -ge "$budget" ]; then
    status="skipped: budget (${budget}s)"
  else
    local cmd=(mpirun "${mpirun_args[@]}" -np "$n" "$bench" -b "$b" -p "$p" --nx "$nx" --ny "$ny" --steps "$steps"
               --warmup "$warmup" --header)
    echo "\$ ${cmd[*]}" >>"$log"
    local start=$SECONDS
    timeout "$point_timeout" "${cmd[@]}" >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    # Its stderr whole unless long (mpirun's notices can run to dozens of lines).
    if [ "$(wc -l <"$tmp/err")" -le 40 ]; then cat "$tmp/err" >>"$log"; else head -20 "$tmp/err" >>"$log"; echo "  [...]" >>"$log"; tail -10 "$tmp/err" >>"$log"; fi
    echo "  (exit $rc, $((SECONDS - start)) s)" >>"$log"
    local row
    row=$(tail -1 "$tmp/out")
    if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
      status="timeout (${point_timeout}s)"
    elif [ $rc -ne 0 ] || ! head -1 "$tmp/out" | grep -q '^ranks,'; then
      # The program's own line first ("error: rank R: ..."), else mpirun's.
      local why
      why=$(grep -m1 '^error:' "$tmp/err" || grep -m1 -iE 'error|signal|killed' "$tmp/err")
      status="FAILED: $(echo "$why" | tr -d ',\r' | cut -c1-200)"
      [ "$status" = "FAILED: " ] && status="FAILED: exit $rc"
    else
      echo "  $row" >>"$log"
      # ranks,nx,ny,steps,seconds,mlups,final_av_velocity,device,local_size,precision,solver,launch,halos
      IFS=, read -r _ _ _ _ seconds mlups _ device shape _ _ launch halos <<<"$row"
      glups=$(awk -v m="$mlups" 'BEGIN { printf "%.2f", m / 1000 }')
    fi
  fi
  if [ -n "$seconds" ] && [ -n "$baseline_seconds" ]; then
    if [ "$kind" = strong ]; then
      eff=$(awk -v t1="$baseline_seconds" -v t="$seconds" -v n="$n" 'BEGIN { printf "%.4f", t1 / (n * t) }')
    elif [ "$kind" = weak ]; then
      eff=$(awk -v t1="$baseline_seconds" -v t="$seconds" 'BEGIN { printf "%.4f", t1 / t }')
    else
      eff=1.0000
    fi
  fi
  echo "$b,$p,$kind,$s,$n,$nx,$ny,$steps,$seconds,$glups,$eff,$launch,$shape,$halos,$device,$commit,$status" >>"$csv"
  echo "$b $p $kind ${s}^2 on $n GPU(s): ${glups:-?} GLUPS, efficiency ${eff:-?} ($status)" >&2
  write_tables
  last_seconds=$seconds
}

for b in $backends; do
  for p in $precisions; do
    for s in $sizes; do
      last_seconds=""
      baseline_seconds=""
      point "$b" "$p" one "$s" 1
      baseline_seconds=$last_seconds
      for n in $gpu_counts; do
        point "$b" "$p" strong "$s" "$n"
        point "$b" "$p" weak "$s" "$n"
      done
    done
  done
done
echo "== done in ${SECONDS}s" >>"$log"
echo "wrote $csv and $md" >&2
