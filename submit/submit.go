package submit

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/batch"
	"github.com/aws/aws-sdk-go-v2/service/batch/types"

	"github.com/trainq/trainq/batchrules"
	"github.com/trainq/trainq/batchrules/batchsdk"
	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/platform"
)

// submit validates req, returns the job an earlier attempt with the same
// token created if there is one, and otherwise submits a new job.
//
// Idempotency: the clientToken and the Batch job name (jobName plus eight
// hex digits of the token) are derived from the idempotency key, and the
// token is also tagged on the job. Before submitting, and again after any
// failed submission (Batch rejects a repeated token; an answer may be lost
// after the job was created), the handler lists the queue's jobs of that
// name and answers with the one carrying the token.
func (h *Handler) submit(ctx context.Context, caller Caller, req contract.Request) (*contract.Response, error) {
	pl, ps, denied := h.validateSubmit(caller, req)
	if len(denied) > 0 {
		return nil, forbidden(append(denied, ps...))
	}
	if len(ps) > 0 {
		return nil, invalid(ps)
	}

	calls, lookup, cancel := h.budget(ctx)
	defer cancel()
	existing, err := h.findExisting(calls, pl.batchJobName, pl.token)
	if err != nil {
		return nil, upstream(calls, fmt.Sprintf("look up job %q", pl.batchJobName), err)
	}
	if existing != nil {
		if err := otherScope(pl, existing); err != nil {
			return nil, err
		}
		h.log.Info("idempotent replay", "jobName", pl.batchJobName, "jobId", existing.JobID)
		return existing, nil
	}

	instanceType := h.chooseInstanceType(calls, pl)
	pl.payload.ensure("ResourceConfig")["InstanceType"] = instanceType
	payload := pl.payload.marshal()
	if len(payload) > batchrules.MaxServiceRequestPayloadBytes {
		var ps problems
		ps.Addf("trainingJob", fmt.Sprintf("%d bytes once filled in", len(payload)), "at most %d bytes (AWS Batch's limit on a service request payload)", batchrules.MaxServiceRequestPayloadBytes)
		return nil, invalid(ps)
	}

	// The team's budgets, read after the replay check: a job already
	// accepted is answered whatever its budget says since.
	dec, err := h.budgetDecision(calls, pl.team, pl.class.Name, instanceType, h.cfg.Now())
	if err != nil {
		return nil, err
	}
	if dec.Refused() {
		return nil, &Error{Kind: contract.KindOverBudget, Message: fmt.Sprintf("refused: %s; class %s's action past 100%% is refuse", dec.By, pl.class.Name)}
	}
	sp := dec.SchedulingPriority(pl.class, pl.priority)
	tags := pl.tags
	tags[contract.TagTeam] = pl.team.Name
	tags[contract.TagClass] = pl.class.Name
	tags[contract.TagToken] = pl.token
	tags[contract.TagPlatform] = h.cfg.Platform.Name
	in := &batch.SubmitServiceJobInput{
		JobName:               aws.String(pl.batchJobName),
		JobQueue:              aws.String(h.cfg.JobQueue),
		ServiceJobType:        types.ServiceJobTypeSagemakerTraining,
		ServiceRequestPayload: aws.String(string(payload)),
		ClientToken:           aws.String(pl.token),
		SchedulingPriority:    aws.Int32(int32(sp)),
		RetryStrategy:         &types.ServiceJobRetryStrategy{Attempts: aws.Int32(int32(pl.attempts))},
		TimeoutConfig:         &types.ServiceJobTimeout{AttemptDurationSeconds: aws.Int32(int32(pl.runtime))},
		Tags:                  tags,
	}
	if h.cfg.Platform.Scheduling.Mode == platform.ModeFairShare {
		in.ShareIdentifier = aws.String(pl.team.Name)
	} else {
		in.QuotaShareName = aws.String(pl.team.Name)
	}
	if r := pl.class.PreemptionRetries; r != nil {
		in.PreemptionConfiguration = &types.ServiceJobPreemptionConfiguration{PreemptionRetriesBeforeTermination: aws.Int32(int32(*r))}
	}

	resp := &contract.Response{
		JobName:            pl.batchJobName,
		JobQueue:           h.cfg.JobQueue,
		Team:               pl.team.Name,
		Class:              pl.class.Name,
		SchedulingPriority: sp,
		InstanceType:       instanceType,
		BudgetAction:       string(dec.Action),
	}
	if len(dec.Budgets) > 0 {
		resp.Budgets = budgetViews(dec.Budgets, classAction(pl.team, pl.class.Name))
	}
	out, err := h.cfg.Batch.SubmitServiceJob(calls, in, callOpts(calls)...)
	if err != nil {
		// A rejected repeat of the token, or a lost answer: the job may
		// exist. Look again before reporting the failure, in the time kept
		// for it after the calls' deadline.
		if found := h.findAfterFailure(lookup, pl, err); found != nil {
			if err := otherScope(pl, found); err != nil {
				return nil, err
			}
			return found, nil
		}
		if isClientError(err) && !isThrottle(err) {
			return nil, &Error{Kind: contract.KindUpstream, Message: fmt.Sprintf("AWS Batch refused job %q", pl.batchJobName), Err: err}
		}
		if throttledIn(calls) && calls.Err() != nil {
			return nil, &Error{Kind: contract.KindThrottled, Message: fmt.Sprintf("AWS Batch throttled submit job %q until the invocation's deadline was near; retry later with the same idempotencyKey", pl.batchJobName), Err: err}
		}
		return nil, upstream(calls, fmt.Sprintf("submit job %q", pl.batchJobName), err)
	}
	resp.JobID = aws.ToString(out.JobId)
	resp.JobARN = aws.ToString(out.JobArn)
	if n := aws.ToString(out.JobName); n != "" {
		resp.JobName = n
	}
	h.log.Info("submitted", "jobName", resp.JobName, "jobId", resp.JobID, "class", resp.Class, "team", resp.Team,
		"schedulingPriority", sp, "instanceType", instanceType, "budgetAction", dec.Action)
	return resp, nil
}

// otherScope refuses to answer a repeat with a job of another class or team
// than the request's: the token derives from both, so such a job carries a
// token it should not, and is never someone else's answer.
func otherScope(pl *plan, found *contract.Response) error {
	if found.Class == pl.class.Name && found.Team == pl.team.Name {
		return nil
	}
	var ps problems
	ps.Addf("idempotencyKey", contract.Shown("this key"), "a key not used by a job of another class or team (job %s is class %q, team %q; this request is class %q, team %q): use another key", found.JobID, found.Class, found.Team, pl.class.Name, pl.team.Name)
	return invalid(ps)
}

// relookDelays are the waits before each look for the job after a failed
// submission, when Batch refused it (most likely as a repeated token, just
// after an earlier attempt created the job, which the listing may not show
// yet).
var relookDelays = []time.Duration{0, 250 * time.Millisecond, 750 * time.Millisecond}

// findAfterFailure looks for the job a failed submission may have created:
// once after a server error or timeout, up to three times after a refusal.
func (h *Handler) findAfterFailure(ctx context.Context, pl *plan, submitErr error) *contract.Response {
	delays := relookDelays[:1]
	if isClientError(submitErr) {
		delays = relookDelays
	}
	for _, d := range delays {
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(d):
		}
		found, err := h.findExisting(ctx, pl.batchJobName, pl.token)
		if err == nil && found != nil {
			h.log.Info("submission failed but the job exists", "jobName", pl.batchJobName, "jobId", found.JobID, "error", submitErr)
			return found
		}
	}
	return nil
}

// maxLookupPages bounds the pages of same-named jobs read when looking for
// the job a token created (100 jobs a page).
const maxLookupPages = 5

// findExisting returns the job of the queue named name whose token tag is
// token, or nil. The name already holds eight hex digits of the token, so
// the listing is short; describing each candidate confirms the full token.
func (h *Handler) findExisting(ctx context.Context, name, token string) (*contract.Response, error) {
	in := &batch.ListServiceJobsInput{
		JobQueue: aws.String(h.cfg.JobQueue),
		Filters:  []types.KeyValuesPair{{Name: aws.String("JOB_NAME"), Values: []string{name}}},
	}
	for page := 0; page < maxLookupPages; page++ {
		out, err := h.cfg.Batch.ListServiceJobs(ctx, in, callOpts(ctx)...)
		if err != nil {
			return nil, err
		}
		for _, s := range out.JobSummaryList {
			if !strings.EqualFold(aws.ToString(s.JobName), name) {
				continue
			}
			d, err := h.cfg.Batch.DescribeServiceJob(ctx, &batch.DescribeServiceJobInput{JobId: s.JobId}, callOpts(ctx)...)
			if err != nil {
				return nil, err
			}
			if d.Tags[contract.TagToken] == token {
				r := h.describeResponse(d)
				r.Existing = true
				return r, nil
			}
		}
		if out.NextToken == nil {
			return nil, nil
		}
		in.NextToken = out.NextToken
	}
	return nil, nil
}

// chooseInstanceType returns the first candidate with headroom for the job's
// instances according to the queue snapshot; the first candidate when none
// has headroom (the job waits) or the snapshot fails. Headroom is
// Headroom's.
func (h *Handler) chooseInstanceType(ctx context.Context, pl *plan) string {
	first := pl.candidates[0]
	if len(pl.candidates) == 1 {
		return first
	}
	out, err := h.cfg.Batch.GetJobQueueSnapshot(ctx, &batch.GetJobQueueSnapshotInput{JobQueue: aws.String(h.cfg.JobQueue)}, callOpts(ctx)...)
	if err != nil {
		h.log.Warn("queue snapshot failed; using the first instance type", "instanceType", first, "error", err)
		return first
	}
	usage := batchsdk.QueueUtilization(out).Usage()
	for _, it := range pl.candidates {
		if headroom := h.cfg.Platform.Headroom(pl.team, it, usage); int64(headroom) >= pl.instanceCount {
			if it != first {
				h.log.Info("instance type fallback", "chosen", it, "preferred", first, "headroom", headroom)
			}
			return it
		}
	}
	h.log.Info("no instance type has headroom; the job will wait", "instanceType", first)
	return first
}

// describeResponse turns a described job into a contract.Response. The class comes
// from the class tag, or from the scheduling priority's band.
func (h *Handler) describeResponse(d *batch.DescribeServiceJobOutput) *contract.Response {
	// Every string from Batch is cut (contract.Cut): an answer never grows
	// with what Batch sent. Valid ids, names and ARNs are far shorter.
	cut := func(s string) string { return contract.Cut(s, contract.MaxShownChars) }
	r := &contract.Response{
		JobID:              cut(aws.ToString(d.JobId)),
		JobARN:             cut(aws.ToString(d.JobArn)),
		JobName:            cut(aws.ToString(d.JobName)),
		JobQueue:           cut(aws.ToString(d.JobQueue)),
		Team:               cut(d.Tags[contract.TagTeam]),
		Class:              cut(d.Tags[contract.TagClass]),
		SchedulingPriority: int(aws.ToInt32(d.SchedulingPriority)),
		Status:             cut(string(d.Status)),
		StatusReason:       contract.Cut(aws.ToString(d.StatusReason), contract.MaxLoggedChars),
		CreatedAt:          millis(d.CreatedAt),
		StartedAt:          millis(d.StartedAt),
		StoppedAt:          millis(d.StoppedAt),
	}
	if r.Team == "" {
		r.Team = cut(batchrules.ShareOfJob(aws.ToString(d.QuotaShareName), aws.ToString(d.ShareIdentifier)))
	}
	if r.Class == "" && d.SchedulingPriority != nil {
		if c, ok := h.cfg.Platform.ClassForPriority(r.SchedulingPriority); ok {
			r.Class = c.Name
		}
	}
	if from := d.Tags[contract.TagReroutedFrom]; from != "" {
		r.ReroutedFrom = contract.Cut(from, contract.MaxShownChars)
		if n, err := strconv.Atoi(d.Tags[contract.TagMoves]); err == nil && n > 0 && n <= platform.MaxRerouteMoves {
			r.Moves = n
		}
	}
	if id, it, ok := contract.ParseReroutedReason(r.StatusReason); ok {
		r.MovedTo, r.MovedToInstanceType = contract.Cut(id, contract.MaxShownChars), contract.Cut(it, contract.MaxShownChars)
	}
	if d.ServiceRequestPayload != nil {
		var tj struct {
			ResourceConfig struct{ InstanceType string }
		}
		if json.Unmarshal([]byte(*d.ServiceRequestPayload), &tj) == nil {
			r.InstanceType = cut(tj.ResourceConfig.InstanceType)
		}
	}
	return r
}

// millis renders a Batch timestamp (milliseconds since the epoch) as RFC 3339.
func millis(ms *int64) string {
	if ms == nil || *ms == 0 {
		return ""
	}
	return time.UnixMilli(*ms).UTC().Format(time.RFC3339)
}
