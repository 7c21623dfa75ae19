package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/trainq/trainq/plan"
	"github.com/trainq/trainq/platform/platformfile"
)

const planUsage = `Usage: trainq plan [--app CMD] [--output table|json] OLD NEW

Say what deploying NEW over OLD would do in AWS, without an account: which
resources CloudFormation adds, updates in place, replaces (a create-only
property changes, from the CloudFormation registry schemas, or a resource it
refers to is replaced), deletes or keeps, and which changes AWS refuses — the
riskiest first, with what each does to the queue's jobs. Exits 1 when AWS
would refuse part of the change.

OLD and NEW are platform files, synthesized by the CDK app as cdk deploy
would (--app, default: the "app" of ./cdk.json, run with CDK_CONTEXT_JSON
naming the file), or templates already synthesized (cdk.out/*.template.json).
The CDK app runs as a separate process: trainq itself never links the CDK.

Flags:
`

// PlanSchema names the JSON that plan --output json prints.
const PlanSchema = "trainq.plan/v1"

// planReport is plan's --output json.
type planReport struct {
	Schema string `json:"schema"`
	Old    string `json:"old"`
	New    string `json:"new"`
	// OldStack and NewStack are the stacks' names, when synthesized from
	// platform files.
	OldStack string `json:"oldStack,omitempty"`
	NewStack string `json:"newStack,omitempty"`
	*plan.Plan
}

func planCommand(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("trainq plan", flag.ContinueOnError)
	app := fs.String("app", "", `command that synthesizes a platform (default: the "app" of ./cdk.json, e.g. "go run ./bin/cdk")`)
	output := fs.String("output", "table", "output format: table or json")
	var files []string
	for {
		if err := parse(fs, args, stdout, planUsage); err != nil {
			return err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			break
		}
		files, args = append(files, rest[0]), rest[1:]
	}
	if err := checkOutput(*output); err != nil {
		return err
	}
	if len(files) != 2 {
		return &badUsage{fmt.Sprintf("want two files, OLD and NEW, got %d", len(files))}
	}
	rep := planReport{Schema: PlanSchema, Old: files[0], New: files[1]}
	var tmpls [2]*plan.Template
	for i, f := range files {
		t, stack, err := templateOf(f, *app, stderr)
		if err != nil {
			return err
		}
		tmpls[i] = t
		if i == 0 {
			rep.OldStack = stack
		} else {
			rep.NewStack = stack
		}
	}
	rep.Plan = plan.Diff(tmpls[0], tmpls[1])
	if *output == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return err
		}
	} else {
		printPlan(stdout, rep)
	}
	if rep.Refuses() {
		return fmt.Errorf("AWS would refuse %d of the changes: see above", rep.Counts[plan.Refused])
	}
	return nil
}

// templateOf reads a synthesized template, or synthesizes a platform file
// with the CDK app and reads its stack's template.
func templateOf(file, app string, stderr io.Writer) (*plan.Template, string, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, "", fmt.Errorf("read %s: %w", file, err)
	}
	var probe struct{ Resources json.RawMessage }
	if json.Unmarshal(data, &probe) == nil && len(probe.Resources) > 0 {
		t, err := plan.ParseTemplate(data)
		if err != nil {
			return nil, "", fmt.Errorf("%s: %w", file, err)
		}
		return t, "", nil
	}
	p, err := platformfile.Parse(data)
	if err != nil {
		return nil, "", fmt.Errorf("platform file %s: %w", file, err)
	}
	if app == "" {
		if app, err = cdkApp(); err != nil {
			return nil, "", err
		}
	}
	abs, err := filepath.Abs(file)
	if err != nil {
		return nil, "", err
	}
	out, err := os.MkdirTemp("", "trainq-plan-*")
	if err != nil {
		return nil, "", err
	}
	defer os.RemoveAll(out)
	ctx, _ := json.Marshal(map[string]string{"platform": abs})
	cmd := exec.Command("sh", "-c", app)
	cmd.Env = append(os.Environ(), "CDK_OUTDIR="+out, "CDK_CONTEXT_JSON="+string(ctx), "JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION=20")
	var msgs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &msgs, &msgs
	fmt.Fprintf(stderr, "synthesizing %s with %q…\n", file, app)
	if err := cmd.Run(); err != nil {
		return nil, "", fmt.Errorf("synthesize %s with %q: %v\n%s", file, app, err, lastLines(msgs.String(), 20))
	}
	stack := "Trainq-" + p.Name
	t, _, err := templateOf(filepath.Join(out, stack+".template.json"), "", stderr)
	if err != nil {
		return nil, "", fmt.Errorf("synthesize %s: the app wrote no template of stack %s: %w", file, stack, err)
	}
	return t, stack, nil
}

// cdkApp is the "app" of ./cdk.json, as the CDK CLI reads it.
func cdkApp() (string, error) {
	b, err := os.ReadFile("cdk.json")
	if errors.Is(err, os.ErrNotExist) {
		return "", errors.New(`no cdk.json here to say how to synthesize a platform: run trainq plan from the root of a trainq checkout, give --app "go run /path/to/trainq/bin/cdk", or give synthesized templates (cdk.out/*.template.json)`)
	}
	if err != nil {
		return "", err
	}
	var c struct{ App string }
	if err := json.Unmarshal(b, &c); err != nil || c.App == "" {
		return "", fmt.Errorf("cdk.json: no \"app\" (%v)", err)
	}
	return c.App, nil
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// printPlan writes the plan as text: a summary, then each change, the
// riskiest first.
func printPlan(w io.Writer, r planReport) {
	if r.OldStack != "" && r.NewStack != "" && r.OldStack != r.NewStack {
		fmt.Fprintf(w, "The platform's name changes: deploying %s creates a second stack, %s, beside %s (which keeps running, with its queue and jobs, until destroyed); the plan below compares their templates.\n\n",
			r.New, r.NewStack, r.OldStack)
	}
	var parts []string
	for _, a := range []plan.Action{plan.Refused, plan.Replace, plan.Delete, plan.Retain, plan.Update, plan.Add} {
		if n := r.Counts[a]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, map[plan.Action]string{plan.Refused: "refused by AWS", plan.Replace: "replaced",
				plan.Delete: "deleted", plan.Retain: "removed but kept", plan.Update: "updated in place", plan.Add: "added"}[a]))
		}
	}
	if len(parts) == 0 {
		fmt.Fprintf(w, "%s → %s: no changes (%d resources unchanged)\n", r.Old, r.New, r.Unchanged)
		return
	}
	fmt.Fprintf(w, "%s → %s: %s; %d unchanged\n", r.Old, r.New, strings.Join(parts, ", "), r.Unchanged)
	for _, c := range r.Changes {
		fmt.Fprintf(w, "\n%-8s %s (%s)\n", strings.ToUpper(string(c.Action)), c.LogicalID, c.Type)
		if len(c.Properties) > 0 && c.Action != plan.Add {
			fmt.Fprintf(w, "         changes: %s\n", strings.Join(c.Properties, ", "))
		}
		if c.Why != "" {
			fmt.Fprintf(w, "         why:     %s\n", c.Why)
		}
		if c.Effect != "" {
			fmt.Fprintf(w, "         effect:  %s\n", c.Effect)
		}
	}
}
