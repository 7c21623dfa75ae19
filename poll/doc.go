// Package poll is the logic of trainq's snapshot poller: once a minute it
// reads the queue (GetJobQueueSnapshot for the capacity in use,
// ListServiceJobs and DescribeServiceJob for the runnable jobs) and writes
// the backlog and capacity gauges as embedded metric format (EMF) lines:
// RunnableJobs, OldestRunnableSeconds, InstancesInUse, CapacityUtilization
// and BorrowedInstances per queue, class, team and instance type. Every 15
// minutes, when a team has a budget, its budget pass (WriteBudgets) reads
// the job ledger and writes each budget's BudgetUsedPercent and
// BudgetForecastPercent, by package budget's rule (budget.All), the one the
// submission function decides by.
//
// It reads the snapshot, a job's share and when a job became RUNNABLE with
// package batchrules' rules (the event observer uses the same ones). Metric
// names and dimension sets come from package metrics.
//
// It knows nothing of Lambda (bin/poller wires it) and takes time from an
// injected clock. It is run-time code: it must never import the AWS CDK,
// jsii or constructs. It imports no other function's package, and the event
// observer (package observe, bin/observer) never imports it.
package poll
