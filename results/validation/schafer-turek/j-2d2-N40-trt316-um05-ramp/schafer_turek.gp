# Draw with: gnuplot schafer_turek.gp   (writes schafer_turek.png)
if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
  set terminal pngcairo noenhanced size 1400,800 font ",10"
} else {
  set terminal png noenhanced size 1400,800
}
set output "schafer_turek.png"
set datafile separator ","
set key autotitle columnheader
set grid
set multiplot layout 2,2 title "Schaefer & Turek 2D-2, Re 100, N = 40 (880 x 166), trt, 316800 steps"
set xlabel "t (physical units: D = 0.1, U_mean = 1)"
set ylabel "Cd"
set xrange [*:*]
set yrange [1.61:4.86]
plot "schafer_turek_forces.csv" using 3:4 with lines lw 1 title "d2q9-bgk Cd", \
     3.22 with lines dt 2 lc rgb "gray" title "max Cd bounds", 3.24 with lines dt 2 lc rgb "gray" notitle
set ylabel "Cd"
set xrange [24.44519394722404:26.4]
set yrange [*:*]
plot "schafer_turek_forces.csv" using 3:4 with lines lw 1 title "d2q9-bgk Cd, the periods of the maxima", \
     3.22 with lines dt 2 lc rgb "gray" title "max Cd bounds", 3.24 with lines dt 2 lc rgb "gray" notitle
set ylabel "Cl"
set xrange [*:*]
set yrange [-2.02:2.02]
plot "schafer_turek_forces.csv" using 3:5 with lines lw 1 title "d2q9-bgk Cl", \
     0.99 with lines dt 2 lc rgb "gray" title "max Cl bounds", 1.01 with lines dt 2 lc rgb "gray" notitle
set ylabel "Cl"
set xrange [24.44519394722404:26.4]
set yrange [*:*]
plot "schafer_turek_forces.csv" using 3:5 with lines lw 1 title "d2q9-bgk Cl, the periods of the maxima", \
     0.99 with lines dt 2 lc rgb "gray" title "max Cl bounds", 1.01 with lines dt 2 lc rgb "gray" notitle
unset multiplot
