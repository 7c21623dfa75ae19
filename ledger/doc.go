// Package ledger is trainq's memory of every job: one DynamoDB item per AWS
// Batch service job, written by the observer from each "Batch Service Job
// State Change" event (and completed by the reconciling pass from
// DescribeServiceJob), read by the submission function for history, usage
// and trace export.
//
// EventBridge delivers events at least once and in any order, so an item is
// not a log of events but the join of everything known about the job
// (Merge): the union of its attempts (by start time) with their stops,
// reasons and preemptions, the earliest creation, every scheduling time,
// and the status of the latest event by an order that never goes backwards
// (Order: a terminal status beats every other, then the latest moment the
// event mentions, then the status's place in Batch's lifecycle). Merge is
// commutative, associative and idempotent, so any permutation of a job's
// events, with any duplicates, gives the same item; the write is a
// conditional put on the item's revision (Store.Record), so that two
// concurrent invocations never lose each other's facts, and an event that
// adds nothing writes nothing.
//
// Usage (usage.go) is computed from the items with the attribution rule of
// package showback, the one the simulator's side also calls.
//
// It is run-time code: it must never import the AWS CDK, jsii or
// constructs, nor a function's package.
package ledger
