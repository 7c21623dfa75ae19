// Package observe turns AWS Batch service job events into trainq's
// CloudWatch metrics, written as embedded metric format (EMF) lines: the
// Observer reads each "Batch Service Job State Change" event
// (contract.BatchServiceJobEvent) and counts starts, successes, failures,
// cancellations through trainq and preemptions, with wait and run times, per
// queue, class and team, and each "Batch Service Job Queue Blocked" event
// (contract.BatchServiceJobQueueBlockedEvent) as QueueBlocked. Events are
// read member by member (decode.go), so that an unreadable member costs only
// the metrics that depend on it, and checked against batchrules' sanity
// bounds; every line is bounded (contract.Cut). (The snapshot poller, which reports the backlog and
// the capacity in use, is package poll; it reads described jobs with the
// rules of this package.)
//
// Metric names and dimension sets come from package metrics. The rules that
// recover a job's team and class, its wait and its preemptions are in
// rules.go and explained in docs/monitoring.md.
//
// It knows nothing of Lambda (bin/observer wires it), never imports the AWS
// SDK, and takes time from an injected clock. It is run-time code: it must
// never import the AWS CDK, jsii or constructs.
package observe
