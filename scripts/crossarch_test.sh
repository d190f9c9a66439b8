#!/usr/bin/env bash
# crossarch_test.sh: checks scripts/crossarch.sh's probe with fake
# emulators, in a few seconds (one small package, arm64 only built):
#
#   - an emulator that cannot run the probe ("exec format error", as a
#     kernel without IA-32 emulation answers), and one that is not
#     there, each skip their architecture with one line that says why, and
#     the script passes;
#   - an emulator that runs the probe but whose test binary fails (a
#     wrong hash) makes the script fail, naming the architecture and the
#     test;
#   - its default list of packages (--list) names packages that exist
#     (a package moved or renamed is caught here, in a second), among them
#     engine/physics, whose step must give the same bits on every build.
#
#   scripts/crossarch_test.sh
#
# `make test` runs it before scripts/crossarch.sh. Environment: GO.
set -euo pipefail
export LC_ALL=C
cd "$(dirname "${BASH_SOURCE[0]}")/.."

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export CROSSARCH_PACKAGES=./engine/detmath

# A kernel without IA-32 emulation (or qemu-i386 on one) refuses the probe.
cat >"$tmp/refuses" <<'FAKE'
#!/bin/sh
echo "$1: cannot execute binary file: Exec format error" >&2
exit 126
FAKE
# An emulator that runs the probe, and whose test binaries fail as a
# wrong golden hash does.
cat >"$tmp/wrong-hash" <<'FAKE'
#!/bin/sh
case $1 in
*/probe) echo "crossarch probe arm64" ;;
*)
	echo "=== RUN   TestGoldenHash"
	echo "    scene_test.go:1: hash 0123456789abcdef, want fedcba9876543210"
	echo "--- FAIL: TestGoldenHash (0.00s)"
	echo FAIL
	exit 1
	;;
esac
FAKE
chmod +x "$tmp/refuses" "$tmp/wrong-hash"

fails=0
# check NAME WANT_STATUS PATTERN ENV...: runs crossarch.sh with ENV and
# checks its exit status and that its output matches PATTERN (grep -E).
check() {
	local name=$1 want=$2 pattern=$3 status=0
	shift 3
	env "$@" scripts/crossarch.sh >"$tmp/out" 2>&1 || status=$?
	if [[ $status -ne $want ]] || ! grep -Eq -- "$pattern" "$tmp/out"; then
		echo "crossarch_test: FAIL: $name: exit status $status (want $want), output should match /$pattern/:" >&2
		sed 's/^/crossarch_test:     /' "$tmp/out" >&2
		fails=$((fails + 1))
		return
	fi
	echo "crossarch_test: ok    $name"
}

check "no IA-32 emulation: 386 skipped, saying why" 0 \
	'^crossarch: 386 +skip +\(cannot run GOARCH=386 programs here: .*refuses: .*Exec format error\)$' \
	CROSSARCH_ARCHES=386 CROSSARCH_RUNNERS_386="$tmp/refuses"
check "no qemu-aarch64: arm64 skipped, saying why" 0 \
	'^crossarch: arm64 +skip +\(cannot run GOARCH=arm64 programs here: /nonexistent/qemu-aarch64: not found' \
	CROSSARCH_ARCHES="arm64 386" CROSSARCH_RUNNERS_arm64=/nonexistent/qemu-aarch64 CROSSARCH_RUNNERS_386="$tmp/refuses"
check "one skip line per architecture skipped" 0 \
	'^crossarch: all passed in [0-9.]+s \(skipped: arm64 386\)$' \
	CROSSARCH_ARCHES="arm64 386" CROSSARCH_RUNNERS_arm64=/nonexistent/qemu-aarch64 CROSSARCH_RUNNERS_386="$tmp/refuses"
check "a wrong hash on an architecture that runs fails" 1 \
	'^crossarch:     TestGoldenHash$' \
	CROSSARCH_ARCHES=arm64 CROSSARCH_RUNNERS_arm64="$tmp/wrong-hash"

status=0
scripts/crossarch.sh -x >"$tmp/out" 2>&1 || status=$?
if [[ $status -ne 2 ]] || ! grep -q '^crossarch: unknown argument -x' "$tmp/out"; then
	echo "crossarch_test: FAIL: an unknown argument: exit status $status (want 2), output:" >&2
	sed 's/^/crossarch_test:     /' "$tmp/out" >&2
	fails=$((fails + 1))
else
	echo "crossarch_test: ok    an unknown argument is refused"
fi

# The default list, not the one exported above.
if ! list=$(env -u CROSSARCH_PACKAGES scripts/crossarch.sh --list) || [[ -z $list ]]; then
	echo "crossarch_test: FAIL: scripts/crossarch.sh --list printed nothing" >&2
	fails=$((fails + 1))
else
	mapfile -t listed <<<"$list"
	if ! out=$(CGO_ENABLED=0 "${GO:-go}" list "${listed[@]}" 2>&1); then
		echo "crossarch_test: FAIL: the default packages of scripts/crossarch.sh are not all packages:" >&2
		sed 's/^/crossarch_test:     /' <<<"$out" >&2
		fails=$((fails + 1))
	else
		echo "crossarch_test: ok    the default packages exist"
	fi
	if ! grep -qx './engine/physics' <<<"$list"; then
		echo "crossarch_test: FAIL: scripts/crossarch.sh's default packages leave out ./engine/physics" >&2
		fails=$((fails + 1))
	else
		echo "crossarch_test: ok    the default packages include engine/physics"
	fi
fi

if [[ $fails -ne 0 ]]; then
	echo "crossarch_test: $fails checks failed" >&2
	exit 1
fi
echo "crossarch_test: all passed"
