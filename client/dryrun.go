package client

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/trainq/trainq/batchrules"
	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/platform"
)

// checkSubmit checks a submit request against platform p as the submission
// function's first pass does (submit/validate.go: job name, team, class,
// priority, retries, runtime, tags, instance types and the training job's
// instance type, count and runtime), so that --dry-run refuses what the
// function would refuse for those reasons. What needs AWS (the execution
// role, headroom, SageMaker's full model) stays with the function.
func checkSubmit(p *platform.Platform, req contract.Request) contract.Problems {
	var ps contract.Problems
	switch {
	case req.JobName == "":
		ps.Add("jobName", nil, "a job name (letters, digits, '-' and '_'): --job-name")
	case len(req.JobName) > contract.MaxJobNameLength || !batchrules.ValidName(req.JobName):
		ps.Addf("jobName", req.JobName, "1 to %d letters, digits, '-' or '_'", contract.MaxJobNameLength)
	}
	team, teamOK := p.Team(req.Team)
	switch {
	case req.Team == "":
		ps.Addf("team", nil, "a team (%s): --team", strings.Join(p.TeamNames(), ", "))
	case !teamOK:
		ps.Addf("team", req.Team, "a team of the platform (%s)", strings.Join(p.TeamNames(), ", "))
	}
	class, classOK := p.Class(req.Class)
	if !classOK {
		ps.Addf("class", req.Class, "a class of the platform (%s)", strings.Join(p.ClassNames(), ", "))
	}
	if req.Priority != nil && (*req.Priority < 0 || *req.Priority > platform.RequestPriorityMax) {
		ps.Addf("priority", *req.Priority, "0 to %d (placed inside the class's band)", platform.RequestPriorityMax)
	}
	if utf8.RuneCountInString(req.IdempotencyKey) > contract.MaxIdempotencyKeyLength {
		ps.Addf("idempotencyKey", req.IdempotencyKey, "at most %d characters", contract.MaxIdempotencyKeyLength)
	}
	if req.Retries != nil {
		if most := class.Attempts() - 1; *req.Retries < 0 || (classOK && *req.Retries > most) {
			ps.Addf("retries", *req.Retries, "0 to %d (the %s class's retries)", max(most, 0), req.Class)
		}
	}
	if v := req.MaxRuntimeSeconds; v != nil && (*v < 1 || (classOK && *v > class.MaxRuntimeSeconds)) {
		ps.Addf("maxRuntimeSeconds", *v, "1 to %d (the %s class's maximum)", class.MaxRuntimeSeconds, req.Class)
	}
	if len(req.Tags) > contract.MaxCallerTags {
		ps.Addf("tags", fmt.Sprintf("%d tags", len(req.Tags)), "at most %d tags", contract.MaxCallerTags)
	}
	for _, k := range sortedKeys(req.Tags) {
		lk := strings.ToLower(k)
		switch {
		case strings.HasPrefix(lk, contract.TagPrefix) || strings.HasPrefix(lk, "aws:"):
			ps.Add("tags."+k, k, "a key not starting with trainq: or aws: (reserved)")
		case k == "" || utf8.RuneCountInString(k) > batchrules.MaxTagKeyLength:
			ps.Addf("tags", k, "keys of 1 to %d characters", batchrules.MaxTagKeyLength)
		case utf8.RuneCountInString(req.Tags[k]) > batchrules.MaxTagValueLength:
			ps.Addf("tags."+k, req.Tags[k], "a value of at most %d characters", batchrules.MaxTagValueLength)
		}
	}
	allowed := p.Submission.InstanceTypes
	quota := p.Scheduling.Mode != platform.ModeFairShare
	checkType := func(field, it string) {
		switch {
		case !slices.Contains(allowed, it):
			ps.Addf(field, it, "an instance type of the pool (%s)", strings.Join(allowed, ", "))
		case quota && teamOK && team.CapacityOf(it) == 0:
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
		checkType(f, it)
		if slices.Index(req.InstanceTypes, it) < i {
			ps.Add(f, it, "each instance type once")
		}
	}
	if len(req.TrainingJob) == 0 {
		ps.Add("trainingJob", nil, "a SageMaker CreateTrainingJob request object: --training-job FILE")
		return ps
	}
	var tj struct {
		ResourceConfig *struct {
			InstanceType   *string
			InstanceCount  *json.Number
			InstanceGroups json.RawMessage
		}
		StoppingCondition *struct{ MaxRuntimeInSeconds *json.Number }
		OutputDataConfig  json.RawMessage
	}
	if err := json.Unmarshal(req.TrainingJob, &tj); err != nil {
		// Types are the function's check (against SageMaker's model).
		return ps
	}
	if tj.OutputDataConfig == nil {
		ps.Add("trainingJob.OutputDataConfig", nil, "an object with S3OutputPath (SageMaker requires it)")
	}
	if rc := tj.ResourceConfig; rc != nil {
		if rc.InstanceGroups != nil {
			ps.Add("trainingJob.ResourceConfig.InstanceGroups", contract.Shown("a value"), "no value (heterogeneous clusters are not supported; use InstanceType and InstanceCount)")
		}
		if rc.InstanceType != nil {
			if len(req.InstanceTypes) > 0 && !slices.Contains(req.InstanceTypes, *rc.InstanceType) {
				ps.Addf("trainingJob.ResourceConfig.InstanceType", *rc.InstanceType, "one of instanceTypes (%s), or no value", strings.Join(req.InstanceTypes, ", "))
			} else {
				checkType("trainingJob.ResourceConfig.InstanceType", *rc.InstanceType)
			}
		}
		if rc.InstanceCount != nil {
			if n, err := rc.InstanceCount.Int64(); err != nil || n < 1 {
				ps.Add("trainingJob.ResourceConfig.InstanceCount", contract.Shown(rc.InstanceCount.String()), "a whole number of at least 1")
			}
		}
	}
	if sc := tj.StoppingCondition; sc != nil && sc.MaxRuntimeInSeconds != nil && classOK {
		if n, err := sc.MaxRuntimeInSeconds.Int64(); err != nil || n < 1 || n > int64(class.MaxRuntimeSeconds) {
			ps.Addf("trainingJob.StoppingCondition.MaxRuntimeInSeconds", contract.Shown(sc.MaxRuntimeInSeconds.String()), "1 to %d (the %s class's maximum)", class.MaxRuntimeSeconds, class.Name)
		}
	}
	return ps
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
