# Draw with: gnuplot cylinder_open.gp   (writes cylinder_open.png)
if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
  set terminal pngcairo noenhanced size 1400,900 font ",10"
} else {
  set terminal png noenhanced size 1400,900
}
set output "cylinder_open.png"
set datafile separator ","
set key autotitle columnheader
set grid
set multiplot layout 2,2 title "Cylinder in open flow, Re 100, D = 20 (1000 x 600), trt, interpolated wall, sponge 0/100, 120000 steps"
set xlabel "t U / D"
set ylabel "Cd"
set yrange [1.026:1.701]
plot "cylinder_open_forces.csv" using 2:3 with lines lw 2 title "Cd", 1.2825 with lines dt 2 lc rgb "gray" title "checked bounds", 1.4175 with lines dt 2 lc rgb "gray" notitle
set ylabel "Cd"
set xrange [180:*]
set yrange [*:*]
plot "cylinder_open_forces.csv" using 2:3 with lines lw 2 title "Cd, the analysed window"
set xrange [*:*]
set ylabel "Cl"
plot "cylinder_open_forces.csv" using 2:4 with lines lw 1 title "Cl"
set ylabel "Cl"
set xrange [180:*]
plot "cylinder_open_forces.csv" using 2:4 with lines lw 1 title "Cl, the analysed window"
unset multiplot
