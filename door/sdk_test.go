package door

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestSDKMembersAreTheDocsMapping reads docs/submission.md's table of the
// SageMaker Python SDK's arguments and requires sdkMembers to map every
// argument it names to the CreateTrainingJob field it names (by position
// when a row lists as many of each, else to the row's one field).
func TestSDKMembersAreTheDocsMapping(t *testing.T) {
	b, err := os.ReadFile("../docs/submission.md")
	if err != nil {
		t.Fatal(err)
	}
	tick := regexp.MustCompile("`([^`]+)`")
	names := func(cell string) []string {
		var out []string
		for _, m := range tick.FindAllStringSubmatch(cell, -1) {
			n := m[1]
			if strings.ContainsAny(n, "( ") {
				continue
			}
			if i := strings.LastIndexByte(n, '.'); i >= 0 {
				n = n[i+1:] // compute.instance_type, .security_group_ids
			}
			out = append(out, n)
		}
		return out
	}
	rows, checked := 0, 0
	in := false
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "| `Estimator(...)` |") {
			in = true
			continue
		}
		if !in || strings.HasPrefix(line, "|---") {
			continue
		}
		if !strings.HasPrefix(line, "|") {
			break
		}
		cells := strings.Split(line, "|")
		if len(cells) < 5 {
			t.Fatalf("row %q: want 4 columns", line)
		}
		rows++
		var fields []string
		top := ""
		for _, m := range tick.FindAllStringSubmatch(cells[3], -1) {
			f := m[1]
			switch {
			case strings.HasPrefix(f, "."):
				f = top + f
			case !strings.Contains(f, ".") && top != "" && strings.ToLower(f[:1]) == f[:1]:
				f = top + "." + f // HyperParameters.sagemaker_program, `sagemaker_submit_directory`
			}
			top, _, _ = strings.Cut(f, ".")
			fields = append(fields, strings.TrimSuffix(f, "[]"))
		}
		for _, col := range []string{cells[1], cells[2]} {
			ns := names(col)
			for i, n := range ns {
				want := ""
				switch {
				case len(fields) == 1:
					want = fields[0]
				case len(ns) == len(fields):
					want = fields[i]
				default:
					continue
				}
				checked++
				if got, ok := sdkMembers[n]; !ok || got != want {
					t.Errorf("%s: sdkMembers has %q, docs/submission.md's table says %s", n, got, want)
				}
			}
		}
	}
	t.Logf("%d rows, %d arguments checked", rows, checked)
	if rows < 20 || checked < 30 {
		t.Errorf("read %d rows and %d arguments of the table: it was not found or not read", rows, checked)
	}
}
