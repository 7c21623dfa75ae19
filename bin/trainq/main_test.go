package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func TestValidateListsEveryProblemOfEveryFile(t *testing.T) {
	var out, errOut bytes.Buffer
	code := run(context.Background(), []string{"validate", "../../platform/default.yaml", "../../test/testdata/bad-platform.yaml"}, &out, &errOut)
	if code != 1 {
		t.Fatalf("exit code %d, want 1 (one file is invalid)\n%s%s", code, out.String(), errOut.String())
	}
	got := out.String()
	if !strings.Contains(got, "default.yaml: ok") {
		t.Errorf("the valid default is not reported ok:\n%s", got)
	}
	// bad-platform.yaml has four mistakes, listed under one heading.
	if !strings.Contains(got, "bad-platform.yaml: invalid platform (4 problems)") || strings.Count(got, "\n  - ") != 4 {
		t.Errorf("want the bad file's four problems:\n%s", got)
	}
}

func TestUnknownCommandShowsUsage(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run(context.Background(), []string{"deploy"}, &out, &errOut); code != 2 {
		t.Errorf("exit code %d, want 2", code)
	}
	for _, cmd := range []string{"submit", "status", "cancel", "reprioritize", "simulate", "trace", "validate"} {
		if !strings.Contains(errOut.String(), cmd) {
			t.Errorf("usage does not list %s:\n%s", cmd, errOut.String())
		}
	}
}

func TestSubcommandHelpExitsZero(t *testing.T) {
	for _, cmd := range []string{"submit", "simulate", "trace"} {
		var out, errOut bytes.Buffer
		if code := run(context.Background(), []string{cmd, "--help"}, &out, &errOut); code != 0 {
			t.Errorf("trainq %s --help: exit code %d, want 0\n%s", cmd, code, errOut.String())
		}
	}
}

func TestValidateHelpPrintsUsage(t *testing.T) {
	for _, arg := range []string{"--help", "-h"} {
		var out, errOut bytes.Buffer
		code := run(context.Background(), []string{"validate", arg}, &out, &errOut)
		if code != 0 {
			t.Errorf("trainq validate %s: exit code %d, want 0\n%s", arg, code, errOut.String())
		}
		if !strings.Contains(out.String(), "Usage: trainq validate [--output table|json] FILE") {
			t.Errorf("trainq validate %s printed no usage:\n%s%s", arg, out.String(), errOut.String())
		}
		if strings.Contains(out.String()+errOut.String(), "no such file") {
			t.Errorf("trainq validate %s read %q as a file:\n%s", arg, arg, errOut.String())
		}
	}
}
