package test

// The permission suite's evaluator: it turns a synthesized template into the
// policies IAM would hold once the stack is deployed in a fixed account and
// region (identity policies per role; resource policies of topics, keys,
// queues, buckets, functions and role trusts), and asks
// @cloud-copilot/iam-simulate, a real IAM policy evaluator run under node,
// what AWS would decide for each request.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
)

// The account and region every test stack is synthesized in.
const (
	testAccount = "123456789012"
	testRegion  = "us-east-1"
)

// iamDecision is what IAM decides for a request.
type iamDecision string

const (
	allowed           iamDecision = "Allowed"
	implicitlyDenied  iamDecision = "ImplicitlyDenied"
	explicitlyDenied  iamDecision = "ExplicitlyDenied"
	denied            iamDecision = "denied" // either kind of denial
	iamSimulateModule             = "@cloud-copilot/iam-simulate"
)

// deployed is a template resolved as CloudFormation would deploy it.
type deployed struct {
	raw      map[string]any
	res      map[string]map[string]any // logical id -> resource
	mappings map[string]any
	names    map[string]string // logical id -> physical name
	// identity policies of each role, by role ARN.
	identity map[string][]namedPolicy
	// resource policies by resource ARN (bucket policies also cover the
	// bucket's objects; role trust policies are keyed by role ARN under
	// trustPrefix).
	resource map[string][]any
}

type namedPolicy struct {
	Name   string `json:"name"`
	Policy any    `json:"policy"`
}

const trustPrefix = "trust:"

// deploy resolves the template at path.
func deploy(t *testing.T, path string) *deployed {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read template: %v", err)
	}
	d := &deployed{names: map[string]string{}, identity: map[string][]namedPolicy{}, resource: map[string][]any{}}
	if err := json.Unmarshal(data, &d.raw); err != nil {
		t.Fatalf("parse template: %v", err)
	}
	d.res = map[string]map[string]any{}
	for id, r := range d.raw["Resources"].(map[string]any) {
		d.res[id] = r.(map[string]any)
	}
	d.mappings, _ = d.raw["Mappings"].(map[string]any)
	d.collect(t)
	return d
}

func (d *deployed) typeOf(id string) string { return fmt.Sprint(d.res[id]["Type"]) }

func (d *deployed) props(id string) map[string]any {
	p, _ := d.res[id]["Properties"].(map[string]any)
	return p
}

// nameProps is the property that names a resource of each type.
var nameProps = map[string]string{
	"AWS::IAM::Role": "RoleName", "AWS::SNS::Topic": "TopicName", "AWS::SQS::Queue": "QueueName",
	"AWS::S3::Bucket": "BucketName", "AWS::Lambda::Function": "FunctionName", "AWS::Lambda::Alias": "Name",
	"AWS::Batch::JobQueue": "JobQueueName", "AWS::Batch::ServiceEnvironment": "ServiceEnvironmentName",
	"AWS::Batch::SchedulingPolicy": "Name", "AWS::Events::Rule": "Name", "AWS::CloudWatch::Alarm": "AlarmName",
	"AWS::Logs::LogGroup": "LogGroupName", "AWS::CloudWatch::Dashboard": "DashboardName",
	"AWS::IAM::Policy": "PolicyName", "AWS::Batch::QuotaShare": "QuotaShareName",
	"AWS::DynamoDB::Table": "TableName",
}

// name is the physical name of a resource: its name property, or one that
// CloudFormation would generate (here: the logical id).
func (d *deployed) name(id string) string {
	if n, ok := d.names[id]; ok {
		return n
	}
	d.names[id] = id // guards against a cycle
	n := id
	if prop, ok := nameProps[d.typeOf(id)]; ok {
		if v, ok := d.props(id)[prop]; ok {
			n = fmt.Sprint(d.resolve(v))
		}
	}
	if d.typeOf(id) == "AWS::S3::Bucket" && n == id {
		n = strings.ToLower(id)
	}
	d.names[id] = n
	return n
}

func arn(service, resource string) string {
	return fmt.Sprintf("arn:aws:%s:%s:%s:%s", service, testRegion, testAccount, resource)
}

// ref is what {"Ref": id} gives for each resource type.
func (d *deployed) ref(id string) any {
	switch id {
	case "AWS::AccountId":
		return testAccount
	case "AWS::Region":
		return testRegion
	case "AWS::Partition":
		return "aws"
	case "AWS::URLSuffix":
		return "amazonaws.com"
	case "AWS::StackName":
		return "TrainqTestStack"
	case "AWS::NoValue":
		return nil
	}
	if _, ok := d.res[id]; !ok {
		panic("Ref to unknown resource " + id)
	}
	n := d.name(id)
	switch d.typeOf(id) {
	case "AWS::SNS::Topic":
		return arn("sns", n)
	case "AWS::SQS::Queue":
		return fmt.Sprintf("https://sqs.%s.amazonaws.com/%s/%s", testRegion, testAccount, n)
	case "AWS::Lambda::Version":
		return d.getAtt(fmt.Sprint(d.firstRef(d.props(id)["FunctionName"])), "Arn").(string) + ":1"
	case "AWS::Lambda::Alias":
		return d.getAtt(id, "AliasArn")
	case "AWS::Batch::JobQueue", "AWS::Batch::ServiceEnvironment", "AWS::Batch::SchedulingPolicy", "AWS::Batch::QuotaShare":
		return d.getAtt(id, "Arn")
	case "AWS::KMS::Key":
		return d.keyID(id)
	}
	return n
}

func (d *deployed) keyID(id string) string {
	// A key id is a UUID; derive a stable one from the logical id.
	h := fmt.Sprintf("%032x", []byte(id+"0123456789abcdef"))[:32]
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

// firstRef returns the logical id an expression refers to, or nil.
func (d *deployed) firstRef(v any) any {
	m, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	if r, ok := m["Ref"]; ok {
		return r
	}
	if ga, ok := m["Fn::GetAtt"].([]any); ok {
		return ga[0]
	}
	return nil
}

// getAtt is what {"Fn::GetAtt": [id, attr]} gives.
func (d *deployed) getAtt(id, attr string) any {
	n := d.name(id)
	switch d.typeOf(id) + "." + attr {
	case "AWS::IAM::Role.Arn":
		return "arn:aws:iam::" + testAccount + ":role/" + n
	case "AWS::IAM::Role.RoleId":
		return "AROA" + strings.ToUpper(n)
	case "AWS::SNS::Topic.TopicArn":
		return arn("sns", n)
	case "AWS::SNS::Topic.TopicName":
		return n
	case "AWS::KMS::Key.Arn":
		return arn("kms", "key/"+d.keyID(id))
	case "AWS::KMS::Key.KeyId":
		return d.keyID(id)
	case "AWS::SQS::Queue.Arn":
		return arn("sqs", n)
	case "AWS::DynamoDB::Table.Arn":
		return arn("dynamodb", "table/"+n)
	case "AWS::SQS::Queue.QueueName":
		return n
	case "AWS::S3::Bucket.Arn":
		return "arn:aws:s3:::" + n
	case "AWS::S3::Bucket.RegionalDomainName", "AWS::S3::Bucket.DomainName":
		return n + ".s3.amazonaws.com"
	case "AWS::Lambda::Function.Arn":
		return arn("lambda", "function:"+n)
	case "AWS::Lambda::Alias.AliasArn":
		fn := d.resolve(d.props(id)["FunctionName"]).(string)
		if !strings.HasPrefix(fn, "arn:") {
			fn = arn("lambda", "function:"+fn)
		}
		return fn + ":" + n
	case "AWS::Lambda::Version.Version":
		return "1"
	case "AWS::Batch::JobQueue.JobQueueArn", "AWS::Batch::JobQueue.Arn":
		return arn("batch", "job-queue/"+n)
	case "AWS::Batch::ServiceEnvironment.ServiceEnvironmentArn", "AWS::Batch::ServiceEnvironment.Arn":
		return arn("batch", "service-environment/"+n)
	case "AWS::Batch::SchedulingPolicy.Arn":
		return arn("batch", "scheduling-policy/"+n)
	case "AWS::Batch::QuotaShare.QuotaShareArn", "AWS::Batch::QuotaShare.Arn":
		q := d.resolve(d.props(id)["JobQueue"]).(string)
		return q + "/quota-share/" + n
	case "AWS::Events::Rule.Arn":
		return arn("events", "rule/"+n)
	case "AWS::CloudWatch::Alarm.Arn":
		return arn("cloudwatch", "alarm:"+n)
	case "AWS::Logs::LogGroup.Arn":
		return arn("logs", "log-group:"+n+":*")
	}
	panic(fmt.Sprintf("Fn::GetAtt %s.%s (%s) is not modelled by the test's resolver", id, attr, d.typeOf(id)))
}

var subVar = regexp.MustCompile(`\$\{([^}!][^}]*)\}`)

// resolve evaluates CloudFormation intrinsics in v.
func (d *deployed) resolve(v any) any {
	switch x := v.(type) {
	case []any:
		out := make([]any, 0, len(x))
		for _, e := range x {
			out = append(out, d.resolve(e))
		}
		return out
	case map[string]any:
		if len(x) == 1 {
			for k, arg := range x {
				switch k {
				case "Ref":
					return d.ref(arg.(string))
				case "Fn::GetAtt":
					a := arg.([]any)
					return d.getAtt(a[0].(string), a[1].(string))
				case "Fn::Join":
					a := arg.([]any)
					var parts []string
					for _, p := range d.resolve(a[1]).([]any) {
						parts = append(parts, fmt.Sprint(p))
					}
					return strings.Join(parts, a[0].(string))
				case "Fn::Select":
					a := arg.([]any)
					return d.resolve(a[1]).([]any)[int(d.resolve(a[0]).(float64))]
				case "Fn::Split":
					a := arg.([]any)
					var out []any
					for _, s := range strings.Split(fmt.Sprint(d.resolve(a[1])), a[0].(string)) {
						out = append(out, s)
					}
					return out
				case "Fn::FindInMap":
					a := d.resolve(arg).([]any)
					return d.mappings[a[0].(string)].(map[string]any)[a[1].(string)].(map[string]any)[a[2].(string)]
				case "Fn::Sub":
					var tmpl string
					vars := map[string]any{}
					switch s := arg.(type) {
					case string:
						tmpl = s
					case []any:
						tmpl = s[0].(string)
						for k, e := range s[1].(map[string]any) {
							vars[k] = d.resolve(e)
						}
					}
					return subVar.ReplaceAllStringFunc(tmpl, func(m string) string {
						name := m[2 : len(m)-1]
						if v, ok := vars[name]; ok {
							return fmt.Sprint(v)
						}
						if res, attr, ok := strings.Cut(name, "."); ok {
							return fmt.Sprint(d.getAtt(res, attr))
						}
						return fmt.Sprint(d.ref(name))
					})
				}
			}
		}
		out := map[string]any{}
		for k, e := range x {
			out[k] = d.resolve(e)
		}
		return out
	}
	return v
}

// refsTo returns the logical ids that a list of {"Ref": id} names.
func refsTo(v any) []string {
	var out []string
	for _, e := range asList(v) {
		if m, ok := e.(map[string]any); ok {
			if r, ok := m["Ref"].(string); ok {
				out = append(out, r)
			}
		}
	}
	return out
}

// collect gathers every policy the deployed stack holds.
func (d *deployed) collect(t *testing.T) {
	t.Helper()
	ids := make([]string, 0, len(d.res))
	for id := range d.res {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		p := d.props(id)
		switch d.typeOf(id) {
		case "AWS::IAM::Role":
			role := d.getAtt(id, "Arn").(string)
			d.resource[trustPrefix+role] = append(d.resource[trustPrefix+role], d.resolve(p["AssumeRolePolicyDocument"]))
			for i, inline := range asList(p["Policies"]) {
				d.identity[role] = append(d.identity[role], namedPolicy{fmt.Sprintf("%s-inline-%d", id, i), d.resolve(get(inline, "PolicyDocument"))})
			}
			if m := p["ManagedPolicyArns"]; m != nil {
				t.Errorf("%s has managed policies %v: the evaluator has no copy of them", id, d.resolve(m))
			}
		case "AWS::IAM::Policy", "AWS::IAM::ManagedPolicy":
			for _, r := range refsTo(p["Roles"]) {
				role := d.getAtt(r, "Arn").(string)
				d.identity[role] = append(d.identity[role], namedPolicy{id, d.resolve(p["PolicyDocument"])})
			}
			for _, r := range asList(p["Roles"]) {
				if _, ok := r.(string); ok {
					t.Errorf("%s attaches to role %v, which the stack does not own", id, r)
				}
			}
		case "AWS::SNS::TopicPolicy":
			for _, topic := range refsTo(p["Topics"]) {
				key := d.ref(topic).(string)
				d.resource[key] = append(d.resource[key], d.resolve(p["PolicyDocument"]))
			}
		case "AWS::SQS::QueuePolicy":
			for _, q := range refsTo(p["Queues"]) {
				key := d.getAtt(q, "Arn").(string)
				d.resource[key] = append(d.resource[key], d.resolve(p["PolicyDocument"]))
			}
		case "AWS::S3::BucketPolicy":
			for _, b := range refsTo(p["Bucket"]) {
				key := d.getAtt(b, "Arn").(string)
				d.resource[key] = append(d.resource[key], d.resolve(p["PolicyDocument"]))
			}
		case "AWS::KMS::Key":
			key := d.getAtt(id, "Arn").(string)
			d.resource[key] = append(d.resource[key], d.resolve(p["KeyPolicy"]))
		case "AWS::Lambda::Permission":
			d.addLambdaPermission(id, p)
		}
	}
}

// addLambdaPermission turns an AWS::Lambda::Permission into the statement
// Lambda adds to the function's (or alias's) resource policy: the
// principal, the action, and SourceArn/SourceAccount as conditions
// (Lambda developer guide, "Working with resource-based IAM policies in
// Lambda"; AddPermission API reference).
func (d *deployed) addLambdaPermission(id string, p map[string]any) {
	fn := fmt.Sprint(d.resolve(p["FunctionName"]))
	if !strings.HasPrefix(fn, "arn:") {
		fn = arn("lambda", "function:"+fn)
	}
	principal := fmt.Sprint(d.resolve(p["Principal"]))
	st := map[string]any{"Sid": id, "Effect": "Allow", "Action": d.resolve(p["Action"]), "Resource": fn}
	switch {
	case strings.HasSuffix(principal, ".amazonaws.com"):
		st["Principal"] = map[string]any{"Service": principal}
	case regexp.MustCompile(`^\d{12}$`).MatchString(principal):
		st["Principal"] = map[string]any{"AWS": "arn:aws:iam::" + principal + ":root"}
	default:
		st["Principal"] = map[string]any{"AWS": principal}
	}
	cond := map[string]any{}
	if v, ok := p["SourceArn"]; ok {
		cond["ArnLike"] = map[string]any{"aws:SourceArn": d.resolve(v)}
	}
	if v, ok := p["SourceAccount"]; ok {
		cond["StringEquals"] = map[string]any{"aws:SourceAccount": d.resolve(v)}
	}
	if v, ok := p["PrincipalOrgID"]; ok {
		cond["StringEquals"] = map[string]any{"aws:PrincipalOrgID": d.resolve(v)}
	}
	if len(cond) > 0 {
		st["Condition"] = cond
	}
	d.resource[fn] = append(d.resource[fn], map[string]any{"Version": "2012-10-17", "Statement": []any{st}})
}

// resourcePolicy merges the resource policies that govern resource.
func (d *deployed) resourcePolicy(resource string) any {
	var docs []any
	if ps, ok := d.resource[resource]; ok {
		docs = append(docs, ps...)
	}
	if bucket, _, ok := strings.Cut(strings.TrimPrefix(resource, "arn:aws:s3:::"), "/"); ok && strings.HasPrefix(resource, "arn:aws:s3:::") {
		docs = append(docs, d.resource["arn:aws:s3:::"+bucket]...)
	}
	if len(docs) == 0 {
		return nil
	}
	var sts []any
	for _, doc := range docs {
		sts = append(sts, asList(get(doc, "Statement"))...)
	}
	return map[string]any{"Version": "2012-10-17", "Statement": sts}
}

// roleARN is the ARN of the stack's role whose logical id starts with
// prefix; it fails the test unless there is exactly one.
func (d *deployed) roleARN(t *testing.T, prefix string) string {
	t.Helper()
	var found []string
	for id := range d.res {
		if d.typeOf(id) == "AWS::IAM::Role" && strings.HasPrefix(id, prefix) {
			found = append(found, id)
		}
	}
	if len(found) != 1 {
		t.Fatalf("want one role with logical id %s*, found %v", prefix, found)
	}
	return d.getAtt(found[0], "Arn").(string)
}

// attr resolves {"Fn::GetAtt": [the one resource of typ whose logical id
// starts with prefix, attr]} (attr "" for Ref).
func (d *deployed) attr(t *testing.T, typ, prefix, attr string) string {
	t.Helper()
	var found []string
	for id := range d.res {
		if d.typeOf(id) == typ && strings.HasPrefix(id, prefix) {
			found = append(found, id)
		}
	}
	if len(found) != 1 {
		t.Fatalf("want one %s with logical id %s*, found %v", typ, prefix, found)
	}
	if attr == "" {
		return fmt.Sprint(d.ref(found[0]))
	}
	return fmt.Sprint(d.getAtt(found[0], attr))
}

// iamRequest is one request to decide.
type iamRequest struct {
	// name says what the request is, as a sentence.
	name string
	// principal is a role ARN of the stack (its identity policies apply), a
	// service principal such as cloudwatch.amazonaws.com, or another
	// account's role ARN.
	principal string
	action    string
	resource  string
	// account owns the resource. Default: the test account.
	account string
	context map[string]any
	// identity are extra identity policies of the principal (a role of
	// another account, say, whose own account allows it).
	identity []namedPolicy
	// resourcePolicy replaces the stack's resource policy for resource (for
	// resources the stack does not own, such as AWS's image repositories).
	resourcePolicy any
	want           iamDecision
	// cite is the AWS page the expected decision comes from.
	cite string
}

var (
	iamSimOnce sync.Once
	iamSimDir  string
	iamSimErr  error
)

// iamSimulator installs the pinned evaluator (test/testdata/iamsim's
// package.json and lock file) under the module's .tools/ once per run.
func iamSimulator(t *testing.T) string {
	t.Helper()
	iamSimOnce.Do(func() {
		root, err := filepath.Abs("..")
		if err != nil {
			iamSimErr = err
			return
		}
		dir := filepath.Join(root, ".tools", "iamsim")
		lock, _ := os.ReadFile("testdata/iamsim/package-lock.json")
		if have, err := os.ReadFile(filepath.Join(dir, "package-lock.json")); err == nil && bytes.Equal(have, lock) {
			if _, err := os.Stat(filepath.Join(dir, "node_modules", iamSimulateModule, "package.json")); err == nil {
				iamSimDir = dir
				return
			}
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			iamSimErr = err
			return
		}
		for _, f := range []string{"package.json", "package-lock.json"} {
			data, err := os.ReadFile(filepath.Join("testdata", "iamsim", f))
			if err == nil {
				err = os.WriteFile(filepath.Join(dir, f), data, 0o644)
			}
			if err != nil {
				iamSimErr = err
				return
			}
		}
		cmd := exec.Command("npm", "ci", "--silent", "--no-audit", "--no-fund", "--prefix", dir)
		if out, err := cmd.CombinedOutput(); err != nil {
			iamSimErr = fmt.Errorf("npm ci %s (the IAM evaluator, from the npm registry): %v\n%s", iamSimulateModule, err, out)
			return
		}
		iamSimDir = dir
	})
	if iamSimErr != nil {
		t.Fatalf("install the IAM evaluator: %v", iamSimErr)
	}
	return iamSimDir
}

type simResult struct {
	ID            string `json:"id"`
	OverallResult string `json:"overallResult"`
	Error         string `json:"error"`
}

// decide asks the evaluator about every request at once and checks each
// decision, as a subtest named after the request.
func (d *deployed) decide(t *testing.T, reqs []iamRequest) {
	t.Helper()
	dir := iamSimulator(t)
	type sim struct {
		ID         string `json:"id"`
		Simulation any    `json:"simulation"`
	}
	var in []sim
	for i, r := range reqs {
		account := r.account
		if account == "" {
			account = testAccount
		}
		ctx := map[string]any{"aws:SecureTransport": "true"}
		// Keys AWS puts in every request's context (IAM user guide, AWS
		// global condition context keys: aws:PrincipalArn,
		// aws:PrincipalAccount and aws:PrincipalIsAWSService are always
		// present), which the evaluator does not derive from the principal.
		if strings.HasPrefix(r.principal, "arn:aws:iam::") {
			ctx["aws:PrincipalArn"] = r.principal
			ctx["aws:PrincipalAccount"] = strings.Split(r.principal, ":")[4]
			ctx["aws:PrincipalIsAWSService"] = "false"
		} else if strings.HasSuffix(r.principal, ".amazonaws.com") {
			ctx["aws:PrincipalIsAWSService"] = "true"
			ctx["aws:PrincipalServiceName"] = r.principal
		}
		for k, v := range r.context {
			ctx[k] = v
		}
		identity := append([]namedPolicy{}, d.identity[r.principal]...)
		identity = append(identity, r.identity...)
		if identity == nil {
			identity = []namedPolicy{}
		}
		rp := r.resourcePolicy
		if rp == nil {
			key := r.resource
			if r.action == "sts:AssumeRole" {
				key = trustPrefix + r.resource
			}
			rp = d.resourcePolicy(key)
		}
		s := map[string]any{
			"request": map[string]any{
				"principal":        r.principal,
				"action":           r.action,
				"resource":         map[string]any{"resource": r.resource, "accountId": account},
				"contextVariables": ctx,
			},
			"identityPolicies":        identity,
			"serviceControlPolicies":  []any{},
			"resourceControlPolicies": []any{},
		}
		if rp != nil {
			s["resourcePolicy"] = rp
		}
		in = append(in, sim{ID: fmt.Sprint(i), Simulation: s})
	}
	body, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("node", "testdata/iamsim/simulate.mjs", dir)
	cmd.Stdin = bytes.NewReader(body)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("run the IAM evaluator: %v\n%s", err, stderr.String())
	}
	var results []simResult
	if err := json.Unmarshal(out, &results); err != nil || len(results) != len(reqs) {
		t.Fatalf("evaluator answered %d results for %d requests (%v): %s", len(results), len(reqs), err, out)
	}
	for i, r := range reqs {
		res := results[i]
		t.Run(r.name, func(t *testing.T) {
			if res.Error != "" {
				t.Fatalf("evaluator refused the request: %s", res.Error)
			}
			got := iamDecision(res.OverallResult)
			ok := got == r.want || (r.want == denied && (got == implicitlyDenied || got == explicitlyDenied))
			if !ok {
				t.Errorf("%s %s on %s: IAM decides %s, want %s (%s)\nidentity policies: %s\nresource policy: %s",
					r.principal, r.action, r.resource, got, r.want, r.cite, compact(d.identity[r.principal]), compact(d.resourcePolicy(r.resource)))
			}
		})
	}
}

func compact(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 4000 {
		return string(b[:4000]) + "…"
	}
	return string(b)
}
