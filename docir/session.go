package docir

// DiscoverySchema names the shape of a workspace/discover reply.
//
// Change log:
//
//	docir.discover.v1  first version: server, version, policy, methods,
//	                   capabilities, read_batch_workers, limits.
const DiscoverySchema = "docir.discover.v1"

// Discovery is the reply of workspace/discover: exactly what this session
// serves. Methods and Capabilities are sorted; a default session (no host
// policy) has no capabilities.
type Discovery struct {
	Schema       string   `json:"schema"`
	Server       string   `json:"server"`  // always "docir"
	Version      string   `json:"version"` // the binary's version
	Policy       *string  `json:"policy"`  // the host policy's schema name; null without --policy
	Methods      []string `json:"methods"`
	Capabilities []string `json:"capabilities"`
	// ReadBatchWorkers is the host's selection for workspace/read-batch;
	// absent when the host selected none.
	ReadBatchWorkers *int          `json:"read_batch_workers,omitempty"`
	Limits           SessionLimits `json:"limits"`
}

// SessionLimits are the bounds a session enforces.
type SessionLimits struct {
	MaxFrameBytes int `json:"max_frame_bytes"` // one inbound frame (line or HTTP body)
	MaxReplyBytes int `json:"max_reply_bytes"` // one outbound reply
	MaxDocIDs     int `json:"max_doc_ids"`     // addresses in one doc_ids read
}
