package batchrules

import (
	"encoding/json"
	"strconv"
)

// MaxRequestedInstances bounds the instance count RequestedInstances
// accepts (CheckQuantity's bound).
const MaxRequestedInstances = 1_000_000

// RequestedInstances is the instance type and count a SageMaker
// CreateTrainingJob request (a service job's serviceRequestPayload) asks
// for: ResourceConfig.InstanceType and InstanceCount. ok is false for a
// payload that is no JSON object, a heterogeneous cluster
// (ResourceConfig.InstanceGroups), a type that is no instance type or a
// count that is no whole number from 1 to MaxRequestedInstances.
func RequestedInstances(payload string) (instanceType string, count int, ok bool) {
	var tj struct {
		ResourceConfig *struct {
			InstanceType   string
			InstanceCount  json.Number
			InstanceGroups []json.RawMessage
		}
	}
	if json.Unmarshal([]byte(payload), &tj) != nil || tj.ResourceConfig == nil || len(tj.ResourceConfig.InstanceGroups) > 0 {
		return "", 0, false
	}
	rc := tj.ResourceConfig
	n, err := strconv.Atoi(string(rc.InstanceCount))
	if err != nil || n < 1 || n > MaxRequestedInstances || !ValidInstanceType(rc.InstanceType) {
		return "", 0, false
	}
	return rc.InstanceType, n, true
}
