// Package pgtest gives tests a real PostgreSQL: a private cluster made with
// the server's own initdb and pg_ctl (Debian's postgresql package) in a
// temporary directory, listening on a free loopback port, started once per
// test binary and stopped by Stop (call it from TestMain). Each DSN call is
// a new, empty database in it.
//
// Without PostgreSQL's programs the test skips and says why, unless
// IDLEGPU_POSTGRES=required (CI sets it), when it fails. As root (CI), the
// cluster runs as the postgres user the package creates: the server refuses
// to run as root.
package pgtest

import (
	"context"
	"database/sql"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver
)

// EnvRequired, set to "required", makes a missing PostgreSQL a failure.
const EnvRequired = "IDLEGPU_POSTGRES"

// EnvBench, set to "postgres", makes the index's and the web app's
// benchmarks run on PostgreSQL instead of SQLite (BenchTarget).
const EnvBench = "IDLEGPU_BENCH_DB"

// BenchTarget is the index a benchmark runs on: a new PostgreSQL database
// when $IDLEGPU_BENCH_DB is "postgres", else an SQLite file in dir.
func BenchTarget(tb testing.TB, dir string) string {
	tb.Helper()
	if os.Getenv(EnvBench) == "postgres" {
		return DSN(tb)
	}
	return filepath.Join(dir, "bench.db")
}

type cluster struct {
	bin, dir string
	port     int
	cred     *syscall.Credential
	err      error
}

var (
	once    sync.Once
	running *cluster
	dbs     atomic.Int64
)

// DSN returns the URL of a new, empty database in the test binary's
// cluster, starting the cluster on first use.
func DSN(t testing.TB) string {
	t.Helper()
	once.Do(func() { running = start() })
	if running.err != nil {
		if os.Getenv(EnvRequired) == "required" {
			t.Fatalf("pgtest: %v", running.err)
		}
		t.Skipf("pgtest: %v (install Debian's postgresql, or set %s=required to fail instead)", running.err, EnvRequired)
	}
	name := fmt.Sprintf("test_%d_%d", os.Getpid(), dbs.Add(1))
	admin, err := sql.Open("pgx", running.url("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	if _, err := admin.ExecContext(context.Background(), `CREATE DATABASE `+name); err != nil {
		t.Fatalf("pgtest: create database: %v", err)
	}
	return running.url(name)
}

// Try is DSN where a cluster can run, and always where EnvRequired says
// so (failing without one); elsewhere it returns false, for a test that
// checks PostgreSQL on top of what it checks on SQLite and must not skip.
func Try(t testing.TB) (string, bool) {
	t.Helper()
	once.Do(func() { running = start() })
	if running.err != nil && os.Getenv(EnvRequired) != "required" {
		t.Logf("pgtest: %v: the PostgreSQL part is left out", running.err)
		return "", false
	}
	return DSN(t), true
}

// Stop stops the cluster, if one was started, and removes its files.
func Stop() {
	if running == nil || running.err != nil {
		return
	}
	_ = running.pgctl("stop", "-m", "immediate", "-w").Run()
	_ = os.RemoveAll(running.dir)
}

func (c *cluster) url(db string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", c.port, db)
}

// bindir is the newest installed server's programs, or the PATH's.
func bindir() (string, error) {
	if dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin"); len(dirs) > 0 {
		sort.Slice(dirs, func(i, j int) bool {
			vi, _ := strconv.Atoi(filepath.Base(filepath.Dir(dirs[i])))
			vj, _ := strconv.Atoi(filepath.Base(filepath.Dir(dirs[j])))
			return vi < vj
		})
		return dirs[len(dirs)-1], nil
	}
	p, err := exec.LookPath("pg_ctl")
	if err != nil {
		return "", fmt.Errorf("no PostgreSQL server programs (initdb, pg_ctl) found")
	}
	return filepath.Dir(p), nil
}

func (c *cluster) command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(filepath.Join(c.bin, name), args...)
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	if c.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: c.cred}
	}
	return cmd
}

func (c *cluster) pgctl(args ...string) *exec.Cmd {
	return c.command("pg_ctl", append([]string{"-D", filepath.Join(c.dir, "data")}, args...)...)
}

func start() *cluster {
	c := &cluster{}
	if c.bin, c.err = bindir(); c.err != nil {
		return c
	}
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			c.err = fmt.Errorf("running as root and there is no postgres user to run the server as: %w", err)
			return c
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		c.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
	}
	if c.dir, c.err = os.MkdirTemp("", "pgtest"); c.err != nil {
		return c
	}
	if c.cred != nil {
		if c.err = os.Chown(c.dir, int(c.cred.Uid), int(c.cred.Gid)); c.err != nil {
			return c
		}
	}
	if out, err := c.command("initdb", "-D", filepath.Join(c.dir, "data"), "-U", "postgres", "--auth=trust",
		"--encoding=UTF8", "--no-sync").CombinedOutput(); err != nil {
		c.err = fmt.Errorf("initdb: %v: %s", err, out)
		return c
	}
	if c.port, c.err = freePort(); c.err != nil {
		return c
	}
	// synchronous_commit=off: a commit does not wait for its WAL to reach
	// the disk (a crash may lose the last commits, never consistency), as
	// the index's SQLite runs (WAL, synchronous=NORMAL); so benchmarks of
	// the two compare like with like.
	opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c synchronous_commit=off", c.port, c.dir)
	if out, err := c.pgctl("start", "-w", "-t", "60", "-l", filepath.Join(c.dir, "server.log"), "-o", opts).CombinedOutput(); err != nil {
		log, _ := os.ReadFile(filepath.Join(c.dir, "server.log"))
		c.err = fmt.Errorf("pg_ctl start: %v: %s %s", err, out, log)
		return c
	}
	// Ready once it answers a query.
	db, err := sql.Open("pgx", c.url("postgres"))
	if err != nil {
		c.err = err
		return c
	}
	defer db.Close()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if c.err = db.Ping(); c.err == nil || time.Now().After(deadline) {
			return c
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
