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
