// Package submitter holds the submission Lambda's end-to-end tests: the real
// bootstrap under the AWS Lambda Runtime Interface Emulator against a local
// Batch endpoint, invoked over loopback and through the AWS CLI. The harness
// is internal/lambdatest, shared with the observer's and poller's tests and
// the benchmark under bench/submit.
//
// It is run-time test code: it must never import the AWS CDK, jsii or
// constructs.
package submitter
