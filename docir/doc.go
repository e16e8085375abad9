// Package docir owns the domain of the docir tool: the document IR
// (Record, Section), the reply shapes every transport prints (Document,
// GetResult, Hit, ...), and the error codes with the one mapping from a code
// to a CLI exit code and a JSON-RPC error number.
//
// Wire shapes are declared here with explicit snake_case tags and are never
// internal structs of another package. Skeleton shapes (Hit and what holds
// it) have no body field by construction; a test walks every one of them.
//
// This package imports only address. It must not import a store, an engine,
// a transport, cobra or viper.
package docir
