package test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/platform"
	"github.com/trainq/trainq/platform/platformfile"
)

// TestTheFunctionsKeepJobsForTheLedgersRetention: the functions that write
// the job ledger — the observer, the poller (its reconciling pass) and the
// submission function — set each item's time to live from the platform
// file's ledger.retentionDays, which they read from their bundled
// platform.json. testdata/teams.yaml keeps jobs 90 days, not the default
// 400: 90 × 86,400 s = 7,776,000 s. A bundle without it would keep every
// job 400 days whatever the platform file says.
func TestTheFunctionsKeepJobsForTheLedgersRetention(t *testing.T) {
	s := synth(t, teamsPlatform)
	const want = 7_776_000 * time.Second
	for _, fn := range []string{s.platform.SubmitFunctionName(), s.platform.ObserverFunctionName(), s.platform.PollerFunctionName()} {
		p := s.bundledPlatform(t, fn)
		p.ApplyDefaults()
		if got := p.LedgerRetention(); got != want {
			t.Errorf("%s keeps a job %v after it ended; the platform file says %v (ledger.retentionDays: 90)", fn, got, want)
		}
	}
}

// bundledPlatform is the platform.json the function named fn bundles in
// the synthesized stack's assets: what the deployed function reads.
func (s *synthesized) bundledPlatform(t *testing.T, fn string) *platform.Platform {
	t.Helper()
	_, r := s.template.find(t, "AWS::Lambda::Function", "FunctionName", fn)
	key, _ := get(r.Properties, "Code.S3Key").(string)
	data, err := os.ReadFile(filepath.Join(s.outdir, "asset."+strings.TrimSuffix(key, ".zip"), contract.PlatformFileName))
	if err != nil {
		t.Fatalf("%s: %v", fn, err)
	}
	p, err := platformfile.Parse(data)
	if err != nil {
		t.Fatalf("%s's %s: %v", fn, contract.PlatformFileName, err)
	}
	return p
}
