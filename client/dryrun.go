package client

import (
	"encoding/json"

	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/platform"
)

// checkSubmit checks a submit request against platform p as the submission
// function's first pass does (contract.CheckSubmit, the same function), so
// that --dry-run refuses what the function would refuse for those reasons,
// with the CLI's flags named for missing values. What needs AWS (the
// execution role, headroom, SageMaker's full model) stays with the function;
// a training job without OutputDataConfig, which SageMaker's model requires,
// is refused here too.
func checkSubmit(p *platform.Platform, req contract.Request) contract.Problems {
	ps := contract.CheckSubmit(p, req, contract.CheckOptions{Hints: map[string]string{
		"jobName": "--job-name", "team": "--team", "class": "--class", "trainingJob": "--training-job FILE",
	}})
	if len(req.TrainingJob) == 0 {
		return ps
	}
	var tj struct{ OutputDataConfig json.RawMessage }
	if err := json.Unmarshal(req.TrainingJob, &tj); err == nil && tj.OutputDataConfig == nil {
		ps.Add("trainingJob.OutputDataConfig", nil, "an object with S3OutputPath (SageMaker requires it)")
	}
	return ps
}
