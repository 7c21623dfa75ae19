package door

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/trainq/trainq/batchrules"
	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/platform"
)

// Env is what a deployed platform knows beyond its platform file: the
// stack's artifacts bucket, account, region and the teams' execution roles.
// The functions know all of it (their environment); the CLI's dry-run knows
// what its flags and AWS configuration say. A fact left empty is unknown:
// what depends on it is not refused but listed in Verdict.Unchecked, so that
// a dry-run never claims more than it could check.
type Env struct {
	// ArtifactsBucket is the platform's artifacts bucket (the stack's
	// ArtifactsBucketName output), whose prefix <team>/ each team's
	// execution role reads and writes. Default: unknown.
	ArtifactsBucket string
	// Account and Region are the stack's, which its ECR repositories, KMS
	// keys and AWS's training-image registry are in. Default: unknown.
	Account, Region string
	// ExecutionRoles are, by team, the execution roles its jobs run as.
	// Default: unknown.
	ExecutionRoles map[string]string
}

// DeployedEnv is what a function of the platform stack knows for the
// door: the artifacts bucket, the account and region of its job queue
// (jobQueueARN) and each team's execution role, its own of roles, else
// fallback. The submission function and the re-router both build their
// Env with it, so that they check alike.
func DeployedEnv(p *platform.Platform, jobQueueARN, artifactsBucket, fallback string, roles map[string]string) Env {
	env := Env{ArtifactsBucket: artifactsBucket, ExecutionRoles: map[string]string{}}
	if q, err := batchrules.ParseJobQueueARN(jobQueueARN); err == nil {
		env.Account, env.Region = q.Account, q.Region
	}
	for _, t := range p.TeamNames() {
		if r, ok := roles[t]; ok {
			env.ExecutionRoles[t] = r
		} else if fallback != "" {
			env.ExecutionRoles[t] = fallback
		}
	}
	return env
}

// Options says how Check reads a request.
type Options struct {
	// Class and Team are the class and team the request is checked as when
	// they are not the request's own (the function's alias decides them).
	// Default: the request's.
	Class, Team string
	// Hints, by field, say where a missing value comes from (the CLI's
	// flag, e.g. "--job-name"); they end the message of a missing field.
	// Default: none.
	Hints map[string]string
	// TrainingJobName is the name a payload without one is given; the
	// payload is checked with it. Default: a placeholder of the longest
	// name trainq derives.
	TrainingJobName string
	// BatchJobName is the Batch job's name (the job name and its
	// idempotency suffix), which a checkpoint location is named after.
	// Default: a placeholder of the same length.
	BatchJobName string
	// Placeholders fills the payload in as the deployed function would,
	// with placeholders of the longest length for what Env does not know
	// (the role, the artifacts bucket of a checkpoint location), so that a
	// dry-run measures the payload the function would send. Without it an
	// unknown artifacts bucket means no checkpoint location, as in a
	// function without one. Default: false.
	Placeholders bool
}

// Job is what a request the door let through becomes: the class, team,
// priority, attempts, runtime and instance-type candidates trainq decided,
// and the SageMaker payload filled in (RoleArn, TrainingJobName,
// CheckpointConfig, StoppingCondition.MaxRuntimeInSeconds and
// ResourceConfig, whose InstanceType is the longest candidate until the
// function picks one).
type Job struct {
	Class         platform.Class
	Team          platform.Team
	Priority      int
	Attempts      int
	Runtime       int
	Candidates    []string
	InstanceCount int64
	Payload       TrainingJob
}

// Verdict is the door's answer: the job, and the problems that refuse it.
// Forbidden problems are those of a caller reaching past its team (another
// role, another team's location); Invalid the rest.
type Verdict struct {
	Job       Job
	Invalid   contract.Problems
	Forbidden contract.Problems
	// Unchecked lists what could not be checked for want of a fact of Env,
	// each as "field: why" (empty when Env is complete).
	Unchecked []string
}

// Refused reports whether the request is refused.
func (v *Verdict) Refused() bool { return len(v.Invalid)+len(v.Forbidden) > 0 }

// Kind is the errorType of a refusal: Forbidden when any problem is
// forbidden, else ValidationError; "" when nothing is refused.
func (v *Verdict) Kind() contract.Kind {
	switch {
	case len(v.Forbidden) > 0:
		return contract.KindForbidden
	case len(v.Invalid) > 0:
		return contract.KindValidation
	}
	return ""
}

// Problems are every problem, forbidden ones first: what the function's
// answer lists.
func (v *Verdict) Problems() contract.Problems {
	return append(append(contract.Problems(nil), v.Forbidden...), v.Invalid...)
}

// Report is the message of a refusal, as the function answers it:
// "invalid request (N problems): …" or "forbidden (…)", every problem
// listed (contract.Report).
func (v *Verdict) Report() string {
	msg := "invalid request"
	if v.Kind() == contract.KindForbidden {
		msg = "forbidden"
	}
	return contract.Report(msg, v.Problems())
}

// Check is the door: it checks a submit request against platform p and
// the deployment env, with no AWS call, and answers what the submission
// function does, what trainq submit --dry-run prints and what the
// re-router checks before it resubmits (CheckPayload). See the package
// comment for what it refuses.
func Check(p *platform.Platform, env Env, req contract.Request, opt Options) *Verdict {
	v := &Verdict{Job: Job{Priority: platform.DefaultRequestPriority}}
	ps := &v.Invalid
	hint := func(field string) string {
		if h := opt.Hints[field]; h != "" {
			return ": " + h
		}
		return ""
	}
	if req.Action != "" && req.Action != contract.ActionSubmit {
		ps.Addf("action", req.Action, "submit, or no value")
	}
	for _, f := range []struct {
		name string
		set  bool
	}{{"jobId", req.JobID != ""}, {"reason", req.Reason != ""}} {
		if f.set {
			ps.Add(f.name, contract.Shown("a value"), "no value for action submit (it belongs to describe, cancel and reprioritize)")
		}
	}
	switch {
	case req.JobName == "":
		ps.Add("jobName", nil, "a job name (letters, digits, '-' and '_')"+hint("jobName"))
	case len(req.JobName) > contract.MaxJobNameLength || !batchrules.ValidName(req.JobName):
		ps.Addf("jobName", req.JobName, "1 to %d letters, digits, '-' or '_'", contract.MaxJobNameLength)
	}

	teamName := cmpOr(opt.Team, req.Team)
	team, teamOK := p.Team(teamName)
	switch {
	case teamName == "":
		ps.Addf("team", nil, "a team (%s)%s", strings.Join(p.TeamNames(), ", "), hint("team"))
	case !teamOK:
		ps.Addf("team", teamName, "a team of the platform (%s)", strings.Join(p.TeamNames(), ", "))
	}
	v.Job.Team = team

	className := cmpOr(opt.Class, req.Class)
	class, classOK := p.Class(className)
	switch {
	case className == "":
		ps.Addf("class", nil, "a class (%s), or invoke the function through a (class, team) alias%s", strings.Join(p.ClassNames(), ", "), hint("class"))
	case !classOK:
		ps.Addf("class", className, "a class of the platform (%s)", strings.Join(p.ClassNames(), ", "))
	}
	v.Job.Class = class

	if pr := req.Priority; pr != nil {
		if *pr < 0 || *pr > platform.RequestPriorityMax {
			ps.Addf("priority", *pr, "0 to %d (placed inside the class's band)", platform.RequestPriorityMax)
		} else {
			v.Job.Priority = *pr
		}
	}
	if utf8.RuneCountInString(req.IdempotencyKey) > contract.MaxIdempotencyKeyLength {
		ps.Addf("idempotencyKey", req.IdempotencyKey, "at most %d characters", contract.MaxIdempotencyKeyLength)
	}
	v.Job.Attempts = class.Attempts()
	if r := req.Retries; r != nil {
		switch most := class.Attempts() - 1; {
		case *r < 0:
			ps.Add("retries", *r, "at least 0, at most the class's retries")
		case classOK && *r > most:
			ps.Addf("retries", *r, "0 to %d (the %s class's retries)", most, class.Name)
		default:
			v.Job.Attempts = *r + 1
		}
	}
	v.Job.Runtime = class.MaxRuntimeSeconds
	if rt := req.MaxRuntimeSeconds; rt != nil {
		switch {
		case *rt < 1:
			ps.Add("maxRuntimeSeconds", *rt, "at least 1, at most the class's maximum")
		case classOK && *rt > class.MaxRuntimeSeconds:
			ps.Addf("maxRuntimeSeconds", *rt, "1 to %d (the %s class's maximum)", class.MaxRuntimeSeconds, class.Name)
		default:
			v.Job.Runtime = *rt
		}
	}
	checkTags(ps, req.Tags)

	allowed := p.Submission.InstanceTypes
	quota := p.Scheduling.Mode != platform.ModeFairShare
	ownTypes := func() []string {
		var own []string
		for _, t := range allowed {
			if !quota || team.CapacityOf(t) > 0 {
				own = append(own, t)
			}
		}
		return own
	}
	checkType := func(field, it string, teamQuota bool) bool {
		switch {
		case !slices.Contains(allowed, it):
			ps.Addf(field, it, "an instance type of the pool (%s)", strings.Join(allowed, ", "))
		case teamQuota && quota && teamOK && team.CapacityOf(it) == 0:
			ps.Addf(field, it, "an instance type team %s has a quota for (%s)", team.Name, strings.Join(ownTypes(), ", "))
		default:
			return true
		}
		return false
	}
	typesOK := true
	for i, it := range req.InstanceTypes {
		f := fmt.Sprintf("instanceTypes[%d]", i)
		typesOK = checkType(f, it, true) && typesOK
		if slices.Index(req.InstanceTypes, it) < i {
			ps.Add(f, it, "each instance type once")
		}
	}

	if len(req.TrainingJob) == 0 {
		ps.Add("trainingJob", nil, "a SageMaker CreateTrainingJob request object"+hint("trainingJob"))
		return v
	}
	tj, ok := DecodeTrainingJob(req.TrainingJob)
	if !ok {
		ps.Add("trainingJob", contract.Shown(contract.DescribeJSON(req.TrainingJob)), "a SageMaker CreateTrainingJob request object")
		return v
	}
	v.Job.Payload = tj
	// Problems of the payload reported from here on by trainq's own rules
	// are not reported again by SageMaker's model.
	before, forbiddenBefore := len(*ps), len(v.Forbidden)

	if jp := contract.CheckJSON(req.TrainingJob, contract.MaxRequestDepth-1); jp != nil && jp.Text {
		// Decoding put U+FFFD in its place: the job would run with a
		// value the caller never sent.
		ps.Add(joinField("trainingJob", jp.Path), contract.Shown(jp.What), "valid Unicode text (UTF-8, surrogate escapes only in pairs), never repaired silently")
	}

	if teamOK {
		// The caller's locations, before trainq adds its own.
		checkReach(v, p, env, team, tj)
	}

	// The team's own role: a team's jobs reach its data, never another's.
	role, roleKnown := env.ExecutionRoles[team.Name]
	switch r := tj["RoleArn"].(type) {
	case nil:
	case string:
		switch {
		case !teamOK:
		case roleKnown && r != role:
			v.Forbidden.Addf("trainingJob.RoleArn", r, "the execution role of team %s, %s, or no value", team.Name, role)
		case !roleKnown:
			// Stricter than the function, never looser: without the role
			// a given one cannot be accepted.
			v.Forbidden.Addf("trainingJob.RoleArn", r, "no value: trainq sets team %s's execution role (it is not known here, so no role given can be accepted)", team.Name)
		}
	default:
		ps.Add("trainingJob.RoleArn", contract.Shown(contract.ValueKind(r)), "a string (the team's execution role), or no value")
	}
	if roleKnown {
		tj["RoleArn"] = role
	} else {
		tj["RoleArn"] = placeholderRole
	}
	prefix := ""
	if teamOK {
		prefix = p.TrainingJobPrefix(team.Name)
	}
	if _, given := tj["TrainingJobName"]; !given {
		tj["TrainingJobName"] = cmpOr(opt.TrainingJobName, prefix+placeholderName(req.JobName, MaxDefaultTrainingJobName-len(prefix)))
	} else {
		teamTrainingJobName(ps, tj, prefix)
	}
	batchJobName := cmpOr(opt.BatchJobName, req.JobName+"-"+strings.Repeat("0", contract.JobNameSuffixLength))
	bucket := env.ArtifactsBucket
	if bucket == "" && opt.Placeholders {
		bucket = placeholderBucket
	}
	if _, on := class.CheckpointInterval(); classOK && on && teamOK && bucket != "" {
		if c, given := tj["CheckpointConfig"]; !given || c == nil {
			tj["CheckpointConfig"] = map[string]any{"S3Uri": CheckpointURI(bucket, team.Name, batchJobName)}
		}
	}

	rc, isObj := tj.Object("ResourceConfig")
	if !isObj {
		ps.Add("trainingJob.ResourceConfig", contract.Shown(contract.ValueKind(tj["ResourceConfig"])), "an object")
		rc = nil
	}
	v.Job.InstanceCount = 1
	var payloadType string
	if rc != nil {
		if _, ok := rc["InstanceGroups"]; ok {
			ps.Add("trainingJob.ResourceConfig.InstanceGroups", contract.Shown("a value"), "no value (heterogeneous clusters are not supported; use InstanceType and InstanceCount)")
		}
		switch it := rc["InstanceType"].(type) {
		case nil:
		case string:
			switch {
			case !slices.Contains(allowed, it):
				checkType("trainingJob.ResourceConfig.InstanceType", it, false)
			case len(req.InstanceTypes) > 0 && !slices.Contains(req.InstanceTypes, it):
				ps.Addf("trainingJob.ResourceConfig.InstanceType", it, "one of instanceTypes (%s), or no value", strings.Join(req.InstanceTypes, ", "))
			case len(req.InstanceTypes) == 0:
				if checkType("trainingJob.ResourceConfig.InstanceType", it, true) {
					payloadType = it
				}
			}
		default:
			ps.Add("trainingJob.ResourceConfig.InstanceType", contract.Shown(contract.ValueKind(it)), "a string, or no value")
		}
		if n, present := rc["InstanceCount"]; present {
			if c, ok := wholeNumber(n); ok && c >= 1 && c <= math.MaxInt32 {
				v.Job.InstanceCount = c
			} else {
				ps.Add("trainingJob.ResourceConfig.InstanceCount", contract.Shown(numberKind(n)), "an integer of at least 1, written with digits only")
			}
		}
	}
	switch {
	case len(req.InstanceTypes) > 0:
		if typesOK {
			v.Job.Candidates = req.InstanceTypes
		}
	case payloadType != "":
		v.Job.Candidates = []string{payloadType}
	case !teamOK:
	default:
		v.Job.Candidates = ownTypes()
		if len(v.Job.Candidates) == 0 {
			ps.Addf("team", team.Name, "a team with a quota for one of the submission instance types (%s)", strings.Join(allowed, ", "))
		}
	}
	if teamOK {
		v.Job.Candidates = neverFits(p, ps, team, req, payloadType, v.Job.Candidates, v.Job.InstanceCount)
	}

	sc, isObj := tj.Object("StoppingCondition")
	if !isObj {
		ps.Add("trainingJob.StoppingCondition", contract.Shown(contract.ValueKind(tj["StoppingCondition"])), "an object")
		sc = nil
	}
	if n, present := sc["MaxRuntimeInSeconds"]; present {
		rt, ok := wholeNumber(n)
		switch {
		case !ok || rt < 1:
			ps.Add("trainingJob.StoppingCondition.MaxRuntimeInSeconds", contract.Shown(numberKind(n)), "an integer of at least 1, written with digits only")
		case classOK && rt > int64(class.MaxRuntimeSeconds):
			ps.Addf("trainingJob.StoppingCondition.MaxRuntimeInSeconds", rt, "at most %d (the %s class's maximum)", class.MaxRuntimeSeconds, class.Name)
		case rt < int64(v.Job.Runtime):
			v.Job.Runtime = int(rt)
		}
	}
	if v.Job.Runtime > 0 && isObj {
		tj.Ensure("StoppingCondition")["MaxRuntimeInSeconds"] = json.Number(fmt.Sprint(v.Job.Runtime))
	}
	if len(v.Job.Candidates) > 0 && (rc != nil || tj["ResourceConfig"] == nil) {
		// Measure with the longest candidate: the chosen one fits too.
		longest := ""
		for _, c := range v.Job.Candidates {
			if len(c) > len(longest) {
				longest = c
			}
		}
		r := tj.Ensure("ResourceConfig")
		r["InstanceType"] = longest
		if _, ok := r["InstanceCount"]; !ok {
			r["InstanceCount"] = json.Number("1")
		}
	}
	sageMakerRules(ps, tj)

	reported := map[string]bool{}
	for _, p := range (*ps)[before:] {
		reported[p.Field] = true
	}
	for _, p := range v.Forbidden[forbiddenBefore:] {
		reported[p.Field] = true
	}
	checkSageMaker(ps, "trainingJob", map[string]any(tj), reported)
	if n := len(tj.Marshal()); n > batchrules.MaxServiceRequestPayloadBytes {
		ps.Addf("trainingJob", fmt.Sprintf("%d bytes once filled in", n), "at most %d bytes (AWS Batch's limit on a service request payload)", batchrules.MaxServiceRequestPayloadBytes)
	}
	return v
}

// neverFits refuses a job whose instance count no candidate could ever
// hold (platform.JobLimit, the simulator's and trainq status's rule), and
// returns the candidates it could. A type the caller named (instanceTypes,
// or the payload's) is refused by name; of the team's own types (none
// named) those that could never hold it are dropped, and the job is refused
// only when none could.
func neverFits(p *platform.Platform, ps *contract.Problems, team platform.Team, req contract.Request, payloadType string, candidates []string, n int64) []string {
	var fit []string
	var worst platform.JobLimit
	for _, it := range candidates {
		l := p.JobLimit(team, it)
		if l.Fits(n) {
			fit = append(fit, it)
		} else if l.Max >= worst.Max {
			worst = l
		}
	}
	if len(fit) == len(candidates) {
		return candidates
	}
	named := len(req.InstanceTypes) > 0 || payloadType != ""
	if !named && len(fit) > 0 {
		return fit
	}
	most := 0
	for _, it := range candidates {
		most = max(most, p.JobLimit(team, it).Max)
	}
	for _, it := range candidates {
		if l := p.JobLimit(team, it); !l.Fits(n) && (named || l.Max == worst.Max) {
			ps.Addf("trainingJob.ResourceConfig.InstanceCount", n, "at most %d: the job never starts on %s, %s (it would block the queue until Batch ends it)", l.Max, it, l.Explain(n))
			if !named {
				break
			}
		}
	}
	return fit
}

// placeholderRole, placeholderBucket: the payload a dry-run checks when
// the team's role or the artifacts bucket is not known, of the longest
// length CloudFormation gives them (a role ARN of a 64-character name; a
// bucket name of 63 characters), so that the payload size is not
// understated.
var (
	placeholderRole   = "arn:aws:iam::000000000000:role/" + strings.Repeat("x", 64)
	placeholderBucket = strings.Repeat("x", 63)
)

// placeholderName is a training job name of most characters, the longest
// the function derives after the team's prefix, for a dry-run.
func placeholderName(jobName string, most int) string {
	s := strings.Trim(strings.ReplaceAll(jobName, "_", "-"), "-")
	s = cmpOr(s, "trainq")
	s = strings.Repeat(s, most/len(s)+1)[:most-1]
	return strings.TrimRight(s, "-") + "0"
}

// teamTrainingJobName gives a TrainingJobName of the caller's own its
// team's prefix (platform.TrainingJobPrefix), put in front unless the name
// starts with it: the team's execution role may write only the log streams
// of, and be assumed only for, training jobs whose names start with
// "AWSBatch" and that prefix, so that no team writes, reads or lists
// another team's training logs (docs/security.md). The prefixed name must
// fit MaxDefaultTrainingJobName (23) characters, or Batch's name of an
// attempt exceeds SageMaker's 63: the caller's own part may have at most
// 23 - 8 = 15. A name that is no string, is empty or starts with a hyphen
// is left to SageMaker's model check, which refuses it.
func teamTrainingJobName(ps *contract.Problems, tj TrainingJob, prefix string) {
	name, ok := tj["TrainingJobName"].(string)
	if !ok || name == "" || name[0] == '-' || prefix == "" {
		return
	}
	whole := name
	if !strings.HasPrefix(name, prefix) {
		whole = prefix + name
	}
	if len(whole) > MaxDefaultTrainingJobName {
		ps.Addf("trainingJob.TrainingJobName", name, "at most %d characters of your own, or no value (trainq puts the team's prefix %q in front, and Batch names each attempt \"AWSBatch\" + the name + 32 hex digits within SageMaker's 63: 63 - 8 - 32 - %d = %d)",
			MaxDefaultTrainingJobName-len(prefix), prefix, len(prefix), MaxDefaultTrainingJobName-len(prefix))
		return
	}
	tj["TrainingJobName"] = whole
}

// MaxDefaultTrainingJobName is the longest TrainingJobName the function
// derives: 63 - len("AWSBatch") - 32 = 23 (Batch names each attempt's
// training job "AWSBatch" + TrainingJobName + 32 hex digits, and SageMaker
// allows 63 characters).
const MaxDefaultTrainingJobName = 63 - len("AWSBatch") - 32

// CheckpointURI is where the checkpoints of the Batch job named jobName
// (its idempotency suffix included) of team go:
// s3://BUCKET/<team>/checkpoints/<jobName>/, under the team's artifacts
// prefix (platform.ArtifactsPrefix), which only the team's execution role
// reaches. Every attempt of the job gets the same payload from Batch, so
// the same location: a retried or preempted attempt finds the checkpoints
// of the one before.
func CheckpointURI(bucket, team, jobName string) string {
	return "s3://" + bucket + "/" + platform.ArtifactsPrefix(team) + "checkpoints/" + jobName + "/"
}

func checkTags(ps *contract.Problems, tags map[string]string) {
	if len(tags) > contract.MaxCallerTags {
		ps.Addf("tags", fmt.Sprintf("%d tags", len(tags)), "at most %d tags", contract.MaxCallerTags)
	}
	keys := make([]string, 0, len(tags))
	for k := range tags {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		lk := strings.ToLower(k)
		switch {
		case strings.HasPrefix(lk, contract.TagPrefix) || strings.HasPrefix(lk, "aws:"):
			ps.Add("tags."+k, k, "a key not starting with trainq: or aws: (reserved)")
		case k == "" || utf8.RuneCountInString(k) > batchrules.MaxTagKeyLength:
			ps.Addf("tags", k, "keys of 1 to %d characters", batchrules.MaxTagKeyLength)
		case utf8.RuneCountInString(tags[k]) > batchrules.MaxTagValueLength:
			ps.Addf("tags."+k, tags[k], "a value of at most %d characters", batchrules.MaxTagValueLength)
		}
	}
}

// TrainingJob is a SageMaker CreateTrainingJob request kept as a generic
// object, so that fields trainq does not know pass through untouched.
type TrainingJob map[string]any

// DecodeTrainingJob decodes a payload, keeping numbers exact (json.Number).
func DecodeTrainingJob(raw json.RawMessage) (TrainingJob, bool) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var tj TrainingJob
	if err := d.Decode(&tj); err != nil || tj == nil || d.More() {
		return nil, false
	}
	return tj, true
}

// Object returns the sub-object key (nil when absent) and whether the
// value, if present, is an object.
func (tj TrainingJob) Object(key string) (map[string]any, bool) {
	v, ok := tj[key]
	if !ok || v == nil {
		return nil, true
	}
	m, ok := v.(map[string]any)
	return m, ok
}

// Ensure returns the sub-object key, creating it when absent.
func (tj TrainingJob) Ensure(key string) map[string]any {
	if m, ok := tj[key].(map[string]any); ok {
		return m
	}
	m := map[string]any{}
	tj[key] = m
	return m
}

// Marshal encodes the payload compactly; keys come out sorted, so the same
// request always gives the same bytes (Batch compares payloads of retries).
func (tj TrainingJob) Marshal() []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(map[string]any(tj)); err != nil {
		// Only values decoded from JSON are in the map; they always encode.
		panic("door: encode training job: " + err.Error())
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// wholeNumber reads a JSON integer written with digits only, as SageMaker's
// Integer and Long members take them (botocore's validation refuses 99.0
// and 5E1 for them too).
func wholeNumber(v any) (int64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	i, err := n.Int64()
	return i, err == nil
}

// numberKind names a value that should have been an integer, saying what
// is wrong with a number: "99.0 (written with a decimal point or
// exponent)", "1.5 (a fraction)", "1e400 (beyond any 64-bit number)".
func numberKind(v any) string {
	n, ok := v.(json.Number)
	if !ok {
		return contract.ValueKind(v)
	}
	if _, err := n.Int64(); err == nil {
		return string(n)
	}
	shown := contract.Cut(string(n), 40)
	f, err := n.Float64()
	switch {
	case err != nil || !strings.ContainsAny(string(n), ".eE"):
		return shown + " (beyond any 64-bit number)"
	case f != math.Trunc(f):
		return shown + " (a fraction)"
	case math.Abs(f) >= 1<<63:
		return shown + " (beyond any 64-bit number)"
	}
	return shown + " (written with a decimal point or exponent)"
}

func joinField(path, name string) string {
	if name == "" {
		return path
	}
	return path + "." + name
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// CheckPayload is the door for a payload trainq already filled in, such as
// the re-router's resubmission of a waiting job on another instance type:
// the same check as Check, of a request of team and class carrying payload
// (its RoleArn must then be the team's role in env.ExecutionRoles). What
// the request adds around a payload (job name, priority, tags) is not
// checked again.
func CheckPayload(p *platform.Platform, env Env, team, class string, payload []byte) *Verdict {
	return Check(p, env, contract.Request{JobName: "resubmission", Team: team, Class: class, TrainingJob: payload}, Options{})
}
