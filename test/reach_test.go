package test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/door"
)

// TestTheDoorsReachIsIAMs: on docs/trainq.example.yaml (a platform-wide
// training section with a VPC and a KMS key, and search-ranking's own
// locations), a sample of the locations a payload names is asked of the
// door (door.Check, search-ranking's request naming that location) and of
// the IAM evaluator (the action the job would then take, as search-ranking's
// execution role in the synthesized stack). Each sample says, by hand, what
// the platform file declares; the door must answer that, and IAM must
// decide the same: the check and the grants cannot drift.
func TestTheDoorsReachIsIAMs(t *testing.T) {
	s := synth(t, examplePlatform)
	d := deploy(t, s.path)
	p := s.platform
	team, other := p.Teams[0].Name, p.Teams[1].Name
	if team != "search-ranking" || other != "search-research" {
		t.Fatalf("docs/trainq.example.yaml's teams are %s and %s, want search-ranking and search-research", team, other)
	}
	role := d.teamRoleARN(t, team)
	artifactsARN := d.attr(t, "AWS::S3::Bucket", "Artifacts", "Arn")
	artifacts := strings.TrimPrefix(artifactsARN, "arn:aws:s3:::")
	env := door.Env{ArtifactsBucket: artifacts, Account: testAccount, Region: testRegion, ExecutionRoles: map[string]string{team: role}}
	const (
		subnet   = "subnet-0a1b2c3d4e5f60718"
		group    = "sg-0123456789abcdef0"
		key      = "arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab"
		dlc      = "763104351884.dkr.ecr.us-east-1.amazonaws.com/pytorch-training:2.3.0-gpu-py311"
		dlcRepo  = "arn:aws:ecr:us-east-1:763104351884:repository/pytorch-training"
		otherKey = "arn:aws:kms:us-east-1:123456789012:key/00000000-1111-2222-3333-444444444444"
	)
	base := func() map[string]any {
		return map[string]any{
			"AlgorithmSpecification": map[string]any{"TrainingImage": dlc, "TrainingInputMode": "File"},
			"OutputDataConfig":       map[string]any{"S3OutputPath": "s3://" + artifacts + "/" + team + "/models/"},
			"ResourceConfig":         map[string]any{"InstanceType": "ml.p5.48xlarge", "InstanceCount": 1, "VolumeSizeInGB": 100},
			"VpcConfig":              map[string]any{"Subnets": []any{subnet}, "SecurityGroupIds": []any{group}},
		}
	}
	input := func(uri string) func(map[string]any) {
		return func(tj map[string]any) {
			tj["InputDataConfig"] = []any{map[string]any{"ChannelName": "train", "DataSource": map[string]any{"S3DataSource": map[string]any{"S3DataType": "S3Prefix", "S3Uri": uri}}}}
		}
	}
	output := func(uri string) func(map[string]any) {
		return func(tj map[string]any) { tj["OutputDataConfig"].(map[string]any)["S3OutputPath"] = uri }
	}
	image := func(img string) func(map[string]any) {
		return func(tj map[string]any) { tj["AlgorithmSpecification"].(map[string]any)["TrainingImage"] = img }
	}
	object := func(bucket, key string) string { return "arn:aws:s3:::" + bucket + "/" + key }
	get := func(res string) iamRequest {
		return iamRequest{principal: role, action: "s3:GetObject", resource: res, cite: citeS3Prefix}
	}
	put := func(res string) iamRequest {
		return iamRequest{principal: role, action: "s3:PutObject", resource: res, cite: citeS3Prefix}
	}
	samples := []struct {
		name   string
		edit   func(map[string]any)
		accept bool // what the platform file declares
		iam    iamRequest
	}{
		{"read the platform's dataset s3://ml-datasets/search/", input("s3://ml-datasets/search/train/"), true, get(object("ml-datasets", "search/train/part-0001.parquet"))},
		{"read the team's own dataset s3://ml-datasets/ranking/", input("s3://ml-datasets/ranking/train/"), true, get(object("ml-datasets", "ranking/train/part-0001.parquet"))},
		{"read the team's prefix of the artifacts bucket", input("s3://" + artifacts + "/" + team + "/data/"), true, get(object(artifacts, team+"/data/part-0001.parquet"))},
		{"read the sibling prefix s3://ml-datasets/search-private/", input("s3://ml-datasets/search-private/"), false, get(object("ml-datasets", "search-private/secret.csv"))},
		{"read another team's prefix of the artifacts bucket", input("s3://" + artifacts + "/" + other + "/data/"), false, get(object(artifacts, other+"/data/part-0001.parquet"))},
		{"read a bucket nobody declared", input("s3://datasets/text/train/"), false, get(object("datasets", "text/train/part-0001.parquet"))},
		{"write the team's prefix of the artifacts bucket", output("s3://" + artifacts + "/" + team + "/models/"), true, put(object(artifacts, team+"/models/job/output/model.tar.gz"))},
		{"write the team's own s3://ml-checkpoints/ranking/", output("s3://ml-checkpoints/ranking/runs/"), true, put(object("ml-checkpoints", "ranking/runs/job/output/model.tar.gz"))},
		{"write the platform's s3://ml-checkpoints/search/", output("s3://ml-checkpoints/search/runs/"), true, put(object("ml-checkpoints", "search/runs/job/output/model.tar.gz"))},
		{"write another team's prefix of the artifacts bucket", output("s3://" + artifacts + "/" + other + "/models/"), false, put(object(artifacts, other+"/models/job/output/model.tar.gz"))},
		{"write the read-only dataset s3://ml-datasets/search/", output("s3://ml-datasets/search/out/"), false, put(object("ml-datasets", "search/out/job/output/model.tar.gz"))},
		{"pull the platform's repository ml/trainer", image("123456789012.dkr.ecr.us-east-1.amazonaws.com/ml/trainer:1"), true,
			iamRequest{principal: role, action: "ecr:BatchGetImage", resource: arn("ecr", "repository/ml/trainer"), cite: citeSageMakerRole}},
		{"pull the team's own repository ranking/trainer", image("123456789012.dkr.ecr.us-east-1.amazonaws.com/ranking/trainer:1"), true,
			iamRequest{principal: role, action: "ecr:BatchGetImage", resource: arn("ecr", "repository/ranking/trainer"), cite: citeSageMakerRole}},
		{"pull an undeclared repository of the account", image("123456789012.dkr.ecr.us-east-1.amazonaws.com/ml/undeclared:1"), false,
			iamRequest{principal: role, action: "ecr:BatchGetImage", resource: arn("ecr", "repository/ml/undeclared"), cite: citeSageMakerRole}},
		{"pull ml/trainer of another account", image(otherAccount + ".dkr.ecr.us-east-1.amazonaws.com/ml/trainer:1"), false,
			iamRequest{principal: role, action: "ecr:BatchGetImage", resource: "arn:aws:ecr:us-east-1:" + otherAccount + ":repository/ml/trainer", account: otherAccount, resourcePolicy: awsImageRepositoryPolicy, cite: citeSageMakerRole}},
		{"pull AWS's PyTorch training image of the region", image(dlc), true,
			iamRequest{principal: role, action: "ecr:BatchGetImage", resource: dlcRepo, account: "763104351884", resourcePolicy: awsImageRepositoryPolicy, cite: citeDLC}},
		{"pull AWS's PyTorch training image of another region", image("763104351884.dkr.ecr.us-west-2.amazonaws.com/pytorch-training:2.3.0-gpu-py311"), false,
			iamRequest{principal: role, action: "ecr:BatchGetImage", resource: "arn:aws:ecr:us-west-2:763104351884:repository/pytorch-training", account: "763104351884", resourcePolicy: awsImageRepositoryPolicy, cite: citeDLC}},
		{"encrypt the output with the declared key", func(tj map[string]any) { tj["OutputDataConfig"].(map[string]any)["KmsKeyId"] = key }, true,
			iamRequest{principal: role, action: "kms:GenerateDataKey", resource: key, resourcePolicy: defaultKeyPolicy(testAccount), cite: citeKMSDefault}},
		{"encrypt the volume with an undeclared key", func(tj map[string]any) { tj["ResourceConfig"].(map[string]any)["VolumeKmsKeyId"] = otherKey }, false,
			iamRequest{principal: role, action: "kms:CreateGrant", resource: otherKey, context: map[string]any{"kms:GrantIsForAWSResource": "true"}, resourcePolicy: defaultKeyPolicy(testAccount), cite: citeKMSDefault}},
		{"run in the declared subnet " + subnet, nil, true,
			iamRequest{principal: role, action: "ec2:CreateNetworkInterface", resource: arn("ec2", "subnet/"+subnet), cite: citeSageMakerRole}},
		{"run in an undeclared subnet", func(tj map[string]any) {
			tj["VpcConfig"].(map[string]any)["Subnets"] = []any{"subnet-0fedcba9876543210"}
		}, false,
			iamRequest{principal: role, action: "ec2:CreateNetworkInterface", resource: arn("ec2", "subnet/subnet-0fedcba9876543210"), cite: citeSageMakerRole}},
		{"use an undeclared security group", func(tj map[string]any) {
			tj["VpcConfig"].(map[string]any)["SecurityGroupIds"] = []any{"sg-0fedcba9876543210"}
		}, false, iamRequest{principal: role, action: "ec2:CreateNetworkInterface", resource: arn("ec2", "security-group/sg-0fedcba9876543210"), cite: citeSageMakerRole}},
	}
	var reqs []iamRequest
	for _, c := range samples {
		tj := base()
		if c.edit != nil {
			c.edit(tj)
		}
		b, err := json.Marshal(tj)
		if err != nil {
			t.Fatal(err)
		}
		v := door.Check(p, env, contract.Request{JobName: "reach", Team: team, Class: "research", TrainingJob: b}, door.Options{})
		if v.Refused() == c.accept {
			t.Errorf("%s: the door answers %q, want accepted %v", c.name, v.Report(), c.accept)
		}
		r := c.iam
		r.name = "the door and IAM agree: " + c.name
		r.want = denied
		if c.accept {
			r.want = allowed
		}
		reqs = append(reqs, r)
	}
	d.decide(t, reqs)
}
