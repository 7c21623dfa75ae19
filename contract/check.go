package contract

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/trainq/trainq/batchrules"
	"github.com/trainq/trainq/platform"
)

// CheckOptions says how CheckSubmit reads a request.
type CheckOptions struct {
	// Class is the class the request is checked as, when it is not the
	// request's own: the submission function's alias decides it. Default:
	// the request's class.
	Class string
	// Team is the team the request is checked as, when it is not the
	// request's own: the submission function's alias decides it. Default:
	// the request's team.
	Team string
	// Hints, by field, say where a missing value comes from (the CLI's flag,
	// e.g. "--job-name"); they end the message of a missing field. Default:
	// none.
	Hints map[string]string
}

// CheckSubmit checks a submit request against platform p, with no AWS call:
// the job name, team, class, priority, idempotency key's length, retries,
// runtime, caller tags, instance types (the pool's, and in quota mode the
// team's), and the training job's instance type, count, heterogeneous
// groups and runtime. The submission function and the CLI's submit
// --dry-run both call it, so that they refuse the same requests with the
// same messages; what needs AWS or the alias (the execution role, headroom,
// SageMaker's full model) stays with the function.
func CheckSubmit(p *platform.Platform, req Request, opt CheckOptions) Problems {
	var ps Problems
	hint := func(field string) string {
		if h := opt.Hints[field]; h != "" {
			return ": " + h
		}
		return ""
	}
	switch {
	case req.JobName == "":
		ps.Add("jobName", nil, "a job name (letters, digits, '-' and '_')"+hint("jobName"))
	case len(req.JobName) > MaxJobNameLength || !batchrules.ValidName(req.JobName):
		ps.Addf("jobName", req.JobName, "1 to %d letters, digits, '-' or '_'", MaxJobNameLength)
	}

	teamName := req.Team
	if opt.Team != "" {
		teamName = opt.Team
	}
	team, teamOK := p.Team(teamName)
	switch {
	case teamName == "":
		ps.Addf("team", nil, "a team (%s)%s", strings.Join(p.TeamNames(), ", "), hint("team"))
	case !teamOK:
		ps.Addf("team", teamName, "a team of the platform (%s)", strings.Join(p.TeamNames(), ", "))
	}

	className := req.Class
	if opt.Class != "" {
		className = opt.Class
	}
	class, classOK := p.Class(className)
	switch {
	case className == "":
		ps.Addf("class", nil, "a class (%s), or invoke the function through a (class, team) alias%s", strings.Join(p.ClassNames(), ", "), hint("class"))
	case !classOK:
		ps.Addf("class", className, "a class of the platform (%s)", strings.Join(p.ClassNames(), ", "))
	}

	if req.Priority != nil && (*req.Priority < 0 || *req.Priority > platform.RequestPriorityMax) {
		ps.Addf("priority", *req.Priority, "0 to %d (placed inside the class's band)", platform.RequestPriorityMax)
	}
	if utf8.RuneCountInString(req.IdempotencyKey) > MaxIdempotencyKeyLength {
		ps.Addf("idempotencyKey", req.IdempotencyKey, "at most %d characters", MaxIdempotencyKeyLength)
	}
	if req.Retries != nil {
		switch most := class.Attempts() - 1; {
		case *req.Retries < 0:
			ps.Add("retries", *req.Retries, "at least 0, at most the class's retries")
		case classOK && *req.Retries > most:
			ps.Addf("retries", *req.Retries, "0 to %d (the %s class's retries)", most, class.Name)
		}
	}
	if req.MaxRuntimeSeconds != nil {
		switch v := *req.MaxRuntimeSeconds; {
		case v < 1:
			ps.Add("maxRuntimeSeconds", v, "at least 1, at most the class's maximum")
		case classOK && v > class.MaxRuntimeSeconds:
			ps.Addf("maxRuntimeSeconds", v, "1 to %d (the %s class's maximum)", class.MaxRuntimeSeconds, class.Name)
		}
	}
	checkTags(&ps, req.Tags)

	allowed := p.Submission.InstanceTypes
	quota := p.Scheduling.Mode != platform.ModeFairShare
	checkType := func(field, it string, teamQuota bool) {
		switch {
		case !slices.Contains(allowed, it):
			ps.Addf(field, it, "an instance type of the pool (%s)", strings.Join(allowed, ", "))
		case teamQuota && quota && teamOK && team.CapacityOf(it) == 0:
			var own []string
			for _, t := range allowed {
				if team.CapacityOf(t) > 0 {
					own = append(own, t)
				}
			}
			ps.Addf(field, it, "an instance type team %s has a quota for (%s)", team.Name, strings.Join(own, ", "))
		}
	}
	for i, it := range req.InstanceTypes {
		f := fmt.Sprintf("instanceTypes[%d]", i)
		checkType(f, it, true)
		if slices.Index(req.InstanceTypes, it) < i {
			ps.Add(f, it, "each instance type once")
		}
	}

	if len(req.TrainingJob) == 0 {
		ps.Add("trainingJob", nil, "a SageMaker CreateTrainingJob request object"+hint("trainingJob"))
		return ps
	}
	var tj map[string]any
	dec := json.NewDecoder(strings.NewReader(string(req.TrainingJob)))
	dec.UseNumber()
	if err := dec.Decode(&tj); err != nil || tj == nil {
		// Not an object: the function's own decoding reports it.
		return ps
	}
	if rc, ok := tj["ResourceConfig"].(map[string]any); ok {
		if _, ok := rc["InstanceGroups"]; ok {
			ps.Add("trainingJob.ResourceConfig.InstanceGroups", Shown("a value"), "no value (heterogeneous clusters are not supported; use InstanceType and InstanceCount)")
		}
		if it, ok := rc["InstanceType"].(string); ok {
			switch {
			case !slices.Contains(allowed, it):
				checkType("trainingJob.ResourceConfig.InstanceType", it, false)
			case len(req.InstanceTypes) > 0 && !slices.Contains(req.InstanceTypes, it):
				ps.Addf("trainingJob.ResourceConfig.InstanceType", it, "one of instanceTypes (%s), or no value", strings.Join(req.InstanceTypes, ", "))
			case len(req.InstanceTypes) == 0:
				checkType("trainingJob.ResourceConfig.InstanceType", it, true)
			}
		}
		if v, present := rc["InstanceCount"]; present {
			if n, ok := WholeNumber(v); !ok || n < 1 || n > 1<<31-1 {
				ps.Add("trainingJob.ResourceConfig.InstanceCount", Shown(ValueKind(v)), "a whole number of at least 1")
			}
		}
	}
	if sc, ok := tj["StoppingCondition"].(map[string]any); ok {
		if v, present := sc["MaxRuntimeInSeconds"]; present {
			n, ok := WholeNumber(v)
			switch {
			case !ok || n < 1:
				ps.Add("trainingJob.StoppingCondition.MaxRuntimeInSeconds", Shown(ValueKind(v)), "a whole number of at least 1")
			case classOK && n > int64(class.MaxRuntimeSeconds):
				ps.Addf("trainingJob.StoppingCondition.MaxRuntimeInSeconds", n, "at most %d (the %s class's maximum)", class.MaxRuntimeSeconds, class.Name)
			}
		}
	}
	return ps
}

func checkTags(ps *Problems, tags map[string]string) {
	if len(tags) > MaxCallerTags {
		ps.Addf("tags", fmt.Sprintf("%d tags", len(tags)), "at most %d tags", MaxCallerTags)
	}
	keys := make([]string, 0, len(tags))
	for k := range tags {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		lk := strings.ToLower(k)
		switch {
		case strings.HasPrefix(lk, TagPrefix) || strings.HasPrefix(lk, "aws:"):
			ps.Add("tags."+k, k, "a key not starting with trainq: or aws: (reserved)")
		case k == "" || utf8.RuneCountInString(k) > batchrules.MaxTagKeyLength:
			ps.Addf("tags", k, "keys of 1 to %d characters", batchrules.MaxTagKeyLength)
		case utf8.RuneCountInString(tags[k]) > batchrules.MaxTagValueLength:
			ps.Addf("tags."+k, tags[k], "a value of at most %d characters", batchrules.MaxTagValueLength)
		}
	}
}

// WholeNumber reads a JSON number decoded with UseNumber as an int64.
func WholeNumber(v any) (int64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	i, err := n.Int64()
	return i, err == nil
}

// ValueKind names a decoded JSON value for a message.
func ValueKind(v any) string {
	switch v := v.(type) {
	case nil:
		return "nothing"
	case map[string]any:
		return "an object"
	case []any:
		return "a list"
	case string:
		return Show(v)
	}
	return fmt.Sprint(v)
}
