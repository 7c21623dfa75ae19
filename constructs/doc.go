// Package constructs holds trainq's AWS CDK constructs, each usable on its own
// from any CDK (Go) stack:
//
//   - CapacityPool: the GPU capacity of an AWS Batch service environment for
//     SageMaker Training (NUM_INSTANCES, or a limit per instance type for
//     quota management);
//   - TrainingQueue: a SAGEMAKER_TRAINING job queue with its fair-share or
//     quota-share scheduling policy, and its quota shares (QuotaShare);
//   - ExecutionRole: the least-privilege SageMaker execution role of the jobs;
//   - Submitter: the submission function, its class aliases and dead-letter
//     queue;
//   - Monitor: the observer and poller functions, alarms, alarm topic and
//     dashboard.
//
// Conventions follow aws-cdk-lib: NewX(scope, id, props), props structs with
// documented defaults, other resources passed as interfaces, ARNs only
// through FromXxxArn importers, and Grant…/Metric… methods. Construct ids are
// public API: renaming one replaces the resource in users' accounts.
//
// Import it under another name than constructs-go's package, for example:
//
//	tq "github.com/trainq/trainq/constructs"
package constructs
