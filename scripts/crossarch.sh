#!/usr/bin/env bash
# crossarch.sh: the simulation's tests built for other architectures, so
# that the golden state hash (cmd/nebula-demo/scene's goldenHash, 3,600 ticks
# of the demo scene) and the engine's other bit-exact results are proven
# the same in every build, not only in the amd64 one `go test` makes:
#
#   arm64     GOARCH=arm64, run under qemu-aarch64 (Debian package
#             qemu-user, in the Makefile's DEB_PACKAGES), or natively on an
#             arm64 machine; Go fuses x*y+z into one FMA instruction there
#   386       GOARCH=386, run natively: 32-bit int and pointers
#   amd64-v3  GOAMD64=v3, run natively: Go fuses multiply-adds into FMA at
#             v3; skipped, saying so, when this CPU cannot run v3 binaries
#
#   scripts/crossarch.sh
#
# `make test` runs it after the race-enabled tests. The packages below are
# pure Go (CGO_ENABLED=0); each one's whole test binary runs, from the
# package's directory (tests read testdata relative to it), so new tests
# there are covered without touching this script. timing is left out: its
# pacer tests sleep in real time. Test binaries go to a temporary directory,
# never into the repository. It prints one line per architecture (pass,
# fail or skip, with the build and test time); a failure names the
# architecture, the package and the test, prints the test output, and makes
# the script exit 1 after the other architectures have run.
#
# Environment: GO (default go), CROSSARCH_TIMEOUT (each test binary's
# -test.timeout, default 3m).
set -euo pipefail
# A C locale: $EPOCHREALTIME's decimal point, and sed's and awk's patterns.
export LC_ALL=C

cd "$(dirname "${BASH_SOURCE[0]}")/.."

GO=${GO:-go}
timeout=${CROSSARCH_TIMEOUT:-3m}
packages=(./engine ./engine/detmath ./engine/anim ./engine/replay ./cmd/nebula-demo/scene)

host=$("$GO" env GOHOSTARCH)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# elapsed START: seconds since START (an $EPOCHREALTIME), to 0.1 s.
elapsed() {
	awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }'
}

# report_failure ARCH PKG LOG: prints to stderr which tests of a test
# binary's -test.v output failed, with the output of the failed and the
# unfinished ones (passing tests' logs left out). A test that started and
# never finished is named too: that is the one running when the binary
# panicked or timed out, whose trace ends the output.
report_failure() {
	local arch=$1 pkg=$2 log=$3 names
	awk -v names="$log.names" '
		function top(name) { sub(/\/.*/, "", name); return name }
		/^=== (RUN|NAME|CONT|PAUSE) / {
			cur = $3
			if ($2 == "RUN") {
				started[++n] = cur
				if (cur == top(cur)) tops[++ntop] = cur
			}
			next
		}
		/^ *--- (PASS|SKIP|FAIL): / {
			finished[$3] = 1
			if ($2 == "FAIL:") {
				print $3 > names
				if ($3 == top($3)) printf "%s", buf[$3]
				print
			}
			if ($3 == top($3)) delete buf[$3]
			next
		}
		{ buf[top(cur)] = buf[top(cur)] $0 "\n" }
		END {
			printf "%s", buf[""]
			for (i = 1; i <= ntop; i++) if (tops[i] in buf) printf "%s", buf[tops[i]]
			for (i = 1; i <= n; i++) if (!(started[i] in finished)) print started[i] " (did not finish)" > names
		}
	' "$log" >"$log.out"
	names=$(cat "$log.names" 2>/dev/null || true)
	names=${names:-"no test failed, but the test binary exited with an error"}
	{
		echo "crossarch: FAIL: $arch $pkg:"
		sed 's/^/crossarch:     /' <<<"$names"
		echo "crossarch: ---- $arch $pkg: output of the failed tests ----"
		tail -n 300 "$log.out"
		echo "crossarch: ---- end of $arch $pkg ----"
	} >&2
	failed+=("$arch $pkg: $(paste -sd ' ' <<<"$names")")
}

# variant NAME RUNNER... -- ENV...: builds every package's test binary with
# CGO_ENABLED=0 and ENV, runs each with RUNNER (nothing: natively) and
# prints the NAME's line.
variant() {
	local name=$1 runner=() env=() start pkg bin log status=pass
	shift
	while [[ $1 != -- ]]; do
		runner+=("$1")
		shift
	done
	shift
	env=("$@")
	start=$EPOCHREALTIME
	mkdir -p "$tmp/$name"

	for pkg in "${packages[@]}"; do
		bin=$tmp/$name/$(tr / _ <<<"${pkg#./}").test
		if ! env CGO_ENABLED=0 "${env[@]}" "$GO" test -c -o "$bin" "$pkg" 2>"$tmp/$name/build.log"; then
			{
				echo "crossarch: FAIL: $name $pkg does not build (${env[*]}):"
				cat "$tmp/$name/build.log"
			} >&2
			failed+=("$name $pkg: build")
			status=FAIL
		fi
	done
	local built tests
	built=$(elapsed "$start")
	if [[ $status == FAIL ]]; then
		printf 'crossarch: %-9s FAIL  %6ss  (%s; the build failed)\n' "$name" "$built" "${env[*]}"
		return
	fi

	# A GOAMD64=v3 binary on a CPU without v3 (AVX2, BMI2, FMA...) exits
	# at start with "This program can only be run on AMD64 processors with
	# v3 microarchitecture support."
	if [[ $name == amd64-v3 ]]; then
		bin=$tmp/$name/$(tr / _ <<<"${packages[0]#./}").test
		if ! "$bin" -test.run '^$' >"$tmp/$name/probe.log" 2>&1 &&
			grep -q microarchitecture "$tmp/$name/probe.log"; then
			printf 'crossarch: %-9s skip  %6ss  (this CPU cannot run GOAMD64=v3 binaries: %s)\n' \
				"$name" "$built" "$(head -n 1 "$tmp/$name/probe.log")"
			skipped+=("$name")
			return
		fi
	fi

	tests=$EPOCHREALTIME
	for pkg in "${packages[@]}"; do
		bin=$tmp/$name/$(tr / _ <<<"${pkg#./}").test
		log=$tmp/$name/$(tr / _ <<<"${pkg#./}").log
		if ! (cd "$pkg" && ${runner[@]+"${runner[@]}"} "$bin" -test.v -test.count 1 -test.timeout "$timeout") >"$log" 2>&1; then
			report_failure "$name" "$pkg" "$log"
			status=FAIL
		fi
	done
	printf 'crossarch: %-9s %-4s  %6ss  (%s%s; build %ss, tests %ss)\n' "$name" "$status" "$(elapsed "$start")" \
		"${env[*]}" "${runner[0]:+, under ${runner[0]}}" "$built" "$(elapsed "$tests")"
}

failed=()
skipped=()
all=$EPOCHREALTIME

if [[ $host == arm64 ]]; then
	variant arm64 -- GOARCH=arm64
elif command -v qemu-aarch64 >/dev/null 2>&1; then
	variant arm64 qemu-aarch64 -- GOARCH=arm64
else
	echo "crossarch: FAIL: arm64: qemu-aarch64 not found; install the Debian package qemu-user (make deps does)" >&2
	printf 'crossarch: %-9s FAIL  (no qemu-aarch64)\n' arm64
	failed+=("arm64: no qemu-aarch64")
fi

# 386 and v3 binaries run natively only on an amd64 machine.
if [[ $host == amd64 ]]; then
	variant 386 -- GOARCH=386
	variant amd64-v3 -- GOARCH=amd64 GOAMD64=v3
else
	printf 'crossarch: %-9s skip  (needs an amd64 machine; this one is %s)\n' 386 "$host"
	printf 'crossarch: %-9s skip  (needs an amd64 machine; this one is %s)\n' amd64-v3 "$host"
	skipped+=(386 amd64-v3)
fi

if [[ ${#failed[@]} -ne 0 ]]; then
	echo "crossarch: FAILED after $(elapsed "$all")s:" >&2
	printf 'crossarch:   %s\n' "${failed[@]}" >&2
	exit 1
fi
echo "crossarch: all passed in $(elapsed "$all")s${skipped[*]:+ (skipped: ${skipped[*]})}"
