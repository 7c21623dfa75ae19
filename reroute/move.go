package reroute

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/batch"
	"github.com/aws/aws-sdk-go-v2/service/batch/types"

	"github.com/trainq/trainq/batchrules"
	"github.com/trainq/trainq/contract"
)

// endedUnstarted reports whether a FAILED job ended without running and
// without a cancel through trainq: AWS Batch ended it for capacity, or it
// has no start time at all.
func endedUnstarted(d *batch.DescribeServiceJobOutput) bool {
	reason := aws.ToString(d.StatusReason)
	if strings.HasPrefix(reason, contract.CancelReasonPrefix) {
		return false
	}
	return CapacityFailure(reason) || aws.ToInt64(d.StartedAt) == 0
}

// count counts one finished move of j to to.
func (x *run) count(j *job, to string) {
	x.sum.Moved++
	x.moved[moveKey{class: dimension(j.class.Name), team: dimension(j.team.Name), from: dimension(j.instanceType), to: dimension(to)}]++
}

// unknownDimension stands for a dimension value a metric line cannot
// carry: empty, or read from a tag that is no platform name.
const unknownDimension = "unknown"

// dimension is s if CloudWatch takes it as a dimension value (1 to 255
// printable ASCII characters; platform names and instance types always
// are), else unknownDimension, so that one odd job never costs the run's
// metric line.
func dimension(s string) string {
	if s == "" || len(s) > 255 {
		return unknownDimension
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return unknownDimension
		}
	}
	return s
}

// refuse counts a refused move of j and logs why.
func (x *run) refuse(reason string, j *job, why string, err error, attrs ...any) {
	x.sum.RefusedBy[reason]++
	args := append([]any{"jobId", j.id, "jobName", j.name, "class", j.class.Name, "team", j.team.Name, "reason", reason, "error", err}, attrs...)
	x.r.log.Warn("reroute refused: "+why, args...)
}

func (x *run) refuseID(reason, id, why string, err error) {
	x.sum.RefusedBy[reason]++
	x.r.log.Warn("reroute refused: "+why, "jobId", id, "reason", reason, "error", err)
}

// payloadType is the instance type of a described job's payload ("" for
// a heterogeneous cluster or a payload batchrules.ReadRequested refuses).
func payloadType(d *batch.DescribeServiceJobOutput) string {
	r, _ := batchrules.ReadRequested(aws.ToString(d.ServiceRequestPayload))
	return r.InstanceType
}

// withInstanceType returns payload with ResourceConfig.InstanceType set to
// instanceType and every other member kept: numbers as written, objects
// with their members in sorted order (as the submission function writes
// them), compact, HTML characters not escaped.
func withInstanceType(payload, instanceType string) ([]byte, error) {
	d := json.NewDecoder(strings.NewReader(payload))
	d.UseNumber()
	var tj map[string]any
	if err := d.Decode(&tj); err != nil || tj == nil || d.More() {
		return nil, fmt.Errorf("serviceRequestPayload is not one JSON object")
	}
	rc, ok := tj["ResourceConfig"].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("serviceRequestPayload: no ResourceConfig object")
	}
	rc["InstanceType"] = instanceType
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(tj); err != nil {
		return nil, fmt.Errorf("serviceRequestPayload: %w", err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// canTake reports whether take would succeed now, spending nothing: a move
// the bound refuses costs no call.
func (x *run) canTake() bool {
	r := x.r
	r.mu.Lock()
	defer r.mu.Unlock()
	n := float64(r.cfg.Platform.Rerouting.MaxMovesPerMinute)
	tokens := r.tokens
	if elapsed := r.cfg.Now().Sub(r.tokensAt); elapsed > 0 {
		tokens = min(n, tokens+elapsed.Seconds()*n/60)
	}
	return x.submitted < int(n) && tokens >= 1
}

// take spends one move of the per-minute bound: a bucket of
// rerouting.maxMovesPerMinute moves, refilled at that many a minute, kept
// by the function instance (a cold start fills it, less the moves Batch
// shows were made in the last minute: seed). A run also makes at most that
// many moves. It reports false when either is spent.
func (x *run) take() bool {
	r := x.r
	r.mu.Lock()
	defer r.mu.Unlock()
	n := float64(r.cfg.Platform.Rerouting.MaxMovesPerMinute)
	if x.submitted >= int(n) {
		return false
	}
	now := r.cfg.Now()
	if elapsed := now.Sub(r.tokensAt); elapsed > 0 {
		r.tokens = min(n, r.tokens+elapsed.Seconds()*n/60)
	}
	r.tokensAt = now
	if r.tokens < 1 {
		return false
	}
	r.tokens--
	x.submitted++
	return true
}

// seed starts a cold instance's bucket from what Batch shows: the live
// replacements (named as ReplacementName names them) created within the
// last minute were moves of another instance, and count against this
// minute. A warm instance keeps its own bucket.
func (x *run) seed(live []types.ServiceJobSummary) {
	r := x.r
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.seeded {
		return
	}
	r.seeded = true
	now := r.cfg.Now()
	from := now.Add(-time.Minute).UnixMilli()
	recent := 0
	for _, s := range live {
		if aws.ToInt64(s.CreatedAt) >= from && replacedSuffix().MatchString(aws.ToString(s.JobName)) {
			recent++
		}
	}
	r.tokens = max(0, float64(r.cfg.Platform.Rerouting.MaxMovesPerMinute-recent))
	r.tokensAt = now
}
