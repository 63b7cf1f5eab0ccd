package wallet

import (
	"crypto/ecdsa"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/idlegpu/idlegpu/x/auction/types"
)

// SignJobBid signs a bid with an Ethereum key as a wallet would: over the
// EIP-712 digest, v as 27/28. The bid's renter must be the key's address.
func SignJobBid(bid types.JobBid, key *ecdsa.PrivateKey) ([]byte, error) {
	addr := crypto.PubkeyToAddress(key.PublicKey)
	structHash, err := types.JobBidHash(bid, addr.Bytes())
	if err != nil {
		return nil, err
	}
	contract, err := types.ParseEVMAddress(bid.VerifyingContract)
	if err != nil {
		return nil, err
	}
	digest := types.TypedDataDigest(types.EIP712Domain{ChainID: bid.EvmChainId, VerifyingContract: contract}, structHash)
	sig, err := crypto.Sign(digest, key) // low s, v 0/1
	if err != nil {
		return nil, err
	}
	sig[64] += 27
	return sig, nil
}
