package lambdatest

import (
	"context"
	"fmt"
	"io"
	"sort"
	"time"
)

// Target is one function whose cold start is measured: a name for the
// report and its bootstrap.
type Target struct {
	Name, Bootstrap string
}

// ReportColdStarts measures, for each target in turn, n cold starts under
// the emulator rie with env: a fresh emulator, one invocation with payload
// (which must answer 200), the emulator's INIT REPORT (the init phase) and
// the first invocation's round trip. It writes the medians to w as
// Markdown table rows, the same for every benchmark that compares a
// function with a hello-world one.
func ReportColdStarts(ctx context.Context, w io.Writer, rie string, env []string, payload []byte, n int, targets ...Target) error {
	for _, fn := range targets {
		var inits, firsts []time.Duration
		for i := 0; i < n; i++ {
			e, err := Start(ctx, rie, fn.Bootstrap, env)
			if err != nil {
				return err
			}
			t0 := time.Now()
			status, body, err := e.Invoke(ctx, payload)
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
			inits, firsts = append(inits, init), append(firsts, first)
		}
		fmt.Fprintf(w, "| cold start, %s: init (median of %d) | %.1f ms |\n", fn.Name, n, ms(median(inits)))
		fmt.Fprintf(w, "| cold start, %s: first invoke round trip (median of %d) | %.1f ms |\n", fn.Name, n, ms(median(firsts)))
	}
	return nil
}

func median(ds []time.Duration) time.Duration {
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	return ds[len(ds)/2]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
