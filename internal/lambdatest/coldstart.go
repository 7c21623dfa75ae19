package lambdatest

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
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
// REPORT (the init phase) and the first invocation's round trip. The first
// target is the reference (a hello-world function). Each round starts every
// target once, in an order shuffled per round (seeded, so a run can be
// repeated), so that every target meets the same load of a shared machine
// and none always follows another; within a round each function's init is
// divided by the reference's of the same round.
//
// It writes to w, as Markdown table rows: the machine's load average before
// and after; each target's median and 90th percentile init and median first
// invocation; and, for every target after the first, the median and 90th
// percentile of its per-round init ratio — the figure a shared machine
// disturbs least, as one round's load weighs on both sides of its ratio.
func ReportColdStarts(ctx context.Context, w io.Writer, rie string, n int, targets ...Target) error {
	if n < 1 || len(targets) == 0 {
		return fmt.Errorf("cold starts: n = %d and %d targets, want at least 1 of each", n, len(targets))
	}
	before := loadAverage()
	inits := make([][]time.Duration, len(targets))
	firsts := make([][]time.Duration, len(targets))
	ratios := make([][]float64, len(targets))
	order := make([]int, len(targets))
	for i := range order {
		order[i] = i
	}
	shuffle := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < n; i++ {
		shuffle.Shuffle(len(order), func(a, b int) { order[a], order[b] = order[b], order[a] })
		for _, t := range order {
			init, first, err := coldStart(ctx, rie, targets[t])
			if err != nil {
				return err
			}
			inits[t], firsts[t] = append(inits[t], init), append(firsts[t], first)
		}
		for t := range targets[1:] {
			ratios[t+1] = append(ratios[t+1], float64(inits[t+1][i])/float64(inits[0][i]))
		}
	}
	fmt.Fprintf(w, "| machine load average (1, 5, 15 min) before and after | %s; %s |\n", before, loadAverage())
	for t, fn := range targets {
		fmt.Fprintf(w, "| cold start, %s: init (median; 90th percentile of %d) | %.1f ms; %.1f ms |\n", fn.Name, n, ms(quantile(inits[t], 0.5)), ms(quantile(inits[t], 0.9)))
		fmt.Fprintf(w, "| cold start, %s: first invoke round trip (median of %d) | %.1f ms |\n", fn.Name, n, ms(quantile(firsts[t], 0.5)))
	}
	for t, fn := range targets[1:] {
		fmt.Fprintf(w, "| cold start, %s: init ÷ %s's in the same round (median; 90th percentile of %d) | %.2f×; %.2f× |\n",
			fn.Name, targets[0].Name, n, quantile(ratios[t+1], 0.5), quantile(ratios[t+1], 0.9))
	}
	return nil
}

// coldStart starts a fresh emulator with fn, invokes it once and reads its
// init phase from the emulator's INIT REPORT.
func coldStart(ctx context.Context, rie string, fn Target) (init, first time.Duration, err error) {
	e, err := Start(ctx, rie, fn.Bootstrap, fn.Env)
	if err != nil {
		return 0, 0, err
	}
	t0 := time.Now()
	status, body, err := e.Invoke(ctx, fn.Payload)
	first = time.Since(t0)
	ok := false
	for j := 0; j < 50 && !ok; j++ {
		if init, ok = e.InitDuration(); !ok {
			time.Sleep(10 * time.Millisecond)
		}
	}
	e.Close()
	if err != nil || !ok || status != 200 {
		return 0, 0, fmt.Errorf("%s: invoke %d %s %v, init report found %v:\n%s", fn.Name, status, body, err, ok, e.Log())
	}
	return init, first, nil
}

// quantile is the q-quantile of xs by the nearest rank (the smallest value
// with at least q of the values at or below it): of 30 values, the median
// is the 15th and the 90th percentile the 27th.
func quantile[T time.Duration | float64](xs []T, q float64) T {
	s := slices.Clone(xs)
	slices.Sort(s)
	rank := int(math.Ceil(q * float64(len(s))))
	return s[min(max(rank, 1), len(s))-1]
}

// loadAverage is the machine's 1, 5 and 15 minute load averages
// (/proc/loadavg), or "unknown".
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) >= 3 {
		return strings.Join(f[:3], ", ")
	}
	return "unknown"
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
