package runner

// The docker tests' helpers, for the external tests of this directory
// (jobdata_docker_test.go runs the renters' guide example through them).
var (
	DockerDaemonForTest  = dockerDaemon
	ImportBusyboxForTest = importBusybox
	LimitedForTest       = limited
)
