package contract

import "github.com/trainq/trainq/platform"

// A request's problems are reported like a platform file's, by the same
// code: the field, the value received and what is allowed.

// Problem is one thing wrong with a request.
type Problem = platform.Problem

// Problems collects every problem of a request (Add, Addf).
type Problems = platform.Problems

// Shown is a value already rendered for a message (e.g. "an object"); Show
// returns it as is.
type Shown = platform.Shown

// Show renders a received value for a message: platform.Show.
func Show(v any) string { return platform.Show(v) }
