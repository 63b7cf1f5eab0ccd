package wallet

import (
	"crypto/ecdsa"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/idlegpu/idlegpu/x/auction/types"
)

// SignJobBid signs a bid with an Ethereum key as a wallet would: over the
// EIP-712 digest, v as 27/28. The bid's renter must be the key's address.
func SignJobBid(bid types.JobBid, key *ecdsa.PrivateKey) ([]byte, error) {
	structHash, err := types.JobBidHash(bid, renter(key))
	if err != nil {
		return nil, err
	}
	return sign(bid.EvmChainId, bid.VerifyingContract, structHash, key)
}

// SignCancelJob signs a renter's cancel as a wallet would.
func SignCancelJob(a types.CancelJobAuth, key *ecdsa.PrivateKey) ([]byte, error) {
	structHash, err := types.CancelJobHash(a, renter(key))
	if err != nil {
		return nil, err
	}
	return sign(a.EvmChainId, a.VerifyingContract, structHash, key)
}

// SignCloseLease signs a renter's close as a wallet would.
func SignCloseLease(a types.CloseLeaseAuth, key *ecdsa.PrivateKey) ([]byte, error) {
	structHash, err := types.CloseLeaseHash(a, renter(key))
	if err != nil {
		return nil, err
	}
	return sign(a.EvmChainId, a.VerifyingContract, structHash, key)
}

// SignWithdraw signs a wallet account's withdrawal as a wallet would.
func SignWithdraw(a types.WithdrawAuth, key *ecdsa.PrivateKey) ([]byte, error) {
	structHash, err := types.WithdrawHash(a, renter(key))
	if err != nil {
		return nil, err
	}
	return sign(a.EvmChainId, a.VerifyingContract, structHash, key)
}

func renter(key *ecdsa.PrivateKey) []byte { return crypto.PubkeyToAddress(key.PublicKey).Bytes() }

// sign signs the typed-data digest under the domain (evmChainID,
// contract): low s, v as 27/28 as wallets give it.
func sign(evmChainID uint64, contract string, structHash []byte, key *ecdsa.PrivateKey) ([]byte, error) {
	c, err := types.ParseEVMAddress(contract)
	if err != nil {
		return nil, err
	}
	sig, err := crypto.Sign(types.TypedDataDigest(types.EIP712Domain{ChainID: evmChainID, VerifyingContract: c}, structHash), key)
	if err != nil {
		return nil, err
	}
	sig[64] += 27
	return sig, nil
}
