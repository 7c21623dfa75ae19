package submit

import (
	"context"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/batch"

	"github.com/trainq/trainq/batchrules"
	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/platform"
)

// jobIDAllowed describes batchrules.ValidJobRef for messages.
const jobIDAllowed = "a Batch job id or job ARN (letters, digits, ':', '/', '_', '.' and '-')"

// manage serves describe, cancel and reprioritize. Through a class alias a
// caller may describe any job of the queue, but cancel or re-prioritize only
// jobs of the alias's class.
func (h *Handler) manage(ctx context.Context, caller Caller, req contract.Request) (*contract.Response, error) {
	var ps problems
	switch {
	case req.JobID == "":
		ps.Add("jobId", nil, "the id of a job of the queue (as returned by submit)")
	case !batchrules.ValidJobRef(req.JobID):
		ps.Add("jobId", req.JobID, jobIDAllowed)
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
	d, err := h.cfg.Batch.DescribeServiceJob(ctx, &batch.DescribeServiceJobInput{JobId: aws.String(req.JobID)})
	if err != nil {
		if isNotFound(err) {
			ps.Add("jobId", req.JobID, "the id of an existing job of the queue")
			return nil, &Error{Kind: contract.KindValidation, Problems: ps, Message: "invalid request", Err: err}
		}
		return nil, upstream(fmt.Sprintf("describe job %q", req.JobID), err)
	}
	if !batchrules.SameJobQueue(aws.ToString(d.JobQueue), h.cfg.JobQueue) {
		ps.Addf("jobId", req.JobID, "a job of the queue %s (it is in %s)", h.cfg.JobQueue, aws.ToString(d.JobQueue))
		return nil, invalid(ps)
	}
	resp := h.describeResponse(d)
	if req.Action == contract.ActionDescribe {
		return resp, nil
	}

	var denied problems
	if caller.Class != "" && resp.Class != caller.Class {
		denied.Addf("jobId", req.JobID, "a job of class %q, the class of the alias invoked (this job is %q)", caller.Class, resp.Class)
	}
	if req.Class != "" && req.Class != resp.Class {
		denied.Addf("class", req.Class, "the job's own class %q (re-prioritizing never moves a job to another class), or no value", resp.Class)
	}
	if len(denied) > 0 {
		return nil, forbidden(denied)
	}

	switch req.Action {
	case contract.ActionCancel:
		reason := contract.CancelReason(req.Reason)
		if _, err := h.cfg.Batch.TerminateServiceJob(ctx, &batch.TerminateServiceJobInput{JobId: aws.String(req.JobID), Reason: aws.String(reason)}); err != nil {
			return nil, upstream(fmt.Sprintf("cancel job %q", req.JobID), err)
		}
		resp.StatusReason = "cancellation requested: " + reason
		h.log.Info("cancelled", "jobId", req.JobID, "reason", reason)
	case contract.ActionReprioritize:
		class, ok := h.cfg.Platform.Class(resp.Class)
		if !ok {
			ps.Addf("jobId", req.JobID, "a job whose class is known (scheduling priority %d is in no class band)", resp.SchedulingPriority)
			return nil, invalid(ps)
		}
		sp := class.SchedulingPriority(*req.Priority)
		if _, err := h.cfg.Batch.UpdateServiceJob(ctx, &batch.UpdateServiceJobInput{JobId: aws.String(req.JobID), SchedulingPriority: aws.Int32(int32(sp))}); err != nil {
			return nil, upstream(fmt.Sprintf("reprioritize job %q", req.JobID), err)
		}
		h.log.Info("reprioritized", "jobId", req.JobID, "from", resp.SchedulingPriority, "to", sp)
		resp.SchedulingPriority = sp
	}
	return resp, nil
}
