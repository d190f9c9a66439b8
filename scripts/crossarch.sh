#!/usr/bin/env bash
# crossarch.sh: the simulation's tests built for other architectures, so
# that the golden state hash (cmd/nebula-demo/scene's goldenHash, 3,600 ticks
# of the demo scene) and the engine's other bit-exact results are proven
# the same in every build, not only in the amd64 one `go test` makes (the
# physics package's too: its step's golden hash and its check of the
# source for products Go could fuse; and its scene files' numbers, read
# and printed):
#
#   arm64     GOARCH=arm64, natively on an arm64 machine, else under
#             qemu-aarch64 (Debian package qemu-user, in the Makefile's
#             DEB_PACKAGES); Go fuses x*y+z into one FMA instruction there
#   386       GOARCH=386: 32-bit int and pointers; natively on an amd64
#             machine whose kernel runs 32-bit programs, else under qemu-i386
#   amd64-v3  GOAMD64=v3, natively: Go fuses multiply-adds into FMA at v3
#
# and, only when CROSSARCH_ARCHES names them (each a few minutes more
# under qemu), riscv64, ppc64le, loong64 (all three fuse too) and arm
# (GOARM=7, 32-bit), natively on such a machine, else under
# qemu-riscv64, qemu-ppc64le, qemu-loongarch64, qemu-arm. Big-endian
# machines are out: the engine refuses to build for them.
#
#   scripts/crossarch.sh
#   scripts/crossarch.sh --list    the packages it would test, one a line
#
# Whether an architecture can run here is probed, not guessed from the
# host: a tiny program is built for it and run with each way in turn
# (natively, or under its emulator). Where none prints what it should (a
# kernel without IA-32 emulation: "exec format error"; no qemu-aarch64; a
# CPU without AVX2 and FMA), the architecture is skipped with one line
# saying why, and the others go on: a machine that cannot run an
# architecture is no failure. Once an architecture runs, any failure of
# its build or its tests (a wrong hash) is: the script exits 1.
#
# `make test` runs it after the race-enabled tests. The packages below are
# pure Go (CGO_ENABLED=0); each one's whole test binary runs, from the
# package's directory (tests read testdata relative to it), so new tests
# there are covered without touching this script. timing is left out: its
# pacer tests sleep in real time. Under an emulator (qemu runs arm64 code
# ten to twenty times slower) the binaries run with -test.short, so the
# few tests that take long natively (engine/physics's thousand-cube pile)
# skip; a golden hash is quick and never skips with -short. Test
# binaries go to a temporary directory, never into the repository. It
# prints one line per architecture (pass, fail or skip, with the build and
# test time); a failure names the architecture, the package and the test,
# prints the test output, and makes the script exit 1 after the other
# architectures have run.
#
# Environment: GO (default go), CROSSARCH_TIMEOUT (each test binary's
# -test.timeout, default 3m), and for scripts/crossarch_test.sh:
# CROSSARCH_ARCHES (default "arm64 386 amd64-v3"), CROSSARCH_PACKAGES
# (default the list below), CROSSARCH_RUNNERS_arm64, CROSSARCH_RUNNERS_386,
# CROSSARCH_RUNNERS_amd64_v3 and so on for each architecture (the ways to
# try, in order: "native" or an emulator's command; default as above).
set -euo pipefail
# A C locale: $EPOCHREALTIME's decimal point, and sed's and awk's patterns.
export LC_ALL=C

cd "$(dirname "${BASH_SOURCE[0]}")/.."

GO=${GO:-go}
timeout=${CROSSARCH_TIMEOUT:-3m}
packages=(./engine ./engine/detmath ./engine/anim ./engine/replay ./engine/rollback ./engine/physics ./engine/physics/scene ./cmd/nebula-demo/scene)
if [[ -n ${CROSSARCH_PACKAGES:-} ]]; then
	read -r -a packages <<<"$CROSSARCH_PACKAGES"
fi
read -r -a arches <<<"${CROSSARCH_ARCHES:-arm64 386 amd64-v3}"
case ${1:-} in
"") ;;
--list)
	printf '%s\n' "${packages[@]}"
	exit 0
	;;
*)
	echo "crossarch: unknown argument $1 (usage: scripts/crossarch.sh [--list])" >&2
	exit 2
	;;
esac

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

	tests=$EPOCHREALTIME
	for pkg in "${packages[@]}"; do
		bin=$tmp/$name/$(tr / _ <<<"${pkg#./}").test
		log=$tmp/$name/$(tr / _ <<<"${pkg#./}").log
		if ! (cd "$pkg" && ${runner[@]+"${runner[@]}"} "$bin" -test.v -test.count 1 -test.timeout "$timeout" ${runner[0]:+-test.short}) >"$log" 2>&1; then
			report_failure "$name" "$pkg" "$log"
			status=FAIL
		fi
	done
	printf 'crossarch: %-9s %-4s  %6ss  (%s%s; build %ss, tests %ss)\n' "$name" "$status" "$(elapsed "$start")" \
		"${env[*]}" "${runner[0]:+, under ${runner[0]} with -short}" "$built" "$(elapsed "$tests")"
}

# probe NAME ENV...: builds a tiny program with CGO_ENABLED=0 and ENV,
# and tries to run it each way NAME's runners list (CROSSARCH_RUNNERS_NAME,
# or the default for this host): "native", or an emulator's command. It
# sets runner to the first way that runs it (empty for native) and
# returns 0; else it sets why to what each way said and returns 1. A probe
# that does not build returns 2.
probe() {
	local name=$1 dir=$tmp/probe-$1 want out how ways var
	shift
	var=CROSSARCH_RUNNERS_${name//-/_}
	if [[ -n ${!var+set} ]]; then
		ways=${!var}
	else
		case $name/$host in
		arm64/arm64) ways=native ;;
		arm64/*) ways=qemu-aarch64 ;;
		386/amd64) ways="native qemu-i386" ;;
		386/*) ways=qemu-i386 ;;
		amd64-v3/amd64) ways=native ;;
		riscv64/riscv64 | ppc64le/ppc64le | loong64/loong64 | arm/arm) ways=native ;;
		riscv64/* | ppc64le/*) ways=qemu-$name ;;
		loong64/*) ways=qemu-loongarch64 ;;
		arm/arm64) ways="native qemu-arm" ;;
		arm/*) ways=qemu-arm ;;
		*) ways= ;;
		esac
	fi
	mkdir -p "$dir"
	cat >"$dir/main.go" <<-'EOF'
		package main

		import (
			"fmt"
			"runtime"
		)

		func main() { fmt.Println("crossarch probe", runtime.GOARCH) }
	EOF
	printf 'module crossarchprobe\n\ngo 1.21\n' >"$dir/go.mod"
	if ! (cd "$dir" && env CGO_ENABLED=0 GOWORK=off GOFLAGS= "$@" "$GO" build -o probe .) >"$dir/build.log" 2>&1; then
		why="the probe does not build: $(head -n 1 "$dir/build.log")"
		return 2
	fi
	want="crossarch probe $(env "$@" "$GO" env GOARCH)"
	why=
	[[ -n $ways ]] || why="it runs natively only on amd64, and this machine is $host"
	for how in $ways; do
		runner=
		if [[ $how != native ]]; then
			if ! command -v "$how" >/dev/null 2>&1; then
				why+="${why:+; }$how: not found"
				[[ $how != qemu-* ]] || why+=" (Debian package qemu-user; make deps installs it)"
				continue
			fi
			runner=$how
		fi
		if out=$(cd "$dir" && timeout 60 ${runner:+"$runner"} ./probe 2>&1) && [[ $out == "$want" ]]; then
			return 0
		fi
		out=$(head -n 1 <<<"${out:-no output}")
		why+="${why:+; }${how}: ${out:-exit status only}"
	done
	return 1
}

failed=()
skipped=()
all=$EPOCHREALTIME

for arch in "${arches[@]}"; do
	case $arch in
	arm64) env=(GOARCH=arm64) ;;
	386) env=(GOARCH=386) ;;
	amd64-v3) env=(GOARCH=amd64 GOAMD64=v3) ;;
	riscv64 | ppc64le | loong64) env=(GOARCH="$arch") ;;
	arm) env=(GOARCH=arm GOARM=7) ;;
	*)
		echo "crossarch: unknown architecture $arch in CROSSARCH_ARCHES (arm64, 386, amd64-v3; riscv64, ppc64le, loong64, arm)" >&2
		exit 2
		;;
	esac
	runner= why=
	probe "$arch" "${env[@]}" && status=0 || status=$?
	case $status in
	0) variant "$arch" ${runner:+"$runner"} -- "${env[@]}" ;;
	1)
		printf 'crossarch: %-9s skip  (cannot run %s programs here: %s)\n' "$arch" "${env[*]}" "$why"
		skipped+=("$arch")
		;;
	*)
		printf 'crossarch: %-9s FAIL  (%s)\n' "$arch" "$why"
		failed+=("$arch: $why")
		;;
	esac
done

if [[ ${#failed[@]} -ne 0 ]]; then
	echo "crossarch: FAILED after $(elapsed "$all")s:" >&2
	printf 'crossarch:   %s\n' "${failed[@]}" >&2
	exit 1
fi
echo "crossarch: all passed in $(elapsed "$all")s${skipped[*]:+ (skipped: ${skipped[*]})}"
