package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/internal/batchtest"
	"github.com/trainq/trainq/internal/dynamotest"
	"github.com/trainq/trainq/internal/ststest"
	"github.com/trainq/trainq/ledger"
	"github.com/trainq/trainq/platform"
	"github.com/trainq/trainq/submit"
)

// The history's ledger (d0 = 2026-12-01T00:00:00Z, now d0 + 5 h), on the
// default platform:
//
//	job-a bert-1a2b3c4d search-ranking production 4 × p5, created d0, ran 1 h-3 h, succeeded
//	job-b sweep-7 search-research sweep 20 × p5, created d0, ran 2 h-4 h, preempted, failed
//	job-d llm-2 search-research research 2 × p4d, created 0:30, ran 1 h-2 h (preempted)
//	      and 2:30-4:30, succeeded
//	job-c vit-9 search-ranking research 8 × p4d, created 3 h, running since 4 h
const hour = int64(3_600_000)

var (
	historyD0  = time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	historyNow = time.UnixMilli(historyD0 + 5*hour)
)

func trainingJob(name string) string {
	return "arn:aws:sagemaker:us-east-1:123456789012:training-job/" + name
}

// historyLedger records the jobs above on a local DynamoDB and returns the
// store.
func historyLedger(t *testing.T) *ledger.Store {
	t.Helper()
	ctx := context.Background()
	local, err := dynamotest.Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { local.Close() })
	if err := local.CreateTable(ctx, dynamotest.LedgerTable("history-ledger")); err != nil {
		t.Fatal(err)
	}
	store, err := ledger.NewStore(local.Client(), "history-ledger", 0, func() time.Time { return historyNow })
	if err != nil {
		t.Fatal(err)
	}
	p := platform.Default()
	prio := func(class string, r int) int {
		c, _ := p.Class(class)
		return c.SchedulingPriority(r)
	}
	d0 := historyD0
	for _, o := range []ledger.Observation{
		{JobID: "job-a", JobName: "bert-1a2b3c4d", Team: "search-ranking", Class: "production", Priority: prio("production", 50),
			InstanceType: "ml.p5.48xlarge", Instances: 4, Status: "SUCCEEDED", StatusReason: "Received status from SageMaker: Training job completed",
			CreatedAt: d0, StoppedAt: d0 + 3*hour, Attempts: []ledger.ObservedAttempt{{StartedAt: d0 + hour, StoppedAt: d0 + 3*hour, TrainingJob: trainingJob("bert-1")}}},
		{JobID: "job-b", JobName: "sweep-7", Team: "search-research", Class: "sweep", Priority: prio("sweep", 10),
			InstanceType: "ml.p5.48xlarge", Instances: 20, Status: "FAILED", StatusReason: "Preempted to restore capacity to quota share search-ranking",
			CreatedAt: d0, StoppedAt: d0 + 4*hour, Attempts: []ledger.ObservedAttempt{{StartedAt: d0 + 2*hour, StoppedAt: d0 + 4*hour, TrainingJob: trainingJob("sweep-7")}},
			Preempted: []ledger.ObservedAttempt{{StartedAt: d0 + 2*hour, StoppedAt: d0 + 4*hour}}, PreemptedCount: 1},
		{JobID: "job-d", JobName: "llm-2", Team: "search-research", Class: "research", Priority: prio("research", 70),
			InstanceType: "ml.p4d.24xlarge", Instances: 2, Status: "SUCCEEDED", CreatedAt: d0 + hour/2, StoppedAt: d0 + 9*hour/2,
			Attempts: []ledger.ObservedAttempt{{StartedAt: d0 + hour, StoppedAt: d0 + 2*hour, TrainingJob: trainingJob("llm-2-1")},
				{StartedAt: d0 + 5*hour/2, StoppedAt: d0 + 9*hour/2, TrainingJob: trainingJob("llm-2-2")}},
			Preempted: []ledger.ObservedAttempt{{StartedAt: d0 + hour, StoppedAt: d0 + 2*hour}}, PreemptedCount: 1},
		{JobID: "job-c", JobName: "vit-9", Team: "search-ranking", Class: "research", Priority: prio("research", 50),
			InstanceType: "ml.p4d.24xlarge", Instances: 8, Status: "RUNNING", CreatedAt: d0 + 3*hour, StartedAt: d0 + 4*hour,
			Attempts: []ledger.ObservedAttempt{{StartedAt: d0 + 4*hour, TrainingJob: trainingJob("vit-9")}}},
	} {
		if _, err := store.Record(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	return store
}

// ledgerFunction is the submission function over store, served as Lambda
// would, whose caller (the CLI's keys) is a session of role; the function
// knows the operator and each alias's pipeline role (ststest.Grants).
func ledgerFunction(t *testing.T, store *ledger.Store, role string) []string {
	t.Helper()
	fake := batchtest.New(0)
	t.Cleanup(fake.Close)
	sts := ststest.New("us-east-1")
	t.Cleanup(sts.Close)
	sts.Add(ststest.Principal{AccessKey: "test", Secret: "test", ARN: strings.Replace(strings.Replace(role, ":iam:", ":sts:", 1), ":role/", ":assumed-role/", 1) + "/cli"})
	p := platform.Default()
	g := ststest.Grants(p)
	cfg := submit.Config{Platform: p, JobQueue: demoQueue, ExecutionRoleARN: demoRole,
		Batch: submit.NewBatchClient(aws.Config{Region: "us-east-1", Credentials: credentials.NewStaticCredentialsProvider("test", "test", ""),
			BaseEndpoint: aws.String(fake.URL)}, submit.DefaultRetryPolicy),
		Ledger: store, Now: func() time.Time { return historyNow },
		Identity: &submit.STSVerifier{Endpoint: sts.URL}, Operators: g.Operators}
	for _, s := range g.Submitters {
		cfg.Submitters = append(cfg.Submitters, platform.Submitter{RoleARN: s.RoleARN, Classes: []string{s.Class}, Teams: []string{s.Team}})
	}
	h, err := submit.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return []string{"AWS_ENDPOINT_URL_LAMBDA=" + fakeFunction(t, h), contract.EnvSTSEndpoint + "=" + sts.URL}
}

// table lays out rows as the CLI's tables do (tabwriter, two spaces).
func table(rows ...[]string) string {
	var b bytes.Buffer
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	for _, r := range rows {
		tw.Write([]byte(strings.Join(r, "\t") + "\n"))
	}
	tw.Flush()
	return b.String()
}

// TestHistoryListsEveryJobWithItsAttempts: an operator sees every job in
// full, one row per job and one per attempt, by submission.
func TestHistoryListsEveryJobWithItsAttempts(t *testing.T) {
	env := ledgerFunction(t, historyLedger(t), ststest.OperatorRole)
	r := trainqWith(t, env, "history", "--unqualified", "--since", "2026-12-01", "--until", "2026-12-02")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	head, body, _ := strings.Cut(r.stdout, "\n\n")
	if !strings.HasPrefix(head, "Jobs from 2026-12-01T00:00:00Z to 2026-12-02T00:00:00Z (operator ") || !strings.HasSuffix(head, "every job in full)") {
		t.Errorf("heading %q, want the window and the operator's scope", head)
	}
	// By hand: waits are first start − creation, ELAPSED first start to
	// end (job-c: running 4 h to now 5 h), each attempt its own run.
	want := table(
		[]string{"JOBID", "NAME", "TEAM", "CLASS", "TYPE", "N", "STATE", "SUBMIT", "START", "END", "WAIT", "ELAPSED"},
		[]string{"job-a", "bert-1a2b3c4d", "search-ranking", "production", "ml.p5.48xlarge", "4", "succeeded", "2026-12-01T00:00:00", "2026-12-01T01:00:00", "2026-12-01T03:00:00", "1h00m", "2h00m"},
		[]string{"job-a.1", "", "", "", "", "", "completed", "", "2026-12-01T01:00:00", "2026-12-01T03:00:00", "", "2h00m"},
		[]string{"job-b", "sweep-7", "search-research", "sweep", "ml.p5.48xlarge", "20", "preempted", "2026-12-01T00:00:00", "2026-12-01T02:00:00", "2026-12-01T04:00:00", "2h00m", "2h00m"},
		[]string{"job-b.1", "", "", "", "", "", "preempted", "", "2026-12-01T02:00:00", "2026-12-01T04:00:00", "", "2h00m"},
		[]string{"job-d", "llm-2", "search-research", "research", "ml.p4d.24xlarge", "2", "succeeded", "2026-12-01T00:30:00", "2026-12-01T01:00:00", "2026-12-01T04:30:00", "30m00s", "3h30m"},
		[]string{"job-d.1", "", "", "", "", "", "preempted", "", "2026-12-01T01:00:00", "2026-12-01T02:00:00", "", "1h00m"},
		[]string{"job-d.2", "", "", "", "", "", "completed", "", "2026-12-01T02:30:00", "2026-12-01T04:30:00", "", "2h00m"},
		[]string{"job-c", "vit-9", "search-ranking", "research", "ml.p4d.24xlarge", "8", "running", "2026-12-01T03:00:00", "2026-12-01T04:00:00", "-", "1h00m", "1h00m"},
		[]string{"job-c.1", "", "", "", "", "", "running", "", "2026-12-01T04:00:00", "-", "", "1h00m"},
	)
	if body != want {
		t.Errorf("trainq history printed:\n%s\nwant:\n%s", body, want)
	}

	// The CSV, kept to search-research's preempted or succeeded jobs: a
	// row per job; run_s sums the attempts (job-d: 1 h + 2 h = 10800).
	r = trainqWith(t, env, "history", "--unqualified", "--since", "2026-12-01", "--until", "2026-12-02",
		"--filter-team", "search-research", "--state", "preempted,succeeded", "--output", "csv")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	p := platform.Default()
	sweep, _ := p.Class("sweep")
	research, _ := p.Class("research")
	wantCSV := "job_id,job_name,team,class,state,status,scheduling_priority,instance_type,instances,created_at,started_at,ended_at,wait_s,attempts,preemptions,run_s,status_reason\n" +
		"job-b,sweep-7,search-research,sweep,preempted,FAILED," + itoa(sweep.SchedulingPriority(10)) + ",ml.p5.48xlarge,20,2026-12-01T00:00:00Z,2026-12-01T02:00:00Z,2026-12-01T04:00:00Z,7200,1,1,7200,Preempted to restore capacity to quota share search-ranking\n" +
		"job-d,llm-2,search-research,research,succeeded,SUCCEEDED," + itoa(research.SchedulingPriority(70)) + ",ml.p4d.24xlarge,2,2026-12-01T00:30:00Z,2026-12-01T01:00:00Z,2026-12-01T04:30:00Z,1800,2,1,10800,\n"
	if r.stdout != wantCSV {
		t.Errorf("trainq history --output csv printed:\n%s\nwant:\n%s", r.stdout, wantCSV)
	}

	// A state that is not an outcome is refused by the function, naming it.
	r = trainqWith(t, env, "history", "--unqualified", "--state", "COMPLETED")
	if r.code != 1 || !strings.Contains(r.stderr, "states") || !strings.Contains(r.stderr, `"COMPLETED"`) || !strings.Contains(r.stderr, "timed-out") {
		t.Errorf("--state COMPLETED: exit %d, stderr %q; want a refusal naming states, the value and the outcomes", r.code, r.stderr)
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// TestHistoryHidesOtherTeamsJobsThroughAnAlias: through search-ranking's
// alias, search-research's jobs come without id, name, reasons, training
// jobs or checkpoint; search-ranking's in full.
func TestHistoryHidesOtherTeamsJobsThroughAnAlias(t *testing.T) {
	alias := platform.SubmitAliasName("research", "search-ranking")
	env := ledgerFunction(t, historyLedger(t), ststest.AliasRole(alias))
	r := trainqWith(t, env, "history", "--class", "research", "--team", "search-ranking", "--since", "2026-12-01", "--until", "2026-12-02", "--output", "json")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var v contract.HistoryView
	if err := json.Unmarshal([]byte(r.stdout), &v); err != nil {
		t.Fatal(err)
	}
	if len(v.Jobs) != 4 {
		t.Fatalf("got %d jobs, want the 4 of the window", len(v.Jobs))
	}
	for _, j := range v.Jobs {
		own := j.Team == "search-ranking"
		named := j.JobID != "" || j.JobName != "" || j.StatusReason != ""
		for _, a := range j.Attempts {
			named = named || a.TrainingJob != "" || a.StatusReason != ""
		}
		if own && (j.Redacted || j.JobID == "" || j.Attempts[0].TrainingJob == "") {
			t.Errorf("own team's job %+v: want it in full", j)
		}
		if !own && (!j.Redacted || named) {
			t.Errorf("other team's job %+v: want it without id, name, reasons or training jobs", j)
		}
		if !own && (j.State == "" || len(j.Attempts) == 0 || j.Instances == 0) {
			t.Errorf("other team's job %+v: want its state, attempts and shape still shown", j)
		}
	}
	// The table names them "-".
	r = trainqWith(t, env, "history", "--class", "research", "--team", "search-ranking", "--since", "2026-12-01", "--until", "2026-12-02")
	if !strings.Contains(r.stdout, "\n-.1 ") || strings.Contains(r.stdout, "sweep-7") || strings.Contains(r.stdout, "job-b") {
		t.Errorf("table through the alias:\n%s\nwant other teams' jobs as -", r.stdout)
	}
}

// TestTraceExportWritesTheLedgersJobsAsATrace: the window's jobs that ran
// and ended, as a trace that trainq simulate replays; through an alias
// other teams' jobs come without a name.
func TestTraceExportWritesTheLedgersJobsAsATrace(t *testing.T) {
	store := historyLedger(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "december.csv")
	r := trainqWith(t, ledgerFunction(t, store, ststest.OperatorRole), "trace", "export", "--unqualified", "--since", "2026-12-01", "--until", "2026-12-02", "--out", out)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if !strings.HasPrefix(r.stdout, "wrote 3 jobs submitted from 2026-12-01T00:00:00Z to 2026-12-02T00:00:00Z to "+out) {
		t.Errorf("trace export printed %q", r.stdout)
	}
	// By hand: submit_s from since; duration_s the completing (last)
	// attempt's run: job-a 3 h − 1 h, job-b 4 h − 2 h, job-d 4:30 − 2:30,
	// 7200 s each; job-c still runs and is left out. The priority is the
	// request priority each job was given (50, 10, 70).
	want := "submit_s,duration_s,instances,instance_type,class,team,job_id,priority\n" +
		"0,7200,4,ml.p5.48xlarge,production,search-ranking,bert-1a2b3c4d,50\n" +
		"0,7200,20,ml.p5.48xlarge,sweep,search-research,sweep-7,10\n" +
		"1800,7200,2,ml.p4d.24xlarge,research,search-research,llm-2,70\n"
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("exported trace:\n%s\nwant:\n%s", got, want)
	}
	if r := trainqWith(t, nil, "simulate", "--trace", out, "--no-progress"); r.code != 0 {
		t.Errorf("trainq simulate refused the exported trace: exit %d: %s", r.code, r.stderr)
	}

	// Through search-ranking's alias: search-research's jobs without a
	// name (empty job_id sorts first among jobs submitted at 0).
	alias := platform.SubmitAliasName("research", "search-ranking")
	r = trainqWith(t, ledgerFunction(t, store, ststest.AliasRole(alias)), "trace", "export", "--class", "research", "--team", "search-ranking",
		"--since", "2026-12-01", "--until", "2026-12-02", "--out", "-")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	want = "submit_s,duration_s,instances,instance_type,class,team,job_id,priority\n" +
		"0,7200,20,ml.p5.48xlarge,sweep,search-research,,10\n" +
		"0,7200,4,ml.p5.48xlarge,production,search-ranking,bert-1a2b3c4d,50\n" +
		"1800,7200,2,ml.p4d.24xlarge,research,search-research,,70\n"
	if r.stdout != want {
		t.Errorf("exported trace through the alias:\n%s\nwant:\n%s", r.stdout, want)
	}
}
