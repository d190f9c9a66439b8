// Package ragdoll makes ragdolls from skinned models and switches a
// character between its animation and its ragdoll, under the fixed step.
package ragdoll
