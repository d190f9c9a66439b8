// Package layers holds a test that the packages of the module import only
// packages of lower layers, as the layout table in README.md says. It has
// no code of its own. A package under cmd/ needs no row of the table: a
// program that is not listed, and the packages beside it, are at the top
// (layer 1), may import anything listed below, and are imported by nothing
// listed. Every other package needs its row.
package layers
