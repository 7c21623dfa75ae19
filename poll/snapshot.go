package poll

import (
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/batch"

	"github.com/trainq/trainq/batchrules"
)

// utilization is the queueUtilization of a GetJobQueueSnapshot answer
// converted for batchrules' reading (QueueUtilization.Usage), nil when the
// answer (or its queueUtilization) is nil.
func utilization(out *batch.GetJobQueueSnapshotOutput) *batchrules.QueueUtilization {
	if out == nil || out.QueueUtilization == nil {
		return nil
	}
	qu := out.QueueUtilization
	u := &batchrules.QueueUtilization{}
	for _, c := range qu.TotalCapacityUsage {
		u.TotalCapacityUsage = append(u.TotalCapacityUsage, usage(c.CapacityUnit, c.Quantity))
	}
	if qs := qu.QuotaShareUtilization; qs != nil {
		u.QuotaShareUtilization = &batchrules.ShareUtilization{}
		for _, s := range qs.TopCapacityUtilization {
			su := batchrules.ShareCapacityUsage{Share: aws.ToString(s.QuotaShareName)}
			for _, c := range s.CapacityUsage {
				su.CapacityUsage = append(su.CapacityUsage, usage(c.CapacityUnit, c.Quantity))
			}
			u.QuotaShareUtilization.TopCapacityUtilization = append(u.QuotaShareUtilization.TopCapacityUtilization, su)
		}
	}
	if fs := qu.FairshareUtilization; fs != nil {
		u.FairshareUtilization = &batchrules.ShareUtilization{}
		for _, s := range fs.TopCapacityUtilization {
			su := batchrules.ShareCapacityUsage{Share: aws.ToString(s.ShareIdentifier)}
			for _, c := range s.CapacityUsage {
				su.CapacityUsage = append(su.CapacityUsage, usage(c.CapacityUnit, c.Quantity))
			}
			u.FairshareUtilization.TopCapacityUtilization = append(u.FairshareUtilization.TopCapacityUtilization, su)
		}
	}
	return u
}

func usage(unit *string, quantity *float64) batchrules.CapacityUsage {
	return batchrules.CapacityUsage{CapacityUnit: aws.ToString(unit), Quantity: aws.ToFloat64(quantity)}
}
