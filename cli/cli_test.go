package cli

import (
	"flag"
	"strings"
	"testing"
)

// TestSuggestFindsTypingMistakes: distances counted by hand — "sumbit" is
// "submit" with "m" and "b" swapped (one transposition); "stauts" is
// "status" with "u" and "t" swapped; "deploy" is at least 4 edits from
// every command, so nothing is suggested.
func TestSuggestFindsTypingMistakes(t *testing.T) {
	cmds := []string{"submit", "status", "queue", "cancel", "simulate", "validate", "version"}
	for word, want := range map[string]string{"sumbit": "submit", "stauts": "status", "qeueu": "queue", "simulat": "simulate", "deploy": "", "x": ""} {
		if got := Suggest(word, cmds); got != want {
			t.Errorf("Suggest(%q) = %q, want %q", word, got, want)
		}
	}
	if d := editDistance("sumbit", "submit"); d != 1 {
		t.Errorf("editDistance(sumbit, submit) = %d, want 1", d)
	}
}

// TestPrintDefaultsUsesTwoDashes as the docs write flags.
func TestPrintDefaultsUsesTwoDashes(t *testing.T) {
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.String("class", "", "priority `class`")
	fs.Bool("dry-run", false, "check only")
	fs.String("output", "table", "table or json")
	var b strings.Builder
	PrintDefaults(fs, &b)
	want := "  --class class\n    \tpriority class\n  --dry-run\n    \tcheck only\n  --output string\n    \ttable or json (default \"table\")\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}
