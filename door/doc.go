// Package door is trainq's one check of a submit request: what the
// submission function refuses, what trainq submit --dry-run refuses and what
// the re-router checks before it resubmits a job, with the same answer
// (Check, CheckPayload). It refuses, before anything waits in the queue:
//
//   - what the platform does not allow: the job name, team, class,
//     priority, idempotency key, retries, runtime, tags and instance types
//     (the pool's, and in quota mode the team's);
//   - a job that never fits: more instances than the pool has of the type
//     or than the team could ever hold (platform.JobLimit, the rule the
//     simulator fails such a job by and trainq status explains it by);
//   - what SageMaker would refuse when Batch starts the job: its
//     CreateTrainingJobRequest model (sagemaker.go, generated from
//     botocore's) and the rules across members its shapes cannot state
//     (rules.go), on the payload as trainq fills it in;
//   - what the team's execution role cannot reach (reach.go, against
//     platform.ReachOf, the description the stack grants the role from);
//   - text that is not valid Unicode, which decoding would silently repair.
//
// What depends on a deployment fact the caller does not know (Env) is
// listed as unchecked instead of refused.
//
// It is run-time code that the CLI links: it must never import the AWS
// CDK, jsii or constructs, nor the AWS SDK or a function's package.
package door
