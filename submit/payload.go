package submit

import (
	"strings"

	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/door"
)

// trainingJob is a SageMaker CreateTrainingJob request kept as a generic
// object, so that fields trainq does not know pass through untouched.
type trainingJob map[string]any

// ensure returns the sub-object key, creating it when absent.
func (tj trainingJob) ensure(key string) map[string]any { return door.TrainingJob(tj).Ensure(key) }

// marshal encodes the payload compactly, keys sorted (door.TrainingJob.Marshal).
func (tj trainingJob) marshal() []byte { return door.TrainingJob(tj).Marshal() }

// wholeNumber reads a JSON whole number.
func wholeNumber(v any) (int64, bool) { return contract.WholeNumber(v) }

// Batch does not use TrainingJobName as is: its service-linked role may only
// create training jobs named AWSBatch*, and each attempt's training job is
// named "AWSBatch" + TrainingJobName + 32 hex digits (as the training job
// ARNs in Batch's events and documentation show). SageMaker allows 63
// characters, so a TrainingJobName longer than 63 - 8 - 32 = 23 characters
// leaves an attempt's name over the limit.
const (
	batchTrainingJobPrefix    = "AWSBatch"
	batchTrainingJobSuffixLen = 32
	// MaxDefaultTrainingJobName is the longest TrainingJobName trainq
	// derives: 63 - len("AWSBatch") - 32 = 23.
	MaxDefaultTrainingJobName = 63 - len(batchTrainingJobPrefix) - batchTrainingJobSuffixLen
)

// teamTrainingJobName gives the payload its team's TrainingJobName: the
// door fills in prefixed (the team's platform.TrainingJobPrefix, then
// defaultTrainingJobName) a payload without one; a name of the caller's own
// gets the prefix put in front unless it starts with it. The team's
// execution role may write only log streams of, and be assumed only for,
// training jobs whose names start with AWSBatch and that prefix, so that no
// team writes, reads or lists another team's training logs
// (docs/security.md). A name SageMaker refuses for its start (a hyphen,
// nothing) or that is no string is left as the door reported it. The prefix
// counts towards SageMaker's 63 characters: a name of the caller's own
// should keep to MaxDefaultTrainingJobName - platform.TrainingJobPrefixLength
// = 15.
func teamTrainingJobName(tj trainingJob, prefix string) {
	if name, ok := tj["TrainingJobName"].(string); ok && name != "" && name[0] != '-' && !strings.HasPrefix(name, prefix) {
		tj["TrainingJobName"] = prefix + name
	}
}

// defaultTrainingJobName derives a SageMaker training job name from the job
// name and the idempotency suffix, at most most characters so that Batch's
// per-attempt name fits SageMaker's limit. It only helps people find the
// job in SageMaker; it guards against nothing, since Batch gives every
// attempt its own unique name.
func defaultTrainingJobName(jobName, suffix string, most int) string {
	s := strings.ReplaceAll(jobName, "_", "-")
	s = strings.TrimLeft(s, "-")
	if most := most - 1 - len(suffix); len(s) > most {
		s = s[:most]
	}
	s = strings.TrimRight(s, "-")
	if s == "" {
		s = "trainq"
	}
	return s + "-" + suffix
}
