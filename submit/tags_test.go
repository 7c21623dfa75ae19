package submit_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/trainq/trainq/batchrules"
	"github.com/trainq/trainq/contract"
)

// namedPlatform is a platform called vision-lab with one team.
const namedPlatform = `
name: vision-lab
pools: [{instanceType: ml.p5.48xlarge, instances: 8}]
scheduling: {mode: fairshare}
teams: [{name: vision, weight: 1}]
`

// taggedJob is a valid submission of team vision with the given caller tags.
func taggedJob(t *testing.T, tags map[string]string) []byte {
	t.Helper()
	b, err := json.Marshal(map[string]any{
		"jobName": "resnet", "team": "vision", "class": "sweep", "tags": tags,
		"trainingJob": json.RawMessage(`{"AlgorithmSpecification":{"TrainingImage":"123456789012.dkr.ecr.us-east-1.amazonaws.com/trainer:1","TrainingInputMode":"File"},"OutputDataConfig":{"S3OutputPath":"s3://ml-artifacts/x/"}}`),
	})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func manyTags(n int) map[string]string {
	out := map[string]string{}
	for i := range n {
		out[fmt.Sprintf("k%02d", i)] = "v"
	}
	return out
}

func TestJobsCarryThePlatformTag(t *testing.T) {
	tests := []struct {
		name string
		tags map[string]string
		// wantTags are trainq's tags on the job (the token tag aside), or
		// wantFields the problems when the request is refused.
		wantTags   map[string]string
		wantCount  int
		wantFields []string
	}{
		{
			name:     "a platform's jobs carry its name, so that IAM can match aws:ResourceTag/trainq:platform",
			wantTags: map[string]string{"trainq:platform": "vision-lab", "trainq:team": "vision", "trainq:class": "sweep"},
			// team, class, token, platform.
			wantCount: 4,
		},
		{
			name:       "a caller may not set the platform tag, in any case",
			tags:       map[string]string{"trainq:platform": "another", "TRAINQ:Platform": "another"},
			wantFields: []string{"tags.TRAINQ:Platform", "tags.trainq:platform"},
		},
		{
			name:     "the most caller tags and trainq's four leave room for the three it adds later",
			tags:     manyTags(contract.MaxCallerTags),
			wantTags: map[string]string{"trainq:platform": "vision-lab", "trainq:team": "vision", "trainq:class": "sweep"},
			// 43 + 4 = 47: with the three trainq may add later
			// (contract.LaterTags), 50, Batch's maximum.
			wantCount: 47,
		},
		{
			name:       "one caller tag more is refused",
			tags:       manyTags(contract.MaxCallerTags + 1),
			wantFields: []string{"tags"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := newFake(t)
			defer fake.Close()
			h := newHandler(t, mustParse(t, namedPlatform), fake, fastPolicy)
			_, ferr := invoke(t, invocation("", "req-1"), h, taggedJob(t, tt.tags))
			if tt.wantFields != nil {
				if ferr == nil || ferr.Type != "ValidationError" {
					t.Fatalf("function error %+v, want a ValidationError", ferr)
				}
				if diff := cmp.Diff(tt.wantFields, problemFields(ferr.Message)); diff != "" {
					t.Errorf("fields named (-want +got):\n%s\nmessage:\n%s", diff, ferr.Message)
				}
				if n := len(fake.Calls("")); n != 0 {
					t.Errorf("%d Batch calls for a refused request, want 0", n)
				}
				return
			}
			if ferr != nil {
				t.Fatal(ferr.Message)
			}
			r := submitted(t, fake)[0]
			got := map[string]string{}
			for k, v := range r.Tags {
				if k == contract.TagTeam || k == contract.TagClass || k == contract.TagPlatform {
					got[k] = v
				}
			}
			if diff := cmp.Diff(tt.wantTags, got); diff != "" {
				t.Errorf("trainq's tags (-want +got):\n%s", diff)
			}
			if len(r.Tags) != tt.wantCount {
				t.Errorf("%d tags on the job, want %d", len(r.Tags), tt.wantCount)
			}
		})
	}
}

// TestContractLimitsFitBatchs ties the request limits of package contract
// to AWS Batch's: a job name plus "-" and the idempotency suffix is a Batch
// name, and trainq's tags plus the caller's fit Batch's tag limit.
func TestContractLimitsFitBatchs(t *testing.T) {
	if got := contract.MaxJobNameLength + len("-") + contract.JobNameSuffixLength; got != batchrules.MaxNameLength {
		t.Errorf("longest job name %d + 1 + %d = %d, want Batch's %d", contract.MaxJobNameLength, contract.JobNameSuffixLength, got, batchrules.MaxNameLength)
	}
	if got := contract.MaxCallerTags + len(contract.Tags()) + len(contract.LaterTags()); got != batchrules.MaxTags {
		t.Errorf("%d caller tags + %d of trainq's + %d added later = %d, want Batch's %d", contract.MaxCallerTags, len(contract.Tags()), len(contract.LaterTags()), got, batchrules.MaxTags)
	}
}
