#!/bin/sh
# pacing.sh: the windowed demo's frame pacing, as the engine's figures are
# checked: 1440 frames at the defaults (144 FPS cap, 60 Hz ticks), then
# uncapped (-fps 0), then with frames slower than ticks (-fps 60
# -tick-rate 144). Each row comes from the run's -stats CSV and
# /usr/bin/time: frames and ticks per second over the run, the median and
# 99th percentile of |frame interval - target| (the target is 1/fps; none
# when uncapped), the interval's own median and 99th percentile, and the
# process's CPU use ((user + sys) / wall, all threads: Mesa's included).
#
#   scripts/pacing.sh [frames] [extra demo flags...]
#
# Without $DISPLAY it runs itself under xvfb-run. The machine may be
# shared: compare rows of one run with each other.
set -eu
frames=${1:-1440}
[ $# -gt 0 ] && shift
if [ -z "${DISPLAY:-}" ]; then
	exec xvfb-run -a -s "-screen 0 1280x1024x24 -noreset" "$0" "$frames" "$@"
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
go build -o "$dir/nebula-demo" ./cmd/nebula-demo

printf '%-22s %7s %7s %9s %9s %9s %9s %6s\n' run fps ups err_p50 err_p99 int_p50 int_p99 cpu_%
run() {
	name=$1 fps=$2
	shift 2
	/usr/bin/time -f '%U %S %e' -o "$dir/time" "$dir/nebula-demo" -frames "$frames" -stats "$dir/s.csv" \
		-hitch 0 -log-level error "$@" 2>"$dir/log"
	# Columns: frame,t_ms,frame_ms,steps,alpha,tick,... Frame 1 only starts
	# the clock, so intervals are frames 2 and later.
	awk -F, 'NR > 2 { print $3 }' "$dir/s.csv" | sort -g >"$dir/int"
	if [ "$fps" = 0 ]; then
		: >"$dir/err"
	else
		awk -v t="$(echo "$fps" | awk '{ print 1000 / $1 }')" '{ d = $1 - t; if (d < 0) d = -d; print d }' "$dir/int" | sort -g >"$dir/err"
	fi
	pct() { # pct file p: the p-th percentile (nearest rank) of a sorted file, or "-"
		awk -v p="$2" '{ v[NR] = $1 } END { if (NR == 0) { print "-"; exit } i = int(NR * p / 100 + 0.999999); if (i < 1) i = 1; printf "%.3f", v[i] }' "$1"
	}
	rates=$(awk -F, 'NR > 1 { t = $2; tick = $6; n++ } END { s = t / 1000; printf "%.2f %.2f", (n - 1) / s, tick / s }' "$dir/s.csv")
	cpu=$(awk '{ printf "%.0f", 100 * ($1 + $2) / $3 }' "$dir/time")
	printf '%-22s %7s %7s %9s %9s %9s %9s %6s\n' "$name" ${rates} \
		"$(pct "$dir/err" 50)" "$(pct "$dir/err" 99)" "$(pct "$dir/int" 50)" "$(pct "$dir/int" 99)" "$cpu"
}
run "default (144 FPS cap)" 144 "$@"
run "-fps 0" 0 -fps 0 "$@"
run "-fps 60 -tick-rate 144" 60 -fps 60 -tick-rate 144 "$@"
