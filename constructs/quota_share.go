package constructs

import (
	"fmt"

	"github.com/aws/aws-cdk-go/awscdk/v2/awsbatch"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

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
	// Resource is the underlying resource.
	Resource() awsbatch.CfnQuotaShare
}

type quotaShare struct {
	constructs.Construct
	resource awsbatch.CfnQuotaShare
	name     string
}

// addQuotaShare creates a share on queue, counting shares so that no queue
// gets more than Batch allows.
func addQuotaShare(scope constructs.Construct, queue ITrainingQueue, count *int, usesQuotaShares bool, id string, props *QuotaShareProps) QuotaShare {
	if !usesQuotaShares {
		panic(fmt.Sprintf("trainq.QuotaShare %s/%s: the queue schedules by fair share; quota shares need a queue without FairShare", nodePath(scope), id))
	}
	if *count >= platform.MaxQuotaSharesPerQueue {
		panic(fmt.Sprintf("trainq.QuotaShare %s/%s: would be quota share %d of the queue; Batch allows at most %d per queue", nodePath(scope), id, *count+1, platform.MaxQuotaSharesPerQueue))
	}
	s := NewQuotaShare(scope, id, queue, props)
	*count++
	return s
}

// NewQuotaShare creates a quota share of queue in scope. Prefer
// queue.AddQuotaShare, which also enforces Batch's limit of shares per queue.
func NewQuotaShare(scope constructs.Construct, id string, queue ITrainingQueue, props *QuotaShareProps) QuotaShare {
	if err := validateQuotaShareProps(props); err != nil {
		panic(fmt.Sprintf("trainq.QuotaShare %s/%s: %v", nodePath(scope), id, err))
	}
	strategy := props.Strategy
	if strategy == "" {
		strategy = platform.StrategyLendAndBorrow
	}
	limits := make([]interface{}, len(props.Capacity))
	for i, c := range props.Capacity {
		limits[i] = &awsbatch.CfnQuotaShare_QuotaShareCapacityLimitProperty{
			CapacityUnit: jsii.String(c.InstanceType),
			MaxCapacity:  jsii.Number(c.Instances),
		}
	}
	sharing := &awsbatch.CfnQuotaShare_QuotaShareResourceSharingConfigurationProperty{
		Strategy: jsii.String(strategy.BatchStrategy()),
	}
	if strategy == platform.StrategyLendAndBorrow {
		limit := -1
		if props.BorrowLimitPercent != nil {
			limit = *props.BorrowLimitPercent
		}
		sharing.BorrowLimit = jsii.Number(limit)
	}
	preempt := "ENABLED"
	if props.InSharePreemption != nil && !*props.InSharePreemption {
		preempt = "DISABLED"
	}
	c := constructs.NewConstruct(scope, jsii.String(id))
	res := awsbatch.NewCfnQuotaShare(c, jsii.String("Resource"), &awsbatch.CfnQuotaShareProps{
		QuotaShareName:               jsii.String(props.QuotaShareName),
		JobQueue:                     queue.JobQueueArn(),
		CapacityLimits:               &limits,
		ResourceSharingConfiguration: sharing,
		PreemptionConfiguration: &awsbatch.CfnQuotaShare_QuotaSharePreemptionConfigurationProperty{
			InSharePreemption: jsii.String(preempt),
		},
		State: jsii.String("ENABLED"),
		Tags:  tagMap(props.Tags),
	})
	return &quotaShare{Construct: c, resource: res, name: props.QuotaShareName}
}

// validateQuotaShareProps checks the props without synthesizing.
func validateQuotaShareProps(props *QuotaShareProps) error {
	if props == nil {
		return fmt.Errorf("props are nil; want QuotaShareName and Capacity")
	}
	if !batchNamePattern.MatchString(props.QuotaShareName) {
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

func (s *quotaShare) QuotaShareArn() *string           { return s.resource.AttrQuotaShareArn() }
func (s *quotaShare) QuotaShareName() string           { return s.name }
func (s *quotaShare) Resource() awsbatch.CfnQuotaShare { return s.resource }
