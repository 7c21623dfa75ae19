package submit

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/batch"
	"github.com/aws/aws-sdk-go-v2/service/batch/types"
	"github.com/aws/smithy-go"

	"github.com/trainq/trainq/batchrules"
	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/platform"
)

// jobIDAllowed describes batchrules.ParseServiceJobRef for messages.
const jobIDAllowed = "a Batch job id (letters, digits, '-', '_' and '.', as submit returns it) or the job's ARN (arn:aws:batch:REGION:ACCOUNT:service-job/ID)"

// manage serves describe, cancel and reprioritize. Through a (class, team)
// alias a caller may describe, cancel and re-prioritize only jobs of that
// class and team (the job's trainq:class and trainq:team tags, or for a job
// without them its priority band and share); an operator, every job of the
// queue. A cancel says who did it in the job's status reason, a
// re-prioritization in the job's trainq:reprioritized-by tag; both in a log
// line.
func (h *Handler) manage(ctx context.Context, caller Caller, req contract.Request) (*contract.Response, error) {
	var ps problems
	queue, _ := batchrules.ParseJobQueueARN(h.cfg.JobQueue) // New checked it
	var ref batchrules.ServiceJobRef
	if req.JobID == "" {
		ps.Add("jobId", nil, "the id of a job of the queue (as returned by submit)")
	} else if r, err := batchrules.ParseServiceJobRef(req.JobID); err != nil {
		ps.Add("jobId", req.JobID, jobIDAllowed)
	} else if !r.SameAccountAndRegion(queue) {
		ps.Addf("jobId", req.JobID, "a job of the queue's account %s and Region %s (the queue is %s)", queue.Account, queue.Region, h.cfg.JobQueue)
	} else {
		ref = r
	}
	unused := []struct {
		name string
		set  bool
	}{
		{"jobName", req.JobName != ""}, {"team", req.Team != ""}, {"idempotencyKey", req.IdempotencyKey != ""},
		{"instanceTypes", len(req.InstanceTypes) > 0}, {"trainingJob", len(req.TrainingJob) > 0},
		{"maxRuntimeSeconds", req.MaxRuntimeSeconds != nil}, {"retries", req.Retries != nil}, {"tags", len(req.Tags) > 0},
		{"priority", req.Priority != nil && req.Action != contract.ActionReprioritize},
		{"reason", req.Reason != "" && req.Action != contract.ActionCancel},
	}
	for _, f := range unused {
		if f.set {
			ps.Addf(f.name, contract.Shown("a value"), "no value for action %s", req.Action)
		}
	}
	if req.Action == contract.ActionReprioritize {
		switch {
		case req.Priority == nil:
			ps.Addf("priority", nil, "0 to %d, the new priority inside the job's class band", platform.RequestPriorityMax)
		case *req.Priority < 0 || *req.Priority > platform.RequestPriorityMax:
			ps.Addf("priority", *req.Priority, "0 to %d (placed inside the class's band)", platform.RequestPriorityMax)
		}
	}
	if req.Class != "" {
		if _, ok := h.cfg.Platform.Class(req.Class); !ok {
			ps.Addf("class", req.Class, "a class of the platform (%s), or no value", strings.Join(h.cfg.Platform.ClassNames(), ", "))
		}
	}
	if len(ps) > 0 {
		return nil, invalid(ps)
	}

	ctx, _, cancel := h.budget(ctx)
	defer cancel()
	d, err := h.cfg.Batch.DescribeServiceJob(ctx, &batch.DescribeServiceJobInput{JobId: aws.String(ref.ID)}, callOpts(ctx)...)
	if err != nil {
		if isNotFound(err) {
			ps.Add("jobId", req.JobID, "the id of an existing job of the queue")
			return nil, &Error{Kind: contract.KindValidation, Problems: ps, Message: "invalid request", Err: err}
		}
		return nil, upstream(ctx, fmt.Sprintf("describe job %q", contract.Cut(req.JobID, contract.MaxShownChars)), err)
	}
	if !batchrules.SameJobQueue(aws.ToString(d.JobQueue), h.cfg.JobQueue) {
		ps.Addf("jobId", req.JobID, "a job of the queue %s (it is in %s)", h.cfg.JobQueue, aws.ToString(d.JobQueue))
		return nil, invalid(ps)
	}
	resp := h.describeResponse(d)
	var denied problems
	switch {
	case caller.operator():
	case caller.Alias != "" && (resp.Class != caller.Class || resp.Team != caller.Team):
		denied.Addf("jobId", req.JobID, "a job of class %q and team %q, those of the alias invoked %s (this job is class %q, team %q)", caller.Class, caller.Team, caller.Alias, resp.Class, resp.Team)
	case !caller.may(resp.Class, resp.Team):
		denied.Addf("jobId", req.JobID, "a job of a (class, team) pair %s is granted: %s (this job is class %q, team %q)", caller.Role, caller.grantedPairs(), resp.Class, resp.Team)
	}
	if len(denied) > 0 {
		return nil, forbidden(denied)
	}
	if req.Action == contract.ActionDescribe {
		h.explainDescribed(ctx, d, resp)
		return resp, nil
	}

	if req.Class != "" && req.Class != resp.Class {
		denied.Addf("class", req.Class, "the job's own class %q (re-prioritizing never moves a job to another class), or no value", resp.Class)
	}
	if len(denied) > 0 {
		return nil, forbidden(denied)
	}
	if p, done := finished(d, req.Action); done {
		ps.Add("jobId", req.JobID, p)
		return nil, invalid(ps)
	}

	switch req.Action {
	case contract.ActionCancel:
		by := caller.changedBy()
		reason := contract.CancelReason(by, req.Reason)
		if _, err := h.cfg.Batch.TerminateServiceJob(ctx, &batch.TerminateServiceJobInput{JobId: aws.String(ref.ID), Reason: aws.String(reason)}, callOpts(ctx)...); err != nil {
			return nil, h.refused(ctx, req, "cancel", err)
		}
		resp.StatusReason = "cancellation requested: " + reason
		h.log.Info("cancelled", "jobId", ref.ID, "by", by, "class", resp.Class, "team", resp.Team, "reason", reason)
	case contract.ActionReprioritize:
		class, ok := h.cfg.Platform.Class(resp.Class)
		if !ok {
			ps.Addf("jobId", req.JobID, "a job whose class is known (scheduling priority %d is in no class band)", resp.SchedulingPriority)
			return nil, invalid(ps)
		}
		sp := class.SchedulingPriority(*req.Priority)
		if _, err := h.cfg.Batch.UpdateServiceJob(ctx, &batch.UpdateServiceJobInput{JobId: aws.String(ref.ID), SchedulingPriority: aws.Int32(int32(sp))}, callOpts(ctx)...); err != nil {
			return nil, h.refused(ctx, req, "reprioritize", err)
		}
		by := caller.changedBy()
		tags := map[string]string{contract.TagReprioritizedBy: by, contract.TagPlatform: h.cfg.Platform.Name}
		if _, err := h.cfg.Batch.TagResource(ctx, &batch.TagResourceInput{ResourceArn: d.JobArn, Tags: tags}, callOpts(ctx)...); err != nil {
			// The priority has changed; the log line still says who did it.
			h.log.Warn("reprioritized job not tagged", "jobId", ref.ID, "by", by, "error", err)
		}
		h.log.Info("reprioritized", "jobId", ref.ID, "by", by, "class", resp.Class, "team", resp.Team, "from", resp.SchedulingPriority, "to", sp)
		resp.SchedulingPriority = sp
	}
	return resp, nil
}

// finished says, for a cancel or a re-prioritization, why the described job
// cannot take it: it has ended (SUCCEEDED, or FAILED — a cancelled job
// ends FAILED too), or, for a cancel, its termination was already
// requested. Batch itself answers a repeated cancel with success and a
// re-prioritization of an ended job with an error of its own; trainq answers
// both with a ValidationError that says what happened.
func finished(d *batch.DescribeServiceJobOutput, action string) (allowed string, done bool) {
	status, reason := string(d.Status), aws.ToString(d.StatusReason)
	verb := map[string]string{contract.ActionCancel: "cancel", contract.ActionReprioritize: "re-prioritize"}[action]
	switch {
	case status == string(types.ServiceJobStatusSucceeded) || status == string(types.ServiceJobStatusFailed):
		what := "it has finished: " + status
		if strings.HasPrefix(reason, contract.CancelReasonPrefix) {
			what = "it was already cancelled: " + status
		}
		if reason != "" {
			what += ", " + contract.Show(contract.Cut(reason, contract.MaxShownChars))
		}
		return fmt.Sprintf("a job that has not finished, to %s it (%s)", verb, what), true
	case action == contract.ActionCancel && aws.ToBool(d.IsTerminated):
		return "a job whose cancellation has not been requested yet (it is being terminated: " + status + ")", true
	}
	return "", false
}

// refused classifies an error of TerminateServiceJob or UpdateServiceJob:
// Batch refusing the job itself (a 400 ClientException, such as a job in a
// state that takes no update) is the request's problem, a ValidationError
// quoting Batch's reason; throttling, 5xx, timeouts and permissions are
// upstream.
func (h *Handler) refused(ctx context.Context, req contract.Request, verb string, err error) *Error {
	var ae smithy.APIError
	var re *awshttp.ResponseError
	if errors.As(err, &re) && re.HTTPStatusCode() == http.StatusBadRequest && !isThrottle(err) && errors.As(err, &ae) {
		var ps problems
		ps.Addf("jobId", req.JobID, "a job AWS Batch lets trainq %s now (Batch answered %s: %s)", verb, ae.ErrorCode(), contract.Cut(ae.ErrorMessage(), contract.MaxShownChars))
		return &Error{Kind: contract.KindValidation, Problems: ps, Message: "invalid request", Err: err}
	}
	return upstream(ctx, fmt.Sprintf("%s job %q", verb, contract.Cut(req.JobID, contract.MaxShownChars)), err)
}
