package submit

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/trainq/trainq/contract"
	"github.com/trainq/trainq/door"
	"github.com/trainq/trainq/platform"
)

// plan is a validated submission, ready for Batch but for the instance type.
type plan struct {
	class         platform.Class
	team          platform.Team
	priority      int
	token         string
	batchJobName  string
	attempts      int
	runtime       int
	payload       trainingJob
	candidates    []string
	instanceCount int64
	tags          map[string]string
}

// validateSubmit checks a submit request against the platform and the
// caller: the alias's class and team (Forbidden when the request names
// others), then the door (door.Check), the one check trainq submit
// --dry-run and the re-router run too. Forbidden problems come back
// separately.
func (h *Handler) validateSubmit(caller Caller, req contract.Request) (*plan, problems, problems) {
	var denied problems
	className := req.Class
	if caller.Class != "" {
		if req.Class != "" && req.Class != caller.Class {
			denied.Addf("class", req.Class, "%q, the class of the alias invoked%s", caller.Class, aliasHint(h.cfg.Platform, req.Class, caller.Team, "to use that class"))
		}
		className = caller.Class
	}
	teamName := req.Team
	if caller.Team != "" {
		if req.Team != "" && req.Team != caller.Team {
			denied.Addf("team", req.Team, "%q, the team of the alias invoked%s", caller.Team, aliasHint(h.cfg.Platform, className, req.Team, "to submit for that team"))
		}
		teamName = caller.Team
	}
	pl := &plan{token: clientToken(teamName, className, req.IdempotencyKey, caller.RequestID)}
	suffix := pl.token[:contract.JobNameSuffixLength]
	pl.batchJobName = req.JobName + "-" + suffix
	v := door.Check(h.cfg.Platform, h.env, req, door.Options{Class: className, Team: teamName,
		TrainingJobName: h.cfg.Platform.TrainingJobPrefix(teamName) + defaultTrainingJobName(req.JobName, suffix, door.MaxDefaultTrainingJobName-platform.TrainingJobPrefixLength),
		BatchJobName:    pl.batchJobName})
	j := v.Job
	pl.class, pl.team, pl.priority, pl.attempts, pl.runtime = j.Class, j.Team, j.Priority, j.Attempts, j.Runtime
	pl.payload, pl.candidates, pl.instanceCount = trainingJob(j.Payload), j.Candidates, j.InstanceCount
	if _, knownClass := h.cfg.Platform.Class(className); knownClass && caller.Alias == "" && !caller.operator() {
		if _, knownTeam := h.cfg.Platform.Team(teamName); knownTeam && !caller.may(className, teamName) {
			denied.Addf("team", teamName, "a (class, team) pair %s is granted: %s (class %q asked)", caller.Role, caller.grantedPairs(), className)
		}
	}
	pl.tags = make(map[string]string, len(req.Tags)+4)
	for k, v := range req.Tags {
		pl.tags[k] = v
	}
	return pl, v.Invalid, append(denied, v.Forbidden...)
}

// aliasHint names the alias of class and team, to do what, when both are
// the platform's (an alias of a name that is not cannot exist).
func aliasHint(p *platform.Platform, class, team, what string) string {
	_, classOK := p.Class(class)
	_, teamOK := p.Team(team)
	if !classOK || !teamOK {
		return ""
	}
	return fmt.Sprintf(" (invoke the %q alias %s, if you are granted it)", platform.SubmitAliasName(class, team), what)
}

// doorEnv is what the function knows of its deployment for the door: the
// artifacts bucket (the checkpoint bucket), the stack's account and region
// (the queue's) and every team's execution role.
func doorEnv(cfg Config) door.Env {
	return door.DeployedEnv(cfg.Platform, cfg.JobQueue, cfg.CheckpointBucket, cfg.ExecutionRoleARN, cfg.ExecutionRoleARNs)
}

// CheckpointURI is where the checkpoints of the Batch job named jobName of
// team go: door.CheckpointURI.
func CheckpointURI(bucket, team, jobName string) string {
	return door.CheckpointURI(bucket, team, jobName)
}

// clientToken derives Batch's clientToken (64 hex digits, Batch's maximum
// length) from the caller's idempotency key, scoped to the team and the
// class, so that equal keys of different teams or classes never meet;
// without a key, from the Lambda request id, which Lambda keeps across its
// own retries of an asynchronous invocation. Outside Lambda with neither,
// the token is random: no retry can repeat it. The job name's suffix is the
// token's first digits, so it is scoped alike.
func clientToken(team, class, key, requestID string) string {
	var seed string
	switch {
	case key != "":
		seed = "key2\x00" + team + "\x00" + class + "\x00" + key
	case requestID != "":
		seed = "request\x00" + requestID
	default:
		seed = "random\x00" + rand.Text()
	}
	sum := sha256.Sum256([]byte(seed))
	return hex.EncodeToString(sum[:])
}
