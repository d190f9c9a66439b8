// Package layers holds tests that the packages of the module import only
// packages of lower layers, as the layout table in README.md says, and
// that docs/architecture.md names every package of the engine. It has no
// code of its own.
//
// Which packages need a row (package internal/layout says): in Nebula's
// own module every package but a program under cmd/, which sits at the top
// (layer 1) without one. In a game made from it by scripts/newgame.sh, a
// package the table does not list, under cmd/ or anywhere else, is the
// game's: at the top with the programs, it may import anything listed
// below the top, the table's programs may import it, the engine's packages
// below the top may not, imports among the game's packages are not
// checked, and docs/architecture.md need not name it. A game that lists a
// package of its own has it checked as the engine's are.
package layers
