// Package reroutebench holds the re-router's benchmarks: the time of one
// run with 1,000 runnable jobs against the local Batch endpoint
// (BenchmarkRun), next to the cold start measured by ../coldstart (-function rerouter); run.sh
// runs both and prints the table docs/rerouting.md quotes.
//
// It must never import the AWS CDK, jsii or constructs.
package reroutebench
