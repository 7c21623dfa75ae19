package loadtest

import (
	"flag"
	"testing"
)

// The default alarm is lifted and any other value kept; each case sets the
// flag as `go test` would and reads it back.
func TestLiftDefaultTimeout(t *testing.T) {
	f := flag.Lookup("test.timeout")
	if f == nil {
		t.Fatal("the testing package registers test.timeout; it is missing")
	}
	old := f.Value.String()
	defer f.Value.Set(old)
	for _, c := range []struct{ set, want string }{
		{"10m0s", "0s"}, // go test's default: lifted
		{"10m", "0s"},   // the same duration spelled by hand
		{"30m0s", "30m0s"},
		{"1m0s", "1m0s"},
		{"0s", "0s"},
	} {
		if err := f.Value.Set(c.set); err != nil {
			t.Fatal(err)
		}
		LiftDefaultTimeout()
		if got := f.Value.String(); got != c.want {
			t.Errorf("-timeout %s: got %s after LiftDefaultTimeout, want %s", c.set, got, c.want)
		}
	}
}
