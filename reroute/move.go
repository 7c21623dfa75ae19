package reroute

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/batch"
	"github.com/aws/aws-sdk-go-v2/service/batch/types"

	"github.com/trainq/trainq/batchrules"
	"github.com/trainq/trainq/batchrules/batchsdk"
	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/metrics"
)

// move makes one planned move: it looks for a replacement an earlier run
// made, else submits one (within the per-minute bound), then finishes the
// move (finish). A failed job has nothing to terminate.
func (x *run) move(dc decision) {
	j := dc.j
	if !x.canTake() {
		x.refuse(metrics.RefusedRate, j, fmt.Sprintf("at most %d moves a minute (rerouting.maxMovesPerMinute)", x.r.cfg.Platform.Rerouting.MaxMovesPerMinute), nil)
		return
	}
	if !j.failed {
		var ok bool
		if j, ok = x.reread(j); !ok {
			return
		}
	}
	name := ReplacementName(j.name, j.id)
	found, err := x.findReplacement(name, j.id)
	if err != nil {
		if isThrottle(err) {
			x.halt(stopThrottled, err)
			x.sum.Deferred++
			return
		}
		x.refuse(metrics.RefusedSubmit, j, "look for an earlier replacement failed", err)
		return
	}
	if found != nil {
		if j.failed {
			x.sum.Skipped++ // moved by an earlier run
			return
		}
		x.finish(pair{oldID: j.id, newID: aws.ToString(found.JobId), newStatus: found.Status, to: payloadType(found), resumed: true})
		return
	}
	if x.predecessorLive(j) {
		// A replacement whose old job is still live: that move is not
		// finished (finishLeftovers finishes it); moving this job now would
		// leave the old one and a second replacement live.
		if x.stop != "" {
			x.sum.Deferred++ // throttled: the next run asks again
		} else {
			x.sum.Skipped++
		}
		return
	}
	in, err := x.request(j, dc.to, name)
	if err != nil {
		x.refuse(metrics.RefusedRequest, j, "the new job's request is not one AWS Batch accepts", err)
		return
	}
	if !x.take() {
		x.refuse(metrics.RefusedRate, j, fmt.Sprintf("at most %d moves a minute (rerouting.maxMovesPerMinute)", x.r.cfg.Platform.Rerouting.MaxMovesPerMinute), nil)
		return
	}
	newID := ""
	out, err := x.submit(in)
	if err == nil {
		newID = aws.ToString(out.JobId)
	} else {
		// A lost answer (the job exists, a retry was refused as a repeated
		// token) or a refusal: look again before deciding.
		if d := x.relook(name, j.id, err); d != nil {
			newID = aws.ToString(d.JobId)
		} else {
			if isThrottle(err) {
				x.halt(stopThrottled, err)
			}
			x.refuse(metrics.RefusedSubmit, j, "AWS Batch did not take the new job", err)
			return
		}
	}
	if j.failed {
		x.count(j, dc.to)
		x.r.log.Info("resubmitted", "jobId", j.id, "newJobId", newID, "jobName", j.name, "newJobName", name,
			"class", j.class.Name, "team", j.team.Name, "from", j.instanceType, "to", dc.to, "move", j.moves+1,
			"schedulingPriority", j.priority, "statusReason", aws.ToString(j.d.StatusReason))
		return
	}
	x.finish(pair{oldID: j.id, newID: newID, newStatus: types.ServiceJobStatusSubmitted, to: dc.to})
}

// reread describes a planned runnable job again, since the plan may have
// read it from the cache: the move goes on with what Batch says now — the
// job's current priority and tags — only if it is still waiting on the
// same type, past its class's threshold, with the same move count.
func (x *run) reread(j *job) (*job, bool) {
	d, err := x.describe(j.id)
	if err != nil {
		if isThrottle(err) {
			x.halt(stopThrottled, err)
			x.sum.Deferred++
			return nil, false
		}
		x.refuse(metrics.RefusedSubmit, j, "describe the job before moving it failed", err)
		return nil, false
	}
	now := x.r.cfg.Now().UnixMilli()
	f := x.read(d, now)
	switch {
	case f == nil || !pendingStatuses[d.Status]:
		return nil, false // started, ended, or no longer readable: nothing to move
	case f.instanceType != j.instanceType || f.instances != j.instances || f.moves != j.moves || f.class.Name != j.class.Name ||
		f.class.Reroute == nil || now-f.since < int64(f.class.Reroute.AfterSeconds)*1000:
		x.sum.Skipped++
		return nil, false
	}
	return f, true
}

// predecessorLive reports whether j replaced a job that is still live: a
// move whose old job was never terminated (an earlier run stopped between
// the two calls, or the terminate failed). For a failed j the old job is
// then the lineage's live job, and j is not resubmitted; for a waiting j
// the move is unfinished, and j does not move on.
func (x *run) predecessorLive(j *job) bool {
	from := j.d.Tags[contract.TagReroutedFrom]
	if from == "" {
		return false
	}
	d, err := x.describe(from)
	if err != nil && batchsdk.IsNotFound(err) {
		return false // Batch no longer holds it: long ended
	}
	if err != nil && isThrottle(err) {
		x.halt(stopThrottled, err)
		return true
	}
	if err != nil {
		// Unknown: do not risk a second live job; the next run asks again.
		x.r.log.Warn("describe the job it replaced failed; the job is not moved this run", "jobId", j.id, "replaced", from, "error", err)
		return true
	}
	return isLive(d.Status)
}

// pair is a move whose replacement exists.
type pair struct {
	oldID, newID, to string
	newStatus        types.ServiceJobStatus
	// resumed: an earlier run submitted the replacement.
	resumed bool
}

// finish ends a move whose replacement exists, so that one live job is
// left: it describes the old job again, right before terminating it, and
//
//   - terminates it if it still has not started (SUBMITTED, PENDING or
//     RUNNABLE): the move is done;
//   - if it ended before it ever ran, and not by a cancel (Batch's time
//     limit action for capacity, say), keeps the replacement: the move is
//     done;
//   - if it has started, or ended otherwise (cancelled, say), terminates
//     the replacement instead, if that has not started (abandon);
//   - does nothing when the replacement has ended already: the old job is
//     then the lineage's one live job.
func (x *run) finish(p pair) {
	cfg := x.r.cfg
	if p.newStatus == types.ServiceJobStatusFailed {
		x.sum.Skipped++
		x.r.log.Info("replacement already ended; the old job stays", "jobId", p.oldID, "newJobId", p.newID, "newStatus", string(p.newStatus))
		return
	}
	od, err := x.describe(p.oldID)
	if err != nil {
		if isThrottle(err) {
			x.halt(stopThrottled, err)
		}
		x.refuseID(metrics.RefusedTerminate, p.oldID, "describe the old job before terminating it failed", err)
		return
	}
	now := cfg.Now().UnixMilli()
	j := x.read(od, now)
	if j == nil {
		if od.Tags[contract.TagPlatform] != cfg.Platform.Name {
			x.r.log.Warn("the old job is not one of the platform's; its replacement is left", "jobId", p.oldID, "newJobId", p.newID)
			return
		}
		// The platform no longer knows its class or team (the file
		// changed), or its payload is unreadable: finish the move anyway,
		// naming it by its tags.
		j = &job{id: p.oldID, name: aws.ToString(od.JobName), status: string(od.Status), instanceType: payloadType(od), since: now}
		j.class.Name, j.team.Name = od.Tags[contract.TagClass], batchrules.ShareOfJob(aws.ToString(od.QuotaShareName), aws.ToString(od.ShareIdentifier))
	}
	switch {
	case pendingStatuses[od.Status]:
		if err := x.terminate(p.oldID, contract.ReroutedReason(p.newID, p.to)); err != nil {
			if isThrottle(err) {
				x.halt(stopThrottled, err)
			}
			x.refuse(metrics.RefusedTerminate, j, "terminate the old job failed; the next run finishes the move", err)
			return
		}
	case od.Status == types.ServiceJobStatusFailed && strings.HasPrefix(aws.ToString(od.StatusReason), contract.ReroutedReasonPrefix):
		// Terminated by an earlier attempt whose answer was lost.
	case od.Status == types.ServiceJobStatusFailed && endedUnstarted(od):
		// Ended before it ever ran, not by a cancel (Batch's time limit
		// action for capacity, say): nothing ran, and the replacement
		// carries the work on. Terminating it would leave none.
		x.r.log.Info("the old job ended before it started; its replacement carries on", "jobId", p.oldID, "newJobId", p.newID,
			"statusReason", contract.Cut(aws.ToString(od.StatusReason), contract.MaxShownChars))
	default:
		x.abandon(j, p)
		return
	}
	x.count(j, p.to)
	x.r.log.Info("rerouted", "jobId", p.oldID, "newJobId", p.newID, "jobName", j.name, "newJobName", ReplacementName(j.name, p.oldID),
		"class", j.class.Name, "team", j.team.Name, "from", j.instanceType, "to", p.to, "move", j.moves+1,
		"schedulingPriority", j.priority, "waitedSeconds", (now-j.since)/1000, "resumed", p.resumed)
}

// dropDuplicate ends dup, a second replacement of oldID (kept: first),
// unless it has started: then both replacements run, which pages like a
// move whose old job started too.
func (x *run) dropDuplicate(oldID, first string, dup *batch.DescribeServiceJobOutput) {
	id := aws.ToString(dup.JobId)
	// Read it again right before ending it, as finish reads an old job:
	// the pass read it some calls ago.
	if fresh, err := x.describe(id); err == nil {
		dup = fresh
	} else {
		if isThrottle(err) {
			x.halt(stopThrottled, err)
		}
		x.r.log.Warn("describe job failed; it is read again next run", "jobId", id, "error", err)
		return
	}
	j := &job{id: oldID, name: aws.ToString(dup.JobName), instanceType: payloadType(dup)}
	j.class.Name, j.team.Name = dup.Tags[contract.TagClass], batchrules.ShareOfJob(aws.ToString(dup.QuotaShareName), aws.ToString(dup.ShareIdentifier))
	switch {
	case pendingStatuses[dup.Status]:
		if err := x.terminate(id, contract.RerouteAbandonedReason(oldID, "replaced by "+first)); err != nil {
			if isThrottle(err) {
				x.halt(stopThrottled, err)
			}
			x.refuse(metrics.RefusedTerminate, j, "terminate a second replacement failed; the next run tries again", err, "newJobId", id)
			return
		}
		x.r.log.Info("second replacement ended", "jobId", oldID, "newJobId", first, "duplicateJobId", id)
	case isLive(dup.Status):
		x.refuse(metrics.RefusedBothStarted, j, "two replacements of one job have both started: both are left running", nil, "newJobId", first, "duplicateJobId", id)
	}
}

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

// abandon terminates the replacement of old, which started (or ended)
// before it could be terminated, unless the replacement has started too.
func (x *run) abandon(old *job, p pair) {
	nd, err := x.describe(p.newID)
	if err != nil {
		if isThrottle(err) {
			x.halt(stopThrottled, err)
		}
		x.refuse(metrics.RefusedTerminate, old, "describe the replacement before terminating it failed", err)
		return
	}
	switch {
	case pendingStatuses[nd.Status]:
		if err := x.terminate(p.newID, contract.RerouteAbandonedReason(p.oldID, old.status)); err != nil {
			if isThrottle(err) {
				x.halt(stopThrottled, err)
			}
			x.refuse(metrics.RefusedTerminate, old, "terminate the abandoned replacement failed; the next run tries again", err)
			return
		}
		x.refuse(metrics.RefusedStarted, old, "the old job started before it was terminated: its replacement is terminated", nil, "newJobId", p.newID, "status", old.status)
	case isLive(nd.Status):
		x.refuse(metrics.RefusedBothStarted, old, "the old job and its replacement have both started: both are left running", nil, "newJobId", p.newID, "status", old.status, "newStatus", string(nd.Status))
	default:
		x.r.log.Info("replacement already ended; the old job stays", "jobId", p.oldID, "newJobId", p.newID, "newStatus", string(nd.Status))
	}
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

// maxLookupPages bounds the pages of same-named jobs read when looking for
// a replacement.
const maxLookupPages = 5

// findReplacement returns the description of the platform's job named
// name (any status) that replaced oldID, or nil.
func (x *run) findReplacement(name, oldID string) (*batch.DescribeServiceJobOutput, error) {
	in := &batch.ListServiceJobsInput{
		JobQueue: aws.String(x.r.cfg.JobQueue),
		Filters:  []types.KeyValuesPair{{Name: aws.String("JOB_NAME"), Values: []string{name}}},
	}
	for page := 0; page < maxLookupPages; page++ {
		out, err := x.listPage(in)
		if err != nil {
			return nil, err
		}
		for _, s := range out.JobSummaryList {
			if !strings.EqualFold(aws.ToString(s.JobName), name) {
				continue
			}
			d, err := x.describe(aws.ToString(s.JobId))
			if err != nil {
				return nil, err
			}
			if d.Tags[contract.TagReroutedFrom] == oldID && d.Tags[contract.TagPlatform] == x.r.cfg.Platform.Name {
				return d, nil
			}
		}
		if out.NextToken == nil {
			return nil, nil
		}
		in.NextToken = out.NextToken
	}
	return nil, nil
}

// relook looks for the replacement a failed submission may have created:
// up to len(RelookDelays) times after a refusal, once after anything else.
func (x *run) relook(name, oldID string, submitErr error) *batch.DescribeServiceJobOutput {
	delays := x.r.cfg.RelookDelays
	if !isClientError(submitErr) && len(delays) > 1 {
		delays = delays[:1]
	}
	for _, d := range delays {
		if d > 0 {
			select {
			case <-x.ctx.Done():
				return nil
			case <-time.After(d):
			}
		}
		found, err := x.findReplacement(name, oldID)
		if err == nil && found != nil {
			x.r.log.Info("submission failed but the replacement exists", "jobId", oldID, "newJobId", aws.ToString(found.JobId), "error", submitErr)
			return found
		}
	}
	return nil
}

// request is the replacement's SubmitServiceJob request: the old job's, on
// instance type to, named name, with the move's clientToken and the
// lineage tags.
func (x *run) request(j *job, to, name string) (*batch.SubmitServiceJobInput, error) {
	d := j.d
	payload, err := withInstanceType(j.payload, to)
	if err != nil {
		return nil, err
	}
	if len(payload) > batchrules.MaxServiceRequestPayloadBytes {
		return nil, fmt.Errorf("serviceRequestPayload: %d bytes on %s, at most %d allowed", len(payload), to, batchrules.MaxServiceRequestPayloadBytes)
	}
	tags := make(map[string]string, len(d.Tags)+2)
	for k, v := range d.Tags {
		tags[k] = v
	}
	tags[contract.TagReroutedFrom] = j.id
	tags[contract.TagMoves] = strconv.Itoa(j.moves + 1)
	if len(tags) > batchrules.MaxTags {
		return nil, fmt.Errorf("tags: %d with the lineage tags, at most %d allowed", len(tags), batchrules.MaxTags)
	}
	jobType := d.ServiceJobType
	if jobType == "" {
		jobType = types.ServiceJobTypeSagemakerTraining
	}
	return &batch.SubmitServiceJobInput{
		JobName:                 aws.String(name),
		JobQueue:                aws.String(x.r.cfg.JobQueue),
		ServiceJobType:          jobType,
		ServiceRequestPayload:   aws.String(string(payload)),
		ClientToken:             aws.String(MoveToken(j.id, j.moves+1)),
		SchedulingPriority:      d.SchedulingPriority,
		QuotaShareName:          d.QuotaShareName,
		ShareIdentifier:         d.ShareIdentifier,
		RetryStrategy:           d.RetryStrategy,
		TimeoutConfig:           d.TimeoutConfig,
		PreemptionConfiguration: d.PreemptionConfiguration,
		Tags:                    tags,
	}, nil
}

// resourceConfig is what the re-router reads of a payload's
// ResourceConfig.
type resources struct {
	instanceType string // "" for a heterogeneous cluster (InstanceGroups)
	instances    int
}

func resourceConfig(payload string) (resources, error) {
	var tj struct {
		ResourceConfig *struct {
			InstanceType   string
			InstanceCount  json.Number
			InstanceGroups json.RawMessage
		}
	}
	d := json.NewDecoder(strings.NewReader(payload))
	d.UseNumber()
	if err := d.Decode(&tj); err != nil {
		return resources{}, fmt.Errorf("serviceRequestPayload: %w", err)
	}
	rc := tj.ResourceConfig
	if rc == nil {
		return resources{}, fmt.Errorf("serviceRequestPayload: no ResourceConfig")
	}
	if g := bytes.TrimSpace(rc.InstanceGroups); len(g) > 0 && string(g) != "null" && string(g) != "[]" {
		return resources{}, nil
	}
	n, err := strconv.Atoi(string(rc.InstanceCount))
	if err != nil || n < 1 {
		return resources{}, fmt.Errorf("serviceRequestPayload: ResourceConfig.InstanceCount %q is no whole number of instances", contract.Cut(string(rc.InstanceCount), contract.MaxShownChars))
	}
	if !batchrules.ValidInstanceType(rc.InstanceType) {
		return resources{}, fmt.Errorf("serviceRequestPayload: ResourceConfig.InstanceType %q is no instance type", contract.Cut(rc.InstanceType, contract.MaxShownChars))
	}
	return resources{instanceType: rc.InstanceType, instances: n}, nil
}

// payloadType is the instance type of a described job's payload.
func payloadType(d *batch.DescribeServiceJobOutput) string {
	rc, _ := resourceConfig(aws.ToString(d.ServiceRequestPayload))
	return rc.instanceType
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
		if aws.ToInt64(s.CreatedAt) >= from && replacedSuffix.MatchString(aws.ToString(s.JobName)) {
			recent++
		}
	}
	r.tokens = max(0, float64(r.cfg.Platform.Rerouting.MaxMovesPerMinute-recent))
	r.tokensAt = now
}
