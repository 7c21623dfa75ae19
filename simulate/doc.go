// Package simulate is a discrete-event simulator of AWS Batch for SageMaker
// Training as its API reference and user guide document it. It replays a job
// trace (package trace) against platform descriptions (package platform) —
// quota shares with lending, borrowing and preemption, or fair share with
// weights, decay and compute reservation — and against a strict FIFO
// baseline, and reports waits, preemptions, timeouts, utilization split into
// goodput and lost work, peak concurrency and per-job outcomes, as a table,
// as JSON, as a per-job CSV and as one self-contained HTML page.
//
// It also models what trainq adds to Batch, so that a platform lead sees
// its effect before deploying it: per-class checkpoints (a preempted or
// timed-out attempt keeps the work up to its last checkpoint) and the
// re-router (a job waiting past its class's threshold on a type saturated
// for its team moves to the first other listed type with room, by the same
// batchrules quota rule the submitter uses). Both are off under FIFO.
//
// Each modelled rule is coded once and quotes the reference it implements
// (rules.go, quota.go, fairshare.go, reroute.go; quota fit is batchrules'); the audit
// table in docs/simulate.md lists them with their tests. Time is linear in
// the trace (O(log n) per event, any backlog) and memory bounded by the jobs
// active at once.
//
// It follows kueue's habits: time is injected (simulated seconds, never the
// clock), every tie is broken by a documented key, the rules are small named
// functions, and the one heuristic AWS does not document — which running job
// to preempt — is a replaceable VictimChooser. The same inputs give the same
// outputs, byte for byte.
//
// It is run-time code: it must never import the AWS CDK, jsii or constructs.
package simulate
