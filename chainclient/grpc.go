package chainclient

import (
	"fmt"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/cosmos/cosmos-sdk/codec"
)

// DialGRPC opens a gRPC connection to a node's gRPC server (host:port,
// plaintext, as a node serves it on loopback or behind a TLS proxy). The
// chain's messages are gogoproto, so the connection uses the SDK's codec.
func DialGRPC(addr string) (*grpc.ClientConn, error) {
	enc, err := Encoding()
	if err != nil {
		return nil, err
	}
	cdc := codec.NewProtoCodec(enc.InterfaceRegistry)
	conn, err := grpc.NewClient(addr,
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.ForceCodec(cdc.GRPCCodec()), grpc.MaxCallRecvMsgSize(64<<20)))
	if err != nil {
		return nil, fmt.Errorf("node gRPC %q: %w", addr, err)
	}
	return conn, nil
}
