package submit

import (
	"errors"
	"fmt"

	"github.com/trainq/trainq/batchrules"
	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/metrics"
)

// count writes the request's metric line: metrics.JobsSubmitted under every
// dimension set it lists when a job was created, metrics.SubmissionErrors
// under both of its sets for an error answer, nothing otherwise (an
// existing job answered again, describe, cancel, reprioritize).
func (h *Handler) count(action string, resp *contract.Response, err error) {
	r := metrics.Record{Time: h.cfg.Now(), Dimensions: map[string]string{metrics.Queue: batchrules.JobQueueName(h.cfg.JobQueue)}}
	switch {
	case err != nil:
		kind := contract.KindUpstream
		var e *Error
		if errors.As(err, &e) {
			kind = e.Kind
		}
		r.Dimensions[metrics.ErrorType] = string(kind)
		r.Add(metrics.SubmissionErrors, 1)
	case resp != nil && !resp.Existing && (action == "" || action == contract.ActionSubmit):
		r.Dimensions[metrics.Class] = resp.Class
		r.Dimensions[metrics.Team] = resp.Team
		r.Properties = contract.CutAll(map[string]any{"jobId": resp.JobID, "instanceType": resp.InstanceType}, contract.MaxLoggedChars)
		r.Add(metrics.JobsSubmitted, 1)
	default:
		return
	}
	line, encErr := r.Encode()
	if encErr != nil {
		h.log.Error("metric line not written", "error", encErr)
		return
	}
	if _, werr := fmt.Fprintf(h.cfg.Metrics, "%s\n", line); werr != nil {
		h.log.Error("metric line not written", "error", werr)
	}
}
