# Average velocity over time from one or more av_vels.dat files.
#
#   gnuplot -e "files='run/av_vels.dat'" scripts/figures/plot_av_vels.gp              # writes av_vels.png
#   gnuplot -e "files='a/av_vels.dat b/av_vels.dat'; out='both.png'" scripts/figures/plot_av_vels.gp
#   gnuplot -e "files='run/av_vels.dat'; out=''" scripts/figures/plot_av_vels.gp      # text plot in the terminal
#
# av_vels.dat lines are "step:<tab>velocity", so ':' separates the columns.
if (!exists("files")) files = "av_vels.dat"
if (!exists("out")) out = "av_vels.png"

if (out eq "") {
  set terminal dumb size 100,30
} else {
  set terminal pngcairo size 900,500 font "sans,11"
  set output out
}
set datafile separator ":"
set xlabel "step"
set ylabel "average velocity |u| over fluid cells"
set format y "%.1e"
set grid
set key bottom right
plot for [f in files] f using 1:2 with lines linewidth 2 title f noenhanced
