package submit

import "github.com/trainq/trainq/contract"

// Response is kept for the end-to-end test in test/submitter until it
// imports contract.
//
// Deprecated: use contract.Response.
type Response = contract.Response

// EnvJobQueue and EnvExecutionRoleARN are kept for the end-to-end test in
// test/submitter until it imports contract.
//
// Deprecated: use contract.EnvJobQueue and contract.EnvExecutionRoleARN.
const (
	EnvJobQueue         = contract.EnvJobQueue
	EnvExecutionRoleARN = contract.EnvExecutionRoleARN
)
