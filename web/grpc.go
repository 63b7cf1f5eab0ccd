package web

import (
	"google.golang.org/grpc"

	"github.com/idlegpu/idlegpu/chainclient"
)

// DialNode opens a gRPC connection to a node's gRPC server
// (chainclient.DialGRPC).
func DialNode(addr string) (*grpc.ClientConn, error) { return chainclient.DialGRPC(addr) }
