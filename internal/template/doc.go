// Package template holds no code: its test checks that the repository works
// as the starting point of someone else's game, made and grown the way
// README.md says ("Start your own game"), end to end in a temporary folder:
//
//  1. scripts/newgame.sh copies this checkout to a new directory as
//     example.com/mygame, with cmd/nebula-minimal renamed cmd/mygame (no
//     network: nothing is fetched). The copy names the old module nowhere
//     in its code, is gofmt-clean, builds with the module proxy off, and
//     its headless demo prints the same state hash as the original's.
//  2. The game grows, in cmd/mygame/main.go alone: it names its window,
//     turns recording on (app.Game.Records) and adds a flag of its own
//     (-greeting); it records a run that -replay -verify checks, and -h
//     lists its flag.
//  3. It adds a program under cmd/ (with an exported type and no doc
//     comments, and two packages beside it: a system in the physics stage,
//     a tick stage of its own, which -schedule lists, an action on a
//     gamepad button) and a package outside cmd/ (internal/game: exported
//     names with no doc comments, an error without the package's name),
//     changing neither README.md nor docs/.
//  4. The copy's make lint passes (gofmt, go vet, staticcheck), and so do
//     its own tests: its layering, architecture-page, doc-comment and
//     template tests in full, and with -short its error-prefix check,
//     internal/app, engine/replay, the renamed game (its window test too,
//     under an X display) and what was added.
//
// It also checks what makes the module path's rewrite complete: one module
// (no nested go.mod), and the module path written nowhere but in go.mod
// and import paths (Markdown documentation aside, which names the original
// to copy it from); and that the script refuses, with one line, what it
// cannot do.
//
// In a game made from Nebula the same test, the copy's own, checks what a
// copy can promise: that it can be copied again (gofmt-clean, it builds,
// the demo's hash), and that a program and a package added to that copy
// pass its checks; it leaves the game's program alone, runs no make lint
// and does not run the second copy's template test (it would copy again).
//
// The test builds two more copies of Nebula's packages (the copy, and the
// copy's copy made by the copy's own template test) and lints one, so go
// test -short skips it; make test runs it.
package template
