#!/usr/bin/env bash
# newgame.sh: start a game of your own from this checkout of Nebula, with
# no network: the module is copied from here, not fetched (gonew fetches
# from the module proxy, which has no copy of an unpublished module).
#
#   scripts/newgame.sh [-name PROGRAM] NEW/MODULE/PATH DIR
#
#   NEW/MODULE/PATH  your game's module path (example.com/mygame)
#   DIR              where the copy goes: a new or empty directory
#   -name PROGRAM    also rename cmd/nebula-minimal, the smallest game and
#                    the one to start from, to cmd/PROGRAM (lower-case
#                    letters, digits and dashes), its program name with it
#
# What it does, and nothing else:
#   1. copies the files this checkout holds (with git: those it tracks or
#      would add, so no .git, bin/ or ignored files; without git: every file
#      but .git and bin/), modes kept;
#   2. rewrites the module path in go.mod (go mod edit -module) and in the
#      import paths of every .go file, as gonew does, with Go's parser and
#      printer (go run ./internal/newgame), so the copy is gofmt-clean (the
#      module path is written nowhere else: internal/template's test checks
#      that);
#   3. with -name, moves cmd/nebula-minimal to cmd/PROGRAM and replaces
#      "nebula-minimal" in its .go files (then gofmt -w). A copy whose
#      cmd/nebula-minimal is gone (renamed already) has nothing to rename:
#      -name is refused there.
# The Markdown documentation is copied unchanged: it names the original.
#
# Then: cd DIR && go build ./... && go run ./cmd/PROGRAM (a window; add
# -headless -ticks 600 -print-hash for a run without one). A new program
# under cmd/, or a package of the game's own anywhere, needs no change to
# the copy's checks (README.md, "Start your own game"). internal/template's
# test runs this script end to end, and grows the copy as a game does.
set -euo pipefail
export LC_ALL=C

usage() {
	echo "usage: scripts/newgame.sh [-name PROGRAM] NEW/MODULE/PATH DIR" >&2
	exit 2
}
fail() {
	echo "newgame.sh: $*" >&2
	exit 1
}

name=""
while [ $# -gt 0 ]; do
	case "$1" in
	-name | --name)
		[ $# -ge 2 ] || usage
		name=$2
		shift 2
		;;
	-h | -help | --help) usage ;;
	-*) echo "newgame.sh: unknown option $1" >&2; usage ;;
	*) break ;;
	esac
done
[ $# -eq 2 ] || usage
newmod=$1
dst=$2
GO=${GO:-go}

if [ -n "$name" ] && ! printf '%s' "$name" | grep -Eq '^[a-z][a-z0-9-]*$'; then
	fail "-name $name: want lower-case letters, digits and dashes, starting with a letter"
fi
case "$newmod" in
*[[:space:]\"\'\\]* | "" | /* | */) fail "module path \"$newmod\": not a module path (no spaces, quotes or backslashes; no / at either end)" ;;
esac

src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
[ -f "$src/go.mod" ] || fail "$src has no go.mod: run the script from a Nebula checkout"
oldmod=$(sed -n 's/^module[[:space:]]\{1,\}\([^[:space:]]*\).*/\1/p' "$src/go.mod" | head -n 1)
[ -n "$oldmod" ] || fail "$src/go.mod has no module line"
[ "$newmod" != "$oldmod" ] || fail "the new module path is the old one, $oldmod"

if [ -n "$name" ] && [ "$name" != nebula-minimal ] && [ ! -d "$src/cmd/nebula-minimal" ]; then
	fail "-name $name: $src has no cmd/nebula-minimal to rename (a game made with -name has renamed it already)"
fi
if [ -e "$dst" ] && [ -n "$(ls -A "$dst" 2>/dev/null)" ]; then
	fail "$dst exists and is not empty"
fi
mkdir -p "$dst"
dst=$(cd "$dst" && pwd)
case "$dst/" in
"$src"/*) fail "$dst is inside the checkout $src: put the copy somewhere else" ;;
esac

# 1. Copy.
list=$(mktemp)
trap 'rm -f "$list"' EXIT
if git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1 &&
	[ "$(git -C "$src" rev-parse --show-toplevel)" = "$src" ]; then
	# Tracked or addable files that exist (a file deleted in the work tree
	# but still in the index is left out).
	git -C "$src" ls-files -z --cached --others --exclude-standard |
		while IFS= read -r -d '' f; do
			[ -f "$src/$f" ] && [ ! -L "$src/$f" ] && printf '%s\0' "$f"
		done | sort -zu >"$list"
else
	(cd "$src" && find . \( -path ./.git -o -path ./bin \) -prune -o -type f -print0 |
		sed -z 's|^\./||' | sort -z) >"$list"
fi
[ -s "$list" ] || fail "found no files to copy in $src"
(cd "$src" && tar --null -T "$list" -cf -) | (cd "$dst" && tar -xpf -)

# 2. The module path: go.mod, then the import paths.
(cd "$dst" && GOFLAGS= GOWORK=off "$GO" mod edit -module "$newmod") ||
	fail "go mod edit -module $newmod refused the module path"
# Go's own parser and printer rewrite the import paths (internal/newgame),
# not text substitution: a path that sorts differently, or is shorter,
# moves or realigns its neighbours as gofmt would, so the copy stays
# gofmt-clean.
[ -f "$src/internal/newgame/main.go" ] || fail "$src has no internal/newgame, which rewrites the import paths"
count=$(cd "$src" && GOFLAGS= GOWORK=off "$GO" run ./internal/newgame -from "$oldmod" -to "$newmod" "$dst") ||
	fail "rewriting the import paths of $dst failed"
# A string that is the old path or starts with it and a slash (a new path
# may start with the old one: example.com/game2 after example.com/game).
old_re=$(printf '%s' "$oldmod" | sed 's/[][\.*^$|+?(){}]/\\&/g')
if left=$(grep -rlE --include='*.go' --include=go.mod "\"$old_re[\"/]" "$dst"); then
	fail "these files still name $oldmod: $left"
fi

# 3. The game's program.
prog=nebula-minimal
if [ -n "$name" ] && [ "$name" != nebula-minimal ]; then
	[ ! -e "$dst/cmd/$name" ] || fail "the copy already has cmd/$name"
	mv "$dst/cmd/nebula-minimal" "$dst/cmd/$name"
	find "$dst/cmd/$name" -name '*.go' -type f -exec sed -i "s/nebula-minimal/$name/g" {} +
	# The name is in strings and comments only; gofmt realigns the
	# comments beside a string that changed length.
	gofmt=$(GOFLAGS= "$GO" env GOROOT)/bin/gofmt
	"$gofmt" -w "$dst/cmd/$name" || fail "gofmt -w cmd/$name failed"
	prog=$name
fi

files=$(tr -cd '\0' <"$list" | wc -c)
echo "newgame.sh: copied $files files from $src to $dst as $newmod ($count Go files rewritten)"
echo "next: cd $dst && go build ./... && go run ./cmd/$prog"
