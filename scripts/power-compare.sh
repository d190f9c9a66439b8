#!/bin/sh
# power-compare.sh: the demo's default and low-power modes back to back, in
# one run, on one display: ticks and frames per second from each run's
# -stats CSV, and CPU use from /usr/bin/time -v ((user + sys) / wall).
#
#   scripts/power-compare.sh [seconds] [extra demo flags...]
#
# The demo's log (frame-time warnings under load) is left out; its lines
# are counted in the last column. Without $DISPLAY it runs itself under xvfb-run. The machine may be shared:
# compare the two rows with each other, not with another run's.
set -eu
secs=${1:-10}
[ $# -gt 0 ] && shift
if [ -z "${DISPLAY:-}" ]; then
	exec xvfb-run -a -s "-screen 0 1280x1024x24 -noreset" "$0" "$secs" "$@"
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
go build -o "$dir/nebula-demo" ./cmd/nebula-demo

printf '%-8s %8s %8s %8s %8s %8s %8s %8s\n' mode wall_s ticks frames ups fps cpu_% warnings
for mode in normal low; do
	/usr/bin/time -v -o "$dir/$mode.time" "$dir/nebula-demo" -power "$mode" -duration "${secs}s" \
		-stats "$dir/$mode.csv" -hitch 0 -log-level warn "$@" 2>"$dir/$mode.log"
	# t_ms is column 2, tick column 6; frame 1 only starts the clock.
	awk -F, -v mode="$mode" -v timef="$dir/$mode.time" -v warns="$(grep -c . "$dir/$mode.log" || true)" '
		NR > 1 { t = $2; tick = $6; n++ }
		END {
			while ((getline line < timef) > 0) {
				if (line ~ /User time/) { sub(/.*: /, "", line); user = line }
				if (line ~ /System time/) { sub(/.*: /, "", line); sys = line }
				if (line ~ /Elapsed \(wall clock\)/) {
					sub(/.*: /, "", line); k = split(line, p, ":"); wall = 0
					for (i = 1; i <= k; i++) wall = wall * 60 + p[i]
				}
			}
			s = t / 1000
			printf "%-8s %8.2f %8d %8d %8.2f %8.2f %8.1f %8d\n", mode, wall, tick, n, tick / s, (n - 1) / s, 100 * (user + sys) / wall, warns
		}' "$dir/$mode.csv"
done
