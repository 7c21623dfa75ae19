// Package constructs holds trainq's AWS CDK constructs, each usable on its own
// from any CDK (Go) stack and from any Go module:
//
//   - CapacityPool: the GPU capacity of an AWS Batch service environment for
//     SageMaker Training (NUM_INSTANCES, or a limit per instance type for
//     quota management); FromCapacityPoolAttributes imports one.
//   - FairSharePolicy, QuotaSharePolicy: the scheduling policy a queue
//     references (ISchedulingPolicy); FromSchedulingPolicyAttributes.
//   - TrainingQueue: a SAGEMAKER_TRAINING job queue over an ordered list of
//     service environments (AddServiceEnvironment), with its quota shares
//     (AddQuotaShare, QuotaShare) and typed metrics (Metric…);
//     FromTrainingQueueAttributes.
//   - ExecutionRole: the least-privilege SageMaker execution role of the
//     jobs; FromExecutionRoleArn.
//   - Submitter: the submission function, one alias per (class, team), its
//     dead-letter queue and its grants (ISubmitter; FromSubmitterAttributes).
//   - Monitoring in layers: MonitoringPipeline (the functions that turn Batch
//     events and queue snapshots into metrics), AlarmFactory (one naming rule,
//     one IAlarmActionStrategy: AlarmTopic, NotifyTopic or NoAlarmActions)
//     with the alarm sets AddQueueAlarms, AddSubmitterAlarms and
//     AddPipelineAlarms, and dashboard widgets (CapacityWidgets,
//     BacklogWidgets, OutcomeWidgets, SubmitterWidgets, PipelineWidget,
//     AlarmStatusWidget). Monitor composes them.
//
// Conventions follow aws-cdk-lib: NewX(scope, id, props), props structs whose
// every optional field says its default, other resources passed as
// interfaces, ARNs only through attribute importers, Grant…, Metric… and
// Add… methods. A user's mistake in props is a validation error
// (Node().AddValidation): synthesis fails with every mistake of the app,
// each naming the construct's path, the construct type, the prop, the value
// and what is allowed. Construct ids are public API: renaming one replaces
// the resource in users' accounts.
//
// The from-platform conveniences (SubmitterPropsFromPlatform,
// MonitorPropsFromPlatform, PlatformPropsFromPlatform,
// QueueAlarmThresholdsFromPlatform) build props from a platform description
// (package platform); the platform stack (package stacks) uses them.
//
// # Function code
//
// The Submitter and the MonitoringPipeline need trainq's Lambda functions.
// Unless prebuilt Code is given, they are built during synthesis from
// trainq's own module source with trainq's own go.mod and go.sum — never from
// the consumer's module or working directory — by package lambdabuild: the
// three functions once per process, in one go build, cached by content in
// the user cache directory, so that a second synthesis builds nothing and a
// change to one function rebuilds that one. lambdabuild.Locate says in which
// order the module source is looked for; TRAINQ_MODULE_DIR overrides it. A
// failed build is a validation error that says why. The go command must be
// on PATH.
//
// Import the package under another name than constructs-go's package, for
// example:
//
//	tq "github.com/trainq/trainq/constructs"
package constructs
