// Command poll measures the poller against the local Batch endpoint
// (internal/batchtest) with N runnable jobs (default 100,000): the time and
// the Batch calls of a cold run (every job described) and of a warm run
// (the steady state: the same jobs, none described again), and whether
// every backlog metric the poller wrote equals the true count taken from
// the endpoint's own jobs. It prints a Markdown table; a wrong count fails
// it (exit 1).
//
// Usage: go run ./bench/poll [-jobs N]   (127.0.0.1 only; no AWS account)
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"math"
	"net/http"
	"os"
	"runtime"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/batch"

	"github.com/trainq/trainq/internal/batchtest"
	"github.com/trainq/trainq/metrics"
	"github.com/trainq/trainq/platform"
	"github.com/trainq/trainq/poll"
)

const queue = "arn:aws:batch:us-east-1:123456789012:job-queue/trainq-training"

func main() {
	n := flag.Int("jobs", 100_000, "runnable jobs")
	flag.Parse()
	if err := run(*n); err != nil {
		log.Fatal(err)
	}
}

func run(n int) error {
	p := platform.Default()
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	f := batchtest.New(0)
	defer f.Close()
	f.SetClock(func() time.Time { return now })
	teams := []string{"search-ranking", "search-research"}
	priorities := []int{950, 550, 150}
	types := []string{"ml.p5.48xlarge", "ml.p4d.24xlarge"}
	for i := range n {
		team, prio := teams[i%2], priorities[(i/2)%3]
		f.Add(batchtest.Job{
			Status:    "RUNNABLE",
			CreatedAt: now.Add(-time.Duration(n-i) * time.Second).UnixMilli(),
			Request: batchtest.SubmitRequest{
				JobName: fmt.Sprintf("job-%d", i), JobQueue: queue, QuotaShareName: &team, SchedulingPriority: &prio,
				ServiceRequestPayload: fmt.Sprintf(`{"TrainingJobName":"job-%d","ResourceConfig":{"InstanceType":%q,"InstanceCount":%d,"VolumeSizeInGB":50}}`, i, types[(i/7)%2], 1+i%4),
			},
		})
	}
	f.SetShareUsed(map[string]map[string]float64{"search-ranking": {"ml.p5.48xlarge": 22}, "search-research": {"ml.p4d.24xlarge": 28}})
	f.SetUsed(map[string]float64{"ml.p5.48xlarge": 22, "ml.p4d.24xlarge": 28})

	client := batch.New(batch.Options{
		Region: "us-east-1", BaseEndpoint: aws.String(f.URL),
		Credentials: credentials.NewStaticCredentialsProvider("test", "test", ""),
		HTTPClient:  &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}},
	})
	var out bytes.Buffer
	poller, err := poll.NewPoller(poll.PollerConfig{Platform: p, Queue: queue, Batch: client,
		Now: func() time.Time { return now }, Out: &out, CallsPerSecond: -1})
	if err != nil {
		return err
	}
	fmt.Printf("| run (%d runnable jobs, GOMAXPROCS %d) | time | ListServiceJobs | DescribeServiceJob | undescribed | backlog metrics checked |\n|---|---|---|---|---|---|\n", n, runtime.GOMAXPROCS(0))
	for _, name := range []string{"cold (first run: every job described)", "warm (a minute later: none described)"} {
		out.Reset()
		lists, describes := len(f.Calls("ListServiceJobs")), len(f.Calls("DescribeServiceJob"))
		start := time.Now()
		s, err := poller.Poll(context.Background())
		took := time.Since(start)
		if err != nil {
			return err
		}
		checked, err := check(p, f.Jobs(), now, out.Bytes())
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		fmt.Printf("| %s | %.2f s | %d | %d | %d | %d, all equal |\n", name, took.Seconds(),
			len(f.Calls("ListServiceJobs"))-lists, len(f.Calls("DescribeServiceJob"))-describes, s.Undescribed, checked)
		now = now.Add(time.Minute)
	}
	return nil
}

// check compares every RunnableJobs and OldestRunnableSeconds value in the
// EMF lines with the true count of the endpoint's jobs, counted here from
// their requests; it returns how many values it checked.
func check(p *platform.Platform, jobs []batchtest.Job, now time.Time, emf []byte) (int, error) {
	type group struct {
		n      float64
		oldest float64
	}
	want := map[string]*group{}
	add := func(key string, wait float64) {
		g := want[key]
		if g == nil {
			g = &group{}
			want[key] = g
		}
		g.n++
		g.oldest = math.Max(g.oldest, wait)
	}
	used := map[string]map[string]int{"search-ranking": {"ml.p5.48xlarge": 22}, "search-research": {"ml.p4d.24xlarge": 28}}
	for _, j := range jobs {
		var req struct {
			ResourceConfig struct {
				InstanceType  string
				InstanceCount int
			}
		}
		if err := json.Unmarshal([]byte(j.Request.ServiceRequestPayload), &req); err != nil {
			return 0, err
		}
		c, _ := p.ClassForPriority(*j.Request.SchedulingPriority)
		team, typ, k := *j.Request.QuotaShareName, req.ResourceConfig.InstanceType, req.ResourceConfig.InstanceCount
		t, _ := p.Team(team)
		quota := "ROOM"
		if used[team][typ]+k > t.CapacityOf(typ) {
			quota = "FULL"
		}
		wait := now.Sub(time.UnixMilli(j.CreatedAt)).Seconds()
		add("Queue", wait)
		add("Class="+c.Name, wait)
		add("Team="+team, wait)
		add("Class="+c.Name+",Team="+team, wait)
		add("InstanceType="+typ, wait)
		add("Class="+c.Name+",Quota="+quota, wait)
	}
	var lines []map[string]any
	dec := json.NewDecoder(bytes.NewReader(emf))
	for {
		var m map[string]any
		if err := dec.Decode(&m); err == io.EOF {
			break
		} else if err != nil {
			return 0, err
		}
		lines = append(lines, m)
	}
	checked := 0
	for _, m := range lines {
		if _, ok := m[metrics.RunnableJobs.Name]; !ok {
			continue
		}
		key := "Queue"
		for _, d := range [][]string{{"Class"}, {"Team"}, {"Class", "Team"}, {"InstanceType"}, {"Class", "Quota"}} {
			k := ""
			all := true
			for _, name := range d {
				v, ok := m[name].(string)
				if !ok {
					all = false
					break
				}
				if k != "" {
					k += ","
				}
				k += name + "=" + v
			}
			if all && len(k) > len(key) || all && key == "Queue" {
				key = k
			}
		}
		g := want[key]
		if g == nil {
			g = &group{}
		}
		if got := m[metrics.RunnableJobs.Name].(float64); got != g.n {
			return checked, fmt.Errorf("RunnableJobs{%s} = %g, true count %g", key, got, g.n)
		}
		if got := m[metrics.OldestRunnableSeconds.Name].(float64); math.Abs(got-g.oldest) > 0.001 {
			return checked, fmt.Errorf("OldestRunnableSeconds{%s} = %g, true %g", key, got, g.oldest)
		}
		checked += 2
	}
	if checked == 0 {
		return 0, fmt.Errorf("no backlog metric written")
	}
	return checked, nil
}

func init() { log.SetFlags(0); log.SetOutput(os.Stderr) }
