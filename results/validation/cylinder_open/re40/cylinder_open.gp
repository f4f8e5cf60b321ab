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
set multiplot layout 2,2 title "Cylinder in open flow, Re 40, D = 20 (1000 x 600), trt, interpolated wall, sponge 0/100, 60000 steps"
set xlabel "t U / D"
set ylabel "Cd"
set yrange [1.13848:1.91772]
plot "cylinder_open_forces.csv" using 2:3 with lines lw 2 title "Cd", 1.4231 with lines dt 2 lc rgb "gray" title "checked bounds", 1.5981 with lines dt 2 lc rgb "gray" notitle
set ylabel "Cd"
set xrange [90:*]
set yrange [*:*]
plot "cylinder_open_forces.csv" using 2:3 with lines lw 2 title "Cd, the analysed window"
set xrange [*:*]
set ylabel "Cl"
plot "cylinder_open_forces.csv" using 2:4 with lines lw 1 title "Cl"
set xlabel "(x - cx) / D on the wake centre line"
set ylabel "u_x / U"
set xrange [0:6.4625]
set arrow from 2.516, graph 0 to 2.516, graph 1 nohead dt 2 lc rgb "gray"
set arrow from 3.085, graph 0 to 3.085, graph 1 nohead dt 2 lc rgb "gray"
plot "cylinder_open_wake.csv" using 1:2 with linespoints pt 7 ps 0.4 title "u_x / U (checked L/D bounds dashed)", 0 with lines lc rgb "black" notitle
unset multiplot
