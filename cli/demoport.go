package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"syscall"

	"rsx/demo"
)

// The built-in demo keeps its port from one run to the next: a copy's
// Source is keyed by its URL, port included, so that a copy made from the
// demo yesterday is a copy of the same Source today only on the same port.
// When no port is given (rsx with no TARGET, rsx serve without --addr) the
// demo listens on defaultDemoAddr, or, when another program (another rsx)
// has it, on a free port, and says so. A port given (rsx --demo-port,
// rsx serve --addr; 0 for a free one, as tests do) is kept or refused.

// defaultDemoPort is the demo's port when none is given.
const defaultDemoPort = 8753

// defaultDemoAddr is the demo's address when none is given.
var defaultDemoAddr = net.JoinHostPort("127.0.0.1", strconv.Itoa(defaultDemoPort))

// startDemoAt starts the demo Source on addr. With fallback, an addr another
// program holds gives a free port of the same host instead, and note says
// so; without it, that is an error saying what to do.
// flag names the option that chooses the port.
func startDemoAt(ctx context.Context, addr, flag string, fallback bool, o demo.Options) (srv *demo.Server, note string, err error) {
	srv, err = demo.Start(ctx, addr, o)
	if !errors.Is(err, syscall.EADDRINUSE) {
		return srv, "", err
	}
	if !fallback {
		return nil, "", fmt.Errorf("%w (another program, perhaps an rsx serve started before, listens there: stop it, or choose another %s)", err, flag)
	}
	host, _, _ := net.SplitHostPort(addr)
	srv, err = demo.Start(ctx, net.JoinHostPort(host, "0"), o)
	if err != nil {
		return nil, "", err
	}
	return srv, fmt.Sprintf("%s is taken (by another rsx, or another program): the demo is on %s this time, and a copy made from the demo on %s is another Source to it", addr, srv.URL, addr), nil
}

// demoPortAddr is the address of --demo-port, and whether it was not given
// (then a port taken falls back to a free one).
func demoPortAddr(port int, given bool) (addr string, fallback bool, err error) {
	if port < 0 || port > 65535 {
		return "", false, fmt.Errorf("--demo-port %d: a port from 1 to 65535, or 0 for a free one", port)
	}
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), !given, nil
}
