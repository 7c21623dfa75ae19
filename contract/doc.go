// Package contract is what crosses a boundary between trainq's parts: the
// submission function's request and response, its actions and error kinds,
// the tags trainq sets on jobs, the environment variables and the platform
// file each function reads, the cancel-reason prefix, and the EventBridge
// source and detail type of the Batch events the observer reads.
//
// The CLI, the constructs and the functions all import it, so that a name
// is spelled once. Its only logic is how trainq reads and writes across
// those boundaries: decoding a request strictly (DecodeRequest), JSON as
// AWS spells it (SplitObject, CheckJSON: case-sensitive names, no repeated
// member, bounded nesting), the checks of a submit request against the
// platform that need no AWS call (CheckSubmit, which the function and the
// CLI's --dry-run share), and bounded output (Cut, Report, BoundedLog:
// every string a function writes into a log line, a metric line or an error
// message is cut at a documented length on a character boundary).
//
// It is run-time code: it imports nothing of trainq but platform (whose
// Problems it reports a request's problems with) and batchrules (Batch's
// limits its own are derived from), never the AWS SDK, the Lambda runtime,
// the AWS CDK, jsii or constructs.
package contract
