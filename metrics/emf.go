package metrics

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// Limits of the CloudWatch embedded metric format (EMF) specification.
const (
	// MaxMetricsPerDirective is how many metric definitions one directive
	// may hold.
	MaxMetricsPerDirective = 100
	// MaxDimensionsPerSet is how many dimension keys one dimension set may
	// hold.
	MaxDimensionsPerSet = 30
	// MaxDimensionValueLen is the longest dimension value, in characters.
	MaxDimensionValueLen = 1024
	// MaxValuesPerMetric is how many values an array metric target may hold.
	MaxValuesPerMetric = 100
	// MaxLineBytes bounds an encoded record: a quarter of the 262,144 bytes
	// CloudWatch Logs keeps in one log event (a longer line is split, and
	// its metrics are lost). Encode drops the largest properties of a
	// record that would be longer, never its metrics.
	MaxLineBytes = 64 * 1024
)

// DroppedProperties is the property that names, in a record Encode had to
// shorten, the properties it left out.
const DroppedProperties = "droppedProperties"

// awsKey is the EMF metadata member of the root node.
const awsKey = "_aws"

// Record is one EMF document, written as one log line: dimension values,
// metric values each published under one or more of the metric's dimension
// sets, and free properties that CloudWatch Logs keeps searchable but does
// not turn into metrics.
//
// One metric appears at most once in a record: EMF gives each metric name a
// single root value, shared by every dimension set it is published under.
type Record struct {
	// Time is the timestamp of every metric in the record.
	Time time.Time
	// Dimensions holds the value of each dimension used by a set.
	Dimensions map[string]string
	// Properties are extra members of the log line (job ID, reason, ...).
	Properties map[string]any

	values []value
}

type value struct {
	metric Metric
	v      float64
	sets   [][]string
}

// Add publishes v as m under the given dimension sets; with no sets, under
// every dimension set m lists. Encode checks that each set is one of m's and
// that each of its dimensions has a value.
func (r *Record) Add(m Metric, v float64, sets ...[]string) {
	if len(sets) == 0 {
		sets = m.DimensionSets
	}
	r.values = append(r.values, value{metric: m, v: v, sets: sets})
}

// Len reports how many metrics the record holds.
func (r *Record) Len() int { return len(r.values) }

// Encode returns the record as one line of EMF JSON, without a newline, of
// at most MaxLineBytes: when the properties would make it longer, the
// largest are left out, largest first, and named in DroppedProperties. It
// refuses a record CloudWatch would reject or misread: a metric added twice,
// a dimension set the metric does not list or whose dimension has no value,
// a dimension value that is empty, too long or not printable ASCII, a value
// that is not a finite number, or a member name used twice.
func (r *Record) Encode() ([]byte, error) {
	if len(r.values) == 0 {
		return nil, fmt.Errorf("emf record: no metrics")
	}
	root := make(map[string]any, len(r.Dimensions)+len(r.Properties)+len(r.values)+1)
	claim := func(name, what string, v any) error {
		if name == awsKey {
			return fmt.Errorf("emf record: %s %q: the name is reserved for EMF metadata", what, name)
		}
		if _, dup := root[name]; dup {
			return fmt.Errorf("emf record: %s %q: the name is already used by another member", what, name)
		}
		root[name] = v
		return nil
	}
	for k, v := range r.Dimensions {
		if err := checkDimensionValue(k, v); err != nil {
			return nil, err
		}
		if err := claim(k, "dimension", v); err != nil {
			return nil, err
		}
	}
	if _, dup := r.Properties[DroppedProperties]; dup {
		return nil, fmt.Errorf("emf record: property %q: the name is reserved for the properties a long record leaves out", DroppedProperties)
	}
	for k, v := range r.Properties {
		if err := claim(k, "property", v); err != nil {
			return nil, err
		}
	}

	type group struct {
		sets    [][]string
		metrics []metricDefinition
	}
	var groups []*group
	byKey := map[string]*group{}
	for _, val := range r.values {
		m := val.metric
		if math.IsNaN(val.v) || math.IsInf(val.v, 0) {
			return nil, fmt.Errorf("emf record: metric %s: value %v is not a finite number", m.Name, val.v)
		}
		for _, set := range val.sets {
			if !m.HasDimensions(set...) {
				return nil, fmt.Errorf("emf record: metric %s: dimension set %v is not one of its sets %v", m.Name, set, m.DimensionSets)
			}
			if len(set) > MaxDimensionsPerSet {
				return nil, fmt.Errorf("emf record: metric %s: dimension set %v has %d dimensions, at most %d allowed", m.Name, set, len(set), MaxDimensionsPerSet)
			}
			for _, d := range set {
				if _, ok := r.Dimensions[d]; !ok {
					return nil, fmt.Errorf("emf record: metric %s: dimension %q of set %v has no value", m.Name, d, set)
				}
			}
		}
		if err := claim(m.Name, "metric", val.v); err != nil {
			return nil, err
		}
		key := setsKey(val.sets)
		g := byKey[key]
		if g == nil {
			g = &group{sets: val.sets}
			byKey[key] = g
			groups = append(groups, g)
		}
		if len(g.metrics) == MaxMetricsPerDirective {
			return nil, fmt.Errorf("emf record: more than %d metrics share dimension sets %v", MaxMetricsPerDirective, val.sets)
		}
		g.metrics = append(g.metrics, metricDefinition{Name: m.Name, Unit: m.Unit})
	}
	directives := make([]metricDirective, len(groups))
	for i, g := range groups {
		directives[i] = metricDirective{Namespace: Namespace, Dimensions: g.sets, Metrics: g.metrics}
	}
	root[awsKey] = metadata{Timestamp: r.Time.UnixMilli(), CloudWatchMetrics: directives}
	b, err := json.Marshal(root)
	if err != nil {
		return nil, fmt.Errorf("emf record: %w", err)
	}
	if len(b) <= MaxLineBytes {
		return b, nil
	}
	return r.shorten(root, len(b))
}

// shorten leaves out the largest properties of root, an encoded record of
// n bytes, until it fits in MaxLineBytes.
func (r *Record) shorten(root map[string]any, n int) ([]byte, error) {
	type prop struct {
		name string
		size int
	}
	props := make([]prop, 0, len(r.Properties))
	for k, v := range r.Properties {
		b, _ := json.Marshal(v)
		props = append(props, prop{k, len(b) + len(k) + 4})
	}
	slices.SortFunc(props, func(a, b prop) int {
		if a.size != b.size {
			return b.size - a.size
		}
		return strings.Compare(a.name, b.name)
	})
	var dropped []string
	for _, p := range props {
		delete(root, p.name)
		dropped = append(dropped, p.name)
		n -= p.size
		if n+len(DroppedProperties)+len(dropped)*8 <= MaxLineBytes {
			break
		}
	}
	root[DroppedProperties] = dropped
	b, err := json.Marshal(root)
	if err != nil {
		return nil, fmt.Errorf("emf record: %w", err)
	}
	if len(b) > MaxLineBytes {
		return nil, fmt.Errorf("emf record: %d bytes without its properties, over the %d allowed", len(b), MaxLineBytes)
	}
	return b, nil
}

func setsKey(sets [][]string) string {
	parts := make([]string, len(sets))
	for i, s := range sets {
		parts[i] = strings.Join(s, "\x1f")
	}
	return strings.Join(parts, "\x1e")
}

func checkDimensionValue(name, v string) error {
	if strings.TrimSpace(v) == "" {
		return fmt.Errorf("emf record: dimension %s: value %q is empty; a value needs a non-space character", name, v)
	}
	if len(v) > MaxDimensionValueLen {
		return fmt.Errorf("emf record: dimension %s: value is %d characters long, at most %d allowed", name, len(v), MaxDimensionValueLen)
	}
	for _, c := range []byte(v) {
		if c < 0x20 || c > 0x7e {
			return fmt.Errorf("emf record: dimension %s: value %q has byte %#x; only printable ASCII is allowed", name, v, c)
		}
	}
	return nil
}

// The EMF metadata as the specification spells it.
type metadata struct {
	Timestamp         int64             `json:"Timestamp"`
	CloudWatchMetrics []metricDirective `json:"CloudWatchMetrics"`
}

type metricDirective struct {
	Namespace  string             `json:"Namespace"`
	Dimensions [][]string         `json:"Dimensions"`
	Metrics    []metricDefinition `json:"Metrics"`
}

type metricDefinition struct {
	Name string `json:"Name"`
	Unit string `json:"Unit,omitempty"`
}

// validUnits are the units CloudWatch accepts (MetricDatum.Unit).
var validUnits = []string{
	"Seconds", "Microseconds", "Milliseconds", "Bytes", "Kilobytes", "Megabytes", "Gigabytes", "Terabytes",
	"Bits", "Kilobits", "Megabits", "Gigabits", "Terabits", "Percent", "Count", "Bytes/Second",
	"Kilobytes/Second", "Megabytes/Second", "Gigabytes/Second", "Terabytes/Second", "Bits/Second",
	"Kilobits/Second", "Megabits/Second", "Gigabits/Second", "Terabits/Second", "Count/Second", "None",
}

// ValidUnit reports whether unit is a CloudWatch metric unit.
func ValidUnit(unit string) bool { return slices.Contains(validUnits, unit) }
