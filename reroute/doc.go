// Package reroute is the re-router's logic: a scheduled function that moves
// jobs stuck behind an instance type saturated for their team to another
// instance type of their class's reroute list that has room, and resubmits
// jobs that AWS Batch ended for lack of SageMaker capacity, keeping class,
// team and priority. A move submits the same SageMaker CreateTrainingJob
// request with only ResourceConfig.InstanceType changed, as a new Batch job
// with a deterministic name and clientToken and the lineage tags
// (contract.TagReroutedFrom, contract.TagMoves), then terminates the old job
// if it has still not started. docs/rerouting.md gives the rules, the bounds
// and why no crash or lost answer leaves a job with zero or two live copies.
//
// It decides on one queue snapshot with the quota rule the submission
// function and the simulator use (batchrules' TypeState.Room through
// Headroom), never calls time.Now in its logic (Config.Now), and knows
// nothing of Lambda: bin/rerouter wires it.
//
// It imports contract, batchrules, batchrules/batchsdk, platform and
// metrics of trainq, never another function's package; it is run-time
// code and must never import the AWS CDK, jsii or constructs.
package reroute
