package hostile

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/trainq/trainq/metrics"
	"github.com/trainq/trainq/metrics/emftest"
)

// Lines splits a function's output into lines and checks each: at most
// MaxLineBytes, valid UTF-8. It fails t naming the longest offender.
func Lines(t testing.TB, out []byte) [][]byte {
	t.Helper()
	var lines [][]byte
	for _, l := range bytes.Split(out, []byte("\n")) {
		if len(bytes.TrimSpace(l)) == 0 {
			continue
		}
		if len(l) > MaxLineBytes {
			t.Errorf("a line of %d bytes, over %d: %.200s…", len(l), MaxLineBytes, l)
		}
		if !utf8.Valid(l) {
			t.Errorf("a line that is not valid UTF-8: %.200q…", l)
		}
		lines = append(lines, l)
	}
	return lines
}

// MetricLines returns the lines of out that are EMF (a JSON object with
// _aws), each checked by Lines and by emftest.ValidateLine, with their data
// points.
func MetricLines(t testing.TB, out []byte) (lines []map[string]any, points map[string][]float64) {
	t.Helper()
	var all []metrics.Datum
	for _, l := range Lines(t, out) {
		var m map[string]any
		if json.Unmarshal(l, &m) != nil || m["_aws"] == nil {
			continue
		}
		ds, err := emftest.ValidateLine(l)
		if err != nil {
			t.Errorf("line is not valid EMF: %v\n%.300s", err, l)
			continue
		}
		all = append(all, ds...)
		lines = append(lines, m)
	}
	return lines, emftest.Values(all)
}

// CheckObserver checks what the observer wrote for c: the data points, the
// reason, the mentions, the job id, and on every line with EventsRejected
// an eventId, a reason and (when the event names one) the jobId.
func CheckObserver(t testing.TB, c ObserverCase, out []byte) {
	t.Helper()
	lines, points := MetricLines(t, out)
	want := c.Want
	if want == nil {
		want = map[string][]float64{}
	}
	if diff := cmp.Diff(want, points); diff != "" {
		t.Errorf("data points (-want +got):\n%s", diff)
	}
	if c.Reason != "" && (len(lines) == 0 || lines[0]["reason"] != c.Reason) {
		t.Errorf("reason: got %v, want %q", reasons(lines), c.Reason)
	}
	for _, l := range lines {
		if _, ok := l["EventsRejected"]; ok {
			if _, ok := l["eventId"].(string); !ok {
				t.Errorf("a rejection line without eventId: %v", short(l))
			}
			if r, _ := l["reason"].(string); r == "" {
				t.Errorf("a rejection line without reason: %v", short(l))
			}
		}
		if c.JobID != "" && l["jobId"] != c.JobID {
			t.Errorf("jobId %v, want %q", l["jobId"], c.JobID)
		}
	}
	for _, m := range c.Mentions {
		if !strings.Contains(string(out), m) {
			t.Errorf("output does not mention %s:\n%.2000s", m, out)
		}
	}
}

func reasons(lines []map[string]any) []any {
	var out []any
	for _, l := range lines {
		out = append(out, l["reason"])
	}
	return out
}

func short(l map[string]any) string {
	b, _ := json.Marshal(l)
	if len(b) > 400 {
		b = b[:400]
	}
	return string(b)
}
