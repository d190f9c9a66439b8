// Package layers holds a test that the packages of the module import only
// packages of lower layers, as the layout table in README.md says. It has
// no code of its own.
package layers
