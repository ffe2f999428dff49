package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
)

// serveProcess is `ingest serve` running as its own process (the test
// binary re-executed), so that its memory can be read from /proc.
type serveProcess struct {
	pid        int
	http, grpc string
	stderr     *syncBuffer
}

// startServeProcess starts `ingest serve` on free loopback ports (no
// OTLP/HTTP listener) with extra flags, and waits until it answers.
func startServeProcess(t *testing.T, extra ...string) serveProcess {
	t.Helper()
	s := serveProcess{http: freePort(t), grpc: freePort(t), stderr: &syncBuffer{}}
	args := append([]string{"serve", "--store", filepath.Join(t.TempDir(), "s.db"), "--listen", s.http, "--otlp-listen", "",
		"--otlp-grpc-listen", s.grpc}, extra...)
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "FAULTLINE_INGEST_AS_MAIN=1", "FAULTLINE_STORE=", "FAULTLINE_PATTERNS=")
	cmd.Stdout, cmd.Stderr = s.stderr, s.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s.pid = cmd.Process.Pid
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	if err := waitHealthz("http://" + s.http); err != nil {
		t.Fatalf("server not up: %v (%s)", err, s.stderr.String())
	}
	return s
}

// rss is the server's resident memory now and at its peak, in MB.
func (s serveProcess) rss(t *testing.T) (now, peak int) {
	t.Helper()
	now, err := procStatus(s.pid, "VmRSS")
	if err == nil {
		peak, err = procStatus(s.pid, "VmHWM")
	}
	if err != nil {
		t.Fatal(err)
	}
	return now, peak
}

// await waits for every call's end while watching the server's memory: a
// server over maxMB is killed (a probe must never take the machine) and
// the test fails. It returns the ends in order and the highest RSS seen.
func (s serveProcess) await(t *testing.T, ends []<-chan string, within time.Duration, maxMB int) ([]string, int) {
	t.Helper()
	out := make([]string, len(ends))
	var wg sync.WaitGroup
	for i, ch := range ends {
		wg.Go(func() {
			select {
			case out[i] = <-ch:
			case <-time.After(within):
				out[i] = "no answer"
			}
		})
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	high := 0
	for {
		now, _ := s.rss(t)
		high = max(high, now)
		if now > maxMB {
			syscallKill(s.pid)
			t.Fatalf("the server took %d MB (over %d MB) during the probe; killed", now, maxMB)
		}
		select {
		case <-done:
			return out, high
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func syscallKill(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		p.Kill()
	}
}

// exportOK checks that the server still takes an ordinary export.
func (s serveProcess) exportOK(t *testing.T) {
	t.Helper()
	cc, err := grpc.NewClient(s.grpc, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if _, err := plogotlp.NewGRPCClient(cc).Export(ctx, plogotlp.NewExportRequestFromLogs(oneLog())); err != nil {
		t.Errorf("an ordinary export after the probe: %v", err)
	}
}

const logsExport = "/opentelemetry.proto.collector.logs.v1.LogsService/Export"

// gzipBomb is size zero bytes gzipped (about a thousandth of size).
func gzipBomb(t *testing.T, size int) []byte {
	t.Helper()
	var b bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
	chunk := make([]byte, 1<<20)
	for n := size; n > 0; n -= len(chunk) {
		zw.Write(chunk[:min(n, len(chunk))])
	}
	zw.Close()
	return b.Bytes()
}

// TestGRPCGzipBombMemory is the probe: 48 gzipped messages of
// about 64 KB that expand to just under 64 MiB each (6 connections × 8
// streams at once). gRPC's own gunzip expanded every one before the byte
// budget applied (4.3 GB RSS); now each is gunzipped under the budget and
// the server stays within a few hundred MB, answers every call, and takes
// an ordinary export afterwards.
func TestGRPCGzipBombMemory(t *testing.T) {
	s := startServeProcess(t)
	bomb := gzipBomb(t, 64<<20-64<<10)
	_, base := s.rss(t)
	var ends []<-chan string
	for range 6 {
		p := dialH2(t, s.grpc)
		for range 8 {
			ends = append(ends, p.call(logsExport, map[string]string{"grpc-encoding": "gzip"}, true, len(bomb), bomb))
		}
	}
	got, high := s.await(t, ends, time.Minute, 1500)
	_, peak := s.rss(t)
	t.Logf("gzip bombs (%d B each, 48 at once): RSS %d MB before, highest %d MB seen, peak %d MB; answers %v", len(bomb), base, high, peak, counts(got))
	for i, end := range got {
		if c := grpcStatusOf(end); c != int(codes.ResourceExhausted) && c != int(codes.InvalidArgument) {
			t.Errorf("call %d ended %q, want RESOURCE_EXHAUSTED (busy) or INVALID_ARGUMENT (zeros are no OTLP)", i, end)
		}
	}
	if peak > 900 {
		t.Errorf("peak RSS %d MB under the gzip bombs, want under 900 MB (the byte budget is 256 MiB; OTLP/HTTP peaks near that)", peak)
	}
	s.exportOK(t)
}

// TestGRPCStalledMessages: messages that declare more than they send and
// stop. The probe (4 connections × 8 streams declaring about 64
// MiB) held 2.1 GB for as long as the client liked; now a message over
// the 4 MiB gRPC limit is refused at once, and one within it that stalls
// is answered DEADLINE_EXCEEDED after --body-timeout, its memory freed.
func TestGRPCStalledMessages(t *testing.T) {
	const bodyTimeout = 3 * time.Second
	s := startServeProcess(t, "--body-timeout", bodyTimeout.String())
	_, base := s.rss(t)
	filler := bytes.Repeat([]byte{'x'}, 64<<20)
	stall := func(declared int) []<-chan string {
		var ends []<-chan string
		for range 4 {
			p := dialH2(t, s.grpc)
			for range 8 {
				ends = append(ends, p.call(logsExport, nil, false, declared, filler[:declared-1]))
			}
		}
		return ends
	}
	// The frames: ~64 MiB declared, all but one byte sent.
	start := time.Now()
	got, high := s.await(t, stall(64<<20-16), 10*time.Second, 1500)
	t.Logf("64 MiB declared: answered in %v, highest RSS %d MB (%d MB before): %v", time.Since(start).Round(time.Millisecond), high, base, counts(got))
	for i, end := range got {
		if grpcStatusOf(end) != int(codes.ResourceExhausted) {
			t.Errorf("64 MiB call %d ended %q, want RESOURCE_EXHAUSTED at once", i, end)
		}
	}
	// Within the limit: 4 MiB declared, all but one byte sent.
	start = time.Now()
	got, high = s.await(t, stall(4<<20), bodyTimeout+15*time.Second, 1500)
	took := time.Since(start)
	_, peak := s.rss(t)
	t.Logf("4 MiB declared: all answered in %v, highest RSS %d MB, peak %d MB: %v", took.Round(time.Millisecond), high, peak, counts(got))
	for i, end := range got {
		if c := grpcStatusOf(end); c != int(codes.DeadlineExceeded) && c != int(codes.ResourceExhausted) {
			t.Errorf("stalled call %d ended %q, want DEADLINE_EXCEEDED (or RESOURCE_EXHAUSTED when the budget was spent)", i, end)
		}
	}
	if took > bodyTimeout+10*time.Second {
		t.Errorf("stalled calls answered after %v, want about --body-timeout (%v)", took, bodyTimeout)
	}
	if peak > 600 {
		t.Errorf("peak RSS %d MB while 32 messages stalled, want under 600 MB", peak)
	}
	s.exportOK(t)
}

// counts tallies call ends for the log.
func counts(ends []string) map[string]int {
	m := map[string]int{}
	for _, e := range ends {
		if c := grpcStatusOf(e); c >= 0 {
			e = codes.Code(c).String()
		}
		m[e]++
	}
	return m
}

// oneLog is one log record of service api, now.
func oneLog() plog.Logs {
	ld := plog.NewLogs()
	rl := ld.ResourceLogs().AppendEmpty()
	rl.Resource().Attributes().PutStr("service.name", "api")
	lr := rl.ScopeLogs().AppendEmpty().LogRecords().AppendEmpty()
	lr.SetTimestamp(pcommon.NewTimestampFromTime(time.Now()))
	lr.Body().SetStr("db timeout")
	return ld
}
