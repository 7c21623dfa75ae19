// Package dynamotest runs a real local DynamoDB for tests and benchmarks:
// dynalite (an implementation of DynamoDB's API on LevelDB, in memory), from
// the npm registry at the version pinned by dynalite/package-lock.json,
// installed with `npm ci` under the module's .tools/dynalite the first time
// a test needs it (as test/iamsim_test.go installs the IAM evaluator),
// started on 127.0.0.1 on a free port, and stopped by its process id.
//
// dynalite answers the DynamoDB JSON protocol as AWS does, conditional
// writes and global secondary indexes included; it does not delete expired
// items (TTL), keep backups (PITR) or bill. Those settings are tested on the
// template, not here.
//
// It is test support: only tests and benchmarks import it. It must never
// import the AWS CDK, jsii or constructs.
package dynamotest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/trainq/trainq/ledger/dynamo"
)

// Version is the dynalite release the lock file pins.
const Version = "4.0.0"

// Server is a running dynalite.
type Server struct {
	// Endpoint is its URL, http://127.0.0.1:PORT: the value of
	// AWS_ENDPOINT_URL_DYNAMODB for a function or a CLI under test.
	Endpoint string
	cmd      *exec.Cmd
	log      bytes.Buffer
	done     chan struct{}
	mu       sync.Mutex
}

var (
	installOnce sync.Once
	installDir  string
	installErr  error
)

// moduleRoot is the directory of trainq's go.mod, found from this file.
func moduleRoot() (string, error) {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "", errors.New("dynamotest: cannot locate its own source")
	}
	return filepath.Abs(filepath.Join(filepath.Dir(file), "..", ".."))
}

// Install installs the pinned dynalite under .tools/dynalite (once per
// process; several test binaries at once take turns on a file lock) and
// returns the path of its cli.js.
func Install() (string, error) {
	installOnce.Do(func() { installDir, installErr = install() })
	if installErr != nil {
		return "", installErr
	}
	return filepath.Join(installDir, "node_modules", "dynalite", "cli.js"), nil
}

func install() (string, error) {
	root, err := moduleRoot()
	if err != nil {
		return "", err
	}
	src := filepath.Join(root, "internal", "dynamotest", "dynalite")
	dir := filepath.Join(root, ".tools", "dynalite")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	lockFile, err := os.OpenFile(filepath.Join(root, ".tools", "dynalite.lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return "", err
	}
	defer lockFile.Close()
	if err := syscall.Flock(int(lockFile.Fd()), syscall.LOCK_EX); err != nil {
		return "", fmt.Errorf("lock %s: %w", lockFile.Name(), err)
	}
	defer syscall.Flock(int(lockFile.Fd()), syscall.LOCK_UN) //nolint:errcheck
	want, err := os.ReadFile(filepath.Join(src, "package-lock.json"))
	if err != nil {
		return "", err
	}
	have, _ := os.ReadFile(filepath.Join(dir, "package-lock.json"))
	if bytes.Equal(have, want) {
		if _, err := os.Stat(filepath.Join(dir, "node_modules", "dynalite", "cli.js")); err == nil {
			return dir, nil
		}
	}
	for _, f := range []string{"package.json", "package-lock.json"} {
		data, err := os.ReadFile(filepath.Join(src, f))
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, f), data, 0o644)
		}
		if err != nil {
			return "", err
		}
	}
	cmd := exec.Command("npm", "ci", "--silent", "--no-audit", "--no-fund", "--prefix", dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("npm ci dynalite@%s (a local DynamoDB, from the npm registry): %v\n%s", Version, err, out)
	}
	return dir, nil
}

// Start installs dynalite if needed and starts it on a free loopback port,
// in memory, with tables active at once. It waits until it accepts
// connections, it exits, or ctx ends. Close it when done.
func Start(ctx context.Context) (*Server, error) {
	cli, err := Install()
	if err != nil {
		return nil, err
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	addr := "127.0.0.1:" + strconv.Itoa(port)
	cmd := exec.Command("node", cli, "--host", "127.0.0.1", "--port", strconv.Itoa(port),
		"--createTableMs", "0", "--deleteTableMs", "0", "--updateTableMs", "0")
	s := &Server{Endpoint: "http://" + addr, cmd: cmd, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = s, s
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start dynalite: %w", err)
	}
	go func() { _ = cmd.Wait(); close(s.done) }()
	for {
		if c, err := net.DialTimeout("tcp", addr, 100*time.Millisecond); err == nil {
			c.Close()
			return s, nil
		}
		select {
		case <-s.done:
			return nil, fmt.Errorf("dynalite exited at start:\n%s", s.Log())
		case <-ctx.Done():
			s.Close()
			return nil, fmt.Errorf("dynalite not listening on %s: %w\n%s", addr, ctx.Err(), s.Log())
		case <-time.After(25 * time.Millisecond):
		}
	}
}

// Write keeps what dynalite prints, for Log.
func (s *Server) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.log.Len() < 64<<10 {
		s.log.Write(p)
	}
	return len(p), nil
}

// Log is what dynalite printed (its first 64 KiB).
func (s *Server) Log() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.log.String()
}

// PID is dynalite's process id.
func (s *Server) PID() int { return s.cmd.Process.Pid }

// Main runs a test package's tests with a local DynamoDB in *s, started
// before them and stopped after: a package's TestMain is
// os.Exit(dynamotest.Main(m, &local)).
func Main(m *testing.M, s **Server) int {
	srv, err := Start(context.Background())
	if err != nil {
		fmt.Fprintln(os.Stderr, "start a local DynamoDB:", err)
		return 1
	}
	defer srv.Close()
	*s = srv
	return m.Run()
}

// Close stops dynalite by its process id: SIGTERM, then SIGKILL after
// three seconds.
func (s *Server) Close() error {
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(3 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.done
	}
	return nil
}

// Client is the ledger's DynamoDB client (package dynamo, the one the
// functions use) of the server, signing with dummy credentials, with the
// SDK's standard retries.
func (s *Server) Client() *dynamo.Client {
	c, err := dynamo.New(aws.Config{Region: "us-east-1", Credentials: credentials.NewStaticCredentialsProvider("test", "test", "")},
		func(o *dynamo.Options) { o.Endpoint = s.Endpoint })
	if err != nil {
		panic(err) // a region and credentials are given
	}
	return c
}

// SDK is the AWS SDK's DynamoDB client of the server, signing with dummy
// credentials as the SDK requires, with the SDK's default retries: for
// creating tables, and as a second client.
func (s *Server) SDK() *dynamodb.Client {
	return dynamodb.New(dynamodb.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(s.Endpoint),
		Credentials:  credentials.NewStaticCredentialsProvider("test", "test", ""),
	})
}

// Env is the environment that points an AWS SDK (a function under the
// Lambda emulator, the AWS CLI) at the server.
func (s *Server) Env() []string {
	return []string{"AWS_ENDPOINT_URL_DYNAMODB=" + s.Endpoint}
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// CreateTable creates a table and waits until DynamoDB reports it ACTIVE
// (dynalite, like DynamoDB, creates it in the background).
func (s *Server) CreateTable(ctx context.Context, in *dynamodb.CreateTableInput) error {
	c := s.SDK()
	if _, err := c.CreateTable(ctx, in); err != nil {
		return fmt.Errorf("create table %s: %w", aws.ToString(in.TableName), err)
	}
	for {
		out, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: in.TableName})
		if err == nil && out.Table != nil && out.Table.TableStatus == types.TableStatusActive {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("table %s not active: %w", aws.ToString(in.TableName), ctx.Err())
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// LedgerTable is the ledger's table as the ledger construct declares it
// (package ledger's KeyJobID, IndexByEnd and KeyEndDay; a ledger test holds
// the names equal), for a local DynamoDB in tests and benchmarks: on-demand,
// the job id as key, the byEnd index projecting every attribute. Time to
// live, point-in-time recovery, encryption and deletion protection are the
// construct's (a local DynamoDB has none of them). The names are written
// here because package ledger's own tests import this package.
func LedgerTable(name string) *dynamodb.CreateTableInput {
	const jobID, byEnd, endDay = "jobId", "byEnd", "endDay"
	return &dynamodb.CreateTableInput{
		TableName:   aws.String(name),
		BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String(jobID), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String(endDay), AttributeType: types.ScalarAttributeTypeS},
		},
		KeySchema: []types.KeySchemaElement{{AttributeName: aws.String(jobID), KeyType: types.KeyTypeHash}},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{
			IndexName: aws.String(byEnd),
			KeySchema: []types.KeySchemaElement{
				{AttributeName: aws.String(endDay), KeyType: types.KeyTypeHash},
				{AttributeName: aws.String(jobID), KeyType: types.KeyTypeRange},
			},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll},
		}},
	}
}
