#!/usr/bin/env bash
# Usage: .ci/debian-deps.sh PACKAGE...
#
# Makes sure the given Debian packages are installed; `make deps` calls it with
# the list kept in the Makefile's DEB_PACKAGES.
#
# The check is a single dpkg-query call, so it costs milliseconds when nothing
# is missing. Missing packages are installed with
# `apt-get install -y --no-install-recommends`: directly when running as root,
# through sudo when sudo exists. `apt-get update` runs first only when the
# package lists are empty, or as a retry when the install fails (stale lists).
# Without root or sudo the script fails and prints the command to run.
set -euo pipefail

if [[ $# -eq 0 ]]; then
	echo "usage: $0 PACKAGE..." >&2
	exit 2
fi

if ! command -v dpkg-query >/dev/null 2>&1; then
	echo "deps: dpkg-query not found, so this is not a Debian-based system and packages are not checked." >&2
	echo "deps: the build and tests need the equivalents of: $*" >&2
	exit 0
fi

# missing prints those of its arguments that are not fully installed
# (dpkg status "ii"), separated by spaces.
missing() {
	local -A installed=()
	local status name
	while read -r status name; do
		if [[ $status == ii ]]; then
			installed[$name]=1
		fi
	done < <(dpkg-query -W -f='${db:Status-Abbrev} ${Package}\n' "$@" 2>/dev/null || true)
	local pkg out=()
	for pkg in "$@"; do
		if [[ -z ${installed[$pkg]:-} ]]; then
			out+=("$pkg")
		fi
	done
	echo "${out[*]}"
}

read -r -a need <<<"$(missing "$@")"
if [[ ${#need[@]} -eq 0 ]]; then
	exit 0
fi

if [[ $(id -u) -eq 0 ]]; then
	sudo=()
elif command -v sudo >/dev/null 2>&1; then
	sudo=(sudo)
else
	echo "deps: missing Debian packages: ${need[*]}" >&2
	echo "deps: install them as root with: apt-get install -y --no-install-recommends ${need[*]}" >&2
	exit 1
fi

install_cmd=(${sudo[@]+"${sudo[@]}"} apt-get install -y --no-install-recommends "${need[@]}")
update_cmd=(${sudo[@]+"${sudo[@]}"} apt-get update)

fail() {
	echo "deps: could not install: ${need[*]}" >&2
	echo "deps: run: ${update_cmd[*]} && ${install_cmd[*]}" >&2
	exit 1
}

echo "deps: installing missing Debian packages: ${need[*]}"
export DEBIAN_FRONTEND=noninteractive
if ! compgen -G '/var/lib/apt/lists/*_Packages*' >/dev/null; then
	echo "deps: the apt package lists are empty; running ${update_cmd[*]}"
	"${update_cmd[@]}" || fail
fi
if ! "${install_cmd[@]}"; then
	echo "deps: install failed; updating the package lists and retrying"
	"${update_cmd[@]}" || fail
	"${install_cmd[@]}" || fail
fi

read -r -a still <<<"$(missing "$@")"
if [[ ${#still[@]} -ne 0 ]]; then
	echo "deps: still not installed after apt-get: ${still[*]}" >&2
	fail
fi
