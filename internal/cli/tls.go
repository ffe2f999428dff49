package cli

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
)

// ServerTLS loads --tls-cert and --tls-key (PEM files) into a server TLS
// configuration (TLS 1.2 or newer); both empty means no TLS (nil). The
// error is a sentence saying which flag to give or fix.
func ServerTLS(certFile, keyFile string) (*tls.Config, error) {
	switch {
	case certFile == "" && keyFile == "":
		return nil, nil
	case certFile == "":
		return nil, errors.New("--tls-key needs --tls-cert: give the certificate (PEM) as well")
	case keyFile == "":
		return nil, errors.New("--tls-cert needs --tls-key: give the certificate's private key (PEM) as well")
	}
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, fmt.Errorf("cannot load --tls-cert %q with --tls-key %q (%v); give a PEM certificate and its private key", certFile, keyFile, err)
	}
	return &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}, nil
}

// Loopback reports whether a listen address (host:port) accepts
// connections from this machine only: a loopback IP or "localhost". An
// empty host (":3100") listens on every interface.
func Loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil || host == "" {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
