// Package rerouter holds the re-routing Lambda's end-to-end test: the real
// bootstrap (bin/rerouter) under the AWS Lambda Runtime Interface Emulator
// against a local Batch endpoint that throttles, loses answers and serves
// stale listings, with runs killed in the middle, until more than a
// thousand jobs have moved; then every lineage must hold exactly one live
// job. The harness is internal/lambdatest.
//
// It is run-time test code: it must never import the AWS CDK, jsii or
// constructs.
package rerouter
