// Package batchfake is the former home of the fake AWS Batch endpoint, now
// internal/batchtest. It only forwards, for the end-to-end test in
// test/submitter until that imports internal/batchtest; nothing else may
// import it.
//
// Deprecated: use github.com/trainq/trainq/internal/batchtest.
package batchfake

import "github.com/trainq/trainq/internal/batchtest"

// Deprecated: the batchtest types of the same names.
type (
	Server        = batchtest.Server
	Fault         = batchtest.Fault
	Call          = batchtest.Call
	Job           = batchtest.Job
	SubmitRequest = batchtest.SubmitRequest
)

// Deprecated: batchtest.Throttle and batchtest.ServerError.
var (
	Throttle    = batchtest.Throttle
	ServerError = batchtest.ServerError
)

// New is batchtest.New.
//
// Deprecated: use batchtest.New.
func New(submitsPerSecond float64) *Server { return batchtest.New(submitsPerSecond) }
