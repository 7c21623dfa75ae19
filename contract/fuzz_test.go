package contract_test

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/trainq/trainq/contract"
)

// FuzzDecodeRequest: whatever the bytes, DecodeRequest never panics, a
// well-formed JSON object is never called "not JSON", and the bounded report
// of its problems is valid UTF-8 of at most MaxProblemsShown problem lines.
func FuzzDecodeRequest(f *testing.F) {
	f.Add([]byte(`{"jobName":"a","team":"t","priority":3,"trainingJob":{}}`))
	f.Add([]byte(`{"jobName":"a","jobName":"b","JobName":"c","tags":{"k":"v","k":"w"}}`))
	f.Add([]byte(`{"trainingJob":{"HyperParameters":` + strings.Repeat("[", 40) + strings.Repeat("]", 40) + `}}`))
	f.Add([]byte(`{"jobName":"\xff\xfe","tags":{"é":"` + strings.Repeat("é", 300) + `"}}`))
	f.Add([]byte(strings.Repeat("{", 20000)))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, ps := contract.DecodeRequest(data)
		msg := contract.Report("invalid request", ps)
		if !utf8.ValidString(msg) {
			t.Fatalf("report is not valid UTF-8: %q", msg)
		}
		if n := strings.Count(msg, "\n  - "); n > contract.MaxProblemsShown+1 {
			t.Fatalf("report lists %d lines", n)
		}
		if contract.CheckJSON(data, 1<<20) == nil && contract.CheckJSON(data, contract.MaxRequestDepth) == nil {
			if _, err := contract.SplitObject(data); err == nil && validJSON(data) {
				for _, p := range ps {
					if strings.Contains(p.Value, "not JSON") {
						t.Fatalf("a well-formed object called not JSON: %s", msg)
					}
				}
			}
		}
	})
}

func validJSON(data []byte) bool { return json.Valid(data) }
