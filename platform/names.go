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
