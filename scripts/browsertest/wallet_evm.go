package browsertest

import (
	"context"
	"errors"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"
)

// CodeUnrecognizedChain is EIP-3085/3326's answer to a switch to a chain the
// wallet does not know.
const CodeUnrecognizedChain = 4902

// evmTimeout bounds one request the wallet makes of its EVM node.
const evmTimeout = 30 * time.Second

// ConnectEVM gives the wallet an EVM node, as a browser wallet has its RPC:
// it then sends transactions signed with Key (eth_sendTransaction, refused
// at the gas estimate when the call reverts, as wallets do), and answers
// eth_getTransactionReceipt and eth_blockNumber from the node.
func (w *Wallet) ConnectEVM(client *ethclient.Client) { w.evm = client }

// evmRequest answers the methods a connected wallet forwards to its node;
// ok is false for any other method.
func (w *Wallet) evmRequest(method string, params []any) (result any, err error, ok bool) {
	switch method {
	case "eth_sendTransaction":
		result, err = w.sendTransaction(params)
	case "eth_getTransactionReceipt":
		result, err = w.receipt(params)
	case "eth_blockNumber":
		ctx, cancel := context.WithTimeout(context.Background(), evmTimeout)
		defer cancel()
		var n uint64
		if n, err = w.evm.BlockNumber(ctx); err == nil {
			result = hexutil.EncodeUint64(n)
		}
	case "wallet_switchEthereumChain":
		result, err = w.switchChain(params)
	default:
		return nil, nil, false
	}
	return result, err, true
}

// switchChain accepts a switch to the wallet's own chain only.
func (w *Wallet) switchChain(params []any) (any, error) {
	if len(params) == 1 {
		if m, ok := params[0].(map[string]any); ok {
			if id, ok := m["chainId"].(string); ok {
				if n, err := hexutil.DecodeUint64(id); err == nil && n == w.ChainID {
					return nil, nil
				}
			}
		}
	}
	return nil, providerErrorf(CodeUnrecognizedChain, "this wallet is on chain %d only: %v", w.ChainID, params)
}

// sendTransaction answers eth_sendTransaction with params [{from, to, data,
// value?}]: an EIP-1559 transaction from the wallet's account, its gas
// estimated by the node.
func (w *Wallet) sendTransaction(params []any) (any, error) {
	if len(params) != 1 {
		return nil, providerErrorf(CodeInvalidParams, "eth_sendTransaction wants [tx], got %d params", len(params))
	}
	m, ok := params[0].(map[string]any)
	if !ok {
		return nil, providerErrorf(CodeInvalidParams, "eth_sendTransaction's tx is %T, not an object", params[0])
	}
	if err := w.checkAddress(m["from"]); err != nil {
		return nil, err
	}
	toS, _ := m["to"].(string)
	if !common.IsHexAddress(toS) {
		return nil, providerErrorf(CodeInvalidParams, "to %v is not an address (contract creation is not supported)", m["to"])
	}
	to := common.HexToAddress(toS)
	var data []byte
	if d, ok := m["data"].(string); ok {
		b, err := hexutil.Decode(d)
		if err != nil {
			return nil, providerErrorf(CodeInvalidParams, "data: %v", err)
		}
		data = b
	}
	value := new(big.Int)
	if v, ok := m["value"].(string); ok {
		b, err := hexutil.DecodeBig(v)
		if err != nil {
			return nil, providerErrorf(CodeInvalidParams, "value: %v", err)
		}
		value = b
	}
	ctx, cancel := context.WithTimeout(context.Background(), evmTimeout)
	defer cancel()
	gas, err := w.evm.EstimateGas(ctx, ethereum.CallMsg{From: w.Address(), To: &to, Data: data, Value: value})
	if err != nil {
		return nil, revertError(err)
	}
	nonce, err := w.evm.PendingNonceAt(ctx, w.Address())
	if err != nil {
		return nil, providerErrorf(CodeInternal, "nonce: %v", err)
	}
	tip, err := w.evm.SuggestGasTipCap(ctx)
	if err != nil {
		return nil, providerErrorf(CodeInternal, "gas tip: %v", err)
	}
	head, err := w.evm.HeaderByNumber(ctx, nil)
	if err != nil {
		return nil, providerErrorf(CodeInternal, "head: %v", err)
	}
	feeCap := new(big.Int).Add(tip, new(big.Int).Mul(head.BaseFee, big.NewInt(2)))
	chainID := new(big.Int).SetUint64(w.ChainID)
	tx, err := types.SignNewTx(w.Key, types.LatestSignerForChainID(chainID), &types.DynamicFeeTx{
		ChainID: chainID, Nonce: nonce, GasTipCap: tip, GasFeeCap: feeCap, Gas: gas, To: &to, Value: value, Data: data,
	})
	if err != nil {
		return nil, providerErrorf(CodeInternal, "signing: %v", err)
	}
	if err := w.evm.SendTransaction(ctx, tx); err != nil {
		return nil, providerErrorf(CodeInternal, "sending: %v", err)
	}
	return tx.Hash().Hex(), nil
}

// revertError is the wallet's answer to a call its node's estimate refused:
// the node's message and, as wallets pass it on, the revert data.
func revertError(err error) *ProviderError {
	perr := &ProviderError{Code: CodeInternal, Message: err.Error()}
	var de rpc.DataError
	if errors.As(err, &de) {
		perr.Data = de.ErrorData()
	}
	return perr
}

// receipt answers eth_getTransactionReceipt with params [hash]: null until
// the transaction is in a block.
func (w *Wallet) receipt(params []any) (any, error) {
	if len(params) != 1 {
		return nil, providerErrorf(CodeInvalidParams, "eth_getTransactionReceipt wants [hash], got %d params", len(params))
	}
	h, ok := params[0].(string)
	if !ok {
		return nil, providerErrorf(CodeInvalidParams, "hash %v is not a string", params[0])
	}
	ctx, cancel := context.WithTimeout(context.Background(), evmTimeout)
	defer cancel()
	r, err := w.evm.TransactionReceipt(ctx, common.HexToHash(h))
	if errors.Is(err, ethereum.NotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, providerErrorf(CodeInternal, "receipt: %v", err)
	}
	return r, nil
}
