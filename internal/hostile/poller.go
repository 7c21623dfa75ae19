package hostile

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/trainq/trainq/internal/batchtest"
)

// PollerCase is one way AWS Batch can answer the poller oddly, and what
// the poller must still write.
type PollerCase struct {
	Name string
	// Setup makes the fake Batch endpoint answer so. It is called on a
	// fresh fake, after the well-behaved answers of Serve are installed; the
	// function it returns (if any) releases what it holds, before the fake
	// is closed.
	Setup func(s *batchtest.Server, now time.Time) (release func())
	// Want are data points that must be written (a subset of what is).
	Want map[string][]float64
	// Absent are data point keys that must not be written.
	Absent []string
	// Fails is true when the run must report an error (a call failed);
	// Mentions must then appear in the error or the log.
	Fails    bool
	Mentions []string
	// Hangs is true when a call of the case never answers: the run must end
	// within its deadline anyway.
	Hangs bool
}

// Serve installs the well-behaved answers of a queue: 36 ml.p5.48xlarge and
// 15 ml.p4d.24xlarge in use (30 and 5 of them by search-ranking), and three
// runnable jobs, one a page: r1 (production, search-ranking, created 20
// minutes before now), r2 (research, search-research, 10 minutes) and r3
// (sweep, search-research, 5 minutes).
func Serve(s *batchtest.Server, now time.Time) {
	s.Handle("GetJobQueueSnapshot", Answer(snapshot(`[{"capacityUnit":"ml.p5.48xlarge","quantity":36},{"capacityUnit":"ml.p4d.24xlarge","quantity":15}]`)))
	ServeJobs(s, now, [][]string{{"r1"}, {"r2"}, {"r3"}})
}

// snapshot is a GetJobQueueSnapshot answer with total as totalCapacityUsage.
func snapshot(total string) string {
	return `{"queueUtilization":{"lastUpdatedAt":1796059790000,"totalCapacityUsage":` + total + `,` +
		`"quotaShareUtilization":{"topCapacityUtilization":[` +
		`{"quotaShareName":"search-ranking","capacityUsage":[{"capacityUnit":"ml.p5.48xlarge","quantity":30},{"capacityUnit":"ml.p4d.24xlarge","quantity":5}]},` +
		`{"quotaShareName":"search-research","capacityUsage":[{"capacityUnit":"ml.p5.48xlarge","quantity":6},{"capacityUnit":"ml.p4d.24xlarge","quantity":10}]}]}}}`
}

// jobs are the runnable jobs Serve knows: share, priority and minutes
// runnable.
var jobs = map[string]struct {
	share    string
	priority int
	minutes  int
}{
	"r1": {"search-ranking", 950, 20}, "r2": {"search-research", 550, 10}, "r3": {"search-research", 150, 5},
}

// ServeJobs lists pages of runnable jobs (ids of Serve's jobs) and
// describes each.
func ServeJobs(s *batchtest.Server, now time.Time, pages [][]string) {
	s.Handle("ListServiceJobs", func(body []byte) (int, any) {
		var in struct {
			NextToken string `json:"nextToken"`
		}
		_ = json.Unmarshal(body, &in)
		page := 0
		fmt.Sscanf(in.NextToken, "page-%d", &page)
		if page >= len(pages) {
			return http.StatusOK, json.RawMessage(`{"jobSummaryList":[]}`)
		}
		var list []string
		for _, id := range pages[page] {
			list = append(list, summary(id, now))
		}
		next := ""
		if page+1 < len(pages) {
			next = fmt.Sprintf(`,"nextToken":"page-%d"`, page+1)
		}
		return http.StatusOK, json.RawMessage(`{"jobSummaryList":[` + strings.Join(list, ",") + `]` + next + `}`)
	})
	s.Handle("DescribeServiceJob", func(body []byte) (int, any) {
		var in struct {
			JobID string `json:"jobId"`
		}
		_ = json.Unmarshal(body, &in)
		j, ok := jobs[in.JobID]
		if !ok { // a production job of search-ranking that says nothing of its times
			return http.StatusOK, json.RawMessage(fmt.Sprintf(`{"jobId":%q,"jobName":"job","jobQueue":%q,"serviceJobType":"SAGEMAKER_TRAINING",`+
				`"status":"RUNNABLE","quotaShareName":"search-ranking","schedulingPriority":950,"attempts":[]}`, in.JobID, QueueARN))
		}
		created := now.Add(-time.Duration(j.minutes) * time.Minute).UnixMilli()
		return http.StatusOK, json.RawMessage(fmt.Sprintf(`{"jobArn":"arn:aws:batch:us-east-1:123456789012:service-job/%s","jobId":%q,"jobName":"job-%s",`+
			`"jobQueue":%q,"serviceJobType":"SAGEMAKER_TRAINING","status":"RUNNABLE","quotaShareName":%q,"schedulingPriority":%d,"createdAt":%d,"attempts":[]}`,
			in.JobID, in.JobID, in.JobID, QueueARN, j.share, j.priority, created))
	})
}

func summary(id string, now time.Time) string {
	j, ok := jobs[id]
	if !ok {
		return fmt.Sprintf(`{"jobId":%q,"jobName":"job","status":"RUNNABLE","quotaShareName":"search-ranking","createdAt":%d}`, id, now.Add(-time.Minute).UnixMilli())
	}
	return fmt.Sprintf(`{"jobArn":"arn:aws:batch:us-east-1:123456789012:service-job/%s","jobId":%q,"jobName":"job-%s","status":"RUNNABLE","quotaShareName":%q,"createdAt":%d}`,
		id, id, id, j.share, now.Add(-time.Duration(j.minutes)*time.Minute).UnixMilli())
}

// Answer is a handler answering body, verbatim, with 200.
func Answer(body string) batchtest.Handler {
	return func([]byte) (int, any) { return http.StatusOK, json.RawMessage(body) }
}

// The data points most cases check.
const (
	runnable = "trainq/RunnableJobs{Queue=" + QueueName + "}"
	oldest   = "trainq/OldestRunnableSeconds{Queue=" + QueueName + "}"
	inUse    = "trainq/InstancesInUse{Queue=" + QueueName + "}"
	p5InUse  = "trainq/InstancesInUse{InstanceType=ml.p5.48xlarge,Queue=" + QueueName + "}"
	p4InUse  = "trainq/InstancesInUse{InstanceType=ml.p4d.24xlarge,Queue=" + QueueName + "}"
	prodJobs = "trainq/RunnableJobs{Class=production,Queue=" + QueueName + "}"
)

// backlog is what Serve's runnable jobs give: 3 jobs, the oldest waiting 20
// minutes, one production.
var backlog = map[string][]float64{runnable: {3}, oldest: {1200}, prodJobs: {1}}

// PollerCases are the odd answers.
func PollerCases() []PollerCase {
	withTotal := func(total string) func(*batchtest.Server, time.Time) func() {
		return func(s *batchtest.Server, _ time.Time) func() {
			s.Handle("GetJobQueueSnapshot", Answer(snapshot(total)))
			return nil
		}
	}
	hang := func(op string, n int) func(*batchtest.Server, time.Time) func() {
		return func(s *batchtest.Server, _ time.Time) func() {
			release := make(chan struct{})
			for i := 0; i < n; i++ {
				s.Script(op, batchtest.Fault{Release: release, Status: http.StatusInternalServerError})
			}
			return func() { close(release) }
		}
	}
	answer := func(op, body string) func(*batchtest.Server, time.Time) func() {
		return func(s *batchtest.Server, _ time.Time) func() {
			s.Handle(op, Answer(body))
			return nil
		}
	}
	return []PollerCase{
		{
			Name: "well-behaved answers give backlog and capacity",
			Want: Merge(backlog, map[string][]float64{inUse: {51}, p5InUse: {36}, p4InUse: {15}}),
		},
		{
			Name:   "an empty capacityUnit is left out, the rest written",
			Setup:  withTotal(`[{"capacityUnit":"ml.p5.48xlarge","quantity":36},{"capacityUnit":"","quantity":7}]`),
			Want:   Merge(backlog, map[string][]float64{inUse: {36}, p5InUse: {36}}),
			Absent: []string{"trainq/InstancesInUse{InstanceType=,Queue=" + QueueName + "}"}, Mentions: []string{"totalCapacityUsage[1].capacityUnit"},
		},
		{
			Name:     "a non-ASCII capacityUnit is left out, the rest written",
			Setup:    withTotal(`[{"capacityUnit":"ml.p5.48xlarge","quantity":36},{"capacityUnit":"ml.p5.48xlargé","quantity":7}]`),
			Want:     Merge(backlog, map[string][]float64{inUse: {36}}),
			Mentions: []string{"totalCapacityUsage[1].capacityUnit"},
		},
		{
			Name:     "an over-long capacityUnit is left out, the rest written",
			Setup:    withTotal(`[{"capacityUnit":"ml.p5.48xlarge","quantity":36},{"capacityUnit":"ml.` + strings.Repeat("p", 2000) + `.x","quantity":7}]`),
			Want:     Merge(backlog, map[string][]float64{inUse: {36}}),
			Mentions: []string{"totalCapacityUsage[1].capacityUnit"},
		},
		{
			Name:     "quantities adding up to +Inf leave their type out, the rest written",
			Setup:    withTotal(`[{"capacityUnit":"ml.p5.48xlarge","quantity":36},{"capacityUnit":"ml.p4d.24xlarge","quantity":1e308},{"capacityUnit":"ml.p4d.24xlarge","quantity":1e308}]`),
			Want:     Merge(backlog, map[string][]float64{inUse: {36}, p5InUse: {36}, p4InUse: {0}}),
			Mentions: []string{"totalCapacityUsage[1].quantity 1e+308 is not a number of instances"},
		},
		{
			Name:     "quantities adding up beyond any pool leave their type out, the rest written",
			Setup:    withTotal(`[{"capacityUnit":"ml.p5.48xlarge","quantity":36},{"capacityUnit":"ml.p4d.24xlarge","quantity":900000},{"capacityUnit":"ml.p4d.24xlarge","quantity":900000}]`),
			Want:     Merge(backlog, map[string][]float64{inUse: {36}, p5InUse: {36}, p4InUse: {0}}),
			Mentions: []string{"totalCapacityUsage total of ml.p4d.24xlarge 1.8e+06 is not a number of instances"},
		},
		{
			Name:     "a negative quantity is never published as negative instances",
			Setup:    withTotal(`[{"capacityUnit":"ml.p5.48xlarge","quantity":36},{"capacityUnit":"ml.p4d.24xlarge","quantity":-15}]`),
			Want:     Merge(backlog, map[string][]float64{inUse: {36}, p4InUse: {0}}),
			Mentions: []string{"-15 is not a number of instances"},
		},
		{
			Name:   "a hung snapshot costs the capacity only: the backlog is written",
			Setup:  hang("GetJobQueueSnapshot", 5),
			Want:   backlog,
			Absent: []string{inUse}, Fails: true, Hangs: true, Mentions: []string{"get job queue snapshot"},
		},
		{
			Name:   "a hung job list costs the backlog only: the capacity is written",
			Setup:  hang("ListServiceJobs", 5),
			Want:   map[string][]float64{inUse: {51}},
			Absent: []string{runnable}, Fails: true, Hangs: true, Mentions: []string{"list runnable service jobs"},
		},
		{
			Name:  "a hung describe costs that job's class only",
			Setup: hang("DescribeServiceJob", 15),
			Want:  map[string][]float64{runnable: {3}, oldest: {1200}, inUse: {51}, prodJobs: {0}},
			Fails: true, Hangs: true, Mentions: []string{"describe service job"},
		},
		{
			Name: "a job listed on two pages counts once",
			Setup: func(s *batchtest.Server, now time.Time) func() {
				ServeJobs(s, now, [][]string{{"r1", "r2"}, {"r2", "r3"}, {"r1"}})
				return nil
			},
			Want: Merge(backlog, map[string][]float64{inUse: {51}}),
		},
		{
			Name: "a creation time in seconds is not a wait of fifty years",
			Setup: func(s *batchtest.Server, now time.Time) func() {
				s.Handle("ListServiceJobs", Answer(fmt.Sprintf(`{"jobSummaryList":[{"jobId":"x1","jobName":"j","status":"RUNNABLE","quotaShareName":"search-ranking","createdAt":%d}]}`, now.Add(-time.Hour).Unix())))
				return nil
			},
			Want: map[string][]float64{runnable: {1}, oldest: {0}, inUse: {51}},
		},
		{
			Name: "a 100 kB job id and share are cut in the log, and the job counted",
			Setup: func(s *batchtest.Server, now time.Time) func() {
				s.Handle("ListServiceJobs", Answer(fmt.Sprintf(`{"jobSummaryList":[{"jobId":"%s","jobName":"j","status":"RUNNABLE","quotaShareName":"%s","createdAt":%d}]}`,
					strings.Repeat("i", 100_000), strings.Repeat("é", 100_000), now.Add(-time.Minute).UnixMilli())))
				return nil
			},
			Want: map[string][]float64{runnable: {1}, inUse: {51}}, Mentions: []string{"not described"},
		},
		{
			Name:  "a snapshot that is not JSON costs the capacity only",
			Setup: answer("GetJobQueueSnapshot", `{"queueUtilization":`+strings.Repeat("[", 5000)),
			Want:  backlog, Absent: []string{inUse}, Mentions: []string{"carries no queueUtilization"},
		},
		{
			Name:  "a snapshot of the wrong types costs the capacity only",
			Setup: answer("GetJobQueueSnapshot", `{"queueUtilization":{"totalCapacityUsage":"lots"}}`),
			Want:  backlog, Absent: []string{inUse}, Fails: true,
		},
	}
}

// CheckPoller checks what the poller wrote (out: its EMF and log lines) and
// answered (err) for c.
func CheckPoller(t testing.TB, c PollerCase, out []byte, err error) {
	t.Helper()
	_, points := MetricLines(t, out)
	got := map[string][]float64{}
	for k := range c.Want {
		if v, ok := points[k]; ok {
			got[k] = v
		}
	}
	// Ages may differ by the seconds a run under the emulator takes.
	if diff := cmp.Diff(c.Want, got, cmpopts.EquateApprox(0, 5)); diff != "" {
		t.Errorf("data points (-want +got):\n%s", diff)
	}
	for _, k := range c.Absent {
		if _, ok := points[k]; ok {
			t.Errorf("%s written: %v", k, points[k])
		}
	}
	for k, v := range points {
		for _, x := range v {
			if x < 0 {
				t.Errorf("%s = %v: negative", k, x)
			}
		}
	}
	if c.Fails != (err != nil) {
		t.Errorf("error %v, want an error: %v", err, c.Fails)
	}
	all := string(out)
	if err != nil {
		all += err.Error()
	}
	for _, m := range c.Mentions {
		if !strings.Contains(all, m) {
			t.Errorf("neither the log nor the error mentions %q:\n%.3000s", m, all)
		}
	}
}
