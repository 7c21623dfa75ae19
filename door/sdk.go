package door

import (
	"strings"
	"sync"
)

// sdkMembers maps the SageMaker Python SDK's argument names — the
// Estimator's and ModelTrainer's (sagemaker-core spells the API's members
// in snake_case) — to the CreateTrainingJob member they become, as the
// table of docs/submission.md ("From the SageMaker Python SDK") lists them;
// a test holds the two equal. Hints for a misspelt or misplaced member
// come from here, not from a case conversion: image_uri is
// AlgorithmSpecification.TrainingImage, hyperparameters is HyperParameters.
var sdkMembers = map[string]string{
	"image_uri":                       "AlgorithmSpecification.TrainingImage",
	"training_image":                  "AlgorithmSpecification.TrainingImage",
	"algorithm_arn":                   "AlgorithmSpecification.AlgorithmName",
	"algorithm_name":                  "AlgorithmSpecification.AlgorithmName",
	"input_mode":                      "AlgorithmSpecification.TrainingInputMode",
	"training_input_mode":             "AlgorithmSpecification.TrainingInputMode",
	"metric_definitions":              "AlgorithmSpecification.MetricDefinitions",
	"entry_point":                     "HyperParameters.sagemaker_program",
	"source_dir":                      "HyperParameters.sagemaker_submit_directory",
	"role":                            "RoleArn",
	"base_job_name":                   "TrainingJobName",
	"instance_type":                   "ResourceConfig.InstanceType",
	"instance_count":                  "ResourceConfig.InstanceCount",
	"volume_size":                     "ResourceConfig.VolumeSizeInGB",
	"volume_size_in_gb":               "ResourceConfig.VolumeSizeInGB",
	"volume_kms_key":                  "ResourceConfig.VolumeKmsKeyId",
	"volume_kms_key_id":               "ResourceConfig.VolumeKmsKeyId",
	"keep_alive_period_in_seconds":    "ResourceConfig.KeepAlivePeriodInSeconds",
	"instance_groups":                 "ResourceConfig.InstanceGroups",
	"compute":                         "ResourceConfig",
	"use_spot_instances":              "EnableManagedSpotTraining",
	"enable_managed_spot_training":    "EnableManagedSpotTraining",
	"max_run":                         "StoppingCondition.MaxRuntimeInSeconds",
	"max_runtime_in_seconds":          "StoppingCondition.MaxRuntimeInSeconds",
	"max_wait":                        "StoppingCondition.MaxWaitTimeInSeconds",
	"max_wait_time_in_seconds":        "StoppingCondition.MaxWaitTimeInSeconds",
	"stopping_condition":              "StoppingCondition",
	"output_path":                     "OutputDataConfig.S3OutputPath",
	"output_kms_key":                  "OutputDataConfig.KmsKeyId",
	"output_data_config":              "OutputDataConfig",
	"disable_output_compression":      "OutputDataConfig.CompressionType",
	"compression_type":                "OutputDataConfig.CompressionType",
	"inputs":                          "InputDataConfig",
	"input_data_config":               "InputDataConfig",
	"hyperparameters":                 "HyperParameters",
	"environment":                     "Environment",
	"subnets":                         "VpcConfig.Subnets",
	"security_group_ids":              "VpcConfig.SecurityGroupIds",
	"networking":                      "VpcConfig",
	"enable_network_isolation":        "EnableNetworkIsolation",
	"encrypt_inter_container_traffic": "EnableInterContainerTrafficEncryption",
	"enable_inter_container_traffic_encryption": "EnableInterContainerTrafficEncryption",
	"checkpoint_s3_uri":                         "CheckpointConfig.S3Uri",
	"checkpoint_local_path":                     "CheckpointConfig.LocalPath",
	"checkpoint_config":                         "CheckpointConfig",
	"tags":                                      "Tags",
	"max_retry_attempts":                        "RetryStrategy.MaxRetryAttempts",
}

// squash is name without '_' and in lower case, so that ImageUri,
// imageUri and image_uri meet.
func squash(name string) string { return strings.ToLower(strings.ReplaceAll(name, "_", "")) }

// sdkIndex is sdkMembers by squashed name, with every member of
// CreateTrainingJobRequest and of its first-level structures by squashed
// name too (InstanceType at the top level is ResourceConfig.InstanceType).
// It is built at its first use (a hint for a misspelt member), not at
// every cold start.
var sdkIndex = sync.OnceValue(func() map[string]string {
	out := map[string]string{}
	root := &smModel[0]
	for _, m := range root.Members {
		out[squash(m.Name)] = m.Name
	}
	for _, m := range root.Members {
		if s := &smModel[m.Shape]; s.Kind == smStructure {
			for _, sub := range s.Members {
				if _, taken := out[squash(sub.Name)]; !taken {
					out[squash(sub.Name)] = m.Name + "." + sub.Name
				}
			}
		}
	}
	for k, v := range sdkMembers {
		out[squash(k)] = v
	}
	return out
})

// SDKMember is the CreateTrainingJob member meant by name, a member name
// misspelt or misplaced at the top level of a training job (image_uri,
// ImageUri, instanceType, hyperparameters): the SDK argument it is, or the
// API member of that name one level down. ok is false for a name nothing
// matches.
func SDKMember(name string) (member string, ok bool) {
	member, ok = sdkIndex()[squash(name)]
	return member, ok
}

// StringMap reports whether member (a top-level CreateTrainingJob member)
// is a map of the caller's own names to strings, such as HyperParameters:
// its keys are free, never hinted at.
func StringMap(member string) bool {
	m, ok := smModel[0].member(member)
	return ok && smModel[m.Shape].Kind == smMap
}
