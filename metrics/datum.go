package metrics

import (
	"sort"
	"strings"
	"time"
)

// Datum is one metric data point as CloudWatch extracts it from an EMF log
// line: one metric published under one dimension set. Tests read data
// points with emftest.ParseEMF.
type Datum struct {
	Namespace  string
	Name       string
	Unit       string
	Dimensions map[string]string
	Values     []float64
	Time       time.Time
}

// Key names the datum's metric identity: namespace, name and sorted
// dimensions, as in "trainq/JobsFailed{Class=production,Queue=q}".
func (d Datum) Key() string {
	keys := make([]string, 0, len(d.Dimensions))
	for k := range d.Dimensions {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + d.Dimensions[k]
	}
	return d.Namespace + "/" + d.Name + "{" + strings.Join(parts, ",") + "}"
}
