// Package moveplan is the re-router's decision, pure: given one snapshot of
// capacity in use and the jobs waiting, which of them move to which
// instance type. The deployed re-router (reroute) and the simulator
// (simulate) both call it, so that a replay decides as the function does
// (TestRerouterAndSimulatorAgreeOnMoves).
//
// It knows nothing of AWS Batch's API, of Lambda or of time.Now: times are
// given in milliseconds. It imports platform and batchrules of trainq only,
// and must never import the AWS SDK, the CDK, jsii or constructs.
package moveplan
