#!/usr/bin/env bash
# stress.sh: runs tests again and again while other processes keep every
# core busy, and counts how often each passes: a test that waits for a
# fixed time, or assumes the order the scheduler runs things in, fails
# here sooner or later. A test that fails once is to be fixed, not retried.
#
#   scripts/stress.sh [-n N] [PKG:REGEX ...]
#   make stress TESTS='./engine:^TestProfile ./timing:.' N=20
#
# Each PKG:REGEX is a package and a -test.run pattern (REGEX "." for the
# whole package). Without any, the default set below runs: the tests that
# touch time, windows or sockets. Each package's test binary is built once
# (with -race, as make test runs them), then every test runs N times
# (default 20), round by round, from its package's directory, while one
# spinning process per core (nproc) competes for the CPU. Without a
# $DISPLAY it runs under xvfb-run, and GL tests are required to run
# (NEBULA_REQUIRE_GL=1). It prints one line per top-level test: passes,
# failures and skips of N (of the rounds run so far, when interrupted);
# the output of each failed run is kept in a directory it names. It exits
# 1 when any run failed.
#
# Environment: GO (default go), N, TESTS (the PKG:REGEX list, when no
# argument gives one), STRESS_SPINNERS (default nproc),
# STRESS_RACE (default 1: build with -race; 0: without), STRESS_TIMEOUT
# (each run's -test.timeout, default 5m).
set -euo pipefail
export LC_ALL=C
cd "$(dirname "${BASH_SOURCE[0]}")/.."

n=${N:-20}
if [[ ${1:-} == -n ]]; then
	n=$2
	shift 2
fi
specs=("$@")
if [[ ${#specs[@]} -eq 0 && -n ${TESTS:-} ]]; then
	read -r -a specs <<<"$TESTS" # make stress TESTS='...': no globbing, no shell syntax
fi
if [[ ${#specs[@]} -eq 0 ]]; then
	# The tests that touch time, windows or sockets.
	specs=(
		./timing:.
		./engine:'^(TestProfileLabelsEveryPhase|TestRunHeadless.*|Test.*Jobs.*)$'
		./engine/desktop:.
		./internal/platform:.
		./engine/diag:.
		./engine/netplay:.
		./engine/netplay/netsim:.
		./engine/netplay/udp:.
		./engine/netplay/wire:.
		./cmd/nebula-demo:.
		./cmd/nebula-minimal:.
	)
fi

XVFB_ARGS=(-a -s "-screen 0 1280x1024x24 -noreset")
if [[ -z ${DISPLAY:-} && -z ${STRESS_IN_XVFB:-} ]]; then
	exec env STRESS_IN_XVFB=1 xvfb-run "${XVFB_ARGS[@]}" "$0" -n "$n" "${specs[@]}"
fi

GO=${GO:-go}
race=()
[[ ${STRESS_RACE:-1} == 0 ]] || race=(-race)
timeout=${STRESS_TIMEOUT:-5m}
logs=$(mktemp -d "${TMPDIR:-/tmp}/nebula-stress.XXXXXX")
spinners=()
failed=0
declare -A pass fail skip
order=()
round=0

# summary prints one line per test: its passes, failures and skips.
summary() {
	local key
	printf '%-60s %5s %5s %5s\n' "test" pass fail skip
	for key in ${order[@]+"${order[@]}"}; do
		printf '%-60s %5d %5d %5d\n' "$key" "${pass[$key]}" "${fail[$key]}" "${skip[$key]}"
	done
}

cleanup() {
	local pid
	for pid in ${spinners[@]+"${spinners[@]}"}; do
		kill "$pid" 2>/dev/null || true
	done
	wait 2>/dev/null || true
	[[ $failed -ne 0 ]] || rm -rf "$logs"
}
trap cleanup EXIT
# Interrupted: the counts so far, then out.
trap 'echo "stress: interrupted in round $round of $n" >&2; summary; exit 130' INT TERM

# Build every package's test binary once, before the load starts.
declare -A bins
for spec in "${specs[@]}"; do
	pkg=${spec%%:*}
	[[ -z ${bins[$pkg]:-} ]] || continue
	bin=$logs/bin/$(tr / _ <<<"${pkg#./}").test
	mkdir -p "$logs/bin"
	echo "stress: building $pkg" >&2
	"$GO" test ${race[@]+"${race[@]}"} -c -o "$bin" "$pkg"
	bins[$pkg]=$bin
done

cores=${STRESS_SPINNERS:-$(nproc)}
for ((i = 0; i < cores; i++)); do
	bash -c 'while :; do :; done' &
	spinners+=($!)
done
echo "stress: $n rounds of ${#specs[@]} test sets, $cores spinning processes, logs in $logs" >&2

start=$SECONDS
for ((round = 1; round <= n; round++)); do
	for spec in "${specs[@]}"; do
		pkg=${spec%%:*} re=${spec#*:}
		log=$logs/run.log
		status=0
		(cd "$pkg" && NEBULA_REQUIRE_GL=1 "${bins[$pkg]}" -test.run "$re" -test.v -test.count 1 -test.timeout "$timeout") >"$log" 2>&1 || status=$?
		while read -r result name; do
			key="$pkg $name"
			if [[ -z ${pass[$key]+x} ]]; then
				order+=("$key")
				pass[$key]=0 fail[$key]=0 skip[$key]=0
			fi
			case $result in
			PASS:) pass[$key]=$((pass[$key] + 1)) ;;
			SKIP:) skip[$key]=$((skip[$key] + 1)) ;;
			FAIL:) fail[$key]=$((fail[$key] + 1)) ;;
			esac
		done < <(sed -n 's/^--- \(PASS:\|FAIL:\|SKIP:\) \([^ ]*\) .*/\1 \2/p' "$log")
		if [[ $status -ne 0 ]]; then
			failed=$((failed + 1))
			keep=$logs/fail-$failed-$(tr / _ <<<"${pkg#./}")-round$round.log
			mv "$log" "$keep"
			if ! grep -q '^--- FAIL: ' "$keep"; then
				# A panic or timeout: no test line says which failed.
				key="$pkg (the binary: panic or timeout)"
				[[ -n ${fail[$key]+x} ]] || { order+=("$key"); pass[$key]=0 fail[$key]=0 skip[$key]=0; }
				fail[$key]=$((fail[$key] + 1))
			fi
			echo "stress: round $round: $pkg -run '$re' failed (exit $status): $keep" >&2
		fi
	done
	echo "stress: round $round of $n done, $((SECONDS - start)) s" >&2
done

summary
if [[ $failed -ne 0 ]]; then
	echo "stress: $failed runs failed; their output is in $logs" >&2
	exit 1
fi
echo "stress: all passed ($n rounds, $((SECONDS - start)) s)"
