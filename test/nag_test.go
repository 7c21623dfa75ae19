package test

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestNoUnsuppressedCdkNagErrors(t *testing.T) {
	for _, file := range []string{"", fairSharePlatform, examplePlatform} {
		t.Run(describe(file), func(t *testing.T) {
			s := synth(t, file)
			for _, e := range s.errors {
				t.Errorf("error annotation: %s", e)
			}
			// Every suppression in the nag report carries a written reason.
			matches, _ := filepath.Glob(filepath.Join(s.outdir, "AwsSolutions-*-NagReport.csv"))
			if len(matches) == 0 {
				t.Fatalf("no cdk-nag report in %s: the AwsSolutions checks did not run", s.outdir)
			}
			f, err := os.Open(matches[0])
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			rows, err := csv.NewReader(f).ReadAll()
			if err != nil {
				t.Fatal(err)
			}
			checked := 0
			for _, row := range rows[1:] {
				rule, res, compliance, reason := row[0], row[1], row[2], row[3]
				checked++
				switch compliance {
				case "Non-Compliant":
					t.Errorf("%s: %s is non-compliant", res, rule)
				case "Suppressed":
					if len(strings.TrimSpace(reason)) < 20 {
						t.Errorf("%s: %s suppressed without a real reason (%q)", res, rule, reason)
					}
				}
			}
			if checked == 0 {
				t.Errorf("the nag report lists no checks")
			}
		})
	}
}
