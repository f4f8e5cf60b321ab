# Time per step against work-group size, from a `d2q9-bench --sweep-local-size`
# CSV, as in the HPC-coursework report's figure: one line per problem (and
# precision, where the CSV holds several) through the fastest shape of each
# work-group size, with the plan's default shape and the fastest shape marked.
#   gnuplot -e "csv='results/<device>/sweep_opencl_float.csv'; out='sweep.png'" scripts/figures/plot_sweep.gp
# (gnuplot 5.4 or later; out='' draws the plot as text in the terminal instead.)
if (!exists("csv")) {
  print "usage: gnuplot -e \"csv='sweep_opencl_float.csv'; out='sweep.png'\" scripts/figures/plot_sweep.gp"
  exit status 1
}
if (!exists("out")) out = "sweep.png"
set datafile separator comma
set datafile columnheaders

# The lines: one per problem and precision, in the order of the CSV.
precisions = ""
problems = ""
variants = ""
new_word(list, w) = strstrt(" ".list, " ".w." ") == 0
stats csv using (new_word(precisions, strcol("precision")) ? precisions = precisions.strcol("precision")." " : 0, 0) nooutput
line_key(problem, precision) = words(precisions) > 1 ? problem."/".precision : problem
stats csv using (key = line_key(strcol("problem"), strcol("precision")), \
                 new_word(problems, key) ? (problems = problems.key." ", variants = variants.strcol("variant")." ") : 0, \
                 0) nooutput
lines = words(problems)
line_of(key) = sum [i=1:lines] (word(problems, i) eq key ? i : 0)
stats csv using "work_group_size" nooutput
shapes = int(log(STATS_max) / log(2) + 0.5) + 1  # work-group sizes 1, 2, 4, ... STATS_max
device = ""
stats csv using (device = strcol("device"), 0) every ::0::0 nooutput

# The fastest time of each line at each work-group size.
array best[lines * shapes]
do for [i=1:lines * shapes] { best[i] = NaN }
slot(key, size) = (line_of(key) - 1) * shapes + int(log(size) / log(2) + 0.5) + 1
keep_least(i, t) = (t > 0 && (best[i] != best[i] || t < best[i])) ? (best[i] = t) : 0
stats csv using (keep_least(slot(line_key(strcol("problem"), strcol("precision")), column("work_group_size")), \
                            column("us_per_step")), 0) nooutput
# A header per block, read as the CSV's is; commas, as in the CSV.
set print $best
do for [line=1:lines] {
  print "work_group_size,us_per_step"
  do for [k=0:shapes - 1] {
    t = best[(line - 1) * shapes + k + 1]
    if (t == t) { print sprintf("%d,%g", 2**k, t) }
  }
  print ""
  print ""
}
unset print

if (out eq "") { set terminal dumb size 120,40 } else { set terminal pngcairo size 1000,650 font ",10"; set output out }
set title sprintf("Time per step against work-group size (%s)", device)
set logscale x 2
set logscale y
set format y "%g"
set xlabel "work-group size (work-items; fastest shape of each size)"
set ylabel "time per step (us, log scale)"
set grid
set key outside right top
marked(flag) = column(flag) == 1 && column("us_per_step") > 0 ? column("work_group_size") : NaN
line_colour = 'line_of(line_key(strcol("problem"), strcol("precision")))'
shape = 'sprintf("%dx%d", column("local_x"), column("local_y"))'
plot for [line=1:lines] $best index (line - 1) using 1:2 with linespoints lc line pt 7 ps 0.7 \
       title sprintf("%s (%s)", word(problems, line), word(variants, line)), \
     csv using (marked("default")):"us_per_step":(@line_colour) with points lc variable pt 6 ps 2.2 notitle, \
     csv using (marked("default")):"us_per_step":(@shape) with labels offset 0,-1.2 font ",8" notitle, \
     csv using (marked("fastest")):"us_per_step":(@line_colour) with points lc variable pt 3 ps 2.2 notitle, \
     csv using (marked("fastest")):"us_per_step":(@shape) with labels offset 0,1.2 font ",8" notitle, \
     keyentry with points lc "black" pt 6 ps 2.2 title "default shape (the plan's)", \
     keyentry with points lc "black" pt 3 ps 2.2 title "fastest shape"
