package federation

import (
	"crypto/rand"
	"encoding/hex"
	"sync"
)

var instance = sync.OnceValue(func() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
})

// Instance is this process's instance id: random, made on first use. Every
// request to an HTTP peer carries it (wire.HeaderPeer), so that a server
// reached through a peer entry that names itself can tell, and so that the
// server asked answers from its local store only.
func Instance() string { return instance() }
