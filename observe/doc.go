// Package observe turns AWS Batch service jobs into trainq's CloudWatch
// metrics, written as embedded metric format (EMF) lines:
//
//   - the Observer reads each "Batch Service Job State Change" event and
//     counts starts, successes, failures, cancellations through trainq and
//     preemptions, with wait and run times, per queue, class and team;
//   - the Poller reads the queue snapshot and the runnable jobs once a minute
//     and reports the backlog, the oldest wait and the capacity in use against
//     the pool and the teams' quotas.
//
// Metric names and dimension sets come from package metrics. The rules that
// recover a job's team and class, its wait and its preemptions are in
// rules.go and explained in docs/monitoring.md.
//
// It knows nothing of Lambda (bin/observer and bin/poller wire it) and takes
// time from an injected clock. It is run-time code: it must never import the
// AWS CDK, jsii or constructs.
package observe
