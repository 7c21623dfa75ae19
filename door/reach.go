package door

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/platform"
)

// Reach: every location a payload names is checked against what the
// team's execution role may use, platform.ReachOf — the description the
// stack grants the role from — so that a job its role could not run is
// refused at the door instead of failing with AccessDenied after it waited
// in the queue. Each refusal is a ValidationError: the request asks for
// what the platform does not allow the team. The locations, by CreateTrainingJob member (botocore's SageMaker
// model):
//
//   - S3 read: InputDataConfig[].DataSource.S3DataSource.S3Uri (a prefix,
//     or the manifest object of ManifestFile and AugmentedManifestFile:
//     the objects a manifest lists are not checked) and the SageMaker
//     Python SDK's HyperParameters.sagemaker_submit_directory (the training
//     toolkit downloads the code with the role);
//   - S3 write: OutputDataConfig.S3OutputPath, CheckpointConfig.S3Uri,
//     DebugHookConfig, TensorBoardOutputConfig and ProfilerConfig's
//     S3OutputPath, DebugRuleConfigurations[] and
//     ProfilerRuleConfigurations[]' S3OutputPath (SageMaker writes under
//     the path);
//   - the image: AlgorithmSpecification.TrainingImage, an ECR image of a
//     declared repository in the stack's account and region, or of AWS's
//     training-image registry of the stack's region (awsManagedImages);
//     a private registry (TrainingImageConfig) only inside the declared VPC
//     and without a credentials provider, which the role may not invoke;
//   - KMS keys: OutputDataConfig.KmsKeyId, ResourceConfig.VolumeKmsKeyId,
//     by key ARN (or key id in the stack's account and region) of
//     training.kmsKeys;
//   - the network: VpcConfig's Subnets and SecurityGroupIds, those of
//     training.vpc; required when the platform declares one (without it
//     the job would get SageMaker's internet access), refused when it
//     declares none (the role has no network-interface rights);
//   - file systems (FileSystemDataSource: EFS, FSx for Lustre), datasets
//     (DatasetSource), hub content, training plans, MLflow, model packages
//     and serverless jobs: the role is granted none, so none is accepted.
//
// Locations trainq does not govern — AWS's training images, public
// datasets a platform declares in training.s3Read — are allowed as
// declared: the declaration is the grant.

// s3Use is what a job does at an S3 location.
type s3Use int

const (
	s3Read s3Use = iota
	s3Write
)

// reachChecker checks one payload's locations for one team.
type reachChecker struct {
	v     *Verdict
	env   Env
	r     platform.Reach
	read  []platform.S3Location
	write []platform.S3Location
	teams []string
	// why and fields: the unchecked reasons and their fields, in order.
	why    []string
	fields [][]string
}

func checkReach(v *Verdict, p *platform.Platform, env Env, team platform.Team, tj TrainingJob) {
	c := &reachChecker{v: v, env: env, r: p.ReachOf(&team), teams: p.TeamNames()}
	for _, u := range c.r.Read {
		if l, err := platform.ParseS3URI(u); err == nil {
			c.read = append(c.read, l)
		}
	}
	for _, u := range c.r.Write {
		if l, err := platform.ParseS3URI(u); err == nil {
			c.write = append(c.write, l)
		}
	}
	str := func(m map[string]any, k string) (string, bool) {
		s, ok := m[k].(string)
		return s, ok
	}
	obj := func(m map[string]any, k string) map[string]any {
		o, _ := m[k].(map[string]any)
		return o
	}
	list := func(m map[string]any, k string) []any {
		l, _ := m[k].([]any)
		return l
	}

	for i, ch := range list(tj, "InputDataConfig") {
		ds := obj(obj(asObject(ch), "DataSource"), "S3DataSource")
		if u, ok := str(ds, "S3Uri"); ok {
			kind, _ := str(ds, "S3DataType")
			c.s3(fmt.Sprintf("trainingJob.InputDataConfig[%d].DataSource.S3DataSource.S3Uri", i), u, s3Read, kind == "S3Prefix" || kind == "")
		}
		src := obj(asObject(ch), "DataSource")
		for _, k := range []string{"FileSystemDataSource", "DatasetSource"} {
			if _, ok := src[k]; ok {
				c.refuse(fmt.Sprintf("trainingJob.InputDataConfig[%d].DataSource.%s", i, k), contract.Shown("a value"),
					"an S3 data source: trainq grants the execution role no file system or dataset (an EFS or FSx mount needs network and file-system rights it does not have)")
			}
		}
		if _, ok := ds["HubAccessConfig"]; ok {
			c.refuse(fmt.Sprintf("trainingJob.InputDataConfig[%d].DataSource.S3DataSource.HubAccessConfig", i), contract.Shown("a value"), "no value: the execution role is granted no SageMaker hub content")
		}
	}
	if hp := obj(tj, "HyperParameters"); hp != nil {
		if u, ok := str(hp, "sagemaker_submit_directory"); ok && strings.HasPrefix(u, "s3://") {
			c.s3("trainingJob.HyperParameters.sagemaker_submit_directory", u, s3Read, false)
		}
	}
	for _, m := range []string{"OutputDataConfig", "DebugHookConfig", "TensorBoardOutputConfig", "ProfilerConfig"} {
		if u, ok := str(obj(tj, m), "S3OutputPath"); ok {
			c.s3("trainingJob."+m+".S3OutputPath", u, s3Write, true)
		}
	}
	if u, ok := str(obj(tj, "CheckpointConfig"), "S3Uri"); ok {
		c.s3("trainingJob.CheckpointConfig.S3Uri", u, s3Write, true)
	}
	for _, m := range []string{"DebugRuleConfigurations", "ProfilerRuleConfigurations"} {
		for i, rc := range list(tj, m) {
			if u, ok := str(asObject(rc), "S3OutputPath"); ok {
				c.s3(fmt.Sprintf("trainingJob.%s[%d].S3OutputPath", m, i), u, s3Write, true)
			}
		}
	}
	if k, ok := str(obj(tj, "OutputDataConfig"), "KmsKeyId"); ok {
		c.kms("trainingJob.OutputDataConfig.KmsKeyId", k)
	}
	if k, ok := str(obj(tj, "ResourceConfig"), "VolumeKmsKeyId"); ok {
		c.kms("trainingJob.ResourceConfig.VolumeKmsKeyId", k)
	}
	if _, ok := obj(tj, "ResourceConfig")["TrainingPlanArn"]; ok {
		c.refuse("trainingJob.ResourceConfig.TrainingPlanArn", contract.Shown("a value"), "no value: the job runs on the platform's pool, not a training plan")
	}
	for _, m := range []string{"MlflowConfig", "ModelPackageConfig", "ServerlessJobConfig"} {
		if _, ok := tj[m]; ok {
			c.refuse("trainingJob."+m, contract.Shown("a value"), "no value: the execution role is granted nothing it needs")
		}
	}
	c.vpc(tj["VpcConfig"])
	as := obj(tj, "AlgorithmSpecification")
	if img, ok := str(as, "TrainingImage"); ok {
		c.image("trainingJob.AlgorithmSpecification.TrainingImage", img, obj(as, "TrainingImageConfig"))
	}
	c.flush()
}

func asObject(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

func (c *reachChecker) refuse(field string, value any, allowed string) {
	c.v.Invalid.Add(field, value, allowed)
}

// unchecked notes what could not be checked for want of a fact of Env,
// once per reason, with the fields it applies to.
func (c *reachChecker) unchecked(field, why string) {
	if i := slices.Index(c.why, why); i >= 0 {
		c.fields[i] = append(c.fields[i], field)
		return
	}
	c.why = append(c.why, why)
	c.fields = append(c.fields, []string{field})
}

func (c *reachChecker) flush() {
	for i, why := range c.why {
		c.v.Unchecked = append(c.v.Unchecked, strings.Join(c.fields[i], ", ")+": "+why)
	}
}

// s3 checks uri, used for use by the job. A prefix (prefix true: an input
// prefix, an output path SageMaker writes under) must lie under a location
// the role has; an object (a manifest, a code archive) must be one of them
// or under one.
func (c *reachChecker) s3(field, uri string, use s3Use, prefix bool) {
	rest, ok := strings.CutPrefix(uri, "s3://")
	if !ok {
		return // SageMaker's model refuses it by its pattern
	}
	bucket, key, _ := strings.Cut(rest, "/")
	if use == s3Write && key != "" && !strings.HasSuffix(key, "/") {
		// SageMaker writes under the path: s3://b/p holds s3://b/p/JOB/….
		key += "/"
	}
	locs := slices.Concat(c.write)
	if use == s3Read {
		locs = slices.Concat(c.read, c.write)
	}
	for _, l := range locs {
		if l.Bucket == bucket && (l.Object && key == l.Key || !l.Object && strings.HasPrefix(key, l.Key)) {
			return
		}
	}
	own := c.r.ArtifactsPrefix
	switch {
	case c.env.ArtifactsBucket == bucket && own != "" && strings.HasPrefix(key, own):
		return
	case c.env.ArtifactsBucket == "" && own != "" && strings.HasPrefix(key, own) && !c.declared(bucket):
		c.unchecked(field, fmt.Sprintf("s3://%s/ is taken for the platform's artifacts bucket, whose name is not known here", bucket))
		return
	}
	verb := map[s3Use]string{s3Read: "read", s3Write: "write"}[use]
	var where []string
	if own != "" {
		where = append(where, "s3://"+cmpOr(c.env.ArtifactsBucket, "ARTIFACTS")+"/"+own+"…")
	}
	for _, l := range locs {
		where = append(where, "s3://"+l.Bucket+"/"+l.Key)
	}
	why := ""
	if other := c.otherTeam(key); other != "" && (c.env.ArtifactsBucket == bucket || c.env.ArtifactsBucket == "") {
		why = fmt.Sprintf(" (%s/ is team %s's prefix of the artifacts bucket)", strings.TrimSuffix(other, "/"), strings.TrimSuffix(other, "/"))
	}
	c.refuse(field, uri, fmt.Sprintf("a location team %s's execution role may %s: %s%s", c.r.Team, verb, strings.Join(where, ", "), why))
}

// declared reports whether bucket holds a location the platform declares.
func (c *reachChecker) declared(bucket string) bool {
	for _, l := range slices.Concat(c.read, c.write) {
		if l.Bucket == bucket {
			return true
		}
	}
	return false
}

// otherTeam returns the first segment of key when it is another team's
// artifacts prefix, or "".
func (c *reachChecker) otherTeam(key string) string {
	first, _, ok := strings.Cut(key, "/")
	if !ok || first+"/" == c.r.ArtifactsPrefix || !slices.Contains(c.teams, first) {
		return ""
	}
	return first + "/"
}

// kmsKeyARN is a KMS key ARN: arn:PARTITION:kms:REGION:ACCOUNT:key/ID.
var kmsKeyARN = compiled(`^arn:aws[a-z-]*:kms:([a-z0-9-]+):([0-9]{12}):key/([A-Za-z0-9-]+)$`)

// kms checks a key given as a key ARN or key id against training.kmsKeys.
func (c *reachChecker) kms(field, key string) {
	declared := c.r.KMSKeys
	allowed := "a key ARN of training.kmsKeys"
	if len(declared) > 0 {
		allowed += " (" + strings.Join(declared, ", ") + ")"
	} else {
		allowed = "no value: the platform declares no KMS key (training.kmsKeys) the execution role may use"
	}
	switch {
	case slices.Contains(declared, key):
		return
	case strings.HasPrefix(key, "alias/") || strings.Contains(key, ":alias/"):
		c.refuse(field, key, allowed+"; an alias cannot be checked against the role's grants, which name keys")
		return
	case kmsKeyARN().MatchString(key):
		c.refuse(field, key, allowed)
		return
	}
	// A key id: the key of that id in the stack's account and region.
	for _, d := range declared {
		m := kmsKeyARN().FindStringSubmatch(d)
		if m == nil || m[3] != key {
			continue
		}
		if (c.env.Region == "" || c.env.Region == m[1]) && (c.env.Account == "" || c.env.Account == m[2]) {
			if c.env.Region == "" || c.env.Account == "" {
				c.unchecked(field, "key id "+key+" is taken for "+d+" (the stack's account and region are not known here)")
			}
			return
		}
	}
	c.refuse(field, key, allowed)
}

// vpc checks VpcConfig against training.vpc.
func (c *reachChecker) vpc(v any) {
	decl := c.r.VPC
	if v == nil {
		if decl != nil {
			c.refuse("trainingJob.VpcConfig", nil, fmt.Sprintf("an object with Subnets of %s and SecurityGroupIds of %s (the platform runs jobs in its VPC, training.vpc; without it a job would get SageMaker's internet access)",
				strings.Join(decl.Subnets, ", "), strings.Join(decl.SecurityGroups, ", ")))
		}
		return
	}
	if decl == nil {
		c.refuse("trainingJob.VpcConfig", contract.Shown("a value"), "no value: the platform declares no VPC (training.vpc), so the execution role may create no network interface")
		return
	}
	m := asObject(v)
	for _, f := range []struct {
		member string
		want   []string
	}{{"Subnets", decl.Subnets}, {"SecurityGroupIds", decl.SecurityGroups}} {
		l, _ := m[f.member].([]any)
		for i, id := range l {
			if s, ok := id.(string); ok && !slices.Contains(f.want, s) {
				c.refuse(fmt.Sprintf("trainingJob.VpcConfig.%s[%d]", f.member, i), s, "one of training.vpc's ("+strings.Join(f.want, ", ")+")")
			}
		}
	}
}

// ecrImage is an ECR image URI: ACCOUNT.dkr.ecr[-fips].REGION.amazonaws.com[.cn]/REPOSITORY[:TAG|@DIGEST].
var ecrImage = compiled(`^([0-9]{12})\.dkr\.ecr(?:-fips)?\.([a-z0-9-]+)\.amazonaws\.com(?:\.cn)?/([a-z0-9][a-z0-9._/-]*?)(?:[:@].*)?$`)

// image checks the training image.
func (c *reachChecker) image(field, img string, cfg map[string]any) {
	if mode, _ := cfg["TrainingRepositoryAccessMode"].(string); mode == "Vpc" {
		switch {
		case cfg["TrainingRepositoryAuthConfig"] != nil:
			c.refuse("trainingJob.AlgorithmSpecification.TrainingImageConfig.TrainingRepositoryAuthConfig", contract.Shown("a value"), "no value: the execution role may invoke no credentials provider")
		case c.r.VPC == nil:
			c.refuse("trainingJob.AlgorithmSpecification.TrainingImageConfig.TrainingRepositoryAccessMode", mode, "Platform, or no value: a private registry is reached through the platform's VPC, and it declares none (training.vpc)")
		}
		return // a private registry in the VPC: trainq does not govern it
	}
	var allowed []string
	if c.r.AWSManagedImages {
		allowed = append(allowed, "AWS's training images of the stack's region ("+cmpOr(platform.AWSTrainingImageRegistries[c.env.Region], "ACCOUNT")+".dkr.ecr."+cmpOr(c.env.Region, "REGION")+".amazonaws.com/…)")
	}
	for _, r := range c.r.Repositories {
		allowed = append(allowed, cmpOr(c.env.Account, "ACCOUNT")+".dkr.ecr."+cmpOr(c.env.Region, "REGION")+".amazonaws.com/"+r)
	}
	want := "an image of " + strings.Join(allowed, ", ")
	if len(allowed) == 0 {
		want = "no image: the platform grants the execution role no repository (training.ecrRepositories, awsManagedImages)"
	}
	m := ecrImage().FindStringSubmatch(img)
	if m == nil {
		c.refuse(field, img, want+" (an ECR image URI ACCOUNT.dkr.ecr.REGION.amazonaws.com/REPOSITORY:TAG)")
		return
	}
	account, region, repo := m[1], m[2], m[3]
	if c.env.Region != "" && region != c.env.Region {
		c.refuse(field, img, want+fmt.Sprintf(" (the image is in %s, the stack in %s)", region, c.env.Region))
		return
	}
	if c.r.AWSManagedImages && platform.AWSTrainingImageRegistries[region] == account {
		if c.env.Region == "" {
			c.unchecked(field, "the stack's region is not known here; the image is AWS's of "+region)
		}
		return
	}
	if slices.Contains(c.r.Repositories, repo) && (c.env.Account == "" || c.env.Account == account) {
		if c.env.Account == "" || c.env.Region == "" {
			c.unchecked(field, "repository "+repo+" is taken for the stack's (its account and region are not known here)")
		}
		return
	}
	c.refuse(field, img, want)
}

// compiled is pattern p, compiled at its first use rather than at the
// program's start: a function's cold start pays only for the expressions
// it uses.
func compiled(p string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(p) })
}
