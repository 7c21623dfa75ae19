package platform

// Names of the resources trainq creates for a platform. Constructs, functions
// and the CLI derive them here so that they always agree.

// SubmitFunctionName is the name of the submission Lambda function.
func (p *Platform) SubmitFunctionName() string { return p.Name + "-submit" }

// ObserverFunctionName is the name of the event-to-metrics Lambda function.
func (p *Platform) ObserverFunctionName() string { return p.Name + "-observer" }

// PollerFunctionName is the name of the queue-snapshot Lambda function.
func (p *Platform) PollerFunctionName() string { return p.Name + "-poller" }

// JobQueueName is the name of the platform's job queue.
func (p *Platform) JobQueueName() string { return p.Name + "-training" }

// ServiceEnvironmentName is the name of the platform's service environment.
func (p *Platform) ServiceEnvironmentName() string { return p.Name + "-gpu-pool" }

// CancelReasonPrefix starts the reason the submission function gives AWS
// Batch when it cancels a job. Batch reports a cancelled job as FAILED with
// that reason, which is how the observer tells a cancellation from a failure.
const CancelReasonPrefix = "trainq: cancelled"
