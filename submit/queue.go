package submit

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/batch"
	"github.com/aws/aws-sdk-go-v2/service/batch/types"

	"github.com/trainq/trainq/batchrules"
	"github.com/trainq/trainq/batchrules/batchsdk"
	"github.com/trainq/trainq/contract"
)

// Queue visibility: the explanation describe gives a waiting job, and the
// queue action. Both read one GetJobQueueSnapshot; the queue action also
// lists the queue's jobs (ListServiceJobs per status) and describes them
// (their class, priority and instances are only in DescribeServiceJob's
// answer), at most contract.MaxQueueJobs, describeConcurrency at once.

// describeConcurrency is how many DescribeServiceJob calls the queue
// action runs at once.
const describeConcurrency = 8

// maxFrontEntries bounds the entries read from each list of the snapshot's
// front of the queue (Batch lists the first 100 RUNNABLE jobs).
const maxFrontEntries = 100

// snapshot is what the function reads of GetJobQueueSnapshot's answer.
type snapshot struct {
	usage *batchrules.Usage
	front Front
	// at is when the usage was last updated, RFC 3339 ("" when not given).
	at string
}

// readSnapshot calls GetJobQueueSnapshot and reads its usage and front,
// each list bounded by maxFrontEntries and at most MaxUsageRows shares.
func (h *Handler) readSnapshot(ctx context.Context) (*snapshot, error) {
	out, err := h.cfg.Batch.GetJobQueueSnapshot(ctx, &batch.GetJobQueueSnapshotInput{JobQueue: aws.String(h.cfg.JobQueue)}, callOpts(ctx)...)
	if err != nil {
		return nil, err
	}
	s := &snapshot{usage: batchsdk.QueueUtilization(out).Usage(), front: Front{Shares: map[string][]FrontEntry{}}}
	for _, skipped := range usageSkipped(s.usage) {
		h.log.Warn("queue snapshot entry left out", "entry", skipped)
	}
	if out.QueueUtilization != nil && out.QueueUtilization.LastUpdatedAt != nil {
		s.at = millis(out.QueueUtilization.LastUpdatedAt)
	}
	if fq := out.FrontOfQueue; fq != nil {
		for _, j := range fq.Jobs {
			if len(s.front.Queue) == maxFrontEntries {
				break
			}
			s.front.Queue = append(s.front.Queue, FrontEntry{ARN: aws.ToString(j.JobArn), At: aws.ToInt64(j.EarliestTimeAtPosition)})
		}
	}
	if fs := out.FrontOfQuotaShares; fs != nil {
		names := make([]string, 0, len(fs.QuotaShares))
		for name := range fs.QuotaShares {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			if _, known := h.cfg.Platform.Team(name); !known {
				continue // a share the platform does not have: nothing to explain with it
			}
			for _, j := range fs.QuotaShares[name] {
				if len(s.front.Shares[name]) == maxFrontEntries {
					break
				}
				s.front.Shares[name] = append(s.front.Shares[name], FrontEntry{ARN: aws.ToString(j.JobArn), At: aws.ToInt64(j.EarliestTimeAtPosition)})
			}
		}
	}
	return s, nil
}

func usageSkipped(u *batchrules.Usage) []string {
	if u == nil {
		return nil
	}
	return u.Skipped
}

// resources reads the instance type and count of a CreateTrainingJob
// payload's ResourceConfig (count 1 when absent or not a whole number of at
// least 1; SageMaker's default is 1).
func resources(payload *string) (string, int) {
	if payload == nil {
		return "", 1
	}
	var tj struct {
		ResourceConfig struct {
			InstanceType  string
			InstanceCount float64
		}
	}
	if json.Unmarshal([]byte(*payload), &tj) != nil {
		return "", 1
	}
	n := tj.ResourceConfig.InstanceCount
	if n < 1 || n > batchrules.MaxQuantity || n != math.Trunc(n) {
		n = 1
	}
	return tj.ResourceConfig.InstanceType, int(n)
}

// explainDescribed adds to resp why the described job d waits, when it
// does. A snapshot that fails leaves the answer without an explanation (the
// describe itself succeeded) and writes a log line.
func (h *Handler) explainDescribed(ctx context.Context, d *batch.DescribeServiceJobOutput, resp *contract.Response) {
	if !Waiting(resp.Status) {
		return
	}
	snap, err := h.readSnapshot(ctx)
	if err != nil {
		h.log.Warn("queue snapshot failed; describe answers without an explanation", "jobId", resp.JobID, "error", err)
		return
	}
	if q := snap.front.Queue; len(q) > 0 && q[0].ARN != resp.JobARN {
		// The head of the queue blocks every job behind it: read its
		// status reason (one call; a failure only leaves it unread).
		if ref, err := batchrules.ParseServiceJobRef(q[0].ARN); err == nil {
			if hd, err := h.cfg.Batch.DescribeServiceJob(ctx, &batch.DescribeServiceJobInput{JobId: aws.String(ref.ID)}, callOpts(ctx)...); err == nil {
				snap.front.HeadStatusReason = aws.ToString(hd.StatusReason)
				snap.front.HeadTeam = batchrules.ShareOfJob(aws.ToString(hd.QuotaShareName), aws.ToString(hd.ShareIdentifier))
			}
		}
	}
	it, n := resources(d.ServiceRequestPayload)
	e := Explain(h.cfg.Platform, WaitingJob{ARN: resp.JobARN, Team: resp.Team, Status: resp.Status, StatusReason: resp.StatusReason,
		InstanceType: it, Instances: n}, snap.usage, snap.front)
	e.SnapshotAt = snap.at
	h.rerouteHint(&e, resp, it, n, snap.usage)
	resp.Explanation = &e
}

// rerouteHint says, for a waiting job whose class reroutes and whose own
// type has no room for it, where the re-router would move it and when
// (platform.RerouteTarget, the rule the re-router plans by).
func (h *Handler) rerouteHint(e *contract.Explanation, resp *contract.Response, it string, n int, u *batchrules.Usage) {
	p := h.cfg.Platform
	c, ok := p.Class(resp.Class)
	team, known := p.Team(resp.Team)
	// SageMaker lacking capacity for the type is no room either: the
	// re-router moves such a job too.
	blocked := batchrules.BlockedReason(resp.StatusReason) == batchrules.ReasonInsufficientCapacity
	if !ok || !known || c.Reroute == nil || resp.Status != "RUNNABLE" || u == nil || (!blocked && p.Headroom(team, it, u) >= n) {
		return
	}
	to, ok := p.RerouteTarget(c, team, it, n, u)
	if !ok {
		return
	}
	e.RerouteTo = to
	if resp.Moves >= c.Reroute.MaxMoves {
		e.Message += fmt.Sprintf(" %s has room for it, but the job has moved %d times, class %s's most (reroute.maxMoves): it stays on %s.", to, resp.Moves, c.Name, it)
		return
	}
	e.Message += fmt.Sprintf(" Class %s reroutes: %s has room for its %d now, and the re-router moves it there once it has waited %s in RUNNABLE (reroute.afterSeconds), at its next run.",
		c.Name, to, n, (time.Duration(c.Reroute.AfterSeconds) * time.Second).String())
}

// statusOrder is the order in which the queue action lists statuses,
// running first, and the order of its answer.
var statusOrder = []types.ServiceJobStatus{types.ServiceJobStatusRunning, types.ServiceJobStatusStarting,
	types.ServiceJobStatusScheduled, types.ServiceJobStatusRunnable}

func statusRank(s string) int {
	for i, st := range statusOrder {
		if string(st) == s {
			return i
		}
	}
	return len(statusOrder)
}

// queue serves the queue action: the queue's waiting and running jobs and
// every share's usage. Through a (class, team) alias, jobs of other teams
// are redacted (contract.QueueView).
func (h *Handler) queue(ctx context.Context, caller Caller, req contract.Request) (*contract.Response, error) {
	var ps problems
	unused := []struct {
		name string
		set  bool
	}{
		{"jobId", req.JobID != ""}, {"jobName", req.JobName != ""}, {"team", req.Team != ""}, {"class", req.Class != ""},
		{"priority", req.Priority != nil}, {"idempotencyKey", req.IdempotencyKey != ""}, {"instanceTypes", len(req.InstanceTypes) > 0},
		{"trainingJob", len(req.TrainingJob) > 0}, {"maxRuntimeSeconds", req.MaxRuntimeSeconds != nil}, {"retries", req.Retries != nil},
		{"tags", len(req.Tags) > 0}, {"reason", req.Reason != ""},
	}
	for _, f := range unused {
		if f.set {
			ps.Addf(f.name, contract.Shown("a value"), "no value for action %s (it lists the whole queue; the CLI filters by team, class and status)", contract.ActionQueue)
		}
	}
	if len(ps) > 0 {
		return nil, invalid(ps)
	}
	ctx, _, cancel := h.budget(ctx)
	defer cancel()
	now := h.cfg.Now()

	snap, err := h.readSnapshot(ctx)
	if err != nil {
		return nil, upstream(ctx, "get the queue snapshot", err)
	}
	var summaries []types.ServiceJobSummary
	var notes []string
	truncated, uncounted := false, false
	seen := map[string]bool{}
	for _, st := range statusOrder {
		list, more, err := h.listStatus(ctx, st)
		if err != nil {
			return nil, upstream(ctx, fmt.Sprintf("list %s jobs", st), err)
		}
		if more {
			truncated, uncounted = true, true
			notes = append(notes, fmt.Sprintf("more than %d %s jobs: the oldest were not listed", contract.MaxQueueListPages*100, st))
		}
		for _, s := range list {
			id := aws.ToString(s.JobId)
			if id == "" || seen[id] || !batchrules.ValidJobID(id) {
				continue
			}
			seen[id] = true
			summaries = append(summaries, s)
		}
	}
	pos := map[string]int{}
	for i, f := range snap.front.Queue {
		pos[f.ARN] = i + 1
	}
	sort.SliceStable(summaries, func(a, b int) bool { return listOrder(summaries[a], summaries[b], pos) })
	var unlisted []contract.QueueCount
	if len(summaries) > contract.MaxQueueJobs {
		truncated = true
		notes = append(notes, fmt.Sprintf("%d jobs listed, the first %d shown (running first, then the front of the queue), the others counted", len(summaries), contract.MaxQueueJobs))
		unlisted = countUnlisted(summaries[contract.MaxQueueJobs:])
		summaries = summaries[:contract.MaxQueueJobs]
	}

	described := h.describeAll(ctx, summaries)
	view := &contract.QueueView{JobQueue: h.cfg.JobQueue, At: now.UTC().Format(time.RFC3339), Jobs: []contract.QueueJob{},
		QueueListed: len(snap.front.Queue), SnapshotAt: snap.at}
	switch {
	case caller.operator():
		view.Scope = "operator " + caller.Role + ": every job in full"
	case caller.Alias != "":
		view.Scope = fmt.Sprintf("%s: team %s's jobs in full; other teams' jobs without id, name or status reason", caller.scope(), caller.Team)
	default:
		view.Scope = fmt.Sprintf("%s: the jobs of team %s in full; other teams' jobs without id, name or status reason", caller.scope(), strings.Join(caller.grant.Teams(h.cfg.Platform), ", "))
	}
	undescribed := 0
	for i, s := range summaries {
		d := described[i]
		if d == nil {
			undescribed++
		}
		j := h.queueJob(s, d, now, snap.front)
		if !caller.operator() && !caller.seesTeam(h.cfg.Platform, j.Team) {
			j.JobID, j.JobName, j.StatusReason, j.Redacted = "", "", "", true
		}
		view.Jobs = append(view.Jobs, j)
	}
	if undescribed > 0 {
		notes = append(notes, fmt.Sprintf("%d jobs could not be described: their class, priority and instances are unknown", undescribed))
	}
	if snap.usage != nil {
		for _, it := range h.cfg.Platform.InstanceTypes() {
			view.Usage = append(view.Usage, usageRows(h.cfg.Platform, it, snap.usage, "")...)
		}
	}
	if len(view.Usage) > contract.MaxUsageRows {
		view.Usage = view.Usage[:contract.MaxUsageRows]
	}
	if view.Usage == nil {
		view.Usage = []contract.ShareUsage{}
		notes = append(notes, "the queue snapshot carried no capacity usage")
	}
	view.Truncated = truncated
	view.Unlisted, view.Uncounted = unlisted, uncounted
	h.history(ctx, now, view)
	if len(notes) > 0 {
		view.Note = contract.Cut(strings.Join(notes, "; "), contract.MaxLoggedChars)
	}
	return &contract.Response{JobQueue: h.cfg.JobQueue, Queue: view}, nil
}

// countUnlisted counts the summaries past the answer's bound by status,
// team and instance type (their capacity usage, which Batch gives once a
// job is scheduled; "" and no instances before), at most MaxUsageRows rows
// (past them, jobs count in the last row).
func countUnlisted(summaries []types.ServiceJobSummary) []contract.QueueCount {
	out := []contract.QueueCount{}
	index := map[[3]string]int{}
	for _, s := range summaries {
		it, n := "", 0
		for _, c := range s.CapacityUsage {
			if batchrules.ValidCapacityUnit(aws.ToString(c.CapacityUnit)) && batchrules.CheckQuantity("quantity", aws.ToFloat64(c.Quantity)) == nil {
				it, n = aws.ToString(c.CapacityUnit), int(math.Ceil(aws.ToFloat64(c.Quantity)))
				break
			}
		}
		k := [3]string{contract.Cut(string(s.Status), contract.MaxShownChars),
			contract.Cut(batchrules.ShareOfJob(aws.ToString(s.QuotaShareName), aws.ToString(s.ShareIdentifier)), contract.MaxShownChars),
			contract.Cut(it, contract.MaxShownChars)}
		i, ok := index[k]
		switch {
		case !ok && len(out) == contract.MaxUsageRows:
			i = len(out) - 1
		case !ok:
			i = len(out)
			index[k] = i
			out = append(out, contract.QueueCount{Status: k[0], Team: k[1], InstanceType: k[2]})
		}
		out[i].Jobs++
		out[i].Instances += n
	}
	return out
}

// listOrder orders summaries as the answer lists them: by status (running
// first), RUNNABLE jobs by their place at the front of the queue (listed
// ones first), running ones by start, then oldest first, then by id.
func listOrder(a, b types.ServiceJobSummary, pos map[string]int) bool {
	ra, rb := statusRank(string(a.Status)), statusRank(string(b.Status))
	if ra != rb {
		return ra < rb
	}
	pa, pb := pos[aws.ToString(a.JobArn)], pos[aws.ToString(b.JobArn)]
	if (pa > 0) != (pb > 0) {
		return pa > 0
	}
	if pa != pb {
		return pa < pb
	}
	if sa, sb := aws.ToInt64(a.StartedAt), aws.ToInt64(b.StartedAt); sa != sb {
		return sa < sb
	}
	if ca, cb := aws.ToInt64(a.CreatedAt), aws.ToInt64(b.CreatedAt); ca != cb {
		return ca < cb
	}
	return aws.ToString(a.JobId) < aws.ToString(b.JobId)
}

// listStatus lists the queue's jobs of status, at most MaxQueueListPages
// pages; more is true when Batch had more.
func (h *Handler) listStatus(ctx context.Context, status types.ServiceJobStatus) (jobs []types.ServiceJobSummary, more bool, err error) {
	in := &batch.ListServiceJobsInput{JobQueue: aws.String(h.cfg.JobQueue), JobStatus: status, MaxResults: aws.Int32(100)}
	for page := 0; page < contract.MaxQueueListPages; page++ {
		out, err := h.cfg.Batch.ListServiceJobs(ctx, in, callOpts(ctx)...)
		if err != nil {
			return nil, false, err
		}
		jobs = append(jobs, out.JobSummaryList...)
		if out.NextToken == nil || aws.ToString(out.NextToken) == aws.ToString(in.NextToken) {
			return jobs, false, nil
		}
		in.NextToken = out.NextToken
	}
	return jobs, true, nil
}

// describeAll describes the jobs, describeConcurrency at once; a job that
// could not be described (an error, or a job of another queue) is nil.
func (h *Handler) describeAll(ctx context.Context, summaries []types.ServiceJobSummary) []*batch.DescribeServiceJobOutput {
	out := make([]*batch.DescribeServiceJobOutput, len(summaries))
	sem := make(chan struct{}, describeConcurrency)
	var wg sync.WaitGroup
	failed := 0
	var mu sync.Mutex
	for i, s := range summaries {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			d, err := h.cfg.Batch.DescribeServiceJob(ctx, &batch.DescribeServiceJobInput{JobId: s.JobId}, callOpts(ctx)...)
			if err != nil || !batchrules.SameJobQueue(aws.ToString(d.JobQueue), h.cfg.JobQueue) {
				mu.Lock()
				failed++
				mu.Unlock()
				return
			}
			out[i] = d
		}()
	}
	wg.Wait()
	if failed > 0 {
		h.log.Warn("queue: jobs not described", "jobs", failed)
	}
	return out
}

// queueJob is one job of the answer, from its description d (nil: from
// its summary s alone).
func (h *Handler) queueJob(s types.ServiceJobSummary, d *batch.DescribeServiceJobOutput, now time.Time, f Front) contract.QueueJob {
	j := contract.QueueJob{
		JobID:        contract.Cut(aws.ToString(s.JobId), contract.MaxShownChars),
		JobName:      contract.Cut(aws.ToString(s.JobName), contract.MaxShownChars),
		Team:         contract.Cut(batchrules.ShareOfJob(aws.ToString(s.QuotaShareName), aws.ToString(s.ShareIdentifier)), contract.MaxShownChars),
		Status:       contract.Cut(string(s.Status), contract.MaxShownChars),
		StatusReason: contract.Cut(aws.ToString(s.StatusReason), contract.MaxShownChars),
		Instances:    1,
	}
	created, started := s.CreatedAt, s.StartedAt
	for _, c := range s.CapacityUsage {
		if batchrules.ValidCapacityUnit(aws.ToString(c.CapacityUnit)) && batchrules.CheckQuantity("quantity", aws.ToFloat64(c.Quantity)) == nil {
			j.InstanceType, j.Instances = aws.ToString(c.CapacityUnit), int(math.Ceil(aws.ToFloat64(c.Quantity)))
			break
		}
	}
	if d != nil {
		r := h.describeResponse(d)
		j.Team = contract.Cut(r.Team, contract.MaxShownChars)
		j.Class = contract.Cut(r.Class, contract.MaxShownChars)
		j.SchedulingPriority = r.SchedulingPriority
		j.Status = contract.Cut(string(d.Status), contract.MaxShownChars)
		j.StatusReason = contract.Cut(r.StatusReason, contract.MaxShownChars)
		if it, n := resources(d.ServiceRequestPayload); it != "" {
			j.InstanceType, j.Instances = it, n
		}
		if d.TimeoutConfig != nil && aws.ToInt32(d.TimeoutConfig.AttemptDurationSeconds) > 0 {
			j.MaxRuntimeSeconds = int(aws.ToInt32(d.TimeoutConfig.AttemptDurationSeconds))
		}
		created, started = d.CreatedAt, d.StartedAt
	}
	j.InstanceType = contract.Cut(j.InstanceType, contract.MaxShownChars)
	if j.MaxRuntimeSeconds == 0 {
		if c, ok := h.cfg.Platform.Class(j.Class); ok {
			j.MaxRuntimeSeconds = c.MaxRuntimeSeconds
		}
	}
	if ms := aws.ToInt64(created); ms > 0 {
		j.CreatedAt = millis(created)
		j.AgeSeconds = max(0, now.Unix()-ms/1000)
	}
	if ms := aws.ToInt64(started); ms > 0 && (j.Status == "RUNNING" || j.Status == "STARTING") {
		j.StartedAt = millis(started)
		j.RunningSeconds = max(0, now.Unix()-ms/1000)
	}
	arn := aws.ToString(s.JobArn)
	j.QueuePosition, _ = position(f.Queue, arn)
	j.SharePosition, _ = position(f.Shares[j.Team], arn)
	return j
}
