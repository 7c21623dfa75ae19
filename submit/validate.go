package submit

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/trainq/trainq/batchrules"
	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/platform"
)

// plan is a validated submission, ready for Batch but for the instance type.
type plan struct {
	class         platform.Class
	team          platform.Team
	priority      int
	token         string
	batchJobName  string
	attempts      int
	runtime       int
	payload       trainingJob
	candidates    []string
	instanceCount int64
	tags          map[string]string
}

// validateSubmit checks a submit request against the platform and the
// caller, collecting every problem. Forbidden problems (another class than
// the alias's, another execution role) come back separately.
func (h *Handler) validateSubmit(caller Caller, req contract.Request) (*plan, problems, problems) {
	var ps, denied problems
	p := h.cfg.Platform
	pl := &plan{priority: platform.DefaultRequestPriority}

	for _, f := range []struct {
		name string
		set  bool
	}{{"jobId", req.JobID != ""}, {"reason", req.Reason != ""}} {
		if f.set {
			ps.Add(f.name, contract.Shown("a value"), "no value for action submit (it belongs to describe, cancel and reprioritize)")
		}
	}

	className := req.Class
	if caller.Class != "" {
		if req.Class != "" && req.Class != caller.Class {
			denied.Addf("class", req.Class, "%q, the class of the alias invoked (invoke the %q alias to use that class, if you are granted it)", caller.Class, platform.SubmitAliasName(req.Class, caller.Team))
		}
		className = caller.Class
	}
	teamName := req.Team
	if caller.Team != "" {
		if req.Team != "" && req.Team != caller.Team {
			denied.Addf("team", req.Team, "%q, the team of the alias invoked (invoke the %q alias to submit for that team, if you are granted it)", caller.Team, platform.SubmitAliasName(className, req.Team))
		}
		teamName = caller.Team
	}
	ps = append(ps, contract.CheckSubmit(p, req, contract.CheckOptions{Class: className, Team: teamName})...)

	team, _ := p.Team(teamName)
	pl.team = team
	class, ok := p.Class(className)
	pl.class = class
	if v := req.Priority; v != nil && *v >= 0 && *v <= platform.RequestPriorityMax {
		pl.priority = *v
	}
	pl.token = clientToken(teamName, className, req.IdempotencyKey, caller.RequestID)
	pl.batchJobName = req.JobName + "-" + pl.token[:contract.JobNameSuffixLength]

	pl.attempts = class.Attempts()
	if v := req.Retries; v != nil && *v >= 0 && *v <= pl.attempts-1 {
		pl.attempts = *v + 1
	}
	pl.runtime = class.MaxRuntimeSeconds
	if v := req.MaxRuntimeSeconds; v != nil && *v >= 1 && (!ok || *v <= class.MaxRuntimeSeconds) {
		pl.runtime = *v
	}

	pl.tags = make(map[string]string, len(req.Tags)+4)
	for k, v := range req.Tags {
		pl.tags[k] = v
	}
	h.validateTrainingJob(&ps, &denied, pl, req, ok)
	return pl, ps, denied
}

// quotaMode reports whether the queue uses quota shares.
func (h *Handler) quotaMode() bool {
	return h.cfg.Platform.Scheduling.Mode != platform.ModeFairShare
}

// teamTypes lists the submission instance types team has a quota for, in
// the platform's fallback order. In fair-share mode every type qualifies.
func (h *Handler) teamTypes(team platform.Team) []string {
	var out []string
	for _, it := range h.cfg.Platform.Submission.InstanceTypes {
		if !h.quotaMode() || team.CapacityOf(it) > 0 {
			out = append(out, it)
		}
	}
	return out
}

// validateTrainingJob checks the SageMaker request and fills in what trainq
// decides: role, name, runtime, instance type and count. trainq's own rules
// come first (the role is pinned, heterogeneous clusters are refused, the
// instance type and runtime are the platform's and the class's); then the
// filled-in payload is checked against SageMaker's CreateTrainingJobRequest
// (checkSageMaker), leaving out fields trainq's rules already reported.
// classOK says whether the class is known (so that its limits apply).
func (h *Handler) validateTrainingJob(ps, denied *problems, pl *plan, req contract.Request, classOK bool) {
	if len(req.TrainingJob) == 0 {
		return // contract.CheckSubmit reported it
	}
	tj, ok := decodeTrainingJob(req.TrainingJob)
	if !ok {
		ps.Add("trainingJob", contract.Shown(contract.DescribeJSON(req.TrainingJob)), "a SageMaker CreateTrainingJob request object")
		return
	}
	pl.payload = tj
	// contract.CheckSubmit's problems of the training job count as reported.
	before, deniedBefore := 0, len(*denied)

	// The team's own role: a team's jobs reach its data, never another's.
	execRole := h.executionRole(pl.team.Name)
	switch role := tj["RoleArn"].(type) {
	case nil:
	case string:
		if role != execRole {
			denied.Addf("trainingJob.RoleArn", role, "the execution role of team %s, %s, or no value", pl.team.Name, execRole)
		}
	default:
		ps.Add("trainingJob.RoleArn", contract.Shown(valueKind(role)), "a string (the team's execution role), or no value")
	}
	tj["RoleArn"] = execRole

	if _, given := tj["TrainingJobName"]; !given {
		tj["TrainingJobName"] = defaultTrainingJobName(req.JobName, pl.token[:contract.JobNameSuffixLength])
	}
	h.checkpoint(tj, pl, classOK)

	rc, isObj := tj.object("ResourceConfig")
	if !isObj {
		ps.Add("trainingJob.ResourceConfig", contract.Shown(valueKind(tj["ResourceConfig"])), "an object")
		rc = nil
	}
	pl.instanceCount = 1
	var payloadType string
	if rc != nil {
		switch it := rc["InstanceType"].(type) {
		case nil:
		case string:
			payloadType = it // contract.CheckSubmit checks it
		default:
			ps.Add("trainingJob.ResourceConfig.InstanceType", contract.Shown(valueKind(it)), "a string, or no value")
		}
		if v, present := rc["InstanceCount"]; present {
			if n, ok := wholeNumber(v); ok && n >= 1 && n <= math.MaxInt32 {
				pl.instanceCount = n // else contract.CheckSubmit reported it
			}
		}
	}
	switch {
	case len(req.InstanceTypes) > 0:
		pl.candidates = req.InstanceTypes
	case payloadType != "":
		pl.candidates = []string{payloadType}
	case pl.team.Name == "":
		pl.candidates = h.cfg.Platform.Submission.InstanceTypes
	default:
		pl.candidates = h.teamTypes(pl.team)
		if len(pl.candidates) == 0 {
			ps.Addf("team", pl.team.Name, "a team with a quota for one of the submission instance types (%s)", strings.Join(h.cfg.Platform.Submission.InstanceTypes, ", "))
		}
	}

	sc, isObj := tj.object("StoppingCondition")
	if !isObj {
		ps.Add("trainingJob.StoppingCondition", contract.Shown(valueKind(tj["StoppingCondition"])), "an object")
		sc = nil
	}
	if v, present := sc["MaxRuntimeInSeconds"]; present {
		// contract.CheckSubmit reports a runtime out of range.
		if n, ok := wholeNumber(v); ok && n >= 1 && (!classOK || n <= int64(pl.class.MaxRuntimeSeconds)) && n < int64(pl.runtime) {
			pl.runtime = int(n)
		}
	}
	if pl.runtime > 0 && isObj {
		tj.ensure("StoppingCondition")["MaxRuntimeInSeconds"] = json.Number(fmt.Sprint(pl.runtime))
	}
	if len(pl.candidates) > 0 && (rc != nil || tj["ResourceConfig"] == nil) {
		// Measure with the longest candidate: the chosen one fits too.
		longest := ""
		for _, c := range pl.candidates {
			if len(c) > len(longest) {
				longest = c
			}
		}
		rc := tj.ensure("ResourceConfig")
		rc["InstanceType"] = longest
		if _, ok := rc["InstanceCount"]; !ok {
			rc["InstanceCount"] = json.Number("1")
		}
	}

	reported := map[string]bool{}
	for _, p := range (*ps)[before:] {
		reported[p.Field] = true
	}
	for _, p := range (*denied)[deniedBefore:] {
		reported[p.Field] = true
	}
	checkSageMaker(ps, "trainingJob", map[string]any(tj), reported)
	if n := len(tj.marshal()); n > batchrules.MaxServiceRequestPayloadBytes {
		ps.Addf("trainingJob", fmt.Sprintf("%d bytes once filled in", n), "at most %d bytes (AWS Batch's limit on a service request payload)", batchrules.MaxServiceRequestPayloadBytes)
	}
}

// CheckpointURI is where the checkpoints of the Batch job named jobName
// (its idempotency suffix included) of team go:
// s3://BUCKET/<team>/checkpoints/<jobName>/, under the team's artifacts
// prefix (platform.ArtifactsPrefix), which only the team's execution role
// reaches. Every attempt of the job gets the same payload from Batch, so
// the same location: a retried or preempted attempt finds the checkpoints
// of the one before.
func CheckpointURI(bucket, team, jobName string) string {
	return "s3://" + bucket + "/" + platform.ArtifactsPrefix(team) + "checkpoints/" + jobName + "/"
}

// checkpoint gives a job of a class with checkpoints (Class.Checkpoints)
// SageMaker's CheckpointConfig with S3Uri CheckpointURI, so that the
// training code's /opt/ml/checkpoints is synced to it; a CheckpointConfig
// the caller gave is kept (and checked against SageMaker's model like the
// rest). Without a checkpoint bucket nothing is set (New logged it).
func (h *Handler) checkpoint(tj trainingJob, pl *plan, classOK bool) {
	if _, on := pl.class.CheckpointInterval(); !classOK || !on || h.cfg.CheckpointBucket == "" || pl.team.Name == "" {
		return
	}
	if v, given := tj["CheckpointConfig"]; given && v != nil {
		return
	}
	tj["CheckpointConfig"] = map[string]any{"S3Uri": CheckpointURI(h.cfg.CheckpointBucket, pl.team.Name, pl.batchJobName)}
}

// valueKind names a decoded JSON value for a message.
func valueKind(v any) string { return contract.ValueKind(v) }

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// clientToken derives Batch's clientToken (64 hex digits, Batch's maximum
// length) from the caller's idempotency key, scoped to the team and the
// class, so that equal keys of different teams or classes never meet;
// without a key, from the Lambda request id, which Lambda keeps across its
// own retries of an asynchronous invocation. Outside Lambda with neither,
// the token is random: no retry can repeat it. The job name's suffix is the
// token's first digits, so it is scoped alike.
func clientToken(team, class, key, requestID string) string {
	var seed string
	switch {
	case key != "":
		seed = "key2\x00" + team + "\x00" + class + "\x00" + key
	case requestID != "":
		seed = "request\x00" + requestID
	default:
		seed = "random\x00" + rand.Text()
	}
	sum := sha256.Sum256([]byte(seed))
	return hex.EncodeToString(sum[:])
}
