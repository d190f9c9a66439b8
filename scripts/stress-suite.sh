#!/usr/bin/env bash
# stress-suite.sh: the whole of `make test`, as CI runs it (bash .ci/run in
# a fresh clone), while other processes keep every core busy. It is
# scripts/stress.sh's idea applied to the full suite: a test that waits for
# a fixed time, or that only passes when the machine is idle, fails here.
#
#   scripts/stress-suite.sh [-n RUNS]
#   make stress-suite RUNS=2
#
# Each run clones this checkout's committed HEAD into a new temporary
# directory (what is not committed is not tested), starts one spinning
# process per core (STRESS_SPINNERS, default nproc), runs `bash .ci/run`
# there with CI=true and no standard input, and stops the spinners. It
# prints one line per run: its result and wall time; the output of each
# run is kept in a log file it names. It exits 1 when any run failed.
#
# Environment: RUNS (default 2), STRESS_SPINNERS (default nproc), and
# whatever make test takes (AGONES_SDK_SERVER, GO).
set -euo pipefail
export LC_ALL=C

runs=${RUNS:-2}
if [[ ${1:-} == -n ]]; then
	[[ $# -ge 2 ]] || { echo "usage: scripts/stress-suite.sh [-n RUNS]" >&2; exit 2; }
	runs=$2
	shift 2
fi
if [[ $# -ne 0 ]] || ! [[ $runs =~ ^[1-9][0-9]*$ ]]; then
	echo "usage: scripts/stress-suite.sh [-n RUNS] (RUNS a positive whole number, got \"$runs\")" >&2
	exit 2
fi

src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
commit=$(git -C "$src" rev-parse HEAD)
spinners_n=${STRESS_SPINNERS:-$(nproc)}
work=$(mktemp -d "${TMPDIR:-/tmp}/nebula-stress-suite.XXXXXX")
spinners=()
run_pid=

# stop_run ends a run of .ci/run still going (its whole process group: make,
# go test, the test binaries, Xvfb).
stop_run() {
	if [[ -n $run_pid ]]; then
		kill -- "-$run_pid" 2>/dev/null || true
		wait "$run_pid" 2>/dev/null || true
		run_pid=
	fi
}

stop_spinners() {
	local pid
	for pid in ${spinners[@]+"${spinners[@]}"}; do
		kill "$pid" 2>/dev/null || true
	done
	for pid in ${spinners[@]+"${spinners[@]}"}; do
		wait "$pid" 2>/dev/null || true
	done
	spinners=()
}
trap 'stop_run; stop_spinners' EXIT
trap 'exit 130' INT TERM

echo "stress-suite: $runs run(s) of bash .ci/run at ${commit:0:12}, each in a fresh clone, with $spinners_n spinning process(es); logs in $work"
failed=0
for ((i = 1; i <= runs; i++)); do
	clone=$work/run$i/nebula
	log=$work/run$i.log
	# Every run tests the commit HEAD was at the start, whatever is
	# committed meanwhile.
	git clone -q --no-hardlinks --no-checkout "$src" "$clone"
	git -C "$clone" checkout -q --detach "$commit"
	for ((s = 0; s < spinners_n; s++)); do
		(while :; do :; done) &
		spinners+=($!)
	done
	start=$(date +%s)
	# Its own process group (setsid), so that an interrupted stress-suite
	# ends the whole run.
	(cd "$clone" && CI=true exec setsid bash .ci/run </dev/null >"$log" 2>&1) &
	run_pid=$!
	if wait "$run_pid"; then
		result=pass
	else
		result=FAIL
		failed=1
	fi
	run_pid=
	stop_spinners
	secs=$(($(date +%s) - start))
	printf 'stress-suite: run %d: %s in %d min %02d s (%s)\n' "$i" "$result" $((secs / 60)) $((secs % 60)) "$log"
	if [[ $result == FAIL ]]; then
		grep -E '^(--- FAIL|FAIL|panic:|make: \*\*\*)' "$log" | head -n 20 || true
	fi
	rm -rf "$work/run$i"
done
exit "$failed"
