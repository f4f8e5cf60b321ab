# Draw with: gnuplot cavity.gp   (writes cavity.png)
if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
  set terminal pngcairo noenhanced size 1100,500 font ",10"
} else {
  set terminal png noenhanced size 1100,500
}
set output "cavity.png"
set datafile separator ","
set key autotitle columnheader
set grid
set multiplot layout 1,2 title "Lid-driven cavity, Re = 400, 130 x 130 cells (L = 128), U = 0.1, 102400 steps"
set xlabel "u / U"
set ylabel "y / L"
set key bottom right
plot "cavity_u.csv" using 2:1 with lines lw 2 title "d2q9-bgk, x = 0.5", \
     "cavity_ghia_u.csv" using ($5 == 0 ? $2 : NaN):1 with points pt 6 ps 1.3 lc rgb "black" title "Ghia et al. (1982)"
set xlabel "x / L"
set ylabel "v / U"
set key bottom left
plot "cavity_v.csv" using 1:2 with lines lw 2 title "d2q9-bgk, y = 0.5", \
     "cavity_ghia_v.csv" using 1:($5 == 0 ? $2 : NaN) with points pt 6 ps 1.3 lc rgb "black" title "Ghia et al. (1982)", \
     "cavity_ghia_v.csv" using 1:($5 == 1 ? $2 : NaN) with points pt 2 ps 1.6 lc rgb "red" title "Ghia, suspect value (not checked)"
unset multiplot
