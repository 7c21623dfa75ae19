package submit

import (
	"bytes"
	"encoding/json"
	"github.com/trainq/trainq/contract"
	"strings"
)

// trainingJob is a SageMaker CreateTrainingJob request kept as a generic
// object, so that fields trainq does not know pass through untouched.
type trainingJob map[string]any

// decodeTrainingJob decodes the payload, keeping numbers exact.
func decodeTrainingJob(raw json.RawMessage) (trainingJob, bool) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var tj trainingJob
	if err := d.Decode(&tj); err != nil || tj == nil || d.More() {
		return nil, false
	}
	return tj, true
}

// object returns the sub-object key (nil when absent) and whether the value,
// if present, is an object.
func (tj trainingJob) object(key string) (map[string]any, bool) {
	v, ok := tj[key]
	if !ok || v == nil {
		return nil, true
	}
	m, ok := v.(map[string]any)
	return m, ok
}

// ensure returns the sub-object key, creating it when absent.
func (tj trainingJob) ensure(key string) map[string]any {
	if m, ok := tj[key].(map[string]any); ok {
		return m
	}
	m := map[string]any{}
	tj[key] = m
	return m
}

// wholeNumber reads a JSON whole number.
func wholeNumber(v any) (int64, bool) { return contract.WholeNumber(v) }

// marshal encodes the payload compactly; keys come out sorted, so the same
// request always gives the same bytes (Batch compares payloads of retries).
func (tj trainingJob) marshal() []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(map[string]any(tj)); err != nil {
		// Only values decoded from JSON are in the map; they always encode.
		panic("submit: encode training job: " + err.Error())
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

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

// defaultTrainingJobName derives a SageMaker training job name from the job
// name and the idempotency suffix, at most MaxDefaultTrainingJobName
// characters so that Batch's per-attempt name fits SageMaker's limit. It
// only helps people find the job in SageMaker; it guards against nothing,
// since Batch gives every attempt its own unique name.
func defaultTrainingJobName(jobName, suffix string) string {
	s := strings.ReplaceAll(jobName, "_", "-")
	s = strings.TrimLeft(s, "-")
	if most := MaxDefaultTrainingJobName - 1 - len(suffix); len(s) > most {
		s = s[:most]
	}
	s = strings.TrimRight(s, "-")
	if s == "" {
		s = "trainq"
	}
	return s + "-" + suffix
}
