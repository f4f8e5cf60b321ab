# Draw with: gnuplot couette.gp   (writes couette.png)
if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
  set terminal pngcairo noenhanced size 800,600 font ",10"
} else {
  set terminal png noenhanced size 800,600
}
set output "couette.png"
set datafile separator ","
set key autotitle columnheader
set grid
set title "Couette flow, h = 64, omega = 1.0, U = 0.05"
set xlabel "u / U"
set ylabel "(y - 0.5) / h"
set key top left
plot "couette.csv" using 2:1 with lines lw 2 title "d2q9-bgk", \
     "couette.csv" every 4 using 3:1 with points pt 6 ps 1.2 lc rgb "black" title "analytic"
