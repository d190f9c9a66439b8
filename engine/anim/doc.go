// Package anim plays skeletal animation and blend shapes under the fixed
// step.
package anim
