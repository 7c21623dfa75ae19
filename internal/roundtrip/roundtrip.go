// Package roundtrip carries a trace through the platform's memory and
// back, for the round-trip test and benchmark: the simulator's per-job
// outcomes (Simulate) → the AWS Batch events those outcomes would produce
// (internal/batchevents), shuffled and repeated (Events) → the observer →
// the job ledger → trace export and usage, compared with what the
// simulator says (Check).
//
// It is test support: only tests and benchmarks import it. It must never
// import the AWS CDK, jsii or constructs.
package roundtrip

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/aws/aws-lambda-go/lambdacontext"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/internal/batchevents"
	"github.com/trainq/trainq/internal/batchtest"
	"github.com/trainq/trainq/internal/dynamotest"
	"github.com/trainq/trainq/internal/ststest"
	"github.com/trainq/trainq/ledger"
	"github.com/trainq/trainq/platform"
	"github.com/trainq/trainq/showback"
	"github.com/trainq/trainq/simulate"
	"github.com/trainq/trainq/submit"
	"github.com/trainq/trainq/trace"
)

// Queue is the job queue the events name.
const Queue = "arn:aws:batch:us-east-1:123456789012:job-queue/trainq-training"

// Run is a simulated trace and the jobs' lives as Batch would report them.
type Run struct {
	// Start is the moment of the trace's second 0 (Unix ms); End is after
	// every job ended.
	Start, End int64
	// Jobs are the jobs' lives, in the order they ended.
	Jobs []batchevents.Job
	// Want is the trace export that the lives should give back: the jobs
	// that ran and ended, their completing attempt's duration (trace.Sort's
	// order).
	Want []trace.Job
	// Busy is the simulator's instance-seconds per team (Result.Teams'
	// InstanceSeconds.Busy).
	Busy map[string]int64
}

// life collects one job's attempts from the simulator's events.
type life struct {
	job      batchevents.Job
	starts   []int64
	started  bool
	class    string
	preempts int
}

// Simulate runs jobs on p and returns their lives: each attempt's start
// and stop (second s of the trace is start + s×1000 ms), preempted or not,
// and how the job ended. Job i gets a Batch job id of its own and the
// trace's id as its name. A re-routed job (the simulator's move) is not
// carried: Simulate refuses platforms whose classes re-route.
func Simulate(p *platform.Platform, jobs []trace.Job, start int64) (*Run, error) {
	for _, c := range p.Classes {
		if c.Reroute != nil {
			return nil, fmt.Errorf("roundtrip: class %s re-routes; moved jobs are not carried", c.Name)
		}
	}
	ms := func(s int64) int64 { return start + s*1000 }
	lives := map[string]*life{}
	index := map[string]int{}
	for i, j := range jobs {
		index[j.ID] = i
	}
	run := &Run{Start: start, Busy: map[string]int64{}}
	var err error
	obs := observer(func(e simulate.Event) {
		l := lives[e.JobID]
		if l == nil {
			c, _ := p.Class(e.Class)
			retries := 0
			if c.PreemptionRetries != nil {
				retries = *c.PreemptionRetries
			}
			l = &life{class: e.Class, job: batchevents.Job{ID: fmt.Sprintf("%08x-0000-4000-8000-%012d", index[e.JobID], 0), Name: e.JobID,
				Queue: Queue, Share: e.Team, Priority: e.Priority, InstanceType: e.InstanceType, Instances: e.Instances,
				CreatedAt: ms(e.Submit), TimeoutSeconds: c.MaxRuntimeSeconds, PreemptionRetries: retries}}
			lives[e.JobID] = l
		}
		j := &l.job
		switch e.Kind {
		case simulate.EventStart:
			// Batch schedules a job and SageMaker starts it; the
			// simulator has no gap between the two.
			j.Attempts = append(j.Attempts, batchevents.Attempt{ScheduledAt: ms(e.At), StartedAt: ms(e.At)})
		case simulate.EventPreempt, simulate.EventTimeout, simulate.EventComplete:
			a := &j.Attempts[len(j.Attempts)-1]
			a.StoppedAt, a.Preempted = ms(e.At), e.Kind == simulate.EventPreempt
			j.Succeeded = e.Kind == simulate.EventComplete
		case simulate.EventFail:
			j.Reason, j.EndedAt = e.Reason, ms(e.At)
		case simulate.EventMove:
			err = fmt.Errorf("roundtrip: job %s moved to %s; moved jobs are not carried", e.JobID, e.InstanceType)
		}
	})
	var ended []string
	res, rerr := simulate.Run(p, &simulate.SliceSource{Jobs: jobs}, simulate.Options{Observer: obs,
		Jobs: func(r simulate.JobRecord) error { ended = append(ended, r.ID); return nil }})
	if rerr != nil {
		return nil, rerr
	}
	if err != nil {
		return nil, err
	}
	for _, t := range res.Teams {
		run.Busy[t.Name] = t.InstanceSeconds.Busy
	}
	run.End = ms(res.EndSeconds)
	for _, id := range ended {
		l := lives[id]
		if l == nil {
			return nil, fmt.Errorf("roundtrip: job %s ended without an event", id)
		}
		j := l.job
		run.Jobs = append(run.Jobs, j)
		run.End = max(run.End, j.EndedAt)
		if n := len(j.Attempts); n > 0 {
			last := j.Attempts[n-1]
			run.End = max(run.End, last.StoppedAt)
			if d := (last.StoppedAt - last.StartedAt) / 1000; d >= 1 {
				t := jobs[index[id]]
				run.Want = append(run.Want, trace.Job{ID: id, Submit: t.Submit, Duration: d, Instances: t.Instances, InstanceType: t.InstanceType,
					Class: t.Class, Team: t.Team, Priority: t.Priority})
			}
		}
	}
	trace.Sort(run.Want)
	return run, nil
}

type observer func(simulate.Event)

func (o observer) Observe(e simulate.Event, _ *simulate.State) { o(e) }

// Events are every event of the lives, each sent again with probability
// repeat, in an order shuffled by seed.
func Events(jobs []batchevents.Job, repeat float64, seed uint64) [][]byte {
	r := rand.New(rand.NewPCG(seed, seed+1))
	var out [][]byte
	for _, j := range jobs {
		for _, e := range batchevents.Events(j) {
			out = append(out, e)
			if r.Float64() < repeat {
				out = append(out, e)
			}
		}
	}
	r.Shuffle(len(out), func(a, b int) { out[a], out[b] = out[b], out[a] })
	return out
}

// Export writes the trace of [since, until] as trainq trace export does.
type Export func(ctx context.Context, since, until time.Time, w io.Writer) error

// Check reads the ledger back: the trace export of [Start, End] (export,
// or ledger.Export when nil) must list run.Want, and usage must give each
// team the simulator's instance-seconds to the millisecond. It returns
// what differs, or nil.
func Check(ctx context.Context, s *ledger.Store, p *platform.Platform, run *Run, export Export) error {
	since, until := time.UnixMilli(run.Start), time.UnixMilli(run.End+1000)
	if export == nil {
		export = func(ctx context.Context, since, until time.Time, w io.Writer) error {
			_, err := ledger.Export(ctx, s, p, since, until, w, nil)
			return err
		}
	}
	var csv bytes.Buffer
	if err := export(ctx, since, until, &csv); err != nil {
		return err
	}
	got, err := ReadTrace(&csv)
	if err != nil {
		return err
	}
	var problems []string
	if len(got) != len(run.Want) {
		problems = append(problems, fmt.Sprintf("export gave %d jobs, the simulator %d", len(got), len(run.Want)))
	}
	for i := range min(len(got), len(run.Want)) {
		g, w := got[i], run.Want[i]
		// The priority is the request priority the class's band maps the
		// job's scheduling priority back to: the trace's, or the default
		// 50 when the trace gives none.
		if w.Priority == trace.NoPriority {
			w.Priority = 50
		}
		g.Line, w.Line = 0, 0
		if g != w {
			problems = append(problems, fmt.Sprintf("row %d: export %+v, simulator %+v", i+1, g, w))
		}
		if len(problems) > 10 {
			break
		}
	}
	rep, err := ledger.Usage(ctx, s, p, ledger.UsageQuery{Since: since, Until: until, Period: showback.Month})
	if err != nil {
		return err
	}
	perTeam := map[string]int64{}
	for k, u := range rep.Table.Rows {
		perTeam[k.Team] += u.Total()
	}
	var teams []string
	for t := range run.Busy {
		teams = append(teams, t)
	}
	slices.Sort(teams)
	for _, t := range teams {
		if perTeam[t] != run.Busy[t]*1000 {
			problems = append(problems, fmt.Sprintf("team %s: usage %d instance-ms, the simulator %d instance-seconds", t, perTeam[t], run.Busy[t]))
		}
		delete(perTeam, t)
	}
	for t, v := range perTeam {
		problems = append(problems, fmt.Sprintf("team %s: usage %d instance-ms, unknown to the simulator", t, v))
	}
	if len(problems) > 0 {
		return fmt.Errorf("round trip:\n  %s", strings.Join(problems, "\n  "))
	}
	return nil
}

// ReadTrace reads every job of a trace.
func ReadTrace(r io.Reader) ([]trace.Job, error) {
	tr, err := trace.NewReader(r)
	if err != nil {
		return nil, err
	}
	var out []trace.Job
	for {
		j, err := tr.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		out = append(out, j)
	}
}

// Ledger starts a local DynamoDB (dynalite) holding an empty ledger table
// named table, as the round trip's test and the ledger's benchmarks need.
// Close it when done.
func Ledger(ctx context.Context, table string) (*dynamotest.Server, error) {
	local, err := dynamotest.Start(ctx)
	if err != nil {
		return nil, err
	}
	if err := local.CreateTable(ctx, dynamotest.LedgerTable(table)); err != nil {
		local.Close()
		return nil, err
	}
	return local, nil
}

// PeakHeap samples the heap in use every 10 ms until stop, which returns
// the largest sample: a benchmark's peak memory of one phase.
func PeakHeap() (stop func() uint64) {
	var peak atomic.Uint64
	done := make(chan struct{})
	go func() {
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			if m.HeapInuse > peak.Load() {
				peak.Store(m.HeapInuse)
			}
			select {
			case <-done:
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
	}()
	return func() uint64 { close(done); return peak.Load() }
}

// Function is the submission function's ARN the exports invoke.
const Function = "arn:aws:lambda:us-east-1:123456789012:function:trainq-submit"

// FunctionExport is trainq trace export over s: the submission function's
// export action (its handler, in process, over a fake Batch endpoint),
// invoked page after page by the operator's signed requests, which a
// loopback STS verifies as the deployed function does, the rows sorted
// as the CLI sorts them. Call stop when done.
func FunctionExport(p *platform.Platform, s *ledger.Store, now time.Time) (export Export, stop func(), err error) {
	fake := batchtest.New(0)
	sts := ststest.New("us-east-1")
	stop = func() { fake.Close(); sts.Close() }
	h, err := submit.New(submit.Config{Platform: p, JobQueue: Queue, ExecutionRoleARN: "arn:aws:iam::123456789012:role/trainq-sagemaker",
		Batch: submit.NewBatchClient(aws.Config{Region: "us-east-1", Credentials: credentials.NewStaticCredentialsProvider("test", "test", ""),
			BaseEndpoint: aws.String(fake.URL)}, submit.DefaultRetryPolicy),
		Ledger: s, Now: func() time.Time { return now }, Identity: &submit.STSVerifier{Endpoint: sts.URL}, Operators: []string{ststest.OperatorRole}})
	if err != nil {
		stop()
		return nil, nil, err
	}
	export = func(ctx context.Context, since, until time.Time, w io.Writer) error {
		var rows []trace.Job
		req := contract.Request{Action: contract.ActionExport, Since: since.UTC().Format(time.RFC3339), Until: until.UTC().Format(time.RFC3339)}
		for {
			body, err := json.Marshal(req)
			if err != nil {
				return err
			}
			payload, err := sts.SignedPayload(sts.CallerOf(""), Function, body)
			if err != nil {
				return err
			}
			out, err := h.Invoke(lambdacontext.NewContext(ctx, &lambdacontext.LambdaContext{AwsRequestID: "r", InvokedFunctionArn: Function}), payload)
			if err != nil {
				return err
			}
			var resp contract.Response
			if err := json.Unmarshal(out, &resp); err != nil {
				return err
			}
			if resp.Trace == nil {
				return fmt.Errorf("export: the function answered %s", out)
			}
			for _, r := range resp.Trace.Rows {
				rows = append(rows, trace.Job{ID: r.JobName, Submit: r.SubmitSeconds, Duration: r.DurationSeconds, Instances: r.Instances,
					InstanceType: r.InstanceType, Class: r.Class, Team: r.Team, Priority: r.Priority})
			}
			if resp.Trace.Next == "" {
				break
			}
			req.Cursor = resp.Trace.Next
		}
		trace.Sort(rows)
		tw, err := trace.NewWriter(w)
		if err != nil {
			return err
		}
		for _, r := range rows {
			if err := tw.Write(r); err != nil {
				return err
			}
		}
		return tw.Flush()
	}
	return export, stop, nil
}
