package submit

import (
	"regexp"

	"github.com/trainq/trainq/contract"
)

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

// MaxPayloadBytes is AWS Batch's limit on serviceRequestPayload: the
// SageMaker request after trainq has filled it in.
const MaxPayloadBytes = 10 * 1024

var (
	jobNamePattern = regexp.MustCompile(`^[a-zA-Z0-9_-]+$`)
	jobIDPattern   = regexp.MustCompile(`^[a-zA-Z0-9:/_.-]+$`)
)
