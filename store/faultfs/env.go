package faultfs

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// SetFromEnv installs a hook the environment describes, for tests that run
// docir itself (a test binary's docir entry, or a docir built with the tag
// docir_faults, whose init calls it); it does nothing when DOCIR_FAULT is
// unset:
//
//	DOCIR_FAULT=kill@N   SIGKILL the process at the Nth counted operation,
//	                     before it is done
//	DOCIR_FAULT=eio@N    fail the Nth counted operation with EIO
//	DOCIR_FAULT=pause@N  sleep a second before the Nth counted operation
//	                     (a test signals the process meanwhile)
//	DOCIR_FAULT=count    count only
//	DOCIR_FAULT_OPS      the operations counted, comma-separated names
//	                     (default "rename,remove,sync")
//	DOCIR_FAULT_PATH     when set, only operations on a path holding it
//	                     are counted
//	DOCIR_FAULT_LOG      a file each counted operation is appended to, as
//	                     "N op path"
func SetFromEnv() error {
	spec := os.Getenv("DOCIR_FAULT")
	if spec == "" {
		return nil
	}
	action, nth, _ := strings.Cut(spec, "@")
	at, err := strconv.Atoi(nth)
	switch {
	case action == "count":
	case (action == "kill" || action == "eio" || action == "pause") && err == nil && at > 0:
	default:
		return fmt.Errorf("DOCIR_FAULT=%q: want kill@N, eio@N, pause@N or count", spec)
	}
	counted := map[Op]bool{}
	ops := os.Getenv("DOCIR_FAULT_OPS")
	if ops == "" {
		ops = "rename,remove,sync"
	}
	for _, name := range strings.Split(ops, ",") {
		found := false
		for op, n := range opNames {
			if n != "" && n == name {
				counted[Op(op)], found = true, true
			}
		}
		if !found {
			return fmt.Errorf("DOCIR_FAULT_OPS: no operation %q", name)
		}
	}
	var log *os.File
	if p := os.Getenv("DOCIR_FAULT_LOG"); p != "" {
		if log, err = os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644); err != nil {
			return err
		}
	}
	only := os.Getenv("DOCIR_FAULT_PATH")
	var mu sync.Mutex
	n := 0
	Set(func(op Op, path string) error {
		if !counted[op] || !strings.Contains(path, only) {
			return nil
		}
		mu.Lock()
		defer mu.Unlock()
		n++
		if log != nil {
			fmt.Fprintf(log, "%d %s %s\n", n, op, path)
		}
		if n != at {
			return nil
		}
		switch action {
		case "kill":
			_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
			select {} // the signal is on its way
		case "eio":
			return syscall.EIO
		case "pause":
			time.Sleep(time.Second)
		}
		return nil
	})
	return nil
}
