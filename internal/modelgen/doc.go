// Package modelgen makes the project's own test and demo models in code.
package modelgen
