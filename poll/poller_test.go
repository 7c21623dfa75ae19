package poll_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-lambda-go/lambda/messages"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/batch"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/trainq/trainq/internal/batchtest"
	"github.com/trainq/trainq/metrics"
	"github.com/trainq/trainq/metrics/emftest"
	"github.com/trainq/trainq/platform"
	"github.com/trainq/trainq/poll"
)

const (
	queueName = "trainq-training"
	queueARN  = "arn:aws:batch:us-east-1:123456789012:job-queue/trainq-training"
)

func fixedClock() time.Time { return pollClock }

func merge(ms ...map[string][]float64) map[string][]float64 {
	out := map[string][]float64{}
	for _, m := range ms {
		for k, v := range m {
			out[k] = append(out[k], v...)
		}
	}
	return out
}

// t0 is 2026-11-30T16:00:00Z, the origin of the timestamps in testdata/batch.
var t0 = time.UnixMilli(1796054400000).UTC()

// pollClock is when the poller runs: 17:30:00, 90 minutes after t0.
var pollClock = t0.Add(90 * time.Minute)

// TestMain checks every request the poller sent to the fake Batch
// endpoint against AWS's Batch service model (batchtest.CheckModels).
func TestMain(m *testing.M) {
	batchtest.RecordAll()
	code := m.Run()
	if batchtest.CheckModels() != nil && code == 0 {
		code = 1
	}
	os.Exit(code)
}

// fakeBatch is the fake Batch endpoint answering from testdata/batch: the
// snapshot, two pages of runnable jobs (the second for nextToken page-2)
// and each job's description.
type fakeBatch struct{ *batchtest.Server }

func newFakeBatch(t *testing.T) *fakeBatch {
	f := &fakeBatch{batchtest.New(0)}
	f.SetLabel(t.Name())
	t.Cleanup(f.Close)
	fixture := func(file string) (int, any) {
		data, err := os.ReadFile(filepath.Join("testdata", "batch", file))
		if err != nil {
			return batchtest.Error(http.StatusBadRequest, "ClientException", err.Error())
		}
		return http.StatusOK, json.RawMessage(data)
	}
	f.Handle("GetJobQueueSnapshot", func([]byte) (int, any) { return fixture("snapshot.json") })
	f.Handle("ListServiceJobs", func(body []byte) (int, any) {
		var in struct{ NextToken string }
		if json.Unmarshal(body, &in) == nil && in.NextToken == "page-2" {
			return fixture("runnable-page2.json")
		}
		return fixture("runnable-page1.json")
	})
	f.Handle("DescribeServiceJob", func(body []byte) (int, any) {
		var in struct{ JobID string }
		if err := json.Unmarshal(body, &in); err != nil {
			return batchtest.Error(http.StatusBadRequest, "ClientException", err.Error())
		}
		return fixture("describe-" + in.JobID + ".json")
	})
	return f
}

// refuse makes every later call of op fail with status and a
// ClientException, as a missing permission does.
func (f *fakeBatch) refuse(op string, status int) {
	f.Handle(op, func([]byte) (int, any) {
		return batchtest.Error(status, "ClientException", "User is not authorized to perform this action")
	})
}

// calls returns the bodies of the requests received for op.
func (f *fakeBatch) calls(op string) []map[string]any {
	var out []map[string]any
	for _, c := range f.Calls(op) {
		var body map[string]any
		if err := json.Unmarshal(c.Body, &body); err != nil {
			panic(fmt.Sprintf("%s: request body is not JSON: %s", op, c.Body))
		}
		out = append(out, body)
	}
	return out
}

// batchClient builds the real SDK client the way bin/poller does, pointed at
// the fake through AWS_ENDPOINT_URL_BATCH, with dummy credentials.
func batchClient(t *testing.T, f *fakeBatch) *batch.Client {
	t.Setenv("AWS_ENDPOINT_URL_BATCH", f.URL)
	t.Setenv("AWS_ACCESS_KEY_ID", "test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "test")
	t.Setenv("AWS_REGION", "us-east-1")
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(t.TempDir(), "none"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(t.TempDir(), "none"))
	cfg, err := config.LoadDefaultConfig(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return batch.NewFromConfig(cfg)
}

func newPoller(t *testing.T, f *fakeBatch, now *time.Time, out io.Writer) *poll.Poller {
	t.Helper()
	p, err := poll.NewPoller(poll.PollerConfig{
		Platform: platform.Default(), Queue: queueARN, Batch: batchClient(t, f),
		Now: func() time.Time { return *now }, Out: out,
	})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func key(name string, dims ...string) string {
	// dims are "Name=value" pairs, given in sorted order.
	return "trainq/" + name + "{" + strings.Join(dims, ",") + "}"
}

const qd = "Queue=" + queueName

func backlog(n, oldest float64, dims ...string) map[string][]float64 {
	return map[string][]float64{
		key("RunnableJobs", dims...):          {n},
		key("OldestRunnableSeconds", dims...): {oldest},
	}
}

// wantBacklog is the backlog of testdata/batch at 17:30:00:
//
//	r1 production search-ranking  since 17:20  600 s  2 × p5  (ranking uses 30 of its 24 p5: 32 > 24, full)
//	r2 sweep      search-ranking  since 16:00  5400 s 1 × p4d (ranking uses 5 of 30 p4d: 6 ≤ 30, room)
//	r3 research   search-research since 17:00  1800 s 4 × p5  (research uses 6 of 16 p5: 10 ≤ 16, room)
//	r4 sweep      search-research since 17:10  1200 s 8 × p4d (created 16:10, preempted 17:10; 10 + 8 ≤ 30, room)
//	r5 no class   search-research since 17:25  300 s  1 × p5  (priority 700 is in no band)
func wantBacklog() map[string][]float64 {
	rk, rs := "Team=search-ranking", "Team=search-research"
	p5, p4 := "InstanceType=ml.p5.48xlarge", "InstanceType=ml.p4d.24xlarge"
	return merge(
		backlog(5, 5400, qd),
		map[string][]float64{key("RunnableUndescribed", qd): {0}},
		backlog(3, 1800, p5, qd), backlog(2, 5400, p4, qd),
		backlog(0, 0, "Class=production", qd, "Quota=ROOM"), backlog(1, 600, "Class=production", qd, "Quota=FULL"),
		backlog(1, 1800, "Class=research", qd, "Quota=ROOM"), backlog(0, 0, "Class=research", qd, "Quota=FULL"),
		backlog(2, 5400, "Class=sweep", qd, "Quota=ROOM"), backlog(0, 0, "Class=sweep", qd, "Quota=FULL"),
		backlog(1, 600, "Class=production", qd), backlog(1, 1800, "Class=research", qd), backlog(2, 5400, "Class=sweep", qd),
		backlog(1, 600, "Class=production", qd, rk), backlog(0, 0, "Class=production", qd, rs),
		backlog(0, 0, "Class=research", qd, rk), backlog(1, 1800, "Class=research", qd, rs),
		backlog(1, 5400, "Class=sweep", qd, rk), backlog(1, 1200, "Class=sweep", qd, rs),
		backlog(2, 5400, qd, rk), backlog(3, 1800, qd, rs),
	)
}

// wantCapacity is the capacity of testdata/batch/snapshot.json against the
// default platform (pools p5 40, p4d 60; quotas search-ranking p5 24 + p4d 30,
// search-research p5 16 + p4d 30).
func wantCapacity() map[string][]float64 {
	p5, p4 := "InstanceType=ml.p5.48xlarge", "InstanceType=ml.p4d.24xlarge"
	rk, rs := "Team=search-ranking", "Team=search-research"
	return map[string][]float64{
		key("InstancesInUse", qd):          {51}, // 36 + 15
		key("CapacityUtilization", qd):     {51}, // 100 * 51 / (40 + 60)
		key("InstancesInUse", p5, qd):      {36}, // totalCapacityUsage
		key("CapacityUtilization", p5, qd): {90}, // 100 * 36 / 40
		key("InstancesInUse", p4, qd):      {15},
		key("CapacityUtilization", p4, qd): {25}, // 100 * 15 / 60

		key("InstancesInUse", qd, rk):          {35},              // 30 + 5
		key("CapacityUtilization", qd, rk):     {100 * 35.0 / 54}, // quota 24 + 30
		key("BorrowedInstances", qd, rk):       {6},               // p5 30 - 24
		key("InstancesInUse", p5, qd, rk):      {30},
		key("CapacityUtilization", p5, qd, rk): {125}, // 100 * 30 / 24
		key("BorrowedInstances", p5, qd, rk):   {6},
		key("InstancesInUse", p4, qd, rk):      {5},
		key("CapacityUtilization", p4, qd, rk): {100 * 5.0 / 30},
		key("BorrowedInstances", p4, qd, rk):   {0},

		key("InstancesInUse", qd, rs):          {16},              // 6 + 10
		key("CapacityUtilization", qd, rs):     {100 * 16.0 / 46}, // quota 16 + 30
		key("BorrowedInstances", qd, rs):       {0},
		key("InstancesInUse", p5, qd, rs):      {6},
		key("CapacityUtilization", p5, qd, rs): {37.5}, // 100 * 6 / 16
		key("BorrowedInstances", p5, qd, rs):   {0},
		key("InstancesInUse", p4, qd, rs):      {10},
		key("CapacityUtilization", p4, qd, rs): {100 * 10.0 / 30},
		key("BorrowedInstances", p4, qd, rs):   {0},
	}
}

var approx = cmpopts.EquateApprox(0, 1e-9)

func TestPollerWritesBacklogAndCapacity(t *testing.T) {
	f := newFakeBatch(t)
	now := pollClock
	var out bytes.Buffer
	s, err := newPoller(t, f, &now, &out).Poll(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ds := emftest.Lines(t, out.Bytes())
	if diff := cmp.Diff(merge(wantBacklog(), wantCapacity()), emftest.Values(ds), approx); diff != "" {
		t.Errorf("data points (-want +got):\n%s", diff)
	}
	for _, d := range ds {
		if !d.Time.Equal(pollClock) {
			t.Errorf("%s stamped %v, want %v", d.Key(), d.Time, pollClock)
		}
	}
	if s.Runnable != 5 {
		t.Errorf("summary says %d runnable jobs, want 5", s.Runnable)
	}
}

func TestPollerPagesThroughRunnableJobs(t *testing.T) {
	f := newFakeBatch(t)
	now := pollClock
	if _, err := newPoller(t, f, &now, io.Discard).Poll(context.Background()); err != nil {
		t.Fatal(err)
	}
	got := f.calls("ListServiceJobs")
	want := []map[string]any{
		{"jobQueue": queueARN, "jobStatus": "RUNNABLE", "maxResults": 100.0},
		{"jobQueue": queueARN, "jobStatus": "RUNNABLE", "maxResults": 100.0, "nextToken": "page-2"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ListServiceJobs requests (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]map[string]any{{"jobQueue": queueARN}}, f.calls("GetJobQueueSnapshot")); diff != "" {
		t.Errorf("GetJobQueueSnapshot requests (-want +got):\n%s", diff)
	}
}

func TestPollerDescribesEachRunnableJobOnce(t *testing.T) {
	f := newFakeBatch(t)
	now := pollClock
	p := newPoller(t, f, &now, io.Discard)
	steps := []struct {
		name          string
		advance       time.Duration
		wantDescribes int
	}{
		{"the first run describes the 5 runnable jobs", 0, 5},
		{"a run a minute later remembers them", time.Minute, 5},
		// A job's class stays in its band and its request never changes.
		{"a run an hour later still remembers them", time.Hour, 5},
	}
	for _, st := range steps {
		now = now.Add(st.advance)
		if _, err := p.Poll(context.Background()); err != nil {
			t.Fatal(err)
		}
		if got := len(f.calls("DescribeServiceJob")); got != st.wantDescribes {
			t.Errorf("%s: %d DescribeServiceJob calls in all, want %d", st.name, got, st.wantDescribes)
		}
	}
}

// withoutQuota is m without the data points split by Quota.
func withoutQuota(m map[string][]float64) map[string][]float64 {
	out := map[string][]float64{}
	for k, v := range m {
		if !strings.Contains(k, "Quota=") {
			out[k] = v
		}
	}
	return out
}

func TestPollerReportsWhatItCouldReadWhenACallFails(t *testing.T) {
	tests := []struct {
		name    string
		failOp  string
		wantErr string
		want    map[string][]float64
	}{
		{
			// Without the capacity in use, whether a team has room is unknown.
			"a refused snapshot still yields the backlog, without the split by room in the quota", "GetJobQueueSnapshot",
			"get job queue snapshot", withoutQuota(wantBacklog()),
		},
		{
			"a refused job list still yields the capacity", "ListServiceJobs",
			"list runnable service jobs", wantCapacity(),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeBatch(t)
			f.refuse(tt.failOp, http.StatusBadRequest)
			now := pollClock
			var out bytes.Buffer
			_, err := newPoller(t, f, &now, &out).Poll(context.Background())
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), "ClientException") {
				t.Errorf("error %v, want one naming %q and the ClientException", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, emftest.Values(emftest.Lines(t, out.Bytes())), approx); diff != "" {
				t.Errorf("data points (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPollerFailsTheInvocationWhenDescribeIsRefused(t *testing.T) {
	f := newFakeBatch(t)
	f.refuse("DescribeServiceJob", http.StatusBadRequest)
	now := pollClock
	var out bytes.Buffer
	_, err := newPoller(t, f, &now, &out).Poll(context.Background())
	if err == nil || !strings.Contains(err.Error(), "describe service job") {
		t.Fatalf("error %v, want one naming describe service job", err)
	}
	got := emftest.Values(emftest.Lines(t, out.Bytes()))
	// Unclassified jobs still count for the queue and their teams.
	if diff := cmp.Diff(backlog(5, 5400, qd), map[string][]float64{
		key("RunnableJobs", qd): got[key("RunnableJobs", qd)], key("OldestRunnableSeconds", qd): got[key("OldestRunnableSeconds", qd)],
	}); diff != "" {
		t.Errorf("queue backlog (-want +got):\n%s", diff)
	}
}

// TestAFailedPollAnswersUpstreamError: a poll whose descriptions Batch
// refuses fails the invocation with errorType UpstreamError
// (contract.KindUpstream), not the name of a Go type.
func TestAFailedPollAnswersUpstreamError(t *testing.T) {
	f := newFakeBatch(t)
	f.refuse("DescribeServiceJob", http.StatusBadRequest)
	now := pollClock
	var out bytes.Buffer
	_, err := lambda.NewHandler(newPoller(t, f, &now, &out).Handle).Invoke(context.Background(), []byte(`{}`))
	var answer messages.InvokeResponse_Error
	if !errors.As(err, &answer) || answer.Type != "UpstreamError" || !strings.Contains(answer.Message, "describe service job") {
		t.Errorf("answer %#v, want errorType UpstreamError naming describe service job", err)
	}
}

func TestPollerRunsAsALambdaHandler(t *testing.T) {
	f := newFakeBatch(t)
	now := pollClock
	var out bytes.Buffer
	// An EventBridge Scheduler payload; the poller ignores it.
	payload := []byte(`{"version":"0","id":"x","detail-type":"Scheduled Event","source":"aws.events","detail":{}}`)
	resp, err := lambda.NewHandler(newPoller(t, f, &now, &out).Handle).Invoke(context.Background(), payload)
	if err != nil {
		t.Fatal(err)
	}
	var summary struct {
		RunnableJobs int `json:"runnableJobs"`
	}
	if err := json.Unmarshal(resp, &summary); err != nil || summary.RunnableJobs != 5 {
		t.Errorf("answer %s, want runnableJobs 5 (%v)", resp, err)
	}
	if len(emftest.Lines(t, out.Bytes())) == 0 {
		t.Error("no metrics written")
	}
}

// TestPollerEmitsEveryQueueMetricWithEverySet runs the poller once and checks
// that it publishes every metric of metrics.PollerMetrics under every
// dimension set it lists, and under no other. The observer's and the
// submission function's metrics are checked by their own tests.
func TestPollerEmitsEveryQueueMetricWithEverySet(t *testing.T) {
	f := newFakeBatch(t)
	now := pollClock
	var out bytes.Buffer
	if _, err := newPoller(t, f, &now, &out).Poll(context.Background()); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(emftest.DeclaredSets(metrics.PollerMetrics()), emftest.Sets(emftest.Lines(t, out.Bytes()))); diff != "" {
		t.Errorf("dimension sets (-declared +emitted):\n%s", diff)
	}
}

func TestNewPollerNamesWhatIsMissing(t *testing.T) {
	client := batchClient(t, newFakeBatch(t))
	tests := []struct {
		name     string
		cfg      poll.PollerConfig
		mentions string
	}{
		{"no platform", poll.PollerConfig{Batch: client, Now: fixedClock, Out: io.Discard}, "PollerConfig.Platform not set;"},
		{"no Batch client", poll.PollerConfig{Platform: platform.Default(), Now: fixedClock, Out: io.Discard}, "PollerConfig.Batch not set;"},
		{"no clock", poll.PollerConfig{Platform: platform.Default(), Batch: client, Out: io.Discard}, "PollerConfig.Now not set;"},
		{"no output", poll.PollerConfig{Platform: platform.Default(), Batch: client, Now: fixedClock}, "PollerConfig.Out not set;"},
		{"nothing at all", poll.PollerConfig{}, "PollerConfig.Platform, PollerConfig.Batch, PollerConfig.Now, PollerConfig.Out not set;"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := poll.NewPoller(tt.cfg)
			if err == nil || !strings.Contains(err.Error(), tt.mentions) {
				t.Errorf("error %v, want one saying %q", err, tt.mentions)
			}
		})
	}
}
