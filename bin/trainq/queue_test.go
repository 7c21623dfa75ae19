package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/lambda/messages"
	"github.com/aws/aws-lambda-go/lambdacontext"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/internal/batchtest"
	"github.com/trainq/trainq/internal/ststest"
	"github.com/trainq/trainq/platform"
	"github.com/trainq/trainq/submit"
)

// The tests of trainq status and trainq queue run the built binary against
// a fake Lambda endpoint whose function is the real submission handler
// (package submit; only this test links it, never the binary) over the
// local Batch endpoint. The scenario is the README's.

const (
	demoQueue = "arn:aws:batch:us-east-1:123456789012:job-queue/trainq-training"
	demoRole  = "arn:aws:iam::123456789012:role/trainq-sagemaker"
)

// demoNow is the function's clock.
var demoNow = time.Date(2026, 12, 1, 16, 0, 0, 0, time.UTC)

// fakeFunction serves Lambda's Invoke (POST
// /2015-03-31/functions/NAME/invocations?Qualifier=ALIAS) with h, as Lambda
// would: the alias in the invoked function ARN, a function error as
// X-Amz-Function-Error with errorType and errorMessage.
func fakeFunction(t *testing.T, h *submit.Handler) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name, ok := strings.CutPrefix(r.URL.Path, "/2015-03-31/functions/")
		name, ok2 := strings.CutSuffix(name, "/invocations")
		if !ok || !ok2 || r.Method != http.MethodPost {
			http.Error(w, "not an Invoke", http.StatusNotFound)
			return
		}
		arn := "arn:aws:lambda:us-east-1:123456789012:function:" + name
		if q := r.URL.Query().Get("Qualifier"); q != "" {
			arn += ":" + q
		}
		body, _ := io.ReadAll(r.Body)
		ctx := lambdacontext.NewContext(context.Background(), &lambdacontext.LambdaContext{AwsRequestID: "req", InvokedFunctionArn: arn})
		out, err := h.Invoke(ctx, body)
		if err != nil {
			var fe messages.InvokeResponse_Error
			if !errors.As(err, &fe) {
				fe = messages.InvokeResponse_Error{Type: "Unhandled", Message: err.Error()}
			}
			w.Header().Set("X-Amz-Function-Error", "Unhandled")
			_ = json.NewEncoder(w).Encode(map[string]string{"errorType": fe.Type, "errorMessage": fe.Message})
			return
		}
		_, _ = w.Write(out)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// demoFunction is the submission handler over fake, served as Lambda
// would, and the environment that points the CLI at it: the CLI's keys
// (AWS_ACCESS_KEY_ID=test, as trainqWith sets them) are a session of the
// platform's operator for the loopback STS that verifies its signatures.
func demoFunction(t *testing.T, fake *batchtest.Server, hist submit.HistorySource) []string {
	t.Helper()
	return operatorFunction(t, submit.Config{Platform: platform.Default(), JobQueue: demoQueue, ExecutionRoleARN: demoRole,
		Batch: submit.NewBatchClient(aws.Config{Region: "us-east-1", Credentials: credentials.NewStaticCredentialsProvider("test", "test", ""),
			BaseEndpoint: aws.String(fake.URL)}, submit.DefaultRetryPolicy),
		Now: func() time.Time { return demoNow }, History: hist})
}

// operatorFunction is the submission handler of cfg served as Lambda would,
// with a loopback STS that knows the CLI's keys as a session of the
// platform's operator, and the environment that points the CLI at both.
func operatorFunction(t *testing.T, cfg submit.Config) []string {
	t.Helper()
	sts := ststest.New("us-east-1")
	t.Cleanup(sts.Close)
	sts.Add(ststest.Principal{AccessKey: "test", Secret: "test", ARN: "arn:aws:sts::123456789012:assumed-role/trainq-operator/cli"})
	cfg.Identity = &submit.STSVerifier{Endpoint: sts.URL}
	cfg.Operators = []string{ststest.OperatorRole}
	h, err := submit.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return []string{"AWS_ENDPOINT_URL_LAMBDA=" + fakeFunction(t, h), contract.EnvSTSEndpoint + "=" + sts.URL}
}

// demoJob adds a job of the default platform's team and class, asking
// instances ml.p5.48xlarge, created and started the given time before
// demoNow (started 0: not started). Its limit is its class's, as the
// submitter sets it.
func demoJob(t *testing.T, fake *batchtest.Server, name, team, class string, priority, instances int, status string, created, started time.Duration) batchtest.Job {
	t.Helper()
	c, ok := platform.Default().Class(class)
	if !ok {
		t.Fatalf("no class %s", class)
	}
	sp := c.SchedulingPriority(priority)
	j := batchtest.Job{Status: status, CreatedAt: demoNow.Add(-created).UnixMilli(), Request: batchtest.SubmitRequest{
		JobName: name, JobQueue: demoQueue, SchedulingPriority: &sp, QuotaShareName: aws.String(team),
		ServiceRequestPayload: fmt.Sprintf(`{"ResourceConfig":{"InstanceType":"ml.p5.48xlarge","InstanceCount":%d,"VolumeSizeInGB":100}}`, instances),
		TimeoutConfig:         &batchtest.TimeoutConfig{AttemptDurationSeconds: c.MaxRuntimeSeconds},
		Tags:                  map[string]string{contract.TagTeam: team, contract.TagClass: class},
	}}
	if started > 0 {
		j.StartedAt = demoNow.Add(-started).UnixMilli()
	}
	return fake.Add(j)
}

// demo builds the README's queue on the default platform (40
// ml.p5.48xlarge; search-ranking's quota 24 and search-research's 16, both
// lend-and-borrow with a borrow limit of 100%) and returns the waiting job
// bert-large and the environment that points the CLI at it.
//
//	search-ranking   llama-ft    production  16 × p5  RUNNING 20h of 5d (120h): 100h left
//	search-ranking   bert-base   research     8 × p5  RUNNING  2h of 3d (72h):   70h left
//	search-research  sweep-lr    sweep       16 × p5  RUNNING 23h of 1d (24h):    1h left
//	search-ranking   bert-large  research     8 × p5  RUNNABLE 40 min, first in the queue, priority 540 < bert-base's 550
//	search-research  sweep-wd    sweep        8 × p5  RUNNABLE 25 min, second
//
// All 40 are in use, search-ranking holds its whole quota (16 + 8 = 24):
// bert-large needs 8 beyond it with nothing idle to borrow (quota-full).
// When sweep-lr ends in 1 h, 16 are idle: bert-large borrows 8 (24 + 8 =
// 32 ≤ its ceiling 48) and sweep-wd takes 8 of search-research's quota, so
// the estimate is 1h00m, 17:00 UTC. (Were bert-large's priority above
// bert-base's, search-ranking's in-share preemption would start it at once
// in bert-base's place, and the estimate would say so.)
func demo(t *testing.T) (batchtest.Job, []string) {
	t.Helper()
	return demoWith(t, nil)
}

// demoWith is demo with the function reading history from hist.
func demoWith(t *testing.T, hist submit.HistorySource) (batchtest.Job, []string) {
	t.Helper()
	fake := batchtest.New(0)
	t.Cleanup(fake.Close)
	fake.SetClock(func() time.Time { return demoNow })
	env := demoFunction(t, fake, hist)
	demoJob(t, fake, "llama-ft-5f1c2a9e", "search-ranking", "production", 50, 16, "RUNNING", 21*time.Hour, 20*time.Hour)
	demoJob(t, fake, "bert-base-0a1b2c3d", "search-ranking", "research", 50, 8, "RUNNING", 150*time.Minute, 2*time.Hour)
	demoJob(t, fake, "sweep-lr-7c3e91aa", "search-research", "sweep", 50, 16, "RUNNING", 23*time.Hour+10*time.Minute, 23*time.Hour)
	target := demoJob(t, fake, "bert-large-9d8e7f6a", "search-ranking", "research", 40, 8, "RUNNABLE", 40*time.Minute, 0)
	wd := demoJob(t, fake, "sweep-wd-1b2c3d4e", "search-research", "sweep", 50, 8, "RUNNABLE", 25*time.Minute, 0)
	fake.SetUsed(map[string]float64{"ml.p5.48xlarge": 40})
	fake.SetShareUsed(map[string]map[string]float64{"search-ranking": {"ml.p5.48xlarge": 24}, "search-research": {"ml.p5.48xlarge": 16}})
	since := demoNow.Add(-12 * time.Minute).UnixMilli()
	fake.SetFront([]batchtest.Front{{JobARN: target.ARN, EarliestTimeAtPosition: since}, {JobARN: wd.ARN, EarliestTimeAtPosition: since}},
		map[string][]batchtest.Front{"search-ranking": {{JobARN: target.ARN}}, "search-research": {{JobARN: wd.ARN}}})
	return target, env
}

// trainqWith runs the built binary like trainq, with env added last (so
// that it wins).
func trainqWith(t *testing.T, env []string, args ...string) result {
	t.Helper()
	r, _ := trainqIn(t, nil, env, args...)
	return r
}

// trainqIn is trainqWith reading stdin, and also returns the process's
// peak resident memory in bytes.
func trainqIn(t *testing.T, stdin io.Reader, env []string, args ...string) (result, int64) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = filepath.Join("..", "..")
	cmd.Stdin = stdin
	cmd.Env = append(append(os.Environ(), "AWS_REGION=us-east-1", "AWS_ACCESS_KEY_ID=test", "AWS_SECRET_ACCESS_KEY=test",
		"AWS_EC2_METADATA_DISABLED=true", "AWS_MAX_ATTEMPTS=1", "AWS_CONFIG_FILE=/nonexistent", "AWS_SHARED_CREDENTIALS_FILE=/nonexistent",
		// No trainq config file nor setting of the machine's user.
		// (XDG_CONFIG_HOME is an empty folder of the test's own: the
		// CDK app that trainq plan runs calls go, which writes there.)
		"XDG_CONFIG_HOME="+filepath.Join(t.TempDir(), "config"), "TRAINQ_CONFIG=", "TRAINQ_PROFILE=", "TRAINQ_PLATFORM=", "TRAINQ_CLASS=", "TRAINQ_TEAM=",
		"TRAINQ_REGION=", "TRAINQ_AWS_PROFILE=", "TRAINQ_FUNCTION=", "TRAINQ_ENDPOINT="), env...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var ee *exec.ExitError
	code := 0
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatalf("trainq %s: %v", strings.Join(args, " "), err)
	}
	var rss int64
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		rss = ru.Maxrss << 10 // Linux reports KiB
	}
	return result{code, out.String(), errOut.String()}, rss
}

// TestStatusExplainsAWaitingJob: trainq status says why bert-large waits,
// with its place, its team's usage and the simulated start (see demo).
func TestStatusExplainsAWaitingJob(t *testing.T) {
	target, env := demo(t)
	r := trainqWith(t, env, "status", "--class", "research", "--team", "search-ranking", target.ID)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	// Compared with runs of spaces as one: the table's columns are the
	// tabwriter's.
	flat := strings.Join(strings.Fields(r.stdout), " ")
	for _, want := range []string{
		"STATUS RUNNABLE",
		// 24 held of a quota of 24, 8 more needed, 0 idle of 40.
		"WAITING quota-full: Team search-ranking holds 24 ml.p5.48xlarge against a quota of 24 (it may borrow 24 more: borrow limit 100% of its quota); the job needs 8, beyond its quota, and there is nothing to borrow: only 0 of the pool's 40 are idle and free for it.",
		// search-ranking preempts in its share; bert-large's priority is
		// below bert-base's, so nothing is preempted here, but the snapshot
		// does not say so: the message says when it would be.
		"The team has in-share preemption: if its running jobs of lower priority hold 8, Batch preempts them for this job instead.",
		"QUEUE POSITION 1 of the 2 jobs at the front of the queue (there since 2026-12-01T15:48:00Z)",
		"SHARE POSITION 1 in team search-ranking",
		"SHARE USAGE team search-ranking: 24 ml.p5.48xlarge in use of a quota of 24 (LEND_AND_BORROW, may borrow 24, borrows 0); 0 idle for it, 0 within its quota",
		"POOL 40 of 40 ml.p5.48xlarge in use",
		// sweep-lr ends in 1 h (86400 − 82800 s); then 16 are idle.
		"LATEST START in 1h00m (2026-12-01 17:00 UTC), if every running job runs to its limit",
		// The function has no job ledger: no history to draw from.
		"LIKELY START unavailable: no history",
	} {
		if !strings.Contains(flat, want) {
			t.Errorf("status does not say %q:\n%s", want, r.stdout)
		}
	}
	j := trainqWith(t, env, "status", "--class", "research", "--team", "search-ranking", "--output", "json", target.ID)
	var s struct {
		Status      string
		Explanation contract.Explanation
		Estimate    struct {
			Latest struct {
				StartsInSeconds int64
				StartsBy        string
				Assumption      string
			}
			Likely            *struct{}
			LikelyUnavailable string
		}
	}
	if err := json.Unmarshal([]byte(j.stdout), &s); err != nil {
		t.Fatalf("%v: %s", err, j.stdout)
	}
	if s.Status != "RUNNABLE" || s.Explanation.Reason != contract.ReasonQuotaFull || s.Estimate.Latest.StartsInSeconds != 3600 ||
		s.Estimate.Latest.StartsBy != "2026-12-01T17:00:00Z" || s.Estimate.Latest.Assumption == "" || s.Estimate.Likely != nil ||
		!strings.HasPrefix(s.Estimate.LikelyUnavailable, "no history") {
		t.Errorf("json: %+v", s)
	}
}

// fixedHistory is a week in which every job of a class ran the same time
// and none was submitted.
type fixedHistory map[string]int64

func (f fixedHistory) History(_ context.Context, from, to time.Time) (*contract.History, error) {
	h := &contract.History{Source: "test ledger", From: from.UTC().Format(time.RFC3339), To: to.UTC().Format(time.RFC3339)}
	for _, team := range []string{"search-ranking", "search-research"} {
		for _, class := range []string{"production", "research", "sweep"} {
			g := contract.HistoryGroup{Class: class, Team: team, Completed: 10}
			for range 10 {
				g.Jobs = append(g.Jobs, contract.HistoryJob{InstanceType: "ml.p5.48xlarge", Instances: 8, SchedulingPriority: 550, RunSeconds: f[class]})
			}
			h.Groups = append(h.Groups, g)
		}
	}
	return h, nil
}

// TestStatusShowsLikelyAndLatestStarts: with history in the queue answer,
// trainq status prints both figures, what each assumes and the history
// used, in the table and in --output json. In that history sweeps ran
// 84600 s, research jobs 9000 s, production ones 100000 s, and nothing was
// submitted: sweep-lr (23 h run) has 84600 − 82800 = 1800 s left, bert-base
// (2 h) 9000 − 7200 = 1800 s, llama-ft (20 h) 28000 s. At 1800 s 8 of
// search-ranking's quota and 16 of search-research's are free: bert-large
// (8) starts then, in every run: likely 30m00s, range 30m00s to 30m00s.
// The latest start is demo's 1 h.
func TestStatusShowsLikelyAndLatestStarts(t *testing.T) {
	target, env := demoWith(t, fixedHistory{"production": 100000, "research": 9000, "sweep": 84600})
	r := trainqWith(t, env, "status", "--class", "research", "--team", "search-ranking", target.ID)
	flat := strings.Join(strings.Fields(r.stdout), " ")
	for _, want := range []string{
		"LIKELY START in 30m00s (2026-12-01 16:30 UTC), range 30m00s to 30m00s, if jobs run as long as recent jobs of their class and team ran",
		"HISTORY USED test ledger, 2026-11-24T16:00:00Z to 2026-12-01T16:00:00Z (7.0 days): runtimes of 60 of the 60 jobs completed",
		"LATEST START in 1h00m (2026-12-01 17:00 UTC), if every running job runs to its limit",
	} {
		if !strings.Contains(flat, want) {
			t.Errorf("status does not say %q:\n%s", want, r.stdout)
		}
	}
	j := trainqWith(t, env, "status", "--class", "research", "--team", "search-ranking", "--output", "json", target.ID)
	var s struct {
		Estimate struct {
			Likely struct {
				StartsInSeconds, LowSeconds, HighSeconds int64
				Runs                                     int
				History, Assumption                      string
			}
			Latest struct{ StartsInSeconds int64 }
		}
	}
	if err := json.Unmarshal([]byte(j.stdout), &s); err != nil {
		t.Fatalf("%v: %s", err, j.stdout)
	}
	l := s.Estimate.Likely
	if l.StartsInSeconds != 1800 || l.LowSeconds != 1800 || l.HighSeconds != 1800 || l.Runs != 100 || l.History == "" || l.Assumption == "" ||
		s.Estimate.Latest.StartsInSeconds != 3600 {
		t.Errorf("json: %+v", s.Estimate)
	}
}

// TestQueueListsJobsByShareAndClass: trainq queue through
// search-ranking's alias lists the five jobs, search-research's without id
// or name, and every share's usage; the filters narrow the table.
func TestQueueListsJobsByShareAndClass(t *testing.T) {
	target, env := demo(t)
	r := trainqWith(t, env, "queue", "--class", "research", "--team", "search-ranking")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	lines := strings.Split(r.stdout, "\n")
	// Running first, oldest start first (sweep-lr 23h, llama-ft 20h,
	// bert-base 2h), then the front of the queue.
	wantOrder := []string{"RUNNING  ", "RUNNING  ", "RUNNING  ", "RUNNABLE ", "RUNNABLE "}
	var got []string
	for _, l := range lines {
		if strings.HasPrefix(l, "RUNNING") || strings.HasPrefix(l, "RUNNABLE") {
			got = append(got, l)
		}
	}
	if len(got) != 5 {
		t.Fatalf("%d job rows, want 5:\n%s", len(got), r.stdout)
	}
	for i, w := range wantOrder {
		if !strings.HasPrefix(got[i], w) {
			t.Errorf("row %d %q, want %q first", i, got[i], w)
		}
	}
	for i, want := range [][]string{
		{"search-research", "sweep", "16 × ml.p5.48xlarge", "23h10m", "23h00m of 1d00h", "(another team's job)"},
		{"search-ranking", "production", "950", "16 × ml.p5.48xlarge", "21h00m", "20h00m of 5d00h", "llama-ft-5f1c2a9e"},
		{"search-ranking", "research", "550", "8 × ml.p5.48xlarge", "2h30m", "2h00m of 3d00h", "bert-base-0a1b2c3d"},
		{"RUNNABLE  1 ", "search-ranking", "research", "540", "40m00s", target.ID, "bert-large-9d8e7f6a"},
		{"RUNNABLE  2 ", "search-research", "sweep", "150", "25m00s", "(another team's job)"},
	} {
		for _, w := range want {
			if !strings.Contains(got[i], w) {
				t.Errorf("row %d %q lacks %q", i, got[i], w)
			}
		}
	}
	for _, want := range []string{"5 of 5 jobs shown", "team search-ranking's jobs in full"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("queue does not show %q:\n%s", want, r.stdout)
		}
	}
	// Usage: SHARE TYPE USED QUOTA BORROWED MAY-BORROW IDLE RECLAIMABLE POOL.
	// Nothing of p5 is idle; p4d is all idle: 60 for either team, 30 of
	// them within its quota.
	usage := map[string]bool{}
	for _, l := range lines {
		usage[strings.Join(strings.Fields(l), " ")] = true
	}
	for _, want := range []string{
		"search-ranking ml.p5.48xlarge 24 24 - 24 0 0 40 of 40",
		"search-research ml.p5.48xlarge 16 16 - 16 0 0 40 of 40",
		"(queue) ml.p5.48xlarge 40 - - - 0 0 40 of 40",
		"search-ranking ml.p4d.24xlarge 0 30 - 30 60 30 0 of 60",
	} {
		if !usage[want] {
			t.Errorf("usage has no row %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "sweep-lr") || strings.Contains(r.stdout, "sweep-wd") {
		t.Errorf("another team's job names are shown through search-ranking's alias:\n%s", r.stdout)
	}

	f := trainqWith(t, env, "queue", "--unqualified", "--filter-team", "search-research", "--status", "RUNNABLE", "--output", "json")
	var q contract.QueueView
	if err := json.Unmarshal([]byte(f.stdout), &q); err != nil {
		t.Fatalf("%v: %s", err, f.stdout)
	}
	if len(q.Jobs) != 1 || q.Jobs[0].JobName != "sweep-wd-1b2c3d4e" || q.Jobs[0].Redacted || q.Jobs[0].QueuePosition != 2 {
		t.Errorf("filtered jobs %+v, want sweep-wd in full (an operator), second in the queue", q.Jobs)
	}
	if len(q.Usage) != 4 || q.Usage[0].Share != "search-research" || q.Usage[1].Share != "" || q.Usage[2].Share != "search-research" {
		t.Errorf("filtered usage %+v, want search-research's and the queue's, for each of the two types", q.Usage)
	}
}

// TestQueueShowsEachWaitingJobsStarts: trainq queue gives every waiting
// job the two figures trainq status gives bert-large, in the table and in
// --output json, with what they assume above the table. In the history
// of TestStatusShowsLikelyAndLatestStarts sweep-lr and bert-base end at
// 1800 s in every run, freeing 16 of search-research's quota and 8 of
// search-ranking's: bert-large (8) and sweep-wd (8) both start then
// (likely 30m00s, range 30m00s–30m00s); by their limits (demo) sweep-lr
// ends first, at 1 h, and both start then (latest 1h00m). Running jobs
// have no figures. Without history (demo), the latest start only, and why.
func TestQueueShowsEachWaitingJobsStarts(t *testing.T) {
	_, env := demoWith(t, fixedHistory{"production": 100000, "research": 9000, "sweep": 84600})
	r := trainqWith(t, env, "queue", "--class", "research", "--team", "search-ranking")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	rows := map[string]string{}
	for _, l := range strings.Split(r.stdout, "\n") {
		f := strings.Join(strings.Fields(l), " ")
		for _, name := range []string{"bert-large", "(another team's job)", "llama-ft"} {
			if strings.Contains(f, name) && strings.HasPrefix(f, "RUNN") {
				rows[name+" "+strings.Fields(f)[0]] = f
			}
		}
	}
	for _, want := range []struct{ row, cells string }{
		{"bert-large RUNNABLE", "40m00s - 30m00s (30m00s–30m00s) 1h00m"},
		{"(another team's job) RUNNABLE", "25m00s - 30m00s (30m00s–30m00s) 1h00m"},
		{"llama-ft RUNNING", "21h00m 20h00m of 5d00h - -"},
	} {
		if !strings.Contains(rows[want.row], want.cells) {
			t.Errorf("row %s is %q, want %q in it:\n%s", want.row, rows[want.row], want.cells, r.stdout)
		}
	}
	flat := strings.Join(strings.Fields(r.stdout), " ")
	for _, want := range []string{
		"Likely start (with the range of 80% of the runs): if jobs run as long as recent jobs of their class and team ran",
		"history: test ledger, 2026-11-24T16:00:00Z to 2026-12-01T16:00:00Z (7.0 days)",
		"Latest start: if every running job runs to its limit",
	} {
		if !strings.Contains(flat, want) {
			t.Errorf("queue does not say %q:\n%s", want, r.stdout)
		}
	}
	j := trainqWith(t, env, "queue", "--class", "research", "--team", "search-ranking", "--status", "RUNNABLE", "--output", "json")
	var out struct {
		Jobs []struct {
			JobName     string
			LikelyStart *struct{ StartsInSeconds, LowSeconds, HighSeconds int64 }
			LatestStart *struct {
				StartsInSeconds int64
				StartsBy        string
			}
		}
		Estimate struct {
			Runs                                        int
			History, LikelyAssumption, LatestAssumption string
		}
	}
	if err := json.Unmarshal([]byte(j.stdout), &out); err != nil {
		t.Fatalf("%v: %s", err, j.stdout)
	}
	if len(out.Jobs) != 2 {
		t.Fatalf("%d jobs, want the 2 waiting: %s", len(out.Jobs), j.stdout)
	}
	for _, row := range out.Jobs {
		if l := row.LikelyStart; l == nil || l.StartsInSeconds != 1800 || l.LowSeconds != 1800 || l.HighSeconds != 1800 ||
			row.LatestStart == nil || row.LatestStart.StartsInSeconds != 3600 || row.LatestStart.StartsBy != "2026-12-01T17:00:00Z" {
			t.Errorf("job %q: likely %+v, latest %+v; want 1800 s every run, 3600 s by 17:00", row.JobName, row.LikelyStart, row.LatestStart)
		}
	}
	if e := out.Estimate; e.Runs != 100 || e.History == "" || e.LikelyAssumption == "" || e.LatestAssumption == "" {
		t.Errorf("estimate %+v: want 100 runs, the history and both assumptions", e)
	}

	_, env = demo(t)
	r = trainqWith(t, env, "queue", "--class", "research", "--team", "search-ranking")
	flat = strings.Join(strings.Fields(r.stdout), " ")
	if !strings.Contains(flat, "Likely start: unavailable: no history") || !strings.Contains(flat, "40m00s - - 1h00m") {
		t.Errorf("without history: want the latest start only, and why:\n%s", r.stdout)
	}
	r = trainqWith(t, env, "queue", "--class", "research", "--team", "search-ranking", "--no-estimate")
	if strings.Contains(r.stdout, "Latest start") || strings.Contains(strings.Join(strings.Fields(r.stdout), " "), "40m00s - - - 0000") == false {
		t.Errorf("--no-estimate still estimates:\n%s", r.stdout)
	}
}

// weekHistory is a week of the demo's queue: each class and team's 48
// most recent jobs ran spread around its own time (from a third of it to
// three times it), and jobs were submitted at each group's own rate,
// sweeps in batches, every hour alike.
type weekHistory struct{}

func (weekHistory) History(_ context.Context, from, to time.Time) (*contract.History, error) {
	h := &contract.History{Source: "job ledger", From: from.UTC().Format(time.RFC3339), To: to.UTC().Format(time.RFC3339)}
	for _, g := range []struct {
		class, team                  string
		run                          float64
		instances, priority, submits int
		batches                      int
	}{
		// About 4,800 of the week's 6,720 instance-hours (40 × 168):
		// the mean runtime is 1.29 times the group's time.
		{"production", "search-ranking", 8 * 3600, 16, 950, 7, 7},
		{"research", "search-ranking", 3 * 3600, 8, 550, 42, 42},
		{"sweep", "search-research", 2 * 3600, 8, 150, 84, 21},
		{"research", "search-research", 4 * 3600, 8, 550, 14, 14},
	} {
		hg := contract.HistoryGroup{Class: g.class, Team: g.team, Submitted: g.submits, Batches: g.batches, Completed: g.submits,
			SubmittedByHour: make([]int, 24)}
		for k := range g.submits {
			hg.SubmittedByHour[k%24]++
		}
		for k := range min(48, g.submits) {
			run := g.run * math.Exp(float64(k%7-3)/3*math.Log(3))
			hg.Jobs = append(hg.Jobs, contract.HistoryJob{InstanceType: "ml.p5.48xlarge", Instances: g.instances, SchedulingPriority: g.priority,
				RunSeconds: int64(run)})
		}
		h.Groups = append(h.Groups, hg)
	}
	return h, nil
}

// TestStatusAndQueueAgreeOverAWeekOfHistory: with a week of varied
// history (the README's example), trainq queue's row of bert-large has the
// figures trainq status gives it; the likely start lies in its range and
// the latest start is demo's 1 h.
func TestStatusAndQueueAgreeOverAWeekOfHistory(t *testing.T) {
	target, env := demoWith(t, weekHistory{})
	var s struct {
		Estimate struct {
			Likely struct{ StartsInSeconds, LowSeconds, HighSeconds int64 }
			Latest struct{ StartsInSeconds int64 }
		}
	}
	st := trainqWith(t, env, "status", "--class", "research", "--team", "search-ranking", "--output", "json", target.ID)
	if err := json.Unmarshal([]byte(st.stdout), &s); err != nil {
		t.Fatalf("%v: %s", err, st.stdout)
	}
	var q struct {
		Jobs []struct {
			JobID       string
			LikelyStart *struct{ StartsInSeconds, LowSeconds, HighSeconds int64 }
			LatestStart *struct{ StartsInSeconds int64 }
		}
	}
	qj := trainqWith(t, env, "queue", "--class", "research", "--team", "search-ranking", "--output", "json")
	if err := json.Unmarshal([]byte(qj.stdout), &q); err != nil {
		t.Fatalf("%v: %s", err, qj.stdout)
	}
	found := false
	for _, j := range q.Jobs {
		if j.JobID != target.ID {
			continue
		}
		found = true
		l := s.Estimate.Likely
		if j.LikelyStart == nil || j.LatestStart == nil || *j.LikelyStart != l || j.LatestStart.StartsInSeconds != s.Estimate.Latest.StartsInSeconds {
			t.Errorf("queue's row: likely %+v, latest %+v; status: %+v", j.LikelyStart, j.LatestStart, s.Estimate)
		}
		if l.LowSeconds > l.StartsInSeconds || l.StartsInSeconds > l.HighSeconds || s.Estimate.Latest.StartsInSeconds != 3600 {
			t.Errorf("status: %+v; want the likely start in its range, the latest 3600 s", s.Estimate)
		}
	}
	if !found {
		t.Errorf("queue does not list %s: %s", target.ID, qj.stdout)
	}
	t.Log("\n" + trainqWith(t, env, "queue", "--class", "research", "--team", "search-ranking").stdout)
	t.Log("\n" + trainqWith(t, env, "status", "--class", "research", "--team", "search-ranking", target.ID).stdout)
}

// TestQueueUsageErrors: queue's command-line mistakes exit 2 before any
// invocation.
func TestQueueUsageErrors(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"queue"}, "--class and --team are required"},
		{[]string{"queue", "--unqualified", "--status", "WAITING"}, `--status: got "WAITING", want one or more of RUNNING, STARTING, SCHEDULED, RUNNABLE`},
		{[]string{"queue", "--unqualified", "extra"}, "queue takes flags only"},
	} {
		r := trainq(t, tt.args...)
		if r.code != 2 || !strings.HasPrefix(r.stderr, "trainq queue: ") || !strings.Contains(r.stderr, tt.want) {
			t.Errorf("trainq %s: exit %d, %q: want 2 and %q", strings.Join(tt.args, " "), r.code, r.stderr, tt.want)
		}
	}
}

// TestStatusShowsAJobsMoves: a job the re-router moved says where it went,
// and its replacement where it came from and which move it was.
func TestStatusShowsAJobsMoves(t *testing.T) {
	fake := batchtest.New(0)
	t.Cleanup(fake.Close)
	env := demoFunction(t, fake, nil)
	old := demoJob(t, fake, "bert-large-9d8e7f6a", "search-ranking", "research", 40, 8, "RUNNING", 50*time.Minute, 5*time.Minute)
	sp := 540
	repl := fake.Add(batchtest.Job{Status: "RUNNING", CreatedAt: demoNow.Add(-10 * time.Minute).UnixMilli(), Request: batchtest.SubmitRequest{
		JobName: "bert-large-9d8e7f6a-m1", JobQueue: demoQueue, SchedulingPriority: &sp, QuotaShareName: aws.String("search-ranking"),
		ServiceRequestPayload: `{"ResourceConfig":{"InstanceType":"ml.p4d.24xlarge","InstanceCount":8,"VolumeSizeInGB":100}}`,
		Tags: map[string]string{contract.TagTeam: "search-ranking", contract.TagClass: "research",
			contract.TagReroutedFrom: old.ID, contract.TagMoves: "1"}}})
	fake.SetStatus(old.ID, "FAILED")
	fake.SetStatusReason(old.ID, contract.ReroutedReason(repl.ID, "ml.p4d.24xlarge"))
	for _, tc := range []struct{ id, want string }{
		{old.ID, "MOVED TO " + repl.ID + " on ml.p4d.24xlarge"},
		{repl.ID, "MOVED FROM " + old.ID + " (the re-router's move 1 of this job)"},
	} {
		r := trainqWith(t, env, "status", "--unqualified", tc.id)
		if flat := strings.Join(strings.Fields(r.stdout), " "); r.code != 0 || !strings.Contains(flat, tc.want) {
			t.Errorf("exit %d, status of %s:\n%s%s\nwant %q", r.code, tc.id, r.stdout, r.stderr, tc.want)
		}
	}
}
