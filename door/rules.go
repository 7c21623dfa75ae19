package door

import (
	"github.com/trainq/trainq/contract"
)

// sageMakerRules are SageMaker's rules across members of
// CreateTrainingJobRequest that its model's shapes cannot state, checked on
// the payload as trainq fills it in (the runtime set), each with its source:
//
//   - MaxWaitTimeInSeconds "must be equal to or greater than
//     MaxRuntimeInSeconds" (botocore's SageMaker model, StoppingCondition;
//     the API reference's StoppingCondition page says the same);
//   - MaxWaitTimeInSeconds is the time "a managed Spot training job has to
//     complete" (the same member's documentation): it is for
//     EnableManagedSpotTraining jobs only;
//   - "To use managed spot training, ... set EnableManagedSpotTraining to
//     True and specify the MaxWaitTimeInSeconds" (SageMaker developer
//     guide, Managed Spot Training, model-managed-spot-training.html).
func sageMakerRules(ps *contract.Problems, tj TrainingJob) {
	spot, _ := tj["EnableManagedSpotTraining"].(bool)
	sc, _ := tj["StoppingCondition"].(map[string]any)
	wait, hasWait := sc["MaxWaitTimeInSeconds"]
	w, waitOK := wholeNumber(wait)
	rt, rtOK := wholeNumber(sc["MaxRuntimeInSeconds"])
	switch {
	case hasWait && wait != nil && !spot:
		ps.Add("trainingJob.StoppingCondition.MaxWaitTimeInSeconds", contract.Shown(numberKind(wait)),
			"no value unless EnableManagedSpotTraining is true (SageMaker: the time a managed Spot training job has to complete)")
	case spot && (!hasWait || wait == nil):
		ps.Add("trainingJob.StoppingCondition.MaxWaitTimeInSeconds", nil,
			"a value for a managed Spot training job (EnableManagedSpotTraining true), at least MaxRuntimeInSeconds (SageMaker's Managed Spot Training guide)")
	case spot && waitOK && rtOK && w < rt:
		ps.Addf("trainingJob.StoppingCondition.MaxWaitTimeInSeconds", w,
			"at least MaxRuntimeInSeconds, %d (SageMaker's StoppingCondition: equal to or greater; trainq sets MaxRuntimeInSeconds to the smaller of yours and the class's maximum)", rt)
	}
}
