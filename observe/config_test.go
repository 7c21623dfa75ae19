package observe_test

import (
	"testing"

	"github.com/trainq/trainq/observe"
)

func TestPlatformFile(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want string
	}{
		{"an explicit file wins", map[string]string{"TRAINQ_PLATFORM_FILE": "/etc/trainq.yaml", "LAMBDA_TASK_ROOT": "/var/task"}, "/etc/trainq.yaml"},
		{"in Lambda the file sits in the task root", map[string]string{"LAMBDA_TASK_ROOT": "/var/task"}, "/var/task/platform.json"},
		{"elsewhere the file sits next to the executable", map[string]string{}, "/opt/trainq/platform.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := observe.PlatformFile(func(k string) string { return tt.env[k] }, "/opt/trainq/bootstrap")
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
