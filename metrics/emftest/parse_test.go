package emftest_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/trainq/trainq/metrics"
	"github.com/trainq/trainq/metrics/emftest"
)

func TestParseEMFReadsTheSpecificationExample(t *testing.T) {
	// The valid example of the EMF specification.
	line := `{"_aws":{"Timestamp":1574109732004,"CloudWatchMetrics":[{"Namespace":"lambda-function-metrics",` +
		`"Dimensions":[["functionVersion"]],"Metrics":[{"Name":"time","Unit":"Milliseconds","StorageResolution":60}]}]},` +
		`"functionVersion":"$LATEST","time":100,"requestId":"989ffbf8-9ace-4817-a57c-e4dd734019ee"}`
	got, err := emftest.ValidateLine([]byte(line))
	if err != nil {
		t.Fatal(err)
	}
	want := []metrics.Datum{{
		Namespace: "lambda-function-metrics", Name: "time", Unit: "Milliseconds",
		Dimensions: map[string]string{"functionVersion": "$LATEST"}, Values: []float64{100},
		Time: time.UnixMilli(1574109732004).UTC(),
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestParseEMFRejectsInvalidLines(t *testing.T) {
	const ok = `{"_aws":{"Timestamp":1,"CloudWatchMetrics":[{"Namespace":"n","Dimensions":[["Queue"]],"Metrics":[{"Name":"m","Unit":"Count"}]}]},"Queue":"q","m":1}`
	if _, err := emftest.ParseEMF([]byte(ok)); err != nil {
		t.Fatalf("the reference line is refused: %v", err)
	}
	tests := []struct{ name, line, wantErr string }{
		{"text after the object", ok + ` trailing`, "after the JSON object"},
		{"not JSON", `START RequestId: 1`, "not a JSON object"},
		{"no _aws", `{"Queue":"q","m":1}`, "_aws is missing"},
		{"no timestamp", strings.Replace(ok, `"Timestamp":1,`, ``, 1), "Timestamp is missing"},
		{"a fractional timestamp", strings.Replace(ok, `"Timestamp":1,`, `"Timestamp":1.5,`, 1), "not an integer"},
		{"a dimension missing from the root", strings.Replace(ok, `"Queue":"q",`, ``, 1), `dimension "Queue" has no string member`},
		{"a dimension that is a number", strings.Replace(ok, `"Queue":"q"`, `"Queue":3`, 1), `dimension "Queue" has no string member`},
		{"a metric value that is a string", strings.Replace(ok, `"m":1`, `"m":"1"`, 1), "not a number or an array"},
		{"an unknown unit", strings.Replace(ok, `"Unit":"Count"`, `"Unit":"Instances"`, 1), "not a CloudWatch unit"},
		{"no dimension sets", strings.Replace(ok, `[["Queue"]]`, `[]`, 1), "missing, empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := emftest.ParseEMF([]byte(tt.line))
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("error %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestParseEMFRefusesTooManyDimensions(t *testing.T) {
	var keys, members []string
	for i := range metrics.MaxDimensionsPerSet + 1 {
		k := "D" + string(rune('a'+i%26)) + string(rune('a'+i/26))
		keys = append(keys, `"`+k+`"`)
		members = append(members, `"`+k+`":"v"`)
	}
	line := `{"_aws":{"Timestamp":1,"CloudWatchMetrics":[{"Namespace":"n","Dimensions":[[` + strings.Join(keys, ",") +
		`]],"Metrics":[{"Name":"m"}]}]},` + strings.Join(members, ",") + `,"m":1}`
	if _, err := emftest.ParseEMF([]byte(line)); err == nil || !strings.Contains(err.Error(), "at most 30") {
		t.Errorf("error %v, want one about at most 30 keys", err)
	}
}
