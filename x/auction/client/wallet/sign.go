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
	return sign(types.EIP712Domain{ChainID: bid.EvmChainId, VerifyingContract: contract}, structHash, key)
}

// SignCancelJob signs a renter's cancel as a wallet would.
func SignCancelJob(a types.CancelJobAuth, key *ecdsa.PrivateKey) ([]byte, error) {
	structHash, err := types.CancelJobHash(a, crypto.PubkeyToAddress(key.PublicKey).Bytes())
	if err != nil {
		return nil, err
	}
	contract, err := types.ParseEVMAddress(a.VerifyingContract)
	if err != nil {
		return nil, err
	}
	return sign(types.EIP712Domain{ChainID: a.EvmChainId, VerifyingContract: contract}, structHash, key)
}

// SignCloseLease signs a renter's close as a wallet would.
func SignCloseLease(a types.CloseLeaseAuth, key *ecdsa.PrivateKey) ([]byte, error) {
	structHash, err := types.CloseLeaseHash(a, crypto.PubkeyToAddress(key.PublicKey).Bytes())
	if err != nil {
		return nil, err
	}
	contract, err := types.ParseEVMAddress(a.VerifyingContract)
	if err != nil {
		return nil, err
	}
	return sign(types.EIP712Domain{ChainID: a.EvmChainId, VerifyingContract: contract}, structHash, key)
}

// sign signs the typed-data digest: low s, v as 27/28 as wallets give it.
func sign(d types.EIP712Domain, structHash []byte, key *ecdsa.PrivateKey) ([]byte, error) {
	sig, err := crypto.Sign(types.TypedDataDigest(d, structHash), key)
	if err != nil {
		return nil, err
	}
	sig[64] += 27
	return sig, nil
}
