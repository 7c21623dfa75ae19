package emftest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"github.com/trainq/trainq/metrics"
)

// awsKey is the EMF metadata member of the root node, as the specification
// spells it (read independently of metrics' encoder).
const awsKey = "_aws"

// ParseEMF reads one log line the way CloudWatch Logs reads embedded metric
// format and returns the data points it would publish. It follows the
// specification strictly and is independent of metrics.Record.Encode, so tests can
// check what the functions print: the line must be one JSON object with
// nothing around it; _aws needs an integer Timestamp and a non-empty
// CloudWatchMetrics array; each directive needs a Namespace (1–1024
// characters), at least one dimension set of at most 30 keys and at most 100
// metric definitions with a Name and an optional valid Unit; each dimension
// must be a root member with a string value of at most 1024 characters, each
// metric a root number or an array of at most 100 numbers.
func ParseEMF(line []byte) ([]metrics.Datum, error) {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	var root map[string]any
	if err := dec.Decode(&root); err != nil {
		return nil, fmt.Errorf("emf: not a JSON object: %w", err)
	}
	if rest := bytes.TrimSpace(line[dec.InputOffset():]); len(rest) > 0 {
		return nil, fmt.Errorf("emf: %d bytes of data after the JSON object", len(rest))
	}
	aws, ok := root[awsKey].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("emf: %s is missing or not an object", awsKey)
	}
	tsNum, ok := aws["Timestamp"].(json.Number)
	if !ok {
		return nil, fmt.Errorf("emf: _aws.Timestamp is missing or not a number")
	}
	ts, err := tsNum.Int64()
	if err != nil {
		return nil, fmt.Errorf("emf: _aws.Timestamp %s is not an integer of milliseconds", tsNum)
	}
	directives, ok := aws["CloudWatchMetrics"].([]any)
	if !ok || len(directives) == 0 {
		return nil, fmt.Errorf("emf: _aws.CloudWatchMetrics is missing, empty or not an array")
	}
	var out []metrics.Datum
	for i, raw := range directives {
		d, ok := raw.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("emf: CloudWatchMetrics[%d] is not an object", i)
		}
		ns, ok := d["Namespace"].(string)
		if !ok || len(ns) < 1 || len(ns) > 1024 {
			return nil, fmt.Errorf("emf: CloudWatchMetrics[%d].Namespace %v is not a string of 1 to 1024 characters", i, d["Namespace"])
		}
		sets, err := parseDimensionSets(root, d["Dimensions"])
		if err != nil {
			return nil, fmt.Errorf("emf: CloudWatchMetrics[%d].Dimensions: %w", i, err)
		}
		defs, ok := d["Metrics"].([]any)
		if !ok {
			return nil, fmt.Errorf("emf: CloudWatchMetrics[%d].Metrics is missing or not an array", i)
		}
		if len(defs) > metrics.MaxMetricsPerDirective {
			return nil, fmt.Errorf("emf: CloudWatchMetrics[%d].Metrics has %d definitions, at most %d allowed", i, len(defs), metrics.MaxMetricsPerDirective)
		}
		for j, rawDef := range defs {
			name, unit, values, err := parseMetric(root, rawDef)
			if err != nil {
				return nil, fmt.Errorf("emf: CloudWatchMetrics[%d].Metrics[%d]: %w", i, j, err)
			}
			for _, set := range sets {
				out = append(out, metrics.Datum{
					Namespace: ns, Name: name, Unit: unit, Dimensions: set,
					Values: values, Time: time.UnixMilli(ts).UTC(),
				})
			}
		}
	}
	return out, nil
}

func parseDimensionSets(root map[string]any, raw any) ([]map[string]string, error) {
	arr, ok := raw.([]any)
	if !ok || len(arr) == 0 {
		return nil, fmt.Errorf("missing, empty or not an array of dimension sets")
	}
	var sets []map[string]string
	for i, rawSet := range arr {
		keys, ok := rawSet.([]any)
		if !ok {
			return nil, fmt.Errorf("set %d is not an array", i)
		}
		if len(keys) > metrics.MaxDimensionsPerSet {
			return nil, fmt.Errorf("set %d has %d keys, at most %d allowed", i, len(keys), metrics.MaxDimensionsPerSet)
		}
		set := map[string]string{}
		for _, rawKey := range keys {
			k, ok := rawKey.(string)
			if !ok || k == "" {
				return nil, fmt.Errorf("set %d: key %v is not a non-empty string", i, rawKey)
			}
			v, ok := root[k].(string)
			if !ok {
				return nil, fmt.Errorf("set %d: dimension %q has no string member on the root node", i, k)
			}
			if len(v) > metrics.MaxDimensionValueLen {
				return nil, fmt.Errorf("set %d: dimension %q value is %d characters, at most %d allowed", i, k, len(v), metrics.MaxDimensionValueLen)
			}
			set[k] = v
		}
		sets = append(sets, set)
	}
	return sets, nil
}

func parseMetric(root map[string]any, raw any) (name, unit string, values []float64, err error) {
	def, ok := raw.(map[string]any)
	if !ok {
		return "", "", nil, fmt.Errorf("not an object")
	}
	name, ok = def["Name"].(string)
	if !ok || name == "" {
		return "", "", nil, fmt.Errorf("Name %v is not a non-empty string", def["Name"])
	}
	unit = "None"
	if u, present := def["Unit"]; present {
		s, ok := u.(string)
		if !ok || !metrics.ValidUnit(s) {
			return "", "", nil, fmt.Errorf("metric %s: Unit %v is not a CloudWatch unit", name, u)
		}
		unit = s
	}
	switch v := root[name].(type) {
	case json.Number:
		f, err := v.Float64()
		if err != nil {
			return "", "", nil, fmt.Errorf("metric %s: value %s: %w", name, v, err)
		}
		values = []float64{f}
	case []any:
		if len(v) == 0 || len(v) > metrics.MaxValuesPerMetric {
			return "", "", nil, fmt.Errorf("metric %s: array of %d values, 1 to %d allowed", name, len(v), metrics.MaxValuesPerMetric)
		}
		for _, e := range v {
			n, ok := e.(json.Number)
			if !ok {
				return "", "", nil, fmt.Errorf("metric %s: array value %v is not a number", name, e)
			}
			f, err := n.Float64()
			if err != nil {
				return "", "", nil, fmt.Errorf("metric %s: value %s: %w", name, n, err)
			}
			values = append(values, f)
		}
	default:
		return "", "", nil, fmt.Errorf("metric %s: root member is %v, not a number or an array of numbers", name, root[name])
	}
	return name, unit, values, nil
}
