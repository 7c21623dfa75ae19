package constructs

import (
	"fmt"

	"github.com/aws/aws-cdk-go/awscdk/v2/awsbatch"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/trainq/trainq/batchrules"
	"github.com/trainq/trainq/platform"
)

// QuotaShareProps configures a QuotaShare.
type QuotaShareProps struct {
	// QuotaShareName is the share's name, which jobs give as quotaShareName
	// (1–128 letters, digits, '-' or '_'). Required.
	QuotaShareName string
	// Capacity is the share's guaranteed capacity, 1–5 instance types.
	// Required.
	Capacity []InstanceCapacity
	// Strategy is reserve, lend or lend-and-borrow.
	// Default: platform.StrategyLendAndBorrow.
	Strategy platform.Strategy
	// BorrowLimitPercent caps borrowing at a percentage of Capacity (-1:
	// unlimited). Only with lend-and-borrow. Default: unlimited.
	BorrowLimitPercent *int
	// InSharePreemption lets a higher-priority job preempt a lower-priority
	// job of the same share. Default: true.
	InSharePreemption *bool
	// Tags are added to the share. Default: none.
	Tags map[string]string
}

// QuotaShare is an AWS::Batch::QuotaShare of a training queue.
type QuotaShare interface {
	constructs.Construct
	// QuotaShareArn is the ARN of the share.
	QuotaShareArn() *string
	// QuotaShareName is the name jobs use.
	QuotaShareName() string
	// Capacity is the share's guaranteed capacity.
	Capacity() []InstanceCapacity
	// Strategy is how the share lends and borrows idle capacity.
	Strategy() platform.Strategy
	// BorrowLimitPercent is the share's borrow limit, -1 for unlimited (only
	// with lend-and-borrow).
	BorrowLimitPercent() int
	// InSharePreemption reports whether a higher-priority job may preempt a
	// lower-priority job of the same share.
	InSharePreemption() bool
	// Resource is the underlying resource.
	Resource() awsbatch.CfnQuotaShare
}

type quotaShare struct {
	constructs.Construct
	resource awsbatch.CfnQuotaShare
	props    QuotaShareProps
}

// NewQuotaShare creates a quota share of queue in scope. Prefer
// queue.AddQuotaShare, which also checks the share against the queue's
// other shares and pools. Invalid props fail synthesis with a message naming
// the prop, its value and what is allowed.
func NewQuotaShare(scope constructs.Construct, id string, queue ITrainingQueue, props *QuotaShareProps) QuotaShare {
	if props == nil {
		props = &QuotaShareProps{}
	}
	c := constructs.NewConstruct(scope, jsii.String(id))
	if err := validateQuotaShareProps(props); err != nil {
		addError(c, "trainq.QuotaShare: %v", err)
	}
	if queue == nil {
		addError(c, "trainq.QuotaShare: queue is nil; want an ITrainingQueue")
	}
	p := *props
	p.Capacity = append([]InstanceCapacity(nil), props.Capacity...)
	if p.Strategy == "" {
		p.Strategy = platform.StrategyLendAndBorrow
	}
	limits := make([]interface{}, len(p.Capacity))
	for i, cap := range p.Capacity {
		limits[i] = &awsbatch.CfnQuotaShare_QuotaShareCapacityLimitProperty{
			CapacityUnit: jsii.String(cap.InstanceType),
			MaxCapacity:  jsii.Number(cap.Instances),
		}
	}
	s := &quotaShare{Construct: c, props: p}
	sharing := &awsbatch.CfnQuotaShare_QuotaShareResourceSharingConfigurationProperty{
		Strategy: jsii.String(p.Strategy.BatchStrategy()),
	}
	if p.Strategy == platform.StrategyLendAndBorrow {
		sharing.BorrowLimit = jsii.Number(s.BorrowLimitPercent())
	}
	preempt := "ENABLED"
	if !s.InSharePreemption() {
		preempt = "DISABLED"
	}
	var queueArn *string
	if queue != nil {
		queueArn = queue.JobQueueArn()
	}
	s.resource = awsbatch.NewCfnQuotaShare(c, jsii.String("Resource"), &awsbatch.CfnQuotaShareProps{
		QuotaShareName:               jsii.String(p.QuotaShareName),
		JobQueue:                     queueArn,
		CapacityLimits:               &limits,
		ResourceSharingConfiguration: sharing,
		PreemptionConfiguration: &awsbatch.CfnQuotaShare_QuotaSharePreemptionConfigurationProperty{
			InSharePreemption: jsii.String(preempt),
		},
		State: jsii.String("ENABLED"),
		Tags:  tagMap(p.Tags),
	})
	return s
}

// validateQuotaShareProps checks the props without synthesizing.
func validateQuotaShareProps(props *QuotaShareProps) error {
	if !batchrules.ValidName(props.QuotaShareName) {
		return fmt.Errorf("QuotaShareName is %q; want 1-128 letters, digits, '-' or '_'", props.QuotaShareName)
	}
	if n := len(props.Capacity); n < 1 || n > platform.MaxCapacityLimitsPerShare {
		return fmt.Errorf("Capacity has %d instance types; want 1 to %d", n, platform.MaxCapacityLimitsPerShare)
	}
	if err := validateCapacities("Capacity", props.Capacity); err != nil {
		return err
	}
	switch props.Strategy {
	case "", platform.StrategyReserve, platform.StrategyLend, platform.StrategyLendAndBorrow:
	default:
		return fmt.Errorf("Strategy is %q; want reserve, lend or lend-and-borrow", props.Strategy)
	}
	if b := props.BorrowLimitPercent; b != nil {
		if props.Strategy != "" && props.Strategy != platform.StrategyLendAndBorrow {
			return fmt.Errorf("BorrowLimitPercent is %d but Strategy is %q; a borrow limit needs lend-and-borrow", *b, props.Strategy)
		}
		if *b < -1 {
			return fmt.Errorf("BorrowLimitPercent is %d; want -1 (unlimited) or at least 0", *b)
		}
	}
	return nil
}

func (s *quotaShare) QuotaShareArn() *string { return s.resource.AttrQuotaShareArn() }
func (s *quotaShare) QuotaShareName() string { return s.props.QuotaShareName }
func (s *quotaShare) Capacity() []InstanceCapacity {
	return append([]InstanceCapacity(nil), s.props.Capacity...)
}
func (s *quotaShare) Strategy() platform.Strategy      { return s.props.Strategy }
func (s *quotaShare) Resource() awsbatch.CfnQuotaShare { return s.resource }

func (s *quotaShare) BorrowLimitPercent() int {
	if s.props.Strategy != platform.StrategyLendAndBorrow {
		return 0
	}
	if s.props.BorrowLimitPercent == nil {
		return -1
	}
	return *s.props.BorrowLimitPercent
}

func (s *quotaShare) InSharePreemption() bool {
	return s.props.InSharePreemption == nil || *s.props.InSharePreemption
}
