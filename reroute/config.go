package reroute

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/batch"

	"github.com/trainq/trainq/batchrules"
	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/door"
	"github.com/trainq/trainq/platform"
)

// BatchAPI is the part of the AWS Batch client the re-router calls.
type BatchAPI interface {
	ListServiceJobs(ctx context.Context, in *batch.ListServiceJobsInput, opts ...func(*batch.Options)) (*batch.ListServiceJobsOutput, error)
	DescribeServiceJob(ctx context.Context, in *batch.DescribeServiceJobInput, opts ...func(*batch.Options)) (*batch.DescribeServiceJobOutput, error)
	GetJobQueueSnapshot(ctx context.Context, in *batch.GetJobQueueSnapshotInput, opts ...func(*batch.Options)) (*batch.GetJobQueueSnapshotOutput, error)
	SubmitServiceJob(ctx context.Context, in *batch.SubmitServiceJobInput, opts ...func(*batch.Options)) (*batch.SubmitServiceJobOutput, error)
	TerminateServiceJob(ctx context.Context, in *batch.TerminateServiceJobInput, opts ...func(*batch.Options)) (*batch.TerminateServiceJobOutput, error)
	TagResource(ctx context.Context, in *batch.TagResourceInput, opts ...func(*batch.Options)) (*batch.TagResourceOutput, error)
}

// Defaults of Config.
const (
	// DefaultMaxPages bounds the ListServiceJobs pages (100 jobs each) read
	// per job status per run: 50 pages, 5,000 jobs. Batch lists the most
	// recent first, so a longer queue's oldest jobs are not seen.
	DefaultMaxPages = 50
	// DefaultMaxFailedPages bounds the pages of FAILED jobs read per run.
	DefaultMaxFailedPages = 5
	// DefaultMaxDescribes bounds the DescribeServiceJob calls of one run's
	// reading phase; runnable jobs left over (the youngest) are read next
	// run.
	DefaultMaxDescribes = 2000
	// DefaultDescribeConcurrency is how many DescribeServiceJob calls run
	// at once.
	DefaultDescribeConcurrency = 8
	// DefaultDescribeTTL is how long a warm instance plans with a
	// runnable job's description before reading it again (its priority or
	// tags may change): 10 minutes. A move always reads its job again.
	DefaultDescribeTTL = 10 * time.Minute
	// DefaultFailedLookback is how far back (by stoppedAt) a job that
	// failed for capacity is still resubmitted: an hour, or two periods of
	// the schedule (rerouting.everyMinutes) if longer.
	DefaultFailedLookback = time.Hour
	// DefaultCallTimeout bounds one Batch call with its retries.
	DefaultCallTimeout = 15 * time.Second
	// DefaultDecisionTrust is how long after a move was decided its
	// request may still be sent again. AWS Batch documents that an
	// identical request with the same clientToken is not created twice,
	// but not for how long it remembers a token: a decision not converged
	// within an hour (some sixty runs) is not submitted again blindly; it
	// pages.
	DefaultDecisionTrust = time.Hour
	// DefaultDeadlineMargin is kept free before the invocation's deadline:
	// no move starts later, so that one in progress ends and the run's
	// metric line is written. 10 s, or a fifth of the time left when the
	// run starts, whichever is less.
	DefaultDeadlineMargin = 10 * time.Second
)

// DefaultRelookDelays are the waits before each look for a replacement
// after a failed submission: a refusal (most likely the repeated token of a
// submission whose answer was lost, whose job the listing may not show
// yet) is looked for three times, a server error or timeout once.
var DefaultRelookDelays = []time.Duration{0, 250 * time.Millisecond, 750 * time.Millisecond}

// Config configures a Rerouter. Zero values take the defaults above.
type Config struct {
	// Platform is the platform; its classes with Reroute set move.
	// Required.
	Platform *platform.Platform
	// JobQueue is the job queue's ARN. Required.
	JobQueue string
	// Batch is the AWS Batch client. Required.
	Batch BatchAPI
	// Now is the clock. Required.
	Now func() time.Time
	// Metrics receives the EMF lines. Required.
	Metrics io.Writer
	// Door is what the door knows of the deployment (door.DeployedEnv):
	// the artifacts bucket, the queue's account and region and every
	// team's execution role, as the submission function has them. Every
	// replacement passes the door (door.CheckPayload) before it is
	// submitted. Required: an execution role for every team.
	Door door.Env
	// Logger receives one line per move and per refusal; New bounds every
	// string it is given (contract.BoundedLog). Default: discarded.
	Logger *slog.Logger

	MaxPages            int
	MaxFailedPages      int
	MaxDescribes        int
	DescribeConcurrency int
	FailedLookback      time.Duration
	DescribeTTL         time.Duration
	CallTimeout         time.Duration
	DeadlineMargin      time.Duration
	DecisionTrust       time.Duration
	// RelookDelays replace DefaultRelookDelays (tests give zeros).
	RelookDelays []time.Duration
}

// Settings is the function's configuration read from its environment.
type Settings struct {
	Platform     *platform.Platform
	PlatformFile string
	JobQueue     string
	// Door is what the door knows of the deployment, as the submission
	// function's: the artifacts bucket (contract.EnvCheckpointBucket) and
	// the teams' execution roles (contract.EnvExecutionRoleARNs,
	// contract.EnvExecutionRoleARN).
	Door door.Env
}

// LoadSettings reads the environment through getenv: the platform file
// (contract.PlatformFile), contract.EnvJobQueue, the teams' execution
// roles and the artifacts bucket, reporting every problem at once.
func LoadSettings(getenv func(string) string, executable string) (Settings, error) {
	s := Settings{JobQueue: getenv(contract.EnvJobQueue), PlatformFile: contract.PlatformFile(getenv, executable)}
	var errs []error
	p, err := platform.LoadJSONFile(s.PlatformFile)
	if err != nil {
		errs = append(errs, fmt.Errorf("%s (set %s or bundle %s): %w", s.PlatformFile, contract.EnvPlatformFile, contract.PlatformFileName, err))
	}
	s.Platform = p
	if !batchrules.ValidJobQueueARN(s.JobQueue) {
		errs = append(errs, fmt.Errorf("%s: got %q, want a job queue ARN such as arn:aws:batch:us-east-1:123456789012:job-queue/trainq-training", contract.EnvJobQueue, contract.Cut(s.JobQueue, contract.MaxShownChars)))
	}
	var teams []string
	if p != nil {
		teams = p.TeamNames()
	}
	fallback, roles, roleErrs := contract.ExecutionRoles(getenv, teams)
	errs = append(errs, roleErrs...)
	bucket, err := contract.ArtifactsBucket(getenv)
	if err != nil {
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		return s, fmt.Errorf("rerouter configuration: %w", errors.Join(errs...))
	}
	s.Door = door.DeployedEnv(p, s.JobQueue, bucket, fallback, roles)
	return s, nil
}
