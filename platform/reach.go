package platform

// Reach is what the SageMaker execution role of a team's jobs may use, as
// the platform declares it: the one description from which the stack grants
// the role (stacks' executionRoleProps) and against which the submission
// door checks every location of a payload (package door), so that the two
// cannot drift.
type Reach struct {
	// Team is the team ("" for the queue's own role, which reaches no
	// artifacts).
	Team string
	// ArtifactsPrefix is the team's key prefix of the platform's artifacts
	// bucket, read and written ("" for the queue's own role).
	ArtifactsPrefix string
	// Read and Write are the S3 URIs of training.s3Read and s3Write, then
	// the team's own (Write locations are read too).
	Read, Write []string
	// Repositories are ECR repository names in the stack's account and
	// region: training.ecrRepositories, then the team's own.
	Repositories []string
	// AWSManagedImages: AWS's training images of the stack's region
	// (AWSTrainingImageRegistries).
	AWSManagedImages bool
	// VPC is the team's own VPC (teams[].training.vpc), else
	// training.vpc (nil: none).
	VPC *TrainingVPC
	// KMSKeys are training.kmsKeys, key ARNs.
	KMSKeys []string
}

// ReachOf is the reach of team's execution role (team nil: the queue's own
// role): the platform-wide training section, and for a team its prefix of
// the artifacts bucket and its own training section.
func (p *Platform) ReachOf(team *Team) Reach {
	t := p.Training
	r := Reach{
		Read:             append([]string(nil), t.S3Read...),
		Write:            append([]string(nil), t.S3Write...),
		Repositories:     append([]string(nil), t.ECRRepositories...),
		AWSManagedImages: t.UsesAWSManagedImages(),
		VPC:              t.VPC,
		KMSKeys:          append([]string(nil), t.KMSKeys...),
	}
	if team != nil {
		r.Team = team.Name
		r.ArtifactsPrefix = ArtifactsPrefix(team.Name)
		tt := team.TrainingOf()
		r.Read = append(r.Read, tt.S3Read...)
		r.Write = append(r.Write, tt.S3Write...)
		r.Repositories = append(r.Repositories, tt.ECRRepositories...)
		if tt.VPC != nil {
			r.VPC = tt.VPC
		}
	}
	return r
}

// AWSTrainingImageRegistries are the accounts of AWS's training-image
// registries (AWS Deep Learning Containers: PyTorch, TensorFlow and Hugging
// Face training images) by region, as the SageMaker Python SDK lists them
// (aws/sagemaker-python-sdk, image_uri_config/pytorch.json "registries";
// the same map in tensorflow.json). The execution role may pull from the
// stack's region's (Training.AWSManagedImages).
var AWSTrainingImageRegistries = map[string]string{
	"af-south-1": "626614931356", "ap-east-1": "871362719292", "ap-east-2": "975050140332",
	"ap-northeast-1": "763104351884", "ap-northeast-2": "763104351884", "ap-northeast-3": "364406365360",
	"ap-south-1": "763104351884", "ap-south-2": "772153158452",
	"ap-southeast-1": "763104351884", "ap-southeast-2": "763104351884", "ap-southeast-3": "907027046896",
	"ap-southeast-4": "457447274322", "ap-southeast-5": "550225433462", "ap-southeast-6": "633930458069",
	"ap-southeast-7": "590183813437", "ca-central-1": "763104351884", "ca-west-1": "204538143572",
	"cn-north-1": "727897471807", "cn-northwest-1": "727897471807",
	"eu-central-1": "763104351884", "eu-central-2": "380420809688", "eu-north-1": "763104351884",
	"eu-south-1": "692866216735", "eu-south-2": "503227376785",
	"eu-west-1": "763104351884", "eu-west-2": "763104351884", "eu-west-3": "763104351884",
	"il-central-1": "780543022126", "me-central-1": "914824155844", "me-south-1": "217643126080",
	"mx-central-1": "637423239942", "sa-east-1": "763104351884",
	"us-east-1": "763104351884", "us-east-2": "763104351884",
	"us-gov-east-1": "446045086412", "us-gov-west-1": "442386744353",
	"us-west-1": "763104351884", "us-west-2": "763104351884",
}
