# gnuplot scripts/figures/schafer_turek_cd.gp, run in a folder holding cd.dat (results/validation/schafer-turek/): 2D-1's drag coefficient against the grid, with the published bounds; writes cd.png there.
set terminal pngcairo noenhanced size 900,560 font ",10"
set output "cd.png"
set title "Schaefer & Turek 2D-1 (Re 20): drag coefficient against cells per diameter (H100, CUDA, float)"
set xlabel "cells per diameter N"
set ylabel "Cd"
set logscale x 2
set xrange [8:100]
set yrange [5.5:6.3]
set key font ",9"
set grid
set key top right
plot "cd.dat" using 1:2 with linespoints pt 7 title "BGK, Um 0.1", \
     "" using 1:3 with linespoints pt 5 title "TRT Lambda 1/4, Um 0.1", \
     "" using 1:4 with linespoints pt 9 title "TRT Lambda 3/16, Um 0.05", \
     "" using 1:5 with linespoints pt 11 title "TRT Lambda 3/16, Um 0.025", \
     "" using 1:6 with linespoints pt 9 dt 3 lw 2 title "curved wall (interpolated), TRT 3/16, Um 0.05", \
     "" using 1:7 with linespoints pt 11 dt 3 lw 2 title "curved wall (interpolated), TRT 3/16, Um 0.025", \
     "" using 1:8 with linespoints pt 13 dt 3 lw 2 title "curved wall (interpolated), TRT 3/16, Um 0.0125", \
     5.57 with lines dt 2 lc rgb "gray" title "published bounds 5.57-5.59", 5.59 with lines dt 2 lc rgb "gray" notitle
