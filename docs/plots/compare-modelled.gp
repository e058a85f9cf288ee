if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) { set terminal pngcairo size 1200,1600 } else { set terminal png size 1200,1600 }
set termoption noenhanced
set output 'compare-modelled.png'
set datafile missing '?'
set grid ytics
set key outside right top box samplen 1 font ',9'
set xlabel 'CPU (APIC ID)  -  MODELLED flush cost (QEMU plugin), not hardware'
set yrange [0:*]
set lmargin at screen 0.10
set rmargin at screen 0.74
set multiplot layout 4,1
set xrange [0.4:3.6]
set xtics ('1' 1, '2' 2, '3' 3)
set boxwidth 0.3
set style fill solid 0.35 border
set ylabel 'online time (us)'
set title 'AP online per CPU: box = quartiles, line = median, whiskers = min and max'
plot 'compare-modelled.dat' index 0 using ($1-0.18):4:3:7:6 with candlesticks whiskerbars 0.5 lc rgb '#0072b2' lw 1.5 title 'WBINVD=1 (Linux before the patch)', 'compare-modelled.dat' index 0 using ($1-0.18):5:5:5:5 with candlesticks lc rgb '#0072b2' lw 3 notitle, 'compare-modelled.dat' index 1 using ($1+0.18):4:3:7:6 with candlesticks whiskerbars 0.5 lc rgb '#e69f00' lw 1.5 title 'WBINVD=0 (patched)', 'compare-modelled.dat' index 1 using ($1+0.18):5:5:5:5 with candlesticks lc rgb '#e69f00' lw 3 notitle
set ylabel 'offline time (us)'
set title 'AP offline per CPU: box = quartiles, line = median, whiskers = min and max'
plot 'compare-modelled.dat' index 0 using ($1-0.18):9:8:12:11 with candlesticks whiskerbars 0.5 lc rgb '#0072b2' lw 1.5 title 'WBINVD=1 (Linux before the patch)', 'compare-modelled.dat' index 0 using ($1-0.18):10:10:10:10 with candlesticks lc rgb '#0072b2' lw 3 notitle, 'compare-modelled.dat' index 1 using ($1+0.18):9:8:12:11 with candlesticks whiskerbars 0.5 lc rgb '#e69f00' lw 1.5 title 'WBINVD=0 (patched)', 'compare-modelled.dat' index 1 using ($1+0.18):10:10:10:10 with candlesticks lc rgb '#e69f00' lw 3 notitle
set style data histograms
set style histogram rowstacked
set style fill solid 0.9 border -1
set boxwidth 0.8
set xrange [*:*]
set yrange [0:112607.976]
set xtics auto
set ylabel 'median per phase (us)'
set title 'WBINVD=1 (Linux before the patch): where an online goes (median per phase; one y scale for every set)'
plot 'compare-modelled.dat' index 2 using 3:xtic(2) lc rgb '#332288' title 'init_assert', 'compare-modelled.dat' index 2 using 4 lc rgb '#88ccee' title 'init_deassert', 'compare-modelled.dat' index 2 using 5 lc rgb '#44aa99' title 'sipi', 'compare-modelled.dat' index 2 using 6 lc rgb '#117733' title 'real', 'compare-modelled.dat' index 2 using 7 lc rgb '#999933' title 'protected', 'compare-modelled.dat' index 2 using 8 lc rgb '#ddcc77' title 'long', 'compare-modelled.dat' index 2 using 9 lc rgb '#cc6677' title 'c_entry', 'compare-modelled.dat' index 2 using 10 lc rgb '#882255' title 'tables', 'compare-modelled.dat' index 2 using 11 lc rgb '#aa4499' title 'lapic', 'compare-modelled.dat' index 2 using 12 lc rgb '#dddddd' title 'online', 'compare-modelled.dat' index 2 using 13 lc rgb '#000000' title 'seen'
set style data histograms
set style histogram rowstacked
set style fill solid 0.9 border -1
set boxwidth 0.8
set xrange [*:*]
set yrange [0:112607.976]
set xtics auto
set ylabel 'median per phase (us)'
set title 'WBINVD=0 (patched): where an online goes (median per phase; one y scale for every set)'
plot 'compare-modelled.dat' index 3 using 3:xtic(2) lc rgb '#332288' title 'init_assert', 'compare-modelled.dat' index 3 using 4 lc rgb '#88ccee' title 'init_deassert', 'compare-modelled.dat' index 3 using 5 lc rgb '#44aa99' title 'sipi', 'compare-modelled.dat' index 3 using 6 lc rgb '#117733' title 'real', 'compare-modelled.dat' index 3 using 7 lc rgb '#999933' title 'protected', 'compare-modelled.dat' index 3 using 8 lc rgb '#ddcc77' title 'long', 'compare-modelled.dat' index 3 using 9 lc rgb '#cc6677' title 'c_entry', 'compare-modelled.dat' index 3 using 10 lc rgb '#882255' title 'tables', 'compare-modelled.dat' index 3 using 11 lc rgb '#aa4499' title 'lapic', 'compare-modelled.dat' index 3 using 12 lc rgb '#dddddd' title 'online', 'compare-modelled.dat' index 3 using 13 lc rgb '#000000' title 'seen'
unset multiplot
set output
