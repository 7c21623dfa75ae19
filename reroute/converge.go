package reroute

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/batch"
	"github.com/aws/aws-sdk-go-v2/service/batch/types"

	"github.com/trainq/trainq/batchrules"
	"github.com/trainq/trainq/batchrules/batchsdk"
	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/door"
	"github.com/trainq/trainq/metrics"
	"github.com/trainq/trainq/platform"
)

// A move is a reconciler (docs/rerouting.md). The decision is written on
// the old job first (record, in contract.TagMove); the replacement's
// request is built from the old job's fixed fields and that record alone
// (request), so that every retry, in this run or any later one, sends the
// identical request with the same clientToken; and each run converges
// every recorded decision (converge): find or submit the replacement,
// terminate the old job while it waits, or, if the old job started first,
// end the replacement while it waits.
//
// A decision whose request cannot be sent — the door (door.CheckPayload)
// refuses it, it exceeds Batch's limits, or the old job's tags changed
// since — is closed: the record is written again marked refused, once,
// and counted REQUEST once. A closed decision is never submitted and its
// job never planned again; each run still looks for its replacement (an
// earlier run may have submitted it) and finishes the move if it exists.

// record is a decision to move a job.
type record struct {
	move     int    // the lineage's move number: the old job's moves + 1
	to       string // the instance type the job moves to
	priority int32  // the replacement's scheduling priority
	at       int64  // when it was decided, Unix seconds
	tags     string // tagSum of the tags the replacement carries (carriedTags)
	// refused: the decision is closed, its request never sent (the
	// record's sixth field, refusedMark).
	refused bool
}

// refusedMark is the sixth field of a closed decision's record.
const refusedMark = "refused"

// tagSumHex is how many hex digits of SHA-256 a record's tag sum keeps.
const tagSumHex = 16

// String is the record as contract.TagMove holds it:
// "<move>/<type>/<priority>/<time>/<tags sum>", and "/refused" when the
// decision is closed.
func (r record) String() string {
	s := r.decided()
	if r.refused {
		s += "/" + refusedMark
	}
	return s
}

// decided is the decision as it was first written (never marked
// refused): what the replacement's clientToken derives from.
func (r record) decided() string {
	return strconv.Itoa(r.move) + "/" + r.to + "/" + strconv.Itoa(int(r.priority)) + "/" + strconv.FormatInt(r.at, 10) + "/" + r.tags
}

// parseRecord reads a contract.TagMove value back.
func parseRecord(v string) (record, error) {
	bad := func(what string) (record, error) {
		return record{}, fmt.Errorf("%s %q: %s (want move/instance type/priority/Unix seconds/tags sum, and /%s when closed)", contract.TagMove, contract.Cut(v, contract.MaxShownChars), what, refusedMark)
	}
	f := strings.Split(v, "/")
	var r record
	if len(f) == 6 && f[5] == refusedMark {
		f, r.refused = f[:5], true
	}
	if len(f) != 5 {
		return bad("not five fields")
	}
	var err error
	if r.move, err = strconv.Atoi(f[0]); err != nil || r.move < 1 || r.move > platform.MaxRerouteMoves {
		return bad("no move number")
	}
	if r.to = f[1]; !batchrules.ValidInstanceType(r.to) {
		return bad("no instance type")
	}
	p, err := strconv.ParseInt(f[2], 10, 32)
	if err != nil || p < 0 || p > platform.MaxSchedulingPriority {
		return bad("no scheduling priority")
	}
	r.priority = int32(p)
	if r.at, err = strconv.ParseInt(f[3], 10, 64); err != nil || r.at <= 0 {
		return bad("no time")
	}
	if r.tags = f[4]; len(r.tags) != tagSumHex {
		return bad("no tags sum")
	}
	if _, err := hex.DecodeString(r.tags); err != nil {
		return bad("no tags sum")
	}
	return r, nil
}

// carriedTags are the old job's tags its replacement carries: all but the
// decision, the old job's own lineage (the replacement gets its own) and
// who re-prioritized it (written after submission).
func carriedTags(tags map[string]string) map[string]string {
	out := maps.Clone(tags)
	if out == nil {
		out = map[string]string{}
	}
	for _, k := range contract.LineageTags() {
		delete(out, k)
	}
	delete(out, contract.TagReprioritizedBy)
	return out
}

// tagSum is tagSumHex hex digits of SHA-256 over tags, sorted by key, each
// key and value preceded by its length.
func tagSum(tags map[string]string) string {
	h := sha256.New()
	for _, k := range slices.Sorted(maps.Keys(tags)) {
		fmt.Fprintf(h, "%d:%s%d:%s", len(k), k, len(tags[k]), tags[k])
	}
	return hex.EncodeToString(h.Sum(nil))[:tagSumHex]
}

// request is the replacement's SubmitServiceJob request for the decision
// rec on the old job od: od's fixed fields (name, id, payload, share,
// retry strategy, timeout, preemption, tags at submission) with the
// payload's instance type, the priority and the move number of rec, a name
// and clientToken that derive from od's id and rec alone, and the lineage
// tags. It refuses a decision whose request cannot be the one decided (the
// carried tags changed since: someone tagged the old job) and one the door
// refuses, as the submission function would (doorRefusal).
func (x *run) request(j *job, od *batch.DescribeServiceJobOutput, rec record) (*batch.SubmitServiceJobInput, error) {
	id := aws.ToString(od.JobId)
	payload, err := withInstanceType(aws.ToString(od.ServiceRequestPayload), rec.to)
	if err != nil {
		return nil, err
	}
	if len(payload) > batchrules.MaxServiceRequestPayloadBytes {
		return nil, fmt.Errorf("serviceRequestPayload: %d bytes on %s, at most %d allowed", len(payload), rec.to, batchrules.MaxServiceRequestPayloadBytes)
	}
	if v := door.CheckPayload(x.r.cfg.Platform, x.r.cfg.Door, j.team.Name, j.class.Name, payload); v.Refused() {
		return nil, doorRefusal{v}
	}
	tags := carriedTags(od.Tags)
	if sum := tagSum(tags); sum != rec.tags {
		return nil, fmt.Errorf("tags: the job's tags changed since the move was decided (sum %s, recorded %s)", sum, rec.tags)
	}
	tags[contract.TagReroutedFrom] = id
	tags[contract.TagMoves] = strconv.Itoa(rec.move)
	if len(tags) > batchrules.MaxTags {
		return nil, fmt.Errorf("tags: %d with the lineage tags, at most %d allowed", len(tags), batchrules.MaxTags)
	}
	jobType := od.ServiceJobType
	if jobType == "" {
		jobType = types.ServiceJobTypeSagemakerTraining
	}
	return &batch.SubmitServiceJobInput{
		JobName:                 aws.String(ReplacementName(aws.ToString(od.JobName), id)),
		JobQueue:                aws.String(x.r.cfg.JobQueue),
		ServiceJobType:          jobType,
		ServiceRequestPayload:   aws.String(string(payload)),
		ClientToken:             aws.String(MoveToken(id, rec.decided())),
		SchedulingPriority:      aws.Int32(rec.priority),
		QuotaShareName:          od.QuotaShareName,
		ShareIdentifier:         od.ShareIdentifier,
		RetryStrategy:           od.RetryStrategy,
		TimeoutConfig:           od.TimeoutConfig,
		PreemptionConfiguration: od.PreemptionConfiguration,
		Tags:                    tags,
	}, nil
}

// doorRefusal is the door's refusal of a replacement: the problems the
// submission function would answer.
type doorRefusal struct{ v *door.Verdict }

func (e doorRefusal) Error() string { return "the door refuses the new job: " + e.v.Report() }

// move makes one planned move: it reads the job again (the plan may have
// read it from the cache), writes the decision on it if the job is still
// where the plan saw it, and converges the decision. A decision an earlier
// run wrote is converged as it stands, never decided again.
func (x *run) move(dc decision) {
	j := dc.j
	if !x.canTake() {
		x.refuse(metrics.RefusedRate, j, fmt.Sprintf("at most %d moves a minute (rerouting.maxMovesPerMinute)", x.r.cfg.Platform.Rerouting.MaxMovesPerMinute), nil)
		return
	}
	d, err := x.describe(j.id)
	if err != nil {
		if isThrottle(err) {
			x.halt(stopThrottled, err)
			x.sum.Deferred++
			return
		}
		x.refuse(metrics.RefusedSubmit, j, "describe the job before moving it failed", err)
		return
	}
	if d.Tags[contract.TagMove] != "" {
		x.converge(d)
		return
	}
	now := x.r.cfg.Now().UnixMilli()
	f := x.read(d, now)
	switch {
	case f == nil, j.failed && d.Status != types.ServiceJobStatusFailed, !j.failed && !pendingStatuses[d.Status]:
		return // started, ended, or no longer readable: nothing to move
	case f.instanceType != j.instanceType || f.instances != j.instances || f.moves != j.moves || f.class.Name != j.class.Name ||
		f.class.Reroute == nil || !j.failed && now-f.since < int64(f.class.Reroute.AfterSeconds)*1000:
		x.sum.Skipped++
		return
	}
	rec := record{move: j.moves + 1, to: dc.to, priority: aws.ToInt32(d.SchedulingPriority), at: x.r.cfg.Now().Unix(), tags: tagSum(carriedTags(d.Tags))}
	if len(d.Tags) >= batchrules.MaxTags {
		x.refuse(metrics.RefusedRequest, j, "the job has no room left for the decision's tag", fmt.Errorf("tags: %d, at most %d allowed", len(d.Tags)+1, batchrules.MaxTags))
		return
	}
	if _, err := x.request(j, d, rec); err != nil {
		// Decided once: the job is not planned again.
		x.close(j, d, rec, err)
		return
	}
	// The decision is durable before anything is submitted. The cache
	// forgets the job either way: a lost answer may have written it.
	err = x.tag(aws.ToString(d.JobArn), map[string]string{contract.TagMove: rec.String(), contract.TagPlatform: x.r.cfg.Platform.Name})
	x.r.forget(j.id)
	if err != nil {
		if isThrottle(err) {
			x.halt(stopThrottled, err)
			x.sum.Deferred++
			return
		}
		x.refuse(metrics.RefusedSubmit, j, "record the decision on the job failed; the next run decides again", err)
		return
	}
	d.Tags = maps.Clone(d.Tags)
	d.Tags[contract.TagMove] = rec.String()
	x.converge(d)
}

// convergeAll converges the decisions the descriptions ds show: each job
// carrying one, and the old job of each replacement while the old job
// lives (its decision is not finished: this instance's cache may predate
// it). Every job involved is marked busy: this run does not plan it.
func (x *run) convergeAll(ds []*batch.DescribeServiceJobOutput, busy map[string]bool) {
	name := x.r.cfg.Platform.Name
	alive := map[string]bool{} // old jobs converged this run: whether each still lives
	for _, d := range ds {
		id := aws.ToString(d.JobId)
		if busy[id] || d.Tags[contract.TagPlatform] != name {
			continue
		}
		if x.late() {
			return
		}
		if d.Tags[contract.TagMove] != "" {
			busy[id] = true
			fresh, err := x.describe(id)
			if err != nil {
				x.readFailed(id, err)
			} else {
				alive[id] = x.converge(fresh)
			}
		} else if from := d.Tags[contract.TagReroutedFrom]; from != "" {
			if live, done := alive[from]; done {
				busy[id] = busy[id] || live
				continue
			}
			od, err := x.describe(from)
			switch {
			case err != nil && batchsdk.IsNotFound(err):
				// Batch no longer holds it: long ended.
			case err != nil:
				busy[id] = true // perhaps its old job lives: it does not move this run
				x.readFailed(from, err)
			case isLive(od.Status):
				busy[id] = true // a replacement never moves while its old job lives
				if od.Tags[contract.TagMove] != "" && od.Tags[contract.TagPlatform] == name {
					busy[from] = true
					alive[from] = x.converge(od)
				}
			}
		}
		if x.stop != "" {
			return
		}
	}
}

// readFailed notes a description that failed: the run stops if Batch
// throttles.
func (x *run) readFailed(id string, err error) {
	if isThrottle(err) {
		x.halt(stopThrottled, err)
		return
	}
	x.r.log.Warn("describe job failed; it is read again next run", "jobId", id, "error", err)
}

// converge moves the world one step toward the decision recorded on od,
// the old job as Batch describes it now:
//
//   - the replacement is looked for (find); if there is none and the old
//     job still waits (or Batch ended it for capacity before it started),
//     the decision's request is submitted — unless the decision is older
//     than Config.DecisionTrust, when Batch is not trusted to remember its
//     clientToken any more: that pages (SUBMIT) instead;
//   - while the old job waits, it is terminated: the move is done;
//   - if it started (or ended otherwise) first, the replacement is ended
//     while it waits (STARTED), or both are reported (BOTH_STARTED);
//   - a step found done does nothing.
//
// It reports whether the old job may still live when it returns.
func (x *run) converge(od *batch.DescribeServiceJobOutput) (live bool) {
	cfg := x.r.cfg
	oldID := aws.ToString(od.JobId)
	now := cfg.Now()
	j := x.read(od, now.UnixMilli())
	if j == nil {
		if od.Tags[contract.TagPlatform] != cfg.Platform.Name {
			return isLive(od.Status)
		}
		// The platform no longer knows its class or team (the file
		// changed): the decision is still converged, the job named by its
		// tags.
		j = &job{id: oldID, name: aws.ToString(od.JobName), status: string(od.Status), instanceType: payloadType(od), since: now.UnixMilli()}
		j.class.Name, j.team.Name = od.Tags[contract.TagClass], batchrules.ShareOfJob(aws.ToString(od.QuotaShareName), aws.ToString(od.ShareIdentifier))
		j.moves = movesOf(od)
	}
	rec, err := parseRecord(od.Tags[contract.TagMove])
	if err == nil && rec.move != j.moves+1 {
		err = fmt.Errorf("%s: move %d recorded on a job whose lineage moved %d times", contract.TagMove, rec.move, j.moves)
	}
	if err != nil {
		x.refuse(metrics.RefusedRequest, j, "the recorded decision is unreadable; the job is left where it is", err)
		return isLive(od.Status)
	}
	payload, perr := withInstanceType(j.payload, rec.to)
	if perr != nil {
		x.refuse(metrics.RefusedRequest, j, "the new job's request is not one AWS Batch accepts", perr)
		return isLive(od.Status)
	}
	name := ReplacementName(j.name, oldID)
	found, err := x.find(oldID, name, rec.move, string(payload))
	if err != nil {
		if isThrottle(err) {
			x.halt(stopThrottled, err)
			x.sum.Deferred++
			return isLive(od.Status)
		}
		x.refuse(metrics.RefusedSubmit, j, "look for the replacement failed; the next run looks again", err)
		return isLive(od.Status)
	}
	reason := aws.ToString(od.StatusReason)
	waits := pendingStatuses[od.Status]
	carries := od.Status == types.ServiceJobStatusFailed && endedUnstarted(od) && !strings.HasPrefix(reason, contract.RerouteReasonPrefix)
	submitted := false
	if found == nil {
		if rec.refused || !waits && !carries {
			return isLive(od.Status) // closed, started or ended: nothing moves, the decision stays as it is
		}
		if found, err = x.submitDecided(j, od, rec, name, string(payload)); found == nil {
			return isLive(od.Status)
		}
		submitted = true
	}
	newID := aws.ToString(found.JobId)
	if waits {
		// Read the old job again right before ending it: it may have
		// started while the replacement was looked for or submitted.
		fresh, err := x.describe(oldID)
		if err != nil {
			if isThrottle(err) {
				x.halt(stopThrottled, err)
			}
			x.refuse(metrics.RefusedTerminate, j, "describe the old job before terminating it failed; the next run finishes the move", err, "newJobId", newID)
			return isLive(od.Status)
		}
		od, j.status = fresh, string(fresh.Status)
		reason = aws.ToString(od.StatusReason)
		waits = pendingStatuses[od.Status]
		carries = od.Status == types.ServiceJobStatusFailed && endedUnstarted(od) && !strings.HasPrefix(reason, contract.RerouteReasonPrefix)
	}
	switch {
	case waits:
		if !isLive(found.Status) {
			x.sum.Skipped++
			x.r.log.Info("replacement already ended; the old job stays", "jobId", oldID, "newJobId", newID, "newStatus", string(found.Status))
			return isLive(od.Status)
		}
		if err := x.terminate(oldID, contract.ReroutedReason(newID, rec.to)); err != nil {
			if isThrottle(err) {
				x.halt(stopThrottled, err)
			}
			x.refuse(metrics.RefusedTerminate, j, "terminate the old job failed; the next run finishes the move", err, "newJobId", newID)
			return isLive(od.Status)
		}
		x.count(j, rec.to)
		x.r.log.Info("rerouted", "jobId", oldID, "newJobId", newID, "jobName", j.name, "newJobName", name,
			"class", j.class.Name, "team", j.team.Name, "from", j.instanceType, "to", rec.to, "move", rec.move,
			"schedulingPriority", rec.priority, "waitedSeconds", (now.UnixMilli()-j.since)/1000, "submitted", submitted)
		return false
	case carries:
		if submitted {
			x.count(j, rec.to)
			x.r.log.Info("resubmitted", "jobId", oldID, "newJobId", newID, "jobName", j.name, "newJobName", name,
				"class", j.class.Name, "team", j.team.Name, "from", j.instanceType, "to", rec.to, "move", rec.move,
				"schedulingPriority", rec.priority, "statusReason", contract.Cut(reason, contract.MaxShownChars))
		}
	case strings.HasPrefix(reason, contract.ReroutedReasonPrefix):
		// Terminated by an earlier run (its answer may have been lost).
	default:
		x.abandon(j, found)
	}
	return isLive(od.Status)
}

// submitDecided submits the request of the decision rec on od and returns
// the replacement (looked for again after a failed submission: the answer
// may be lost, the job made), or nil when there is none, the refusal
// counted.
func (x *run) submitDecided(j *job, od *batch.DescribeServiceJobOutput, rec record, name, payload string) (*batch.DescribeServiceJobOutput, error) {
	cfg := x.r.cfg
	in, err := x.request(j, od, rec)
	if err != nil {
		x.close(j, od, rec, err)
		return nil, nil
	}
	if age := time.Duration(cfg.Now().Unix()-rec.at) * time.Second; age > cfg.DecisionTrust {
		x.refuse(metrics.RefusedSubmit, j, "the decision is older than AWS Batch is trusted to remember its clientToken; it is not submitted again: look for its replacement by hand",
			nil, "decidedSecondsAgo", int64(age/time.Second), "decision", rec.String())
		return nil, nil
	}
	if !x.take() {
		x.refuse(metrics.RefusedRate, j, fmt.Sprintf("at most %d moves a minute (rerouting.maxMovesPerMinute)", cfg.Platform.Rerouting.MaxMovesPerMinute), nil)
		return nil, nil
	}
	out, err := x.submit(in)
	if err == nil {
		return &batch.DescribeServiceJobOutput{JobId: out.JobId, Status: types.ServiceJobStatusSubmitted}, nil
	}
	if d := x.relook(aws.ToString(od.JobId), name, rec.move, payload, err); d != nil {
		return d, nil
	}
	if isThrottle(err) {
		x.halt(stopThrottled, err)
	}
	x.refuse(metrics.RefusedSubmit, j, "AWS Batch did not take the new job; the next run sends the same request", err)
	return nil, err
}

// close closes the decision rec on od, whose request cannot be sent
// (why): it writes the record marked refused on the job, so that no later
// run submits it or plans the job again, and counts REQUEST. The job stays
// where it is. If the write fails, the next run closes it again.
func (x *run) close(j *job, od *batch.DescribeServiceJobOutput, rec record, why error) {
	rec.refused = true
	x.refuse(metrics.RefusedRequest, j, "the new job's request cannot be sent; the job stays where it is and is not moved again", why, "decision", rec.String())
	err := x.tag(aws.ToString(od.JobArn), map[string]string{contract.TagMove: rec.String(), contract.TagPlatform: x.r.cfg.Platform.Name})
	x.r.forget(j.id)
	if err != nil {
		if isThrottle(err) {
			x.halt(stopThrottled, err)
		}
		x.r.log.Warn("record the closed decision failed; the next run closes it again", "jobId", j.id, "error", err)
	}
}

// abandon ends the replacement of old, which started (or ended) before it
// could be terminated, while the replacement waits; if it has started too,
// both run, which pages.
func (x *run) abandon(old *job, nd *batch.DescribeServiceJobOutput) {
	newID := aws.ToString(nd.JobId)
	// Read it again right before ending it: it may have started since.
	nd, err := x.describe(newID)
	if err != nil {
		if isThrottle(err) {
			x.halt(stopThrottled, err)
		}
		x.refuse(metrics.RefusedTerminate, old, "describe the replacement before terminating it failed", err, "newJobId", newID)
		return
	}
	switch {
	case pendingStatuses[nd.Status]:
		if err := x.terminate(newID, contract.RerouteAbandonedReason(old.id, old.status)); err != nil {
			if isThrottle(err) {
				x.halt(stopThrottled, err)
			}
			x.refuse(metrics.RefusedTerminate, old, "terminate the abandoned replacement failed; the next run tries again", err)
			return
		}
		x.refuse(metrics.RefusedStarted, old, "the old job started before it was terminated: its replacement is terminated", nil, "newJobId", newID, "status", old.status)
	case isLive(nd.Status):
		x.refuse(metrics.RefusedBothStarted, old, "the old job and its replacement have both started: both are left running", nil, "newJobId", newID, "status", old.status, "newStatus", string(nd.Status))
	}
}

// movesOf is the lineage's move count a job's tags hold (0 for none;
// platform.MaxRerouteMoves, never moved again, for an unreadable one).
func movesOf(d *batch.DescribeServiceJobOutput) int {
	v, has := d.Tags[contract.TagMoves]
	if !has {
		return 0
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return platform.MaxRerouteMoves
	}
	return n
}

// maxLookupPages bounds the pages of same-named jobs read when looking for
// a replacement.
const maxLookupPages = 5

// find returns the replacement of the decided move number move of oldID:
// a job named name whose lineage tags (set only by the re-router) say it
// replaced oldID as that move, of this platform, carrying the decided
// payload; a live one first. A job that claims the lineage with another
// payload is not the re-router's, and is ignored.
func (x *run) find(oldID, name string, move int, payload string) (*batch.DescribeServiceJobOutput, error) {
	in := &batch.ListServiceJobsInput{
		JobQueue: aws.String(x.r.cfg.JobQueue),
		Filters:  []types.KeyValuesPair{{Name: aws.String("JOB_NAME"), Values: []string{name}}},
	}
	var ended *batch.DescribeServiceJobOutput
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
			if d.Tags[contract.TagReroutedFrom] != oldID || d.Tags[contract.TagMoves] != strconv.Itoa(move) ||
				d.Tags[contract.TagPlatform] != x.r.cfg.Platform.Name || aws.ToString(d.ServiceRequestPayload) != payload {
				continue
			}
			if isLive(d.Status) {
				return d, nil
			}
			ended = d
		}
		if out.NextToken == nil {
			break
		}
		in.NextToken = out.NextToken
	}
	return ended, nil
}

// relook looks for the replacement a failed submission may have created:
// up to len(RelookDelays) times after a refusal, once after anything else.
func (x *run) relook(oldID, name string, move int, payload string, submitErr error) *batch.DescribeServiceJobOutput {
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
		found, err := x.find(oldID, name, move, payload)
		if err == nil && found != nil {
			x.r.log.Info("submission failed but the replacement exists", "jobId", oldID, "newJobId", aws.ToString(found.JobId), "error", submitErr)
			return found
		}
	}
	return nil
}

// forget drops a job's cached description.
func (r *Rerouter) forget(id string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.cache, id)
}
