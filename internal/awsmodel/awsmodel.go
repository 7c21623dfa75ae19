// Package awsmodel lets tests ask AWS's own published service models whether
// the requests a program sent are valid: every recorded request is checked
// against botocore's service-2 model of its service (the operation its HTTP
// method and path name, the types, required and unknown members, lengths,
// ranges, enums and patterns of its input shape, and the few limits the model
// states only in a member's documentation), and each AWS Batch
// SubmitServiceJob's serviceRequestPayload against SageMaker's
// CreateTrainingJobRequest. The work is done by validate.py (embedded), run
// once over all requests by python3 with botocore.
//
// It is test support: product code must never import it, and it must never
// import the AWS CDK, jsii or constructs.
package awsmodel

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

//go:embed validate.py
var script string

// EnvPython names the Python interpreter to use. Default: python3 on PATH.
const EnvPython = "TRAINQ_PYTHON"

// Request is one HTTP request sent to an AWS service's REST-JSON endpoint,
// or to a JSON-protocol one (DynamoDB's), whose operation is in its
// X-Amz-Target header.
type Request struct {
	// Service is the botocore name of the service, e.g. "batch". Default:
	// batch.
	Service string `json:"service,omitempty"`
	// Operation is the operation the recorder took the request for; the
	// check reports it when the model's operation at Method and Path
	// differs.
	Operation string `json:"operation,omitempty"`
	// Target is a JSON-protocol request's X-Amz-Target header
	// (<targetPrefix>.<operation>), which selects the model's operation;
	// such a request must be a POST to "/".
	Target string `json:"target,omitempty"`
	// Method and Path (escaped, as on the wire) select a REST request's
	// model operation; the path's labels become the input's URI members.
	Method string `json:"method"`
	Path   string `json:"path"`
	// PathParams are the path's labels as the recorder decoded them; the
	// check reports them when they differ from the model's URI template's.
	PathParams map[string]string `json:"pathParams,omitempty"`
	// Query holds the query-string parameters.
	Query map[string][]string `json:"query,omitempty"`
	// Body is the request's JSON body; empty means no body.
	Body json.RawMessage `json:"-"`
	// Label says who sent the request (e.g. a test's name), for messages.
	Label string `json:"label,omitempty"`
}

// Problem is one way a request breaks its service's model.
type Problem struct {
	// Index is the position in the checked list of the first request with
	// the problem; Count is how many identical requests share it.
	Index, Count int
	Operation    string
	// Member is the input member at fault (dotted; payload members start
	// with serviceRequestPayload.), empty for the request as a whole.
	Member  string
	Message string
	// Label is the request's Label; Request names the request by its
	// identifying members (jobName, jobId, jobQueue or path labels).
	Label, Request string
}

func (p Problem) String() string {
	var b strings.Builder
	b.WriteString(p.Operation)
	if p.Label != "" {
		fmt.Fprintf(&b, " sent by %s", p.Label)
	}
	fmt.Fprintf(&b, " (request #%d", p.Index)
	if p.Request != "" {
		fmt.Fprintf(&b, ", %s", p.Request)
	}
	if p.Count > 1 {
		fmt.Fprintf(&b, ", and %d identical", p.Count-1)
	}
	b.WriteString("): ")
	if p.Member != "" {
		b.WriteString(p.Member + ": ")
	}
	b.WriteString(p.Message)
	return b.String()
}

// SkippedPattern is a model pattern that Python's re cannot compile (a Java
// regex feature such as \p{L}); values of its shapes were not matched
// against it.
type SkippedPattern struct {
	Pattern string   `json:"pattern"`
	Error   string   `json:"error"`
	Shapes  []string `json:"shapes"`
}

// Report is the outcome of a check.
type Report struct {
	// Botocore and Python are the versions that did the check.
	Botocore, Python string
	// Checked counts the requests checked per operation.
	Checked map[string]int
	// Distinct is the number of distinct requests among them; Payloads
	// the number of SageMaker payloads checked.
	Distinct, Payloads int
	Problems           []Problem
	SkippedPatterns    []SkippedPattern
}

// Total is the number of requests checked.
func (r *Report) Total() int {
	n := 0
	for _, c := range r.Checked {
		n += c
	}
	return n
}

// Summary is one line: how many requests were checked, by operation.
func (r *Report) Summary() string {
	ops := make([]string, 0, len(r.Checked))
	for op := range r.Checked {
		ops = append(ops, op)
	}
	sort.Strings(ops)
	parts := make([]string, len(ops))
	for i, op := range ops {
		parts[i] = fmt.Sprintf("%s %d", op, r.Checked[op])
	}
	by := ""
	if len(parts) > 0 {
		by = " (" + strings.Join(parts, ", ") + ")"
	}
	return fmt.Sprintf("AWS service models (botocore %s): %d requests checked%s, %d distinct, %d SageMaker payloads; %d problems",
		r.Botocore, r.Total(), by, r.Distinct, r.Payloads, len(r.Problems))
}

// ErrUnavailable is returned by Check when python3 or botocore is missing.
var ErrUnavailable = errors.New("awsmodel: python3 with botocore is not available")

// Check runs validate.py once over reqs. Problems found are in the report;
// an error means the check itself could not run (ErrUnavailable when the
// interpreter or botocore is missing).
func Check(ctx context.Context, reqs []Request) (*Report, error) {
	python := os.Getenv(EnvPython)
	if python == "" {
		python = "python3"
	}
	path, err := exec.LookPath(python)
	if err != nil {
		return nil, fmt.Errorf("%w: %v (set %s to an interpreter that has botocore)", ErrUnavailable, err, EnvPython)
	}
	in, err := encode(reqs)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, "-c", script)
	cmd.Stdin = bytes.NewReader(in)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit) && exit.ExitCode() == 3:
		return nil, fmt.Errorf("%w: %s", ErrUnavailable, strings.TrimSpace(stderr.String()))
	case err != nil:
		return nil, fmt.Errorf("awsmodel: %s validate.py: %v: %s", path, err, strings.TrimSpace(stderr.String()))
	}
	var r Report
	if err := json.Unmarshal(stdout.Bytes(), &r); err != nil {
		return nil, fmt.Errorf("awsmodel: read validate.py's report: %v (stderr: %s)", err, strings.TrimSpace(stderr.String()))
	}
	return &r, nil
}

// encode writes {"requests": [...]}, each body as JSON when it is JSON and
// as bodyText otherwise.
func encode(reqs []Request) ([]byte, error) {
	type wire struct {
		Request
		Body     json.RawMessage `json:"body,omitempty"`
		BodyText *string         `json:"bodyText,omitempty"`
	}
	out := make([]wire, len(reqs))
	for i, r := range reqs {
		out[i].Request = r
		switch body := bytes.TrimSpace(r.Body); {
		case len(body) == 0:
		case json.Valid(body):
			out[i].Body = body
		default:
			s := string(body)
			out[i].BodyText = &s
		}
	}
	b, err := json.Marshal(map[string]any{"requests": out})
	if err != nil {
		return nil, fmt.Errorf("awsmodel: encode requests: %w", err)
	}
	return b, nil
}

// Required reports whether a missing python3 or botocore must fail the
// tests rather than skip them: in CI (environment CI=true).
func Required() bool {
	ci, _ := strconv.ParseBool(os.Getenv("CI"))
	return ci
}

// Validate checks reqs and reports each problem as an error of t, naming the
// operation and the request; skipped patterns and the summary are logged.
// When python3 or botocore is missing it fails t in CI (Required) and skips
// it otherwise.
func Validate(t testing.TB, reqs []Request) *Report {
	t.Helper()
	r, err := Check(context.Background(), reqs)
	switch {
	case errors.Is(err, ErrUnavailable) && !Required():
		t.Skipf("%v; requests were not checked against AWS's models (in CI, with CI=true, this fails)", err)
	case err != nil:
		t.Fatal(err)
	}
	for _, p := range r.Problems {
		t.Errorf("%s", p)
	}
	for _, s := range r.SkippedPatterns {
		t.Logf("pattern not checked (Python's re cannot compile it: %s): %s, of %s", s.Error, s.Pattern, strings.Join(s.Shapes, ", "))
	}
	t.Log(r.Summary())
	return r
}
