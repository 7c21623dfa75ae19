// Package client is the trainq CLI's job commands: submit, status, cancel,
// reprioritize and queue. Each invokes the platform's submission Lambda with the
// caller's own AWS credentials (the SDK's standard configuration, so
// AWS_ENDPOINT_URL_LAMBDA, profiles and regions work as usual) through the
// alias of the requested class and team (platform.SubmitAliasName), and signs
// every request (Sign): the function decides from the signer's role which
// classes and teams it may act for.
//
// It is run-time code: it must never import the AWS CDK, jsii or constructs.
package client

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/lambda"

	"github.com/trainq/trainq/cli"
	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/platform"
	"github.com/trainq/trainq/platform/platformfile"
)

// Commands are the commands Run serves, with a one-line summary each.
var Commands = map[string]string{
	"submit":       "submit a SageMaker training job to the platform's queue",
	"status":       "show a job's status, and why it waits and when it may start",
	"queue":        "list the queue's running and waiting jobs and each share's usage",
	"cancel":       "cancel a job",
	"reprioritize": "change a job's priority inside its class",
	"usage":        "show instance-hours per team, class and type from the job ledger",
	"history":      "list the job ledger's jobs of a window, each with its attempts",
	"trace export": "write the job ledger's jobs of a window as a trace for trainq simulate",
}

// Run executes command with args, writing results to stdout. Help (-h,
// --help) goes to stdout too, and Run then returns flag.ErrHelp. Mistakes
// in the command line come back as a *cli.UsageError; no error carries the
// command's name, which bin/trainq puts in front once.
func Run(ctx context.Context, command string, args []string, stdout, stderr io.Writer) error {
	if _, ok := Commands[command]; !ok {
		return cli.Usagef("unknown command %q: want submit, status, cancel, reprioritize, queue, usage, history or trace export", command)
	}
	c := &cmd{name: command, fs: flag.NewFlagSet("trainq "+command, flag.ContinueOnError)}
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
	case "queue":
		build = c.queueFlags()
	case "usage":
		build = c.usageFlags()
	case "history":
		build = c.historyFlags()
	case "trace export":
		build = c.exportFlags()
	}
	c.defaults = cli.Bind(c.fs, "platform", "function", "region", "aws-profile", "class", "team")
	if err := cli.Parse(c.fs, args, stdout, c.usage); err != nil {
		return err
	}
	c.given = map[string]bool{}
	c.fs.Visit(func(f *flag.Flag) { c.given[f.Name] = true })
	var skip []string
	if c.unqualified {
		// An operator's --unqualified takes no class or team from a profile.
		skip = []string{"class", "team"}
	}
	if err := c.defaults.Apply(skip...); err != nil {
		return err
	}
	if c.output != "table" && c.output != "json" && (command != "history" || c.output != "csv") {
		want := "table or json"
		if command == "history" {
			want = "table, json or csv"
		}
		return cli.Usagef("--output: got %q, want %s", c.output, want)
	}
	req, err := build()
	if err != nil {
		return err
	}
	if c.dryRun {
		return c.printDryRun(ctx, stdout, req)
	}
	switch command {
	case "history":
		v, err := c.history(ctx, req)
		if err != nil {
			return err
		}
		return c.printHistory(stdout, v)
	case "trace export":
		return c.export(ctx, req, stdout)
	}
	resp, err := c.invoke(ctx, req)
	if err != nil {
		return err
	}
	switch command {
	case "queue":
		return c.printQueue(stdout, resp)
	case "usage":
		return c.printUsage(stdout, resp)
	case "status":
		s := &Status{Response: resp}
		if resp.Explanation != nil {
			s.Estimate, s.EstimateError = c.estimate(ctx, resp)
		}
		return c.printStatus(stdout, s)
	}
	return c.print(stdout, resp)
}

type cmd struct {
	name     string
	fs       *flag.FlagSet
	platform string
	function string
	region   string
	// awsProfile is the AWS shared-config profile (--aws-profile).
	awsProfile string
	class      string
	team       string
	output     string
	// unqualified invokes the function without an alias (job commands): it
	// acts for what the caller's role is granted.
	unqualified bool
	// dryRun (submit) checks and prints the request instead of sending it.
	dryRun bool
	// positional describes the positional argument in usage, notes what
	// usage says after the flags.
	positional string
	notes      string
	examples   []string
	// filter is what queue prints.
	filter queueFilter
	// noEstimate: queue prints no start estimates.
	noEstimate bool
	// by are the dimensions usage keeps.
	by []string
	// out is the file trace export writes.
	out string
	// defaults fills flags from the environment and trainq's config file;
	// given are the flags the command line gave.
	defaults *cli.Defaults
	given    map[string]bool
	// artifactsBucket and account (submit) are deployment facts the
	// dry-run checks locations against; unchecked is what it could not.
	artifactsBucket, account string
	unchecked                []string
	// dryPlatform is the platform submit --dry-run checked against.
	dryPlatform *platform.Platform
}

func (c *cmd) common() {
	c.fs.StringVar(&c.platform, "platform", "", "platform file (YAML or JSON) naming the function (default: the embedded default platform)")
	c.fs.StringVar(&c.function, "function", "", "submission function name (default: derived from the platform, e.g. trainq-submit)")
	c.fs.StringVar(&c.region, "region", "", "AWS region (default: TRAINQ_REGION, the profile's region, else the SDK's: AWS_REGION or the AWS profile's region)")
	c.fs.StringVar(&c.awsProfile, "aws-profile", "", "AWS shared-config profile whose credentials to use (default: TRAINQ_AWS_PROFILE, the profile's awsProfile, else the SDK's: AWS_PROFILE or default)")
	c.fs.StringVar(&c.class, "class", "", "priority class (required, or --unqualified where offered); selects the function alias, which narrows the request to that class and team")
	formats := "table or json"
	if c.name == "history" {
		formats = "table, json or csv"
	}
	c.fs.StringVar(&c.output, "output", "table", "output format: "+formats)
}

func (c *cmd) usage(w io.Writer) {
	fmt.Fprintf(w, "Usage: %s\n\n%s.\n", strings.TrimSpace("trainq "+c.name+" [flags] "+c.positional), strings.ToUpper(Commands[c.name][:1])+Commands[c.name][1:])
	if c.notes != "" {
		fmt.Fprintf(w, "\n%s", c.notes)
	}
	fmt.Fprintf(w, "\nFlags:\n")
	cli.PrintDefaults(c.fs, w)
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

// submitNotes is what submit's help says before its flags.
const submitNotes = `--class and --team are required: they select the function alias
(trainq-submit:CLASS-TEAM), and permission to invoke that alias is permission to
use the class for the team. Give them, or the request file's "class" and "team".

--training-job FILE is a SageMaker CreateTrainingJob request in JSON, as the API
spells it (PascalCase members: AlgorithmSpecification, OutputDataConfig,
ResourceConfig, StoppingCondition, HyperParameters with string values, …), not
the SageMaker Python SDK's arguments: docs/submission.md maps ModelTrainer and
Estimator arguments to these fields, and examples/job.json is an example.
trainq fills in RoleArn (the platform's execution role), TrainingJobName,
ResourceConfig.InstanceType when you leave it out, and the runtime limit.

Before invoking, the CLI reads the files strictly and refuses, naming the file
and the line, JSON it cannot read, a member given twice, snake_case or camelCase
member names and hyperparameters that are not strings. --dry-run also checks the
request against the platform (--platform, default: the embedded one) and prints
it instead of sending it.
`

func (c *cmd) submitFlags() func() (contract.Request, error) {
	c.positional = ""
	c.notes = submitNotes
	c.examples = []string{
		"trainq submit --class research --team search-ranking --job-name bert-base --training-job examples/job.json",
		"trainq submit --class research --team search-ranking --job-name bert-base --training-job examples/job.json --dry-run",
		"trainq submit --class production --file request.json --priority 80 --output json",
	}
	var file, trainingJob, instanceTypes string
	var req contract.Request
	var priority, retries, maxRuntime int
	tags := tagFlag{}
	c.fs.StringVar(&file, "file", "", "request JSON file (the function's request, decoded strictly; flags override its fields)")
	c.fs.StringVar(&req.JobName, "job-name", "", "job name (letters, digits, '-' and '_'; required here or in --file)")
	c.fs.StringVar(&req.Team, "team", "", "team whose share the job uses (required here or in --file)")
	c.fs.IntVar(&priority, "priority", 0, "priority inside the class band, 0-99 (default 50)")
	c.fs.StringVar(&req.IdempotencyKey, "idempotency-key", "", "retrying with the same key never creates a second job (default: a random key per run)")
	c.fs.StringVar(&instanceTypes, "instance-types", "", "comma-separated fallback order of instance types")
	c.fs.StringVar(&trainingJob, "training-job", "", "file holding the SageMaker CreateTrainingJob request JSON (see above; required here or in --file)")
	c.fs.IntVar(&maxRuntime, "max-runtime-seconds", 0, "lower the class's maximum runtime of one attempt")
	c.fs.IntVar(&retries, "retries", 0, "lower the class's number of retries")
	c.fs.Var(tags, "tag", "job tag `key=value` (repeatable)")
	c.fs.BoolVar(&c.dryRun, "dry-run", false, "check the request as the function would (the same check) and print it, with the function it would invoke; invoke nothing")
	c.fs.StringVar(&c.artifactsBucket, "artifacts-bucket", "", "with --dry-run: the platform's artifacts bucket (the stack's ArtifactsBucketName output; default: $"+EnvArtifactsBucket+", else not checked)")
	c.fs.StringVar(&c.account, "account", "", "with --dry-run: the stack's AWS account, which its ECR repositories and KMS keys are in (default: not checked)")
	return func() (contract.Request, error) {
		if c.fs.NArg() > 0 {
			return req, cli.Usagef("unexpected arguments %q (submit takes flags only)", c.fs.Args())
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
				// What the function would answer for the same request.
				return out, &contract.FunctionError{Type: string(contract.KindValidation), Message: ps.Report("invalid request file " + file)}
			}
			if len(out.TrainingJob) > 0 {
				if ps := checkTrainingJob(out.TrainingJob); len(ps) > 0 {
					return out, trainingJobError("in request file "+file, out.TrainingJob, ps, false)
				}
			}
		}
		// Flags override the request file; defaults from the environment
		// or a profile only fill what neither gives.
		set := c.given
		if set["job-name"] {
			out.JobName = req.JobName
		}
		if set["team"] || (out.Team == "" && req.Team != "") {
			out.Team = req.Team
		}
		c.team = out.Team
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
			if ps := checkTrainingJob(b); len(ps) > 0 {
				return out, trainingJobError(trainingJob, b, ps, true)
			}
			out.TrainingJob = b
		}
		if c.class == "" || (!set["class"] && out.Class != "") {
			c.class = out.Class
		}
		if c.class == "" {
			return out, cli.Usagef("--class is required: with --team it selects the function alias that grants the class for the team")
		}
		if c.team == "" {
			return out, cli.Usagef("--team is required: with --class it selects the function alias that grants the class for the team")
		}
		if out.Class != "" && out.Class != c.class {
			return out, cli.Usagef("--class %q and the request's class %q differ", c.class, out.Class)
		}
		out.Class = c.class
		if out.IdempotencyKey == "" {
			out.IdempotencyKey = "trainq-cli-" + randomKey()
		}
		out.Action = contract.ActionSubmit
		if c.dryRun {
			p, err := platformfile.LoadFileOrDefault(c.platform)
			if err != nil {
				return out, err
			}
			v, err := c.checkSubmit(context.Background(), p, out)
			if err != nil {
				return out, err
			}
			c.unchecked = v.Unchecked
			c.dryPlatform = p
		}
		return out, nil
	}
}

func (c *cmd) jobFlags(action string) func() (contract.Request, error) {
	c.positional = "JOB_ID"
	var priority int
	var reason string
	c.fs.StringVar(&c.team, "team", "", "team of the job (required with --class): with --class it selects the function alias, which acts on jobs of that class and team only")
	c.fs.BoolVar(&c.unqualified, "unqualified", false, "invoke the function without an alias instead of --class and --team: it acts for what your role is granted (every class and team for an operator)")
	switch action {
	case contract.ActionDescribe:
		c.examples = []string{"trainq status --class research --team search-ranking 4f2a9c1e-0000-4000-8000-000000000001", "trainq status --unqualified --output json JOB_ID"}
	case contract.ActionCancel:
		c.fs.StringVar(&reason, "reason", "", "why the job is cancelled (default: "+contract.DefaultCancelReason+")")
		c.examples = []string{"trainq cancel --class research --team search-ranking --reason 'wrong dataset' JOB_ID"}
	case contract.ActionReprioritize:
		c.fs.IntVar(&priority, "priority", 0, "new priority inside the job's class band, 0-99 (required)")
		c.examples = []string{"trainq reprioritize --class research --team search-ranking --priority 90 JOB_ID"}
	}
	return func() (contract.Request, error) {
		if c.fs.NArg() != 1 {
			return contract.Request{}, cli.Usagef("want exactly one JOB_ID argument, got %d", c.fs.NArg())
		}
		if err := c.checkAlias("it acts on jobs of its class and team only"); err != nil {
			return contract.Request{}, err
		}
		req := contract.Request{Action: action, JobID: c.fs.Arg(0), Reason: reason}
		if action == contract.ActionReprioritize {
			set := false
			c.fs.Visit(func(f *flag.Flag) { set = set || f.Name == "priority" })
			if !set {
				return req, cli.Usagef("--priority is required (0-99)")
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
	p, err := platformfile.LoadFileOrDefault(c.platform)
	if err != nil {
		return "", err
	}
	return p.SubmitFunctionName(), nil
}

func (c *cmd) invoke(ctx context.Context, req contract.Request) (*contract.Response, error) {
	name, err := c.functionName()
	if err != nil {
		return nil, err
	}
	cfg, err := c.awsConfig(ctx)
	if err != nil {
		return nil, err
	}
	request, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("encode request: %w", err)
	}
	// The function acts only on what the caller's own signature vouches for.
	payload, err := Sign(ctx, cfg, "", name, request, time.Now())
	if err != nil {
		return nil, err
	}
	in := &lambda.InvokeInput{FunctionName: aws.String(name), Payload: payload}
	if q := c.qualifier(); q != "" {
		in.Qualifier = aws.String(q)
	}
	out, err := lambda.NewFromConfig(cfg).Invoke(ctx, in)
	if err != nil {
		return nil, fmt.Errorf("invoke %s: %w", qualified(name, c.qualifier()), c.authError(err))
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
		return nil, fmt.Errorf("decode answer of %s: %w", qualified(name, c.qualifier()), err)
	}
	return &resp, nil
}

// DryRun is what submit --dry-run prints with --output json: the function
// and alias it would invoke and the request, exactly as it would send it.
type DryRun struct {
	DryRun    bool             `json:"dryRun"`
	Function  string           `json:"function"`
	Qualifier string           `json:"qualifier,omitempty"`
	Request   contract.Request `json:"request"`
	// Unchecked lists what the check could not decide for want of a
	// deployment fact ("field: why"); the function decides it.
	Unchecked []string `json:"unchecked,omitempty"`
	// Budgets are the team's budgets as the function's usage action
	// reports them now, each with what it does to the class past 100%;
	// BudgetsNotRead says why they are missing when the team has some.
	Budgets        []contract.BudgetView `json:"budgets,omitempty"`
	BudgetsNotRead string                `json:"budgetsNotRead,omitempty"`
}

func (c *cmd) printDryRun(ctx context.Context, w io.Writer, req contract.Request) error {
	name, err := c.functionName()
	if err != nil {
		return err
	}
	d := DryRun{DryRun: true, Function: name, Qualifier: c.qualifier(), Request: req, Unchecked: c.unchecked}
	d.Budgets, d.BudgetsNotRead = c.dryRunBudgets(ctx, req)
	if c.output == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(d)
	}
	b, err := json.MarshalIndent(req, "", "  ")
	if err != nil {
		return fmt.Errorf("encode request: %w", err)
	}
	if _, err = fmt.Fprintf(w, "dry run: the request passes the function's check; nothing was sent.\n"); err != nil {
		return err
	}
	if len(c.unchecked) > 0 {
		fmt.Fprintf(w, "not checked here for want of a deployment fact (--artifacts-bucket, --account, --region; the function checks them):\n")
		for _, u := range c.unchecked {
			fmt.Fprintf(w, "  - %s\n", u)
		}
	}
	if _, err = fmt.Fprintf(w, "would invoke %s with:\n%s\n", qualified(name, c.qualifier()), b); err != nil {
		return err
	}
	return printDryRunBudgets(w, req, d)
}

// qualifier is the alias of --class and --team, or "" (unqualified).
func (c *cmd) qualifier() string {
	if c.class == "" {
		return ""
	}
	return platform.SubmitAliasName(c.class, c.team)
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
	rows(tw, r)
	return tw.Flush()
}

// rows writes the answer's fields, one "KEY<tab>value" line each.
func rows(tw io.Writer, r *contract.Response) {
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
	if r.ReroutedFrom != "" {
		row("MOVED FROM", fmt.Sprintf("%s (the re-router's move %d of this job)", r.ReroutedFrom, r.Moves))
	}
	if r.MovedTo != "" {
		row("MOVED TO", fmt.Sprintf("%s on %s (the re-router moved the job; follow it there)", r.MovedTo, r.MovedToInstanceType))
	}
	if r.Existing {
		row("NOTE", "an earlier submission with this idempotency key created this job")
	}
}

// randomKey is a fresh idempotency key for one CLI run, so that the SDK's
// own retries of the invocation never submit twice.
func randomKey() string { return strings.ToLower(rand.Text()) }
