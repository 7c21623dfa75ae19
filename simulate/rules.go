package simulate

import (
	"math"

	"github.com/trainq/trainq/platform"
)

// The AWS Batch rules the simulator models that are not quota fit (which is
// package batchrules' TypeState.Room, shared with the submission function).
// Each quotes the reference it implements: the Batch API reference as the
// Go SDK (github.com/aws/aws-sdk-go-v2/service/batch v1.65.2, types.go)
// carries it, or the AWS Batch user guide. docs/simulate.md has the audit
// table: every modelled rule, its reference, where it is coded and its test.

// minShareDecaySeconds is the fair-share window a shareDecaySeconds of 0
// stands for. FairsharePolicy.ShareDecaySeconds: "A value of zero (0)
// indicates the default minimum time window (600 seconds). The maximum
// supported value is 604800 (1 week)."
const minShareDecaySeconds = 600

// shareDecaySeconds is the decay window of a fair-share policy whose
// shareDecaySeconds is configured (nil: the platform's default, which
// platform.Defaults fills in; 0: the 600-second minimum window).
func shareDecaySeconds(configured *int) float64 {
	if configured == nil {
		return platform.DefaultShareDecaySeconds
	}
	if *configured == 0 {
		return minShareDecaySeconds
	}
	return float64(*configured)
}

// shareWeight is a share's weight factor. ShareAttributes.WeightFactor:
// "The default value is 1.0. A lower value has a higher priority for compute
// resources. For example, jobs that use a share identifier with a weight
// factor of 0.125 (1/8) get 8 times the compute resources of jobs that use a
// share identifier with a weight factor of 1."
func shareWeight(t platform.Team) float64 {
	if t.Weight == 0 {
		return platform.DefaultWeight
	}
	return t.Weight
}

// reservedInstances is what a fair-share compute reservation holds back of
// a pool of pool instances for share identifiers that are not active.
// FairsharePolicy.ComputeReservation: "A value used to reserve some of the
// available maximum vCPU for share identifiers that aren't already used. The
// reserved ratio is (computeReservation/100)^ActiveFairShares where
// ActiveFairShares is the number of active share identifiers." Capacity is
// counted in instances (the service environment's unit), rounded down.
func reservedInstances(pool, computeReservation, activeShares int) int {
	if computeReservation == 0 {
		return 0
	}
	return int(float64(pool) * math.Pow(float64(computeReservation)/100, float64(activeShares)))
}

// A share identifier is active while it uses capacity:
// FairshareUtilizationDetail.ActiveShareCount is "The total number of active
// shares in the fairshare scheduling job queue that are currently utilizing
// capacity." A share that is not active may use the reserved capacity
// ("reserve ... for share identifiers that aren't already used"); the
// moment its first job starts it is active and the reservation shrinks.
func shareActive(runningInstances int) bool { return runningInstances > 0 }

// attemptsLeft reports whether a job whose attempt just ended unsuccessfully
// gets another one. ServiceJobRetryStrategy.Attempts: "The number of times
// to move a service job to RUNNABLE status. You can specify between 1 and 10
// attempts."; the user guide (service-job-retries.html): "The attempts value
// represents the total number of times the job can be placed in the RUNNABLE
// state, including the initial attempt."
func attemptsLeft(c platform.Class, failedAttempts int) bool { return failedAttempts < c.Attempts() }

// preemptionRetriesLeft reports whether a job preempted preempts times is
// requeued. ServiceJobPreemptionConfiguration.PreemptionRetriesBeforeTermination:
// "The number of times a service job can be retried after it is preempted. A
// job will be terminated when preemption retries have been exhausted. If
// this field is unset, preempted jobs will be requeued an unlimited number
// of times."; the user guide (preemption.html): "When
// preemptionRetriesBeforeTermination is set to 0, jobs go to FAILED on their
// first preemption."
func preemptionRetriesLeft(c platform.Class, preempts int) bool {
	return c.PreemptionRetries == nil || preempts <= *c.PreemptionRetries
}

// attemptSeconds is how long an attempt of a job that needs duration
// seconds runs, and whether it times out. ServiceJobTimeout.AttemptDurationSeconds:
// "The maximum duration in seconds that a service job attempt can run. After
// this time is reached, Batch terminates the service job attempt." The
// submission function sets it to the class's maxRuntimeSeconds.
func attemptSeconds(c platform.Class, duration int64) (int64, bool) {
	if limit := int64(c.MaxRuntimeSeconds); duration > limit {
		return limit, true
	}
	return duration, false
}

// checkpointSeconds is class c's checkpoint interval in seconds, or 0 when
// its jobs write no checkpoints (R22).
func checkpointSeconds(c platform.Class) int64 {
	if s, on := c.CheckpointInterval(); on {
		return int64(s)
	}
	return 0
}

// checkpointed is the work an attempt that ran ran seconds and did not
// complete keeps when its training code writes a checkpoint every interval
// seconds of the attempt's own run (interval 0: none): the work up to its
// last checkpoint, ⌊ran/interval⌋·interval. The rest, ran mod interval, is
// lost. SageMaker's checkpoint guide
// (https://docs.aws.amazon.com/sagemaker/latest/dg/model-checkpoints.html):
// with checkpointing enabled "SageMaker AI saves checkpoints to Amazon S3
// and syncs your training job with the checkpoint S3 bucket"
// (model-checkpoints-enable.html), and a new training job "with the same
// checkpoint_s3_uri" has "the checkpoints from this S3 bucket ... restored
// to checkpoint_local_path in each instance of the new training job"
// (model-checkpoints-resume.html; CheckpointConfig.LocalPath: "The default
// directory is /opt/ml/checkpoints/"). How often the code writes, that
// writing and restoring take no time, and that the next attempt resumes at
// the last checkpoint are trainq's reading (R22).
//
// With onStop the code also writes one when SageMaker stops the attempt —
// the only ways an attempt ends unfinished here are a preemption and a
// timeout, and both stop the training job: "When you terminate a service
// job, AWS Batch stops the job and notifies the target service. For
// SageMaker Training jobs, this will stop the training job in SageMaker AI
// as well" (terminate-service-jobs.html), and "To stop a job, SageMaker
// sends the algorithm the SIGTERM signal, which delays job termination for
// 120 seconds. Algorithms might use this 120-second window to save the
// model artifacts" (API_StopTrainingJob.html). The attempt then keeps all
// it ran. That a preemption stops the job the same way, and that the save
// fits in the 120 s, are the reading (R22).
func checkpointed(ran, interval int64, onStop bool) int64 {
	switch {
	case onStop:
		return ran
	case interval <= 0:
		return 0
	}
	return ran / interval * interval
}
