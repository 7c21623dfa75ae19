package submit

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"
	"unicode/utf8"

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

	switch {
	case req.JobName == "":
		ps.Add("jobName", nil, "a job name (letters, digits, '-' and '_')")
	case len(req.JobName) > contract.MaxJobNameLength || !batchrules.ValidName(req.JobName):
		ps.Addf("jobName", req.JobName, "1 to %d letters, digits, '-' or '_'", contract.MaxJobNameLength)
	}

	team, ok := p.Team(req.Team)
	switch {
	case req.Team == "":
		ps.Addf("team", nil, "a team (%s)", strings.Join(p.TeamNames(), ", "))
	case !ok:
		ps.Addf("team", req.Team, "a team of the platform (%s)", strings.Join(p.TeamNames(), ", "))
	}
	pl.team = team

	className := req.Class
	if caller.Class != "" {
		if req.Class != "" && req.Class != caller.Class {
			denied.Addf("class", req.Class, "%q, the class of the alias invoked (invoke the %q alias to use that class)", caller.Class, req.Class)
		}
		className = caller.Class
	}
	class, ok := p.Class(className)
	switch {
	case className == "":
		ps.Addf("class", nil, "a class (%s), or invoke the function through the class's alias", strings.Join(p.ClassNames(), ", "))
	case !ok:
		ps.Addf("class", className, "a class of the platform (%s)", strings.Join(p.ClassNames(), ", "))
	}
	pl.class = class

	if req.Priority != nil {
		if *req.Priority < 0 || *req.Priority > platform.RequestPriorityMax {
			ps.Addf("priority", *req.Priority, "0 to %d (placed inside the class's band)", platform.RequestPriorityMax)
		} else {
			pl.priority = *req.Priority
		}
	}

	if utf8.RuneCountInString(req.IdempotencyKey) > contract.MaxIdempotencyKeyLength {
		ps.Addf("idempotencyKey", req.IdempotencyKey, "at most %d characters", contract.MaxIdempotencyKeyLength)
	}
	pl.token = clientToken(req.Team, req.IdempotencyKey, caller.RequestID)
	pl.batchJobName = req.JobName + "-" + pl.token[:contract.JobNameSuffixLength]

	pl.attempts = class.Attempts()
	if req.Retries != nil {
		switch most := pl.attempts - 1; {
		case *req.Retries < 0:
			ps.Add("retries", *req.Retries, "at least 0, at most the class's retries")
		case ok && *req.Retries > most:
			ps.Addf("retries", *req.Retries, "0 to %d (the %s class's retries)", most, class.Name)
		default:
			pl.attempts = *req.Retries + 1
		}
	}
	pl.runtime = class.MaxRuntimeSeconds
	if req.MaxRuntimeSeconds != nil {
		switch v := *req.MaxRuntimeSeconds; {
		case v < 1:
			ps.Add("maxRuntimeSeconds", v, "at least 1, at most the class's maximum")
		case ok && v > class.MaxRuntimeSeconds:
			ps.Addf("maxRuntimeSeconds", v, "1 to %d (the %s class's maximum)", class.MaxRuntimeSeconds, class.Name)
		default:
			pl.runtime = v
		}
	}

	pl.tags = h.validateTags(&ps, req.Tags)
	h.validateInstanceTypes(&ps, req.InstanceTypes, team)
	h.validateTrainingJob(&ps, &denied, pl, req, ok)
	return pl, ps, denied
}

func (h *Handler) validateTags(ps *problems, tags map[string]string) map[string]string {
	if len(tags) > contract.MaxCallerTags {
		ps.Addf("tags", fmt.Sprintf("%d tags", len(tags)), "at most %d tags", contract.MaxCallerTags)
	}
	keys := make([]string, 0, len(tags))
	for k := range tags {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make(map[string]string, len(tags)+4)
	for _, k := range keys {
		lk := strings.ToLower(k)
		switch {
		case strings.HasPrefix(lk, contract.TagPrefix) || strings.HasPrefix(lk, "aws:"):
			ps.Add("tags."+k, k, "a key not starting with trainq: or aws: (reserved)")
		case k == "" || utf8.RuneCountInString(k) > batchrules.MaxTagKeyLength:
			ps.Addf("tags", k, "keys of 1 to %d characters", batchrules.MaxTagKeyLength)
		case utf8.RuneCountInString(tags[k]) > batchrules.MaxTagValueLength:
			ps.Addf("tags."+k, tags[k], "a value of at most %d characters", batchrules.MaxTagValueLength)
		}
		out[k] = tags[k]
	}
	return out
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

// checkTeamQuota adds a problem when, in quota mode, team (if known) has no
// quota for instance type it: such a job could never run.
func (h *Handler) checkTeamQuota(ps *problems, field, it string, team platform.Team) {
	if !h.quotaMode() || team.Name == "" || team.CapacityOf(it) > 0 {
		return
	}
	ps.Addf(field, it, "an instance type team %s has a quota for (%s)", team.Name, strings.Join(h.teamTypes(team), ", "))
}

func (h *Handler) validateInstanceTypes(ps *problems, types []string, team platform.Team) {
	seen := map[string]bool{}
	for i, it := range types {
		f := fmt.Sprintf("instanceTypes[%d]", i)
		if !h.allowed[it] {
			ps.Addf(f, it, "an instance type of the pool (%s)", strings.Join(h.cfg.Platform.Submission.InstanceTypes, ", "))
		} else {
			h.checkTeamQuota(ps, f, it, team)
		}
		if seen[it] {
			ps.Add(f, it, "each instance type once")
		}
		seen[it] = true
	}
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
		ps.Add("trainingJob", nil, "a SageMaker CreateTrainingJob request object")
		return
	}
	tj, ok := decodeTrainingJob(req.TrainingJob)
	if !ok {
		ps.Add("trainingJob", contract.Shown(contract.DescribeJSON(req.TrainingJob)), "a SageMaker CreateTrainingJob request object")
		return
	}
	pl.payload = tj
	before, deniedBefore := len(*ps), len(*denied)

	switch role := tj["RoleArn"].(type) {
	case nil:
	case string:
		if role != h.cfg.ExecutionRoleARN {
			denied.Addf("trainingJob.RoleArn", role, "the platform's execution role %s, or no value", h.cfg.ExecutionRoleARN)
		}
	default:
		ps.Add("trainingJob.RoleArn", contract.Shown(valueKind(role)), "a string (the platform's execution role), or no value")
	}
	tj["RoleArn"] = h.cfg.ExecutionRoleARN

	if _, given := tj["TrainingJobName"]; !given {
		tj["TrainingJobName"] = defaultTrainingJobName(req.JobName, pl.token[:contract.JobNameSuffixLength])
	}

	rc, isObj := tj.object("ResourceConfig")
	if !isObj {
		ps.Add("trainingJob.ResourceConfig", contract.Shown(valueKind(tj["ResourceConfig"])), "an object")
		rc = nil
	}
	pl.instanceCount = 1
	var payloadType string
	if rc != nil {
		if _, ok := rc["InstanceGroups"]; ok {
			ps.Add("trainingJob.ResourceConfig.InstanceGroups", contract.Shown("a value"), "no value (heterogeneous clusters are not supported; use InstanceType and InstanceCount)")
		}
		switch it := rc["InstanceType"].(type) {
		case nil:
		case string:
			payloadType = it
			if !h.allowed[it] {
				ps.Addf("trainingJob.ResourceConfig.InstanceType", it, "an instance type of the pool (%s)", strings.Join(h.cfg.Platform.Submission.InstanceTypes, ", "))
			} else if len(req.InstanceTypes) > 0 && !contains(req.InstanceTypes, it) {
				ps.Addf("trainingJob.ResourceConfig.InstanceType", it, "one of instanceTypes (%s), or no value", strings.Join(req.InstanceTypes, ", "))
			} else if len(req.InstanceTypes) == 0 {
				h.checkTeamQuota(ps, "trainingJob.ResourceConfig.InstanceType", it, pl.team)
			}
		default:
			ps.Add("trainingJob.ResourceConfig.InstanceType", contract.Shown(valueKind(it)), "a string, or no value")
		}
		if v, present := rc["InstanceCount"]; present {
			n, ok := wholeNumber(v)
			if !ok || n < 1 || n > math.MaxInt32 {
				ps.Add("trainingJob.ResourceConfig.InstanceCount", contract.Shown(valueKind(v)), "a whole number of at least 1")
			} else {
				pl.instanceCount = n
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
		n, ok := wholeNumber(v)
		switch {
		case !ok || n < 1:
			ps.Add("trainingJob.StoppingCondition.MaxRuntimeInSeconds", contract.Shown(valueKind(v)), "a whole number of at least 1")
		case classOK && n > int64(pl.class.MaxRuntimeSeconds):
			ps.Addf("trainingJob.StoppingCondition.MaxRuntimeInSeconds", n, "at most %d (the %s class's maximum)", pl.class.MaxRuntimeSeconds, pl.class.Name)
		case n < int64(pl.runtime):
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

// valueKind names a decoded JSON value for a message.
func valueKind(v any) string {
	switch v := v.(type) {
	case nil:
		return "nothing"
	case map[string]any:
		return "an object"
	case []any:
		return "a list"
	case string:
		return contract.Show(v)
	case bool:
		return fmt.Sprint(v)
	}
	return fmt.Sprint(v)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// clientToken derives Batch's clientToken (64 hex digits, Batch's maximum
// length) from the caller's idempotency key, scoped to the team; without a
// key, from the Lambda request id, which Lambda keeps across its own retries
// of an asynchronous invocation. Outside Lambda with neither, the token is
// random: no retry can repeat it.
func clientToken(team, key, requestID string) string {
	var seed string
	switch {
	case key != "":
		seed = "key\x00" + team + "\x00" + key
	case requestID != "":
		seed = "request\x00" + requestID
	default:
		seed = "random\x00" + rand.Text()
	}
	sum := sha256.Sum256([]byte(seed))
	return hex.EncodeToString(sum[:])
}
