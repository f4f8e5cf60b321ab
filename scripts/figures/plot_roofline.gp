# GLUPS against grid size beside the one-pass streaming cap, from d2q9-bench
# CSVs (one per backend/precision/variant): every one-pass code moves at
# least 2 x 9 values + 1 mask byte per cell update (73 bytes in float, 37 in
# 16 bits, 145 in double), so the measured copy bandwidth divided by that is
# the most it can do; temporal blocking (`blocked`) is not bound by it.
#   gnuplot -e "files='a.csv b.csv'; out='roofline.png'; ttl='NVIDIA H100, CUDA'" scripts/figures/plot_roofline.gp
if (!exists("files")) files = system("ls results/*/bench_*.csv")
if (!exists("out")) out = "results/roofline.png"
if (!exists("ttl")) ttl = ""
set terminal pngcairo size 1000,620 font ",10"
set output out
set datafile separator ","
set logscale x 2
set format x "%.0s%c"
set xlabel "cells (square periodic box)"
set ylabel "GLUPS (10^9 cell updates per second)"
set grid
set key inside bottom right
set title ttl
bytes(p) = p eq "double" ? 145.0 : (p eq "float" ? 73.0 : 37.0)
label(f) = system(sprintf("awk -F, 'NR==2 {gsub(/\"/,\"\"); print $12\" \"$13\" \"$14}' %s", f))
copy(f) = real(system(sprintf("awk -F, 'NR==2 {print $17}' %s", f)))
prec(f) = system(sprintf("awk -F, 'NR==2 {print $13}' %s", f))
box(x) = strcol(1)[1:4] eq "box_" ? x : NaN
plot for [f in files] f using (box($2 * $3)):(box($6 / 1000)) every ::1 with linespoints lw 2 title label(f), \
     for [f in files] (copy(f) / bytes(prec(f))) with lines dt 2 lw 1 title sprintf("one-pass cap, %s (%.0f GB/s / %.0f B)", prec(f), copy(f), bytes(prec(f)))
