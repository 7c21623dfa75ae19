package batchrules

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
)

// MaxRequestedInstances bounds the instance count RequestedInstances
// accepts (CheckQuantity's bound).
const MaxRequestedInstances = 1_000_000

// Requested is what a SageMaker CreateTrainingJob request (a service job's
// serviceRequestPayload) asks for: ResourceConfig.InstanceType and
// InstanceCount, or a heterogeneous cluster (ResourceConfig.InstanceGroups),
// which has no one type.
type Requested struct {
	InstanceType  string // "" for a heterogeneous cluster
	Count         int    // 0 for a heterogeneous cluster
	Heterogeneous bool
}

// ReadRequested reads what payload asks for. The error names the member
// for a payload that is no JSON object, has no ResourceConfig, a type that
// is no instance type or a count that is no whole number from 1 to
// MaxRequestedInstances. A heterogeneous cluster is no error.
func ReadRequested(payload string) (Requested, error) {
	var tj struct {
		ResourceConfig *struct {
			InstanceType   string
			InstanceCount  json.RawMessage
			InstanceGroups json.RawMessage
		}
	}
	if err := json.Unmarshal([]byte(payload), &tj); err != nil {
		return Requested{}, fmt.Errorf("serviceRequestPayload: %w", err)
	}
	rc := tj.ResourceConfig
	if rc == nil {
		return Requested{}, errors.New("serviceRequestPayload: no ResourceConfig")
	}
	if g := bytes.TrimSpace(rc.InstanceGroups); len(g) > 0 && string(g) != "null" && string(g) != "[]" {
		return Requested{Heterogeneous: true}, nil
	}
	// Digits only: json.Number would take the string "2" as well.
	n, err := strconv.Atoi(string(rc.InstanceCount))
	if err != nil || n < 1 || n > MaxRequestedInstances {
		return Requested{}, fmt.Errorf("serviceRequestPayload: ResourceConfig.InstanceCount %.64q is no whole number of instances from 1 to %d", string(rc.InstanceCount), MaxRequestedInstances)
	}
	if !ValidInstanceType(rc.InstanceType) {
		return Requested{}, fmt.Errorf("serviceRequestPayload: ResourceConfig.InstanceType %.64q is no instance type", rc.InstanceType)
	}
	return Requested{InstanceType: rc.InstanceType, Count: n}, nil
}

// RequestedInstances is the instance type and count payload asks for
// (ReadRequested). ok is false for a heterogeneous cluster and for
// whatever ReadRequested refuses.
func RequestedInstances(payload string) (instanceType string, count int, ok bool) {
	r, err := ReadRequested(payload)
	if err != nil || r.Heterogeneous {
		return "", 0, false
	}
	return r.InstanceType, r.Count, true
}
