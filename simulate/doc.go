// Package simulate is a discrete-event simulator of AWS Batch for SageMaker
// Training as its user guide documents it. It replays a job trace (package
// trace) against a platform description (package platform) — quota shares
// with lending, borrowing and preemption, or fair share with weights, decay
// and compute reservation — and against a strict FIFO baseline on the same
// pools, and reports waits, run times, preemptions and utilization, as a
// table, as JSON or as SVG plots.
//
// It follows kueue's habits: time is injected (simulated seconds, never the
// clock), every tie is broken by a documented key, the rules are small named
// functions, and the one heuristic AWS does not document — which running job
// to preempt — is a replaceable VictimChooser. The same inputs give the same
// outputs, byte for byte.
//
// It is run-time code: it must never import the AWS CDK, jsii or constructs.
package simulate
