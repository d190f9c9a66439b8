// Package doccheck holds no code: its test fails when an exported
// identifier of the engine has no doc comment.
//
// The engine is every package of Nebula's own module; in a game made from
// it by scripts/newgame.sh, the packages README.md's layout table lists
// (package internal/layout). A game's own packages, those the table does
// not list, are the game's business: their exported identifiers need no
// doc comment to pass (a game that lists a package has it checked).
//
// The rules, the same for every package but main packages (package main
// exports nothing to anyone: a game's program, its flags struct or its
// JSON types need no doc comment to pass, though the module's own programs
// have them):
//
//   - Package-level functions, types, constants and variables need a doc
//     comment. A constant, variable or type declared in a parenthesised
//     group may instead be covered by the group's doc comment (the Go
//     convention for iota blocks and related limits), or by a trailing
//     comment on its own line.
//   - Exported methods of exported types need a doc comment, Error and
//     String included.
//   - Exported fields of exported struct types (and of struct types nested
//     in them) need their own doc comment or a trailing line comment;
//     fields declared together on one line ("X, Y float64") share it.
//     Embedded fields are exempt: their type carries the documentation.
//   - Methods of exported interface types need a doc comment or a trailing
//     line comment.
//
// _test.go files, testdata directories and generated files (a "Code
// generated ... DO NOT EDIT." line: stringer's String methods, whose
// type's doc says what they print) are not checked.
package doccheck
