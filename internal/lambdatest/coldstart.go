package lambdatest

import (
	"context"
	"fmt"
	"io"
	"sort"
	"time"
)

// Target is one function whose cold start is measured: a name for the
// report, its bootstrap, its whole environment (Env) and the payload of
// its first invocation, which must answer 200.
type Target struct {
	Name, Bootstrap string
	Env             []string
	Payload         []byte
}

// ReportColdStarts measures n cold starts of each target under the
// emulator rie — a fresh emulator, one invocation, the emulator's INIT
// REPORT (the init phase) and the first invocation's round trip — taking
// the targets in turn within each round, so that every target meets the
// same load of a shared machine. It writes to w, as Markdown table rows,
// each target's medians and, for every target after the first (the
// reference, a hello-world function), its median init as a multiple of the
// reference's: the same for every benchmark that compares a function with
// a hello-world one.
func ReportColdStarts(ctx context.Context, w io.Writer, rie string, n int, targets ...Target) error {
	inits := make([][]time.Duration, len(targets))
	firsts := make([][]time.Duration, len(targets))
	for i := 0; i < n; i++ {
		for t, fn := range targets {
			e, err := Start(ctx, rie, fn.Bootstrap, fn.Env)
			if err != nil {
				return err
			}
			t0 := time.Now()
			status, body, err := e.Invoke(ctx, fn.Payload)
			first := time.Since(t0)
			var init time.Duration
			ok := false
			for j := 0; j < 50 && !ok; j++ {
				if init, ok = e.InitDuration(); !ok {
					time.Sleep(10 * time.Millisecond)
				}
			}
			e.Close()
			if err != nil || !ok || status != 200 {
				return fmt.Errorf("%s: invoke %d %s %v, init report found %v:\n%s", fn.Name, status, body, err, ok, e.Log())
			}
			inits[t], firsts[t] = append(inits[t], init), append(firsts[t], first)
		}
	}
	for t, fn := range targets {
		fmt.Fprintf(w, "| cold start, %s: init (median of %d) | %.1f ms |\n", fn.Name, n, ms(median(inits[t])))
		fmt.Fprintf(w, "| cold start, %s: first invoke round trip (median of %d) | %.1f ms |\n", fn.Name, n, ms(median(firsts[t])))
	}
	for t, fn := range targets[1:] {
		fmt.Fprintf(w, "| cold start, %s: init ÷ %s's | %.2f× |\n", fn.Name, targets[0].Name, float64(median(inits[t+1]))/float64(median(inits[0])))
	}
	return nil
}

func median(ds []time.Duration) time.Duration {
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	return ds[len(ds)/2]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
