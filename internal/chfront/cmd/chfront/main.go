// Command chfront serves ClickHouse's HTTP interface over an embedded chDB
// engine, for tests. It is not a server for production use.
//
//	chfront --lib /path/to/libchdb.so --data DIR [--listen 127.0.0.1:0] [--report-version V]
//
// When it is ready it prints one line to stdout:
//
//	chfront: listening on http://127.0.0.1:PORT (ClickHouse VERSION)
//
// and serves until SIGINT or SIGTERM.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/faultline/faultline/internal/chfront"
)

const (
	exitOK    = 0
	exitFail  = 1
	exitUsage = 2
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr, os.Getenv)
	stop()
	os.Exit(code)
}

type flags struct {
	lib, data, listen, version, logLevel string
	stdinEOF                             bool
}

func parse(args []string, stderr io.Writer, getenv func(string) string) (flags, error) {
	var f flags
	fs := flag.NewFlagSet("chfront", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.lib, "lib", getenv("FAULTLINE_CHDB_LIB"), "path of libchdb.so (default $FAULTLINE_CHDB_LIB)")
	fs.StringVar(&f.data, "data", "", "data directory of the chDB session (required)")
	fs.StringVar(&f.listen, "listen", "127.0.0.1:0", "address to listen on; port 0 picks a free port")
	fs.StringVar(&f.version, "report-version", "", "version string the handshake reports (to impersonate an older server)")
	fs.StringVar(&f.logLevel, "log-level", "warn", "debug, info, warn or error")
	fs.BoolVar(&f.stdinEOF, "exit-on-stdin-eof", false, "exit when stdin closes (so the front dies with the process that started it)")
	if err := fs.Parse(args); err != nil {
		return f, err
	}
	if f.lib == "" || f.data == "" || fs.NArg() > 0 {
		return f, errors.New("chfront: --lib (or $FAULTLINE_CHDB_LIB) and --data are required; run .ci/install-chdb.sh for the library")
	}
	return f, nil
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	f, err := parse(args, stderr, getenv)
	if err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(stderr, err)
		}
		return exitUsage
	}
	var level slog.Level
	_ = level.UnmarshalText([]byte(f.logLevel))
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	if err := os.MkdirAll(f.data, 0o755); err != nil {
		fmt.Fprintf(stderr, "chfront: cannot create %q: %v\n", f.data, err)
		return exitFail
	}
	eng, err := chfront.OpenLibCHDB(f.lib, f.data)
	if err != nil {
		fmt.Fprintf(stderr, "chfront: %v\n", err)
		return exitFail
	}
	defer eng.Close()
	srv, err := chfront.NewServer(eng, chfront.Config{TempDir: f.data, Info: chfront.ServerInfo{Version: f.version}}, log)
	if err != nil {
		fmt.Fprintf(stderr, "chfront: %v\n", err)
		return exitFail
	}
	if f.stdinEOF {
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		defer cancel()
		go func() { io.Copy(io.Discard, os.Stdin); cancel() }()
	}
	return serve(ctx, srv, f.listen, stdout, stderr)
}

func serve(ctx context.Context, srv *chfront.Server, addr string, stdout, stderr io.Writer) int {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintf(stderr, "chfront: cannot listen on %q: %v\n", addr, err)
		return exitFail
	}
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(stdout, "chfront: listening on http://%s (ClickHouse %s)\n", ln.Addr(), srv.Info().Version)
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = hs.Shutdown(sctx)
		return exitOK
	case err := <-errc:
		fmt.Fprintf(stderr, "chfront: %v\n", err)
		return exitFail
	}
}
