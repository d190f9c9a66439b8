// Package template holds no code: its test checks that the repository works
// as the starting point of someone else's game. It copies the module the
// way gonew (golang.org/x/tools/cmd/gonew) does when asked for a copy named
// example.com/mygame: the module path is rewritten in go.mod and in every
// import, nothing else changes. It builds the copy,
// and runs its headless demo, which must print the same state hash as the
// original. Then it does what a game made from the copy does first: it adds
// a flag of its own (-greeting) in the copy's cmd/nebula-minimal/main.go,
// touching no other file (nothing under internal/), builds and runs it, and
// sees the flag listed by -h and taking effect. It also checks what makes gonew's rewrite complete: one module
// (no nested go.mod), and the module path written nowhere but in go.mod and
// import paths (Markdown documentation aside, which names the original to
// copy it from).
//
// The test builds a second copy of Nebula's packages, so go test -short
// skips it.
package template
