// Package client is the trainq CLI's job commands: submit, status, cancel
// and reprioritize. Each invokes the platform's submission Lambda with the
// caller's own AWS credentials (the SDK's standard configuration, so
// AWS_ENDPOINT_URL_LAMBDA, profiles and regions work as usual); submit goes
// through the alias of the requested class, which is how IAM decides who
// may use which class.
//
// It is run-time code: it must never import the AWS CDK, jsii or constructs.
package client

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/lambda"

	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/platform"
)

// Commands are the commands Run serves, with a one-line summary each.
var Commands = map[string]string{
	"submit":       "submit a SageMaker training job to the platform's queue",
	"status":       "show a job's status",
	"cancel":       "cancel a job",
	"reprioritize": "change a job's priority inside its class",
}

// Run executes command with args, writing results to stdout and usage to
// stderr. It returns flag.ErrHelp after printing usage for -h.
func Run(ctx context.Context, command string, args []string, stdout, stderr io.Writer) error {
	if _, ok := Commands[command]; !ok {
		return fmt.Errorf("unknown command %q: want submit, status, cancel or reprioritize", command)
	}
	c := &cmd{name: command, fs: flag.NewFlagSet("trainq "+command, flag.ContinueOnError)}
	c.fs.SetOutput(stderr)
	c.common()
	var build func() (contract.Request, error)
	switch command {
	case "submit":
		build = c.submitFlags()
	case "status":
		build = c.jobFlags(contract.ActionDescribe)
	case "cancel":
		build = c.jobFlags(contract.ActionCancel)
	case "reprioritize":
		build = c.jobFlags(contract.ActionReprioritize)
	}
	c.fs.Usage = func() { c.usage(stderr) }
	if err := c.fs.Parse(args); err != nil {
		return err
	}
	req, err := build()
	if err != nil {
		return fmt.Errorf("trainq %s: %w", command, err)
	}
	resp, err := c.invoke(ctx, req)
	if err != nil {
		return fmt.Errorf("trainq %s: %w", command, err)
	}
	return c.print(stdout, resp)
}

type cmd struct {
	name     string
	fs       *flag.FlagSet
	platform string
	function string
	region   string
	class    string
	output   string
	// unqualified invokes the function without an alias (job commands,
	// operators only).
	unqualified bool
	// positional describes the positional argument in usage.
	positional string
	examples   []string
}

func (c *cmd) common() {
	c.fs.StringVar(&c.platform, "platform", "", "platform file (YAML or JSON) naming the function (default: the embedded default platform)")
	c.fs.StringVar(&c.function, "function", "", "submission function name (default: derived from the platform, e.g. trainq-submit)")
	c.fs.StringVar(&c.region, "region", "", "AWS region (default: the SDK's standard configuration)")
	c.fs.StringVar(&c.class, "class", "", "priority class; selects the function alias, whose invoke permission grants the class")
	c.fs.StringVar(&c.output, "output", "table", "output format: table or json")
}

func (c *cmd) usage(w io.Writer) {
	fmt.Fprintf(w, "Usage: %s\n\n%s.\n\nFlags:\n", strings.TrimSpace("trainq "+c.name+" [flags] "+c.positional), strings.ToUpper(Commands[c.name][:1])+Commands[c.name][1:])
	c.fs.PrintDefaults()
	if len(c.examples) > 0 {
		fmt.Fprintf(w, "\nExamples:\n")
		for _, e := range c.examples {
			fmt.Fprintf(w, "  %s\n", e)
		}
	}
}

// tagFlag collects repeated --tag key=value flags.
type tagFlag map[string]string

func (t tagFlag) String() string { return "" }
func (t tagFlag) Set(v string) error {
	k, val, ok := strings.Cut(v, "=")
	if !ok || k == "" {
		return fmt.Errorf("got %q, want key=value", v)
	}
	t[k] = val
	return nil
}

func (c *cmd) submitFlags() func() (contract.Request, error) {
	c.positional = ""
	c.examples = []string{
		"trainq submit --class research --team search-ranking --job-name bert-base --training-job job.json",
		"trainq submit --class production --file request.json --priority 80 --output json",
	}
	var file, trainingJob, instanceTypes string
	var req contract.Request
	var priority, retries, maxRuntime int
	tags := tagFlag{}
	c.fs.StringVar(&file, "file", "", "request JSON file (the function's request, decoded strictly; flags override its fields)")
	c.fs.StringVar(&req.JobName, "job-name", "", "job name (letters, digits, '-' and '_')")
	c.fs.StringVar(&req.Team, "team", "", "team whose share the job uses")
	c.fs.IntVar(&priority, "priority", 0, "priority inside the class band, 0-99 (default 50)")
	c.fs.StringVar(&req.IdempotencyKey, "idempotency-key", "", "retrying with the same key never creates a second job (default: a random key per run)")
	c.fs.StringVar(&instanceTypes, "instance-types", "", "comma-separated fallback order of instance types")
	c.fs.StringVar(&trainingJob, "training-job", "", "file holding the SageMaker CreateTrainingJob request JSON")
	c.fs.IntVar(&maxRuntime, "max-runtime-seconds", 0, "lower the class's maximum runtime of one attempt")
	c.fs.IntVar(&retries, "retries", 0, "lower the class's number of retries")
	c.fs.Var(tags, "tag", "job tag `key=value` (repeatable)")
	return func() (contract.Request, error) {
		if c.fs.NArg() > 0 {
			return req, fmt.Errorf("unexpected arguments %q (submit takes flags only)", c.fs.Args())
		}
		out := contract.Request{}
		if file != "" {
			b, err := os.ReadFile(file)
			if err != nil {
				return out, fmt.Errorf("read request: %w", err)
			}
			// Strictly, as the function decodes it: a misspelt field is
			// named here rather than dropped on the way.
			var ps contract.Problems
			if out, ps = contract.DecodeRequest(b); len(ps) > 0 {
				return out, errors.New(ps.Report("request file " + file))
			}
		}
		set := map[string]bool{}
		c.fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
		if set["job-name"] {
			out.JobName = req.JobName
		}
		if set["team"] {
			out.Team = req.Team
		}
		if set["idempotency-key"] {
			out.IdempotencyKey = req.IdempotencyKey
		}
		if set["priority"] {
			out.Priority = &priority
		}
		if set["retries"] {
			out.Retries = &retries
		}
		if set["max-runtime-seconds"] {
			out.MaxRuntimeSeconds = &maxRuntime
		}
		if set["instance-types"] {
			out.InstanceTypes = strings.Split(instanceTypes, ",")
		}
		if len(tags) > 0 {
			if out.Tags == nil {
				out.Tags = map[string]string{}
			}
			for k, v := range tags {
				out.Tags[k] = v
			}
		}
		if set["training-job"] {
			b, err := os.ReadFile(trainingJob)
			if err != nil {
				return out, fmt.Errorf("read training job: %w", err)
			}
			out.TrainingJob = b
		}
		if c.class == "" {
			c.class = out.Class
		}
		if c.class == "" {
			return out, errors.New("--class is required: it selects the function alias that grants the class")
		}
		if out.Class != "" && out.Class != c.class {
			return out, fmt.Errorf("--class %q and the request's class %q differ", c.class, out.Class)
		}
		out.Class = c.class
		if out.IdempotencyKey == "" {
			out.IdempotencyKey = "trainq-cli-" + randomKey()
		}
		out.Action = contract.ActionSubmit
		return out, nil
	}
}

func (c *cmd) jobFlags(action string) func() (contract.Request, error) {
	c.positional = "JOB_ID"
	var priority int
	var reason string
	c.fs.BoolVar(&c.unqualified, "unqualified", false, "invoke the function without an alias instead of --class (operators only: it may act on any class's jobs)")
	switch action {
	case contract.ActionDescribe:
		c.examples = []string{"trainq status --class research 4f2a9c1e-0000-4000-8000-000000000001", "trainq status --unqualified --output json JOB_ID"}
	case contract.ActionCancel:
		c.fs.StringVar(&reason, "reason", "", "why the job is cancelled (default: "+contract.DefaultCancelReason+")")
		c.examples = []string{"trainq cancel --class research --reason 'wrong dataset' JOB_ID"}
	case contract.ActionReprioritize:
		c.fs.IntVar(&priority, "priority", 0, "new priority inside the job's class band, 0-99 (required)")
		c.examples = []string{"trainq reprioritize --class research --priority 90 JOB_ID"}
	}
	return func() (contract.Request, error) {
		if c.fs.NArg() != 1 {
			return contract.Request{}, fmt.Errorf("want exactly one JOB_ID argument, got %d", c.fs.NArg())
		}
		switch {
		case c.class == "" && !c.unqualified:
			return contract.Request{}, errors.New("--class is required: it selects the function alias you may invoke " +
				"(any class's alias may show a job; cancel and reprioritize need the job's own class), " +
				"or --unqualified to invoke the function without an alias (operators only)")
		case c.class != "" && c.unqualified:
			return contract.Request{}, errors.New("--class and --unqualified exclude each other")
		}
		req := contract.Request{Action: action, JobID: c.fs.Arg(0), Reason: reason}
		if action == contract.ActionReprioritize {
			set := false
			c.fs.Visit(func(f *flag.Flag) { set = set || f.Name == "priority" })
			if !set {
				return req, errors.New("--priority is required (0-99)")
			}
			req.Priority = &priority
		}
		return req, nil
	}
}

// functionName is --function, or the platform's submission function.
func (c *cmd) functionName() (string, error) {
	if c.function != "" {
		return c.function, nil
	}
	p, err := platform.LoadFileOrDefault(c.platform)
	if err != nil {
		return "", err
	}
	return p.SubmitFunctionName(), nil
}

func (c *cmd) invoke(ctx context.Context, req contract.Request) (*contract.Response, error) {
	if c.output != "table" && c.output != "json" {
		return nil, fmt.Errorf("--output: got %q, want table or json", c.output)
	}
	name, err := c.functionName()
	if err != nil {
		return nil, err
	}
	var opts []func(*config.LoadOptions) error
	if c.region != "" {
		opts = append(opts, config.WithRegion(c.region))
	}
	cfg, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf("load AWS configuration: %w", err)
	}
	payload, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("encode request: %w", err)
	}
	in := &lambda.InvokeInput{FunctionName: aws.String(name), Payload: payload}
	if c.class != "" {
		in.Qualifier = aws.String(c.class)
	}
	out, err := lambda.NewFromConfig(cfg).Invoke(ctx, in)
	if err != nil {
		return nil, fmt.Errorf("invoke %s: %w", qualified(name, c.class), err)
	}
	if out.FunctionError != nil {
		fe := &contract.FunctionError{}
		if json.Unmarshal(out.Payload, fe) != nil || fe.Type == "" {
			fe = &contract.FunctionError{Type: aws.ToString(out.FunctionError), Message: string(out.Payload)}
		}
		return nil, fe
	}
	var resp contract.Response
	if err := json.Unmarshal(out.Payload, &resp); err != nil {
		return nil, fmt.Errorf("decode answer of %s: %w", qualified(name, c.class), err)
	}
	return &resp, nil
}

func qualified(name, qualifier string) string {
	if qualifier == "" {
		return name
	}
	return name + ":" + qualifier
}

func (c *cmd) print(w io.Writer, r *contract.Response) error {
	if c.output == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	row := func(k, v string) {
		if v != "" {
			fmt.Fprintf(tw, "%s\t%s\n", k, v)
		}
	}
	row("JOB ID", r.JobID)
	row("JOB NAME", r.JobName)
	row("STATUS", r.Status)
	row("STATUS REASON", r.StatusReason)
	row("CLASS", r.Class)
	row("TEAM", r.Team)
	row("PRIORITY", fmt.Sprint(r.SchedulingPriority))
	row("INSTANCE TYPE", r.InstanceType)
	row("QUEUE", r.JobQueue)
	row("JOB ARN", r.JobARN)
	row("CREATED", r.CreatedAt)
	row("STARTED", r.StartedAt)
	row("STOPPED", r.StoppedAt)
	if r.Existing {
		row("NOTE", "an earlier submission with this idempotency key created this job")
	}
	return tw.Flush()
}

// randomKey is a fresh idempotency key for one CLI run, so that the SDK's
// own retries of the invocation never submit twice.
func randomKey() string { return strings.ToLower(rand.Text()) }
