package reroute

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"sync"

	"github.com/trainq/trainq/batchrules"
)

// Names of replacements. A replacement's job name and clientToken derive
// from the old job's id alone (and the token from the move number too), so
// that any later run, whatever it decides about instance types, computes
// the same name for the same old job and finds the replacement an earlier
// run created.
const (
	// nameSuffixHex is how many hex digits of the old job id's SHA-256 a
	// replacement's name ends with, after "-r".
	nameSuffixHex = 8
	// nameSuffixLen is the length of "-r" and those digits.
	nameSuffixLen = 2 + nameSuffixHex
	// tokenPrefix starts every clientToken of a move.
	tokenPrefix = "trainq-reroute-"
	// tokenHex is how many hex digits of SHA-256(old id, move) follow it:
	// 15 + 40 = 55 characters, within Batch's 64.
	tokenHex = 40
)

// replacedSuffix is the suffix a replacement's name ends with.
// Compiled at first use, not at every start.
var replacedSuffix = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`-r[0-9a-f]{8}$`) })

// ReplacementName is the job name of the job that replaces the job named
// oldName with id oldID: the lineage's base name (oldName without the
// suffix a previous move added, cut to leave room) followed by "-r" and
// eight hex digits of SHA-256(oldID). Every job of a lineage so starts with
// the original job's name (its first 118 characters), so that a JOB_NAME
// prefix filter lists the lineage; the result is a valid Batch job name
// (batchrules.ValidName: at most 128 letters, digits, '-' and '_') whenever
// oldName is one.
func ReplacementName(oldName, oldID string) string {
	base := replacedSuffix().ReplaceAllString(oldName, "")
	if most := batchrules.MaxNameLength - nameSuffixLen; len(base) > most {
		base = base[:most]
	}
	if base == "" {
		base = "trainq"
	}
	sum := sha256.Sum256([]byte(oldID))
	return base + "-r" + hex.EncodeToString(sum[:])[:nameSuffixHex]
}

// MoveToken is the clientToken of the move of the job oldID that the
// decision record (contract.TagMove's value) describes: "trainq-reroute-"
// and 40 hex digits of SHA-256(oldID "/" record), 55 characters (Batch
// allows 64). A decision is written once, so its token never changes.
func MoveToken(oldID, record string) string {
	sum := sha256.Sum256([]byte(oldID + "/" + record))
	return tokenPrefix + hex.EncodeToString(sum[:])[:tokenHex]
}
