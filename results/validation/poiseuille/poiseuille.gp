# Draw with: gnuplot poiseuille.gp   (writes poiseuille.png)
if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
  set terminal pngcairo noenhanced size 1100,500 font ",10"
} else {
  set terminal png noenhanced size 1100,500
}
set output "poiseuille.png"
set datafile separator ","
set key autotitle columnheader
set grid
set multiplot layout 1,2 title "Poiseuille flow, omega = 1.0, u_max = 0.02"
set xlabel "u / u_max"
set ylabel "(y - 0.5) / h"
set key center left
plot "poiseuille_h16.csv" using 2:1 with lines lw 2 title "d2q9-bgk, h = 16", \
     "poiseuille_h32.csv" using 2:1 with lines lw 2 title "d2q9-bgk, h = 32", \
     "poiseuille_h64.csv" using 2:1 with lines lw 2 title "d2q9-bgk, h = 64", \
     "poiseuille_h128.csv" using 2:1 with lines lw 2 title "d2q9-bgk, h = 128", \
     "poiseuille_h16.csv" using 3:1 with points pt 6 ps 1.2 lc rgb "black" title "analytic (h = 16)"
set logscale xy
set xlabel "h (cells)"
set ylabel "relative L2 error"
set key top right
plot "poiseuille_convergence.csv" using 1:3 with linespoints pt 7 lw 2 title "d2q9-bgk (order 2.01)", \
     0.001782604375645941 * (16.0 / x)**2 with lines dt 2 lc rgb "gray" title "slope -2"
unset multiplot
