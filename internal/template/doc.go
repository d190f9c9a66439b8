// Package template holds no code: its test checks that the repository works
// as the starting point of someone else's game, made the way README.md
// says: scripts/newgame.sh copies this checkout to a new directory as
// example.com/mygame, with cmd/nebula-minimal renamed cmd/mygame (no
// network: nothing is fetched). The test builds the copy with the module
// proxy off, runs its headless demo, which must print the same state hash
// as the original, adds a program of the game's own under cmd/ (with an
// exported type and no doc comments, a package beside it, a system in the
// physics stage and a tick stage of its own, which -schedule lists) and runs a
// subset of the copy's own tests (its layering and doc checks, internal/app,
// engine/replay, the renamed game and the added program), which must pass
// with no change to the copy's checks. Then it does what a game made from
// the copy does first: it adds a flag of its own (-greeting) in
// cmd/mygame/main.go, touching no other file (nothing under internal/),
// builds and runs it, and sees the flag listed by -h and taking effect. It
// also checks what makes the module path's rewrite complete: one module (no
// nested go.mod), and the module path written nowhere but in go.mod and
// import paths (Markdown documentation aside, which names the original to
// copy it from); and that the script refuses, with one line, what it
// cannot do.
//
// The test builds a second copy of Nebula's packages, so go test -short
// skips it.
package template
