package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// h2Probe is a raw HTTP/2 client speaking just enough gRPC to do what no
// well-behaved client does: send a message that declares more than it
// sends and stop, or send a gzip bomb as it is. It keeps HTTP/2 flow
// control (it waits for the server's window updates) and answers pings,
// so that only the server's own limits end a call.
type h2Probe struct {
	c       net.Conn
	fr      *http2.Framer
	wmu     sync.Mutex // writes of frames
	mu      sync.Mutex // guards what follows
	cond    *sync.Cond
	connWin int64
	initWin int64
	win     map[uint32]int64
	ends    map[uint32]chan string // the call's end: "grpc-status N", "rst CODE" or "closed"
	next    uint32
	closed  bool
}

func dialH2(t *testing.T, addr string) *h2Probe {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	p := &h2Probe{c: c, fr: http2.NewFramer(c, c), connWin: 65535, initWin: 65535,
		win: map[uint32]int64{}, ends: map[uint32]chan string{}, next: 1}
	p.cond = sync.NewCond(&p.mu)
	p.fr.ReadMetaHeaders = hpack.NewDecoder(4096, nil)
	if _, err := c.Write([]byte(http2.ClientPreface)); err != nil {
		t.Fatal(err)
	}
	if err := p.fr.WriteSettings(); err != nil {
		t.Fatal(err)
	}
	go p.read()
	t.Cleanup(func() { c.Close() })
	return p
}

func (p *h2Probe) read() {
	defer func() {
		p.mu.Lock()
		p.closed = true
		for id, ch := range p.ends {
			select {
			case ch <- "closed":
			default:
			}
			delete(p.ends, id)
		}
		p.cond.Broadcast()
		p.mu.Unlock()
	}()
	for {
		f, err := p.fr.ReadFrame()
		if err != nil {
			return
		}
		switch f := f.(type) {
		case *http2.SettingsFrame:
			if f.IsAck() {
				continue
			}
			if v, ok := f.Value(http2.SettingInitialWindowSize); ok {
				p.mu.Lock()
				for id := range p.win {
					p.win[id] += int64(v) - p.initWin
				}
				p.initWin = int64(v)
				p.cond.Broadcast()
				p.mu.Unlock()
			}
			p.wmu.Lock()
			p.fr.WriteSettingsAck()
			p.wmu.Unlock()
		case *http2.PingFrame:
			if !f.IsAck() {
				p.wmu.Lock()
				p.fr.WritePing(true, f.Data)
				p.wmu.Unlock()
			}
		case *http2.WindowUpdateFrame:
			p.mu.Lock()
			if f.StreamID == 0 {
				p.connWin += int64(f.Increment)
			} else {
				p.win[f.StreamID] += int64(f.Increment)
			}
			p.cond.Broadcast()
			p.mu.Unlock()
		case *http2.MetaHeadersFrame:
			if st := f.PseudoValue("status"); st != "" && st != "200" {
				p.end(f.StreamID, "http "+st)
			}
			if v := headerValue(f, "grpc-status"); v != "" {
				p.end(f.StreamID, "grpc-status "+v+" "+headerValue(f, "grpc-message"))
			}
		case *http2.RSTStreamFrame:
			p.end(f.StreamID, "rst "+f.ErrCode.String())
		case *http2.DataFrame:
			if n := len(f.Data()); n > 0 { // give back the window of answers
				p.wmu.Lock()
				p.fr.WriteWindowUpdate(0, uint32(n))
				p.wmu.Unlock()
			}
		}
	}
}

func headerValue(f *http2.MetaHeadersFrame, name string) string {
	for _, h := range f.RegularFields() {
		if h.Name == name {
			return h.Value
		}
	}
	return ""
}

func (p *h2Probe) end(id uint32, what string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if ch, ok := p.ends[id]; ok {
		ch <- what
		delete(p.ends, id)
	}
	p.cond.Broadcast()
}

// call opens an Export call with the given headers and sends the gRPC
// message prefix (compressed flag, declared length) and then body, ending
// the stream only when the body is the whole declared message. It returns
// the channel on which the call's end arrives. Sending stops when the
// call ends first.
func (p *h2Probe) call(path string, hdr map[string]string, compressed bool, declared int, body []byte) <-chan string {
	ch := make(chan string, 1)
	p.mu.Lock()
	id := p.next
	p.next += 2
	p.ends[id] = ch
	p.win[id] = p.initWin
	p.mu.Unlock()
	var hb bytes.Buffer
	enc := hpack.NewEncoder(&hb)
	for _, kv := range [][2]string{{":method", "POST"}, {":scheme", "http"}, {":path", path}, {":authority", "faultline"},
		{"content-type", "application/grpc"}, {"te", "trailers"}} {
		enc.WriteField(hpack.HeaderField{Name: kv[0], Value: kv[1]})
	}
	for k, v := range hdr {
		enc.WriteField(hpack.HeaderField{Name: k, Value: v})
	}
	p.wmu.Lock()
	p.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: hb.Bytes(), EndHeaders: true})
	p.wmu.Unlock()
	msg := make([]byte, 5, 5+len(body))
	if compressed {
		msg[0] = 1
	}
	binary.BigEndian.PutUint32(msg[1:], uint32(declared))
	msg = append(msg, body...)
	whole := len(body) == declared
	go p.send(id, msg, whole)
	return ch
}

// send writes data on stream id within the flow-control windows.
func (p *h2Probe) send(id uint32, data []byte, endStream bool) {
	for len(data) > 0 {
		p.mu.Lock()
		for !p.closed && p.ends[id] != nil && (p.connWin <= 0 || p.win[id] <= 0) {
			p.cond.Wait()
		}
		if p.closed || p.ends[id] == nil {
			p.mu.Unlock()
			return
		}
		n := min(int64(len(data)), p.connWin, p.win[id], 16<<10)
		p.connWin -= n
		p.win[id] -= n
		p.mu.Unlock()
		p.wmu.Lock()
		err := p.fr.WriteData(id, endStream && int(n) == len(data), data[:n])
		p.wmu.Unlock()
		if err != nil {
			return
		}
		data = data[n:]
	}
}

// grpcStatusOf is the gRPC code of a call's end ("grpc-status 8 ..."), -1
// when the call ended otherwise (a reset stream, a closed connection).
func grpcStatusOf(end string) int {
	rest, ok := strings.CutPrefix(end, "grpc-status ")
	if !ok {
		return -1
	}
	code, _, _ := strings.Cut(rest, " ")
	n, err := strconv.Atoi(code)
	if err != nil {
		return -1
	}
	return n
}

// procStatus reads a field of /proc/PID/status in MB (VmRSS, VmHWM).
func procStatus(pid int, field string) (int, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			kb, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			return kb >> 10, err
		}
	}
	return 0, fmt.Errorf("no %s in /proc/%d/status", field, pid)
}
