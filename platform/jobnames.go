package platform

import (
	"crypto/sha256"
	"encoding/base32"
	"fmt"
	"strings"
)

// Training job names per team. SageMaker writes a training job's logs to
// streams of the log group /aws/sagemaker/TrainingJobs named after the job
// (TRAININGJOBNAME/algo-1-…), and AWS Batch names each attempt's training
// job "AWSBatch" + the payload's TrainingJobName + 32 hex digits. So every
// job of a team gets a TrainingJobName that starts with the team's
// TrainingJobPrefix, and the team's execution role may write only log
// streams, and be assumed only for training jobs, of names starting
// "AWSBatch" + that prefix.
//
// A prefix is TrainingJobCodeLength lowercase letters and digits and a '-':
// up to three letters or digits of the team's name, padded with 'x', then
// four characters of the SHA-256 of "PLATFORM/TEAM" in base32. All prefixes
// have one length, so no team's prefix starts another's (search and
// search-ranking, whose names share a start, get codes of equal length that
// differ), and Validate refuses a platform two of whose teams' codes are
// equal. The hash keeps equally named teams of two platforms in one account
// apart too (with a chance of 1 in 32^4 per pair).
const (
	// TrainingJobCodeLength is the length of a team's code.
	TrainingJobCodeLength = 7
	// TrainingJobPrefixLength is the length of a team's TrainingJobPrefix:
	// its code and a '-'.
	TrainingJobPrefixLength = TrainingJobCodeLength + 1
)

// TrainingJobPrefix is the start of the SageMaker training job names of
// team's jobs, such as "sea7k2q-".
func (p *Platform) TrainingJobPrefix(team string) string {
	var hint strings.Builder
	for _, r := range strings.ToLower(team) {
		if hint.Len() == 3 {
			break
		}
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			hint.WriteRune(r)
		}
	}
	for hint.Len() < 3 {
		hint.WriteByte('x')
	}
	sum := sha256.Sum256([]byte(p.Name + "/" + team))
	hash := strings.ToLower(base32.StdEncoding.EncodeToString(sum[:]))[:TrainingJobCodeLength-3]
	return hint.String() + hash + "-"
}

// validateTrainingJobPrefixes refuses two teams with one TrainingJobPrefix:
// their jobs' logs would not be told apart.
func (p *Platform) validateTrainingJobPrefixes(ps *Problems) {
	seen := map[string]string{}
	for i, t := range p.Teams {
		prefix := p.TrainingJobPrefix(t.Name)
		if other, dup := seen[prefix]; dup && other != t.Name {
			ps.Add(fmt.Sprintf("teams[%d].name", i), t.Name,
				fmt.Sprintf("a name whose training job prefix differs from team %s's (%q for both: rename either team)", other, prefix))
		}
		seen[prefix] = t.Name
	}
}
