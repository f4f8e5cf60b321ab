# MLUPS and % of copy bandwidth against grid size, one line per bench CSV
# (backend/device), from d2q9-bench's square-box cases.
#   gnuplot -e "files='results/nvidia-h200/bench_opencl_float_auto.csv results/nvidia-h200/bench_cuda_float_auto.csv'; out='results/bench.png'" scripts/figures/plot_bench.gp
if (!exists("files")) files = system("ls results/*/bench_*.csv")
if (!exists("out")) out = "results/bench.png"
set terminal pngcairo size 1200,500 font ",10"
set output out
set datafile separator ","
set key top left
set logscale x 2
set format x "%.0s%c"
set xlabel "cells (square closed box)"
set grid
# A line's title: device and backend from the file's first data row.
label(f) = system(sprintf("awk -F, 'NR==2 {gsub(/\"/,\"\"); print $10\", \"$12\", \"$13}' %s", f))
box(x) = strcol(1)[1:4] eq "box_" ? x : NaN
set multiplot layout 1,2
set ylabel "MLUPS (log scale)"
set logscale y
set title "Throughput"
set key center right
plot for [f in files] f using (box($2 * $3)):(box($6)) every ::1 with linespoints title label(f)
unset logscale y
set ylabel "% of measured copy bandwidth"
set title "Effective bandwidth (2 x 9 values + 1 mask byte per cell update)"
set yrange [0:100]
set key bottom right
plot for [f in files] f using (box($2 * $3)):(box($8)) every ::1 with linespoints title label(f)
unset multiplot
