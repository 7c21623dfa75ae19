// Package submit is the run-time half of trainq's job submission: it decodes
// and validates a request (collecting every problem at once), maps the class
// to its scheduling-priority band and the team to its share, pins the
// platform's SageMaker execution role, tags the job with its team, class,
// idempotency token and platform (contract.TagPlatform, which IAM conditions
// on), chooses an instance type with headroom (in quota mode, by AWS Batch's
// quota rules in package batchrules, the ones the simulator uses), checks
// the SageMaker payload against SageMaker's CreateTrainingJobRequest
// (sagemaker.go, over the model generated from botocore), and submits the
// job to AWS Batch idempotently. It also describes (saying why a waiting job
// waits: Explain, by the same quota rules), cancels and re-prioritizes jobs,
// and lists the queue (the queue action). Every request writes one embedded-metric-format line
// (metrics.JobsSubmitted or metrics.SubmissionErrors) to Config.Metrics, and
// its Batch calls end Config.DeadlineMargin before the invocation's
// deadline, so that the caller always gets a documented answer.
//
// Who may act for which (class, team) is decided by the caller's verified
// identity, never by the payload nor by which alias it could invoke: each
// invocation carries the caller's SigV4 signature over an STS
// GetCallerIdentity request bound to the function and the request
// (contract.Signed), which the handler sends to STS (identity.go); the role
// STS names is looked up in the platform's access table
// (platform.Access: submission.submitters and submission.operators, plus the
// grants the constructs record). An invocation without identity is refused,
// whatever qualifier it names.
//
// The Lambda-specific edge is small: Handler implements lambda.Handler
// (Invoke), reads the (class, team) alias from the invoked function ARN (an
// alias narrows the caller to its pair) and turns errors into function
// errors whose errorType is a Kind. Everything else is plain Go over a
// narrow Batch interface.
//
// The request, the response, the error kinds and the tags are package
// contract's, which the CLI imports instead of this package.
//
// It is run-time code: it must never import the AWS CDK, jsii or constructs,
// nor another function's package.
package submit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/lambdacontext"
	"github.com/aws/aws-sdk-go-v2/service/batch"

	"github.com/trainq/trainq/batchrules"
	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/door"
	"github.com/trainq/trainq/ledger"
	"github.com/trainq/trainq/platform"
)

// BatchAPI is the part of the AWS Batch client the handler uses. The Lambda
// role is granted exactly these actions.
type BatchAPI interface {
	SubmitServiceJob(context.Context, *batch.SubmitServiceJobInput, ...func(*batch.Options)) (*batch.SubmitServiceJobOutput, error)
	DescribeServiceJob(context.Context, *batch.DescribeServiceJobInput, ...func(*batch.Options)) (*batch.DescribeServiceJobOutput, error)
	TerminateServiceJob(context.Context, *batch.TerminateServiceJobInput, ...func(*batch.Options)) (*batch.TerminateServiceJobOutput, error)
	UpdateServiceJob(context.Context, *batch.UpdateServiceJobInput, ...func(*batch.Options)) (*batch.UpdateServiceJobOutput, error)
	ListServiceJobs(context.Context, *batch.ListServiceJobsInput, ...func(*batch.Options)) (*batch.ListServiceJobsOutput, error)
	GetJobQueueSnapshot(context.Context, *batch.GetJobQueueSnapshotInput, ...func(*batch.Options)) (*batch.GetJobQueueSnapshotOutput, error)
	TagResource(context.Context, *batch.TagResourceInput, ...func(*batch.Options)) (*batch.TagResourceOutput, error)
}

// Config is what a Handler needs.
type Config struct {
	// Platform is the validated platform description.
	Platform *platform.Platform
	// JobQueue is the ARN of the platform's job queue.
	JobQueue string
	// ExecutionRoleARN is the SageMaker execution role of the jobs of every
	// team ExecutionRoleARNs does not name. Default: none (every team must
	// have its own).
	ExecutionRoleARN string
	// ExecutionRoleARNs are, by team, the SageMaker execution roles each
	// team's jobs run as. Default: ExecutionRoleARN for every team.
	ExecutionRoleARNs map[string]string
	// Batch is the AWS Batch client (NewBatchClient in production).
	Batch BatchAPI
	// Logger receives one line per decision worth knowing later (fallback
	// choices, idempotent replays). Default: discard.
	Logger *slog.Logger
	// Metrics receives one embedded-metric-format line per request:
	// metrics.JobsSubmitted for a created job, metrics.SubmissionErrors for
	// an error answer (see metrics.go in this package). The Lambda's main
	// passes os.Stdout. Default: discard.
	Metrics io.Writer
	// Now stamps the metric lines. Default: time.Now.
	Now func() time.Time
	// CheckpointBucket is the bucket (the platform's artifacts bucket) under
	// whose team prefixes jobs of classes with checkpoints get their
	// SageMaker CheckpointConfig (CheckpointURI). Default: none, and such
	// jobs get no CheckpointConfig (New logs it once).
	CheckpointBucket string
	// Identity verifies the caller's proof of identity (an *STSVerifier in
	// production). Required.
	Identity Verifier
	// Submitters and Operators are grants beyond the platform file's
	// submission.submitters and submission.operators: those the constructs
	// record (GrantSubmit, GrantOperate; contract.EnvGrants). Default: none.
	Submitters []platform.Submitter
	// Operators are role ARNs that act platform-wide (see Submitters).
	Operators []string
	// DeadlineMargin is how long before the invocation's deadline (the
	// context's) the Batch calls of a request must end, so that the
	// function answers Throttled or UpstreamError instead of being killed
	// by Lambda. The lookup for a job a failed submission may have created
	// runs in the last part of the margin (until DeadlineMargin/5 before the
	// deadline). Default: DefaultDeadlineMargin.
	DeadlineMargin time.Duration
	// History is where the queue action reads the queue's recent past for
	// the CLI's likely start (the job ledger). Default: none, and the
	// answer says so (QueueView.NoHistory).
	History HistorySource
	// Ledger is the job ledger the usage action reads. Default: none, and
	// usage answers UpstreamError saying so.
	Ledger *ledger.Store
}

// DefaultDeadlineMargin is the default Config.DeadlineMargin: 5 s, of which
// the last second is left unused so that the answer gets out.
const DefaultDeadlineMargin = 5 * time.Second

// Handler serves submission requests.
type Handler struct {
	cfg     Config
	allowed map[string]bool
	access  platform.Access
	log     *slog.Logger
	env     door.Env // what the door knows of the deployment (doorEnv)
}

// New checks cfg and returns a Handler.
func New(cfg Config) (*Handler, error) {
	var ps []string
	if cfg.Platform == nil {
		ps = append(ps, "Platform: got nothing, want a validated platform")
	}
	if !batchrules.ValidJobQueueARN(cfg.JobQueue) {
		ps = append(ps, fmt.Sprintf("JobQueue: got %q, want a job queue ARN such as arn:aws:batch:us-east-1:123456789012:job-queue/trainq-training", cfg.JobQueue))
	}
	if cfg.Platform != nil {
		for _, team := range cfg.Platform.TeamNames() {
			role, own := cfg.ExecutionRoleARNs[team]
			switch {
			case own && !batchrules.ValidRoleARN(role):
				ps = append(ps, fmt.Sprintf("ExecutionRoleARNs[%s]: got %q, want an IAM role ARN such as arn:aws:iam::123456789012:role/trainq-sagemaker-%s", team, role, team))
			case !own && !batchrules.ValidRoleARN(cfg.ExecutionRoleARN):
				ps = append(ps, fmt.Sprintf("ExecutionRoleARN: got %q, want an IAM role ARN such as arn:aws:iam::123456789012:role/trainq-sagemaker (team %s has none in ExecutionRoleARNs)", cfg.ExecutionRoleARN, team))
			}
		}
		for team := range cfg.ExecutionRoleARNs {
			if _, ok := cfg.Platform.Team(team); !ok {
				ps = append(ps, fmt.Sprintf("ExecutionRoleARNs: got team %q, want teams of the platform (%s)", team, strings.Join(cfg.Platform.TeamNames(), ", ")))
			}
		}
	}
	if cfg.Batch == nil {
		ps = append(ps, "Batch: got nothing, want an AWS Batch client")
	}
	if cfg.Identity == nil {
		ps = append(ps, "Identity: got nothing, want a Verifier of callers' identities (an *STSVerifier)")
	}
	for i, s := range cfg.Submitters {
		if !batchrules.ValidRoleARN(s.RoleARN) {
			ps = append(ps, fmt.Sprintf("Submitters[%d].RoleARN: got %q, want an IAM role ARN such as arn:aws:iam::123456789012:role/pipeline", i, contract.Cut(s.RoleARN, contract.MaxShownChars)))
		}
		if cfg.Platform != nil {
			for _, c := range s.Classes {
				if _, ok := cfg.Platform.Class(c); !ok {
					ps = append(ps, fmt.Sprintf("Submitters[%d].Classes: got %q, want classes of the platform (%s)", i, contract.Cut(c, contract.MaxShownChars), strings.Join(cfg.Platform.ClassNames(), ", ")))
				}
			}
			for _, t := range s.Teams {
				if _, ok := cfg.Platform.Team(t); !ok {
					ps = append(ps, fmt.Sprintf("Submitters[%d].Teams: got %q, want teams of the platform (%s)", i, contract.Cut(t, contract.MaxShownChars), strings.Join(cfg.Platform.TeamNames(), ", ")))
				}
			}
		}
	}
	for i, op := range cfg.Operators {
		if !batchrules.ValidRoleARN(op) {
			ps = append(ps, fmt.Sprintf("Operators[%d]: got %q, want an IAM role ARN such as arn:aws:iam::123456789012:role/platform-operator", i, contract.Cut(op, contract.MaxShownChars)))
		}
	}
	if b := cfg.CheckpointBucket; b != "" {
		if loc, err := platform.ParseS3URI("s3://" + b + "/"); err != nil || loc.Bucket != b {
			ps = append(ps, fmt.Sprintf("CheckpointBucket: got %q, want an S3 bucket name such as trainq-artifacts-123456789012 (3 to 63 lowercase letters, digits, '-' and '.')", contract.Cut(b, contract.MaxShownChars)))
		}
	}
	if len(ps) > 0 {
		return nil, fmt.Errorf("submit: invalid config:\n  - %s", strings.Join(ps, "\n  - "))
	}
	h := &Handler{cfg: cfg, allowed: map[string]bool{}, access: cfg.Platform.NewAccess(cfg.Submitters, cfg.Operators), log: cfg.Logger, env: doorEnv(cfg)}
	if h.log == nil {
		h.log = slog.New(slog.DiscardHandler)
	}
	// Every string a log line carries (an error of Batch, a job name) is
	// bounded.
	h.log = slog.New(contract.BoundedLog(h.log.Handler()))
	if h.cfg.Metrics == nil {
		h.cfg.Metrics = io.Discard
	}
	if h.cfg.Now == nil {
		h.cfg.Now = time.Now
	}
	if h.cfg.DeadlineMargin <= 0 {
		h.cfg.DeadlineMargin = DefaultDeadlineMargin
	}
	for _, it := range cfg.Platform.Submission.InstanceTypes {
		h.allowed[it] = true
	}
	if cfg.CheckpointBucket == "" {
		var on []string
		for _, c := range cfg.Platform.Classes {
			if _, ok := c.CheckpointInterval(); ok {
				on = append(on, c.Name)
			}
		}
		if len(on) > 0 {
			h.log.Warn("classes with checkpoints, but no checkpoint bucket: their jobs get no CheckpointConfig", "classes", strings.Join(on, ","), "setting", contract.EnvCheckpointBucket)
		}
	}
	return h, nil
}

// Caller is who invoked the function, as far as authorization goes.
type Caller struct {
	// FunctionARN is the invoked function ARN, with its qualifier.
	FunctionARN string
	// Alias is the alias the function was invoked through, one per (class,
	// team) pair (platform.SubmitAliasName); empty when invoked unqualified,
	// through $LATEST or a version.
	Alias string
	// Class and Team are the alias's class and team, which the handler
	// reads from Alias: the caller acts for that pair only (and only if
	// granted it). Both empty without an alias.
	Class, Team string
	// Principal is the caller's ARN as STS answered it, and Role the role
	// it is a session of (arn:PARTITION:iam::ACCOUNT:role/NAME).
	Principal, Role string
	// grant is what Role is granted; nil: nothing.
	grant *platform.Grant
	// RequestID is the Lambda request id, the idempotency default.
	RequestID string
}

// executionRole is the SageMaker execution role of team's jobs.
func (h *Handler) executionRole(team string) string {
	if r, ok := h.cfg.ExecutionRoleARNs[team]; ok {
		return r
	}
	return h.cfg.ExecutionRoleARN
}

// operator reports whether the caller acts platform-wide: a declared
// operator, not narrowed by an alias.
func (c Caller) operator() bool { return c.Alias == "" && c.grant != nil && c.grant.Operator }

// may reports whether the caller may act for class and team: granted the
// pair, and, through an alias, the alias's pair.
func (c Caller) may(class, team string) bool {
	if c.Alias != "" && (class != c.Class || team != c.Team) {
		return false
	}
	return c.grant.May(class, team)
}

// seesTeam reports whether the caller sees team's jobs in full.
func (c Caller) seesTeam(p *platform.Platform, team string) bool {
	if c.Alias != "" {
		return team == c.Team && c.grant != nil
	}
	return slices.Contains(c.grant.Teams(p), team)
}

// scope names the caller for messages, logs and the jobs it changes: its
// role, and the alias when it invoked one.
func (c Caller) scope() string {
	who := "role " + c.Role
	if c.operator() {
		who = "operator " + c.Role
	}
	if c.Alias != "" {
		who += " through alias " + c.Alias + " (class " + c.Class + ", team " + c.Team + ")"
	}
	return who
}

// CallerFromContext reads the invoked function ARN, its alias and the
// request id from the Lambda context. The alias is the qualifier of the
// invoked function ARN (arn:aws:lambda:REGION:ACCOUNT:function:NAME:QUALIFIER);
// no qualifier, $LATEST or a version number means unqualified. The caller's
// identity is not in the context: Invoke verifies it from the payload.
func CallerFromContext(ctx context.Context) Caller {
	lc, ok := lambdacontext.FromContext(ctx)
	if !ok || lc == nil {
		return Caller{}
	}
	return Caller{FunctionARN: lc.InvokedFunctionArn, Alias: aliasOf(lc.InvokedFunctionArn), RequestID: lc.AwsRequestID}
}

func aliasOf(functionARN string) string {
	parts := strings.Split(functionARN, ":")
	if len(parts) != 8 {
		return ""
	}
	q := parts[7]
	if q == "" || q == "$LATEST" || strings.Trim(q, "0123456789") == "" {
		return ""
	}
	return q
}

// Serve is the function's handler, typed for the Lambda library
// (lambda.StartHandlerFunc, as every trainq function starts): verify the
// caller's identity over the payload as sent, decode, handle. Errors are
// function errors whose errorType is a Kind.
func (h *Handler) Serve(ctx context.Context, payload json.RawMessage) (*contract.Response, error) {
	request, caller, err := h.identify(ctx, CallerFromContext(ctx), payload)
	if err != nil {
		h.count("", nil, err)
		return nil, LambdaError(err)
	}
	req, ps := contract.DecodeRequest(request)
	if len(ps) > 0 {
		err := invalid(ps)
		h.count(req.Action, nil, err)
		return nil, LambdaError(err)
	}
	resp, err := h.Handle(ctx, caller, req)
	if err != nil {
		return nil, LambdaError(err)
	}
	return resp, nil
}

// Invoke implements lambda.Handler: Serve, its answer encoded.
func (h *Handler) Invoke(ctx context.Context, payload []byte) ([]byte, error) {
	resp, err := h.Serve(ctx, payload)
	if err != nil {
		return nil, err
	}
	return json.Marshal(resp)
}

// Handle serves one decoded request for caller and writes its metric line.
// The Batch calls run under a context that ends DeadlineMargin before ctx's
// deadline, if it has one.
func (h *Handler) Handle(ctx context.Context, caller Caller, req contract.Request) (*contract.Response, error) {
	resp, err := h.handle(noteThrottles(ctx), caller, req)
	h.count(req.Action, resp, err)
	return resp, err
}

// budget returns the context of a request's Batch calls, which ends
// DeadlineMargin before ctx's deadline, and the context of the lookup after
// a failed submission, which ends DeadlineMargin/5 before it. Without a
// deadline both are ctx.
func (h *Handler) budget(ctx context.Context) (calls, lookup context.Context, cancel func()) {
	deadline, ok := ctx.Deadline()
	if !ok {
		return ctx, ctx, func() {}
	}
	calls, cancelCalls := context.WithDeadline(ctx, deadline.Add(-h.cfg.DeadlineMargin))
	lookup, cancelLookup := context.WithDeadline(ctx, deadline.Add(-h.cfg.DeadlineMargin/5))
	return calls, lookup, func() { cancelCalls(); cancelLookup() }
}

func (h *Handler) handle(ctx context.Context, caller Caller, req contract.Request) (*contract.Response, error) {
	if caller.grant == nil {
		return nil, &Error{Kind: contract.KindForbidden, Message: "no verified caller identity: " + howToCall}
	}
	if caller.Alias != "" {
		a, ok := h.cfg.Platform.SubmitAliasOf(caller.Alias)
		if !ok {
			return nil, forbidden(problems{{Field: "function alias", Value: contract.Show(caller.Alias),
				Allowed: "an alias of a class and a team, <class>-<team> (classes " + strings.Join(h.cfg.Platform.ClassNames(), ", ") + "; teams " + strings.Join(h.cfg.Platform.TeamNames(), ", ") + ")"}})
		}
		caller.Class, caller.Team = a.Class, a.Team
		if !caller.grant.May(a.Class, a.Team) {
			return nil, forbidden(problems{{Field: "function alias", Value: contract.Show(caller.Alias),
				Allowed: "an alias of a (class, team) pair " + caller.Role + " is granted: " + caller.grantedPairs()}})
		}
	}
	switch req.Action {
	case "", contract.ActionSubmit:
		return h.submit(ctx, caller, req)
	case contract.ActionDescribe, contract.ActionCancel, contract.ActionReprioritize:
		return h.manage(ctx, caller, req)
	case contract.ActionQueue:
		return h.queue(ctx, caller, req)
	case contract.ActionUsage:
		return h.usage(ctx, req)
	case contract.ActionHistory:
		return h.jobHistory(ctx, caller, req)
	case contract.ActionExport:
		return h.traceExport(ctx, caller, req)
	case contract.ActionBudgets:
		return h.budgets(ctx, req)
	}
	var ps problems
	ps.Add("action", req.Action, "submit (the default), describe, cancel, reprioritize, queue, usage, history, export or budgets")
	return nil, invalid(ps)
}

// upstream classifies an error of a Batch call that retries could not fix:
// Throttled when Batch throttled it, or throttled any call of the request
// (ctx's note) before the deadline cut the retries short; UpstreamError
// otherwise.
func upstream(ctx context.Context, op string, err error) *Error {
	cut := errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled)
	if isThrottle(err) || cut && throttledIn(ctx) {
		return &Error{Kind: contract.KindThrottled, Message: fmt.Sprintf("AWS Batch throttled %s until retries or the invocation's time ran out; retry later with the same idempotencyKey", op), Err: err}
	}
	if cut {
		return &Error{Kind: contract.KindUpstream, Message: fmt.Sprintf("%s: no answer from AWS Batch before the deadline; retry with the same idempotencyKey", op), Err: err}
	}
	return &Error{Kind: contract.KindUpstream, Message: op, Err: err}
}
