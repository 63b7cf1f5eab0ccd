package cli

import (
	"encoding/hex"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/cosmos/cosmos-sdk/client"
	"github.com/cosmos/cosmos-sdk/client/flags"
	sdk "github.com/cosmos/cosmos-sdk/types"
	banktypes "github.com/cosmos/cosmos-sdk/x/bank/types"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/idlegpu/idlegpu/x/auction/client/units"
	"github.com/idlegpu/idlegpu/x/auction/client/wallet"
	"github.com/idlegpu/idlegpu/x/auction/types"
	bridgetypes "github.com/idlegpu/idlegpu/x/bridge/types"
	"github.com/idlegpu/idlegpu/x/client/precheck"
)

// SignWithdrawCmd is `tx auction sign-withdraw <amount>`.
func SignWithdrawCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "sign-withdraw <amount>",
		Short: "Sign a withdrawal of your bridged coins to your own EVM address with an Ethereum key, for anyone to submit",
		Long: `Sign, as a wallet would (EIP-712 typed data Withdraw), the withdrawal of <amount> of
the bridged denom from the key's idle1… account to the key's own address on the
EVM chain, and print it as JSON for submit-signed-job. Nobody can send it
elsewhere: the recipient is the signer. The submitter is paid at most
--max-relayer-fee (default none) from your account, which must hold both.
Both amounts are written as prices are: 2.5usdc or 2500000uusdc. The next
payout root carries the withdrawal to the vault; claim it there.

The node is asked for the EIP-712 domain and x/bridge's denom and minimum
withdrawal; nothing is broadcast.`,
		Example: `idlegpud tx auction sign-withdraw 2.5usdc --eth-key wallet.json --passphrase-file pass.txt \
  --max-relayer-fee 0.02usdc > withdraw.json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			clientCtx, err := client.GetClientQueryContext(cmd)
			if err != nil {
				return err
			}
			bridge, err := bridgetypes.NewQueryClient(clientCtx).Params(cmd.Context(), &bridgetypes.QueryParamsRequest{})
			if err != nil {
				return fmt.Errorf("reading x/bridge's params: %w", err)
			}
			metas, err := precheck.DenomMetadata(cmd.Context(), clientCtx)
			if err != nil {
				return err
			}
			amount, maxFee, err := withdrawAmounts(cmd, args[0], metas, bridge.Params)
			if err != nil {
				return err
			}
			key, err := EthKey(cmd)
			if err != nil {
				return err
			}
			params, err := types.NewQueryClient(clientCtx).Params(cmd.Context(), &types.QueryParamsRequest{})
			if err != nil {
				return fmt.Errorf("reading the EIP-712 domain: %w", err)
			}
			t, err := termsFromFlags(cmd, clientCtx, key.PublicKey)
			if err != nil {
				return err
			}
			a := types.WithdrawAuth{
				Renter: t.renter, Amount: amount, CosmosChainId: t.chainID, Nonce: t.nonce, Deadline: t.deadline,
				MaxRelayerFee: maxFee, EvmChainId: params.EvmChainId, VerifyingContract: params.VerifyingContract,
			}
			sig, err := wallet.SignWithdraw(a, key)
			if err != nil {
				return err
			}
			bz, err := clientCtx.Codec.MarshalJSON(&a)
			if err != nil {
				return err
			}
			cmd.PrintErrf("signed: %s to %s on EVM chain %d\n", amount, crypto.PubkeyToAddress(key.PublicKey).Hex(), a.EvmChainId)
			return printSigned(cmd, wallet.SignedJob{Withdraw: bz, Signature: "0x" + hex.EncodeToString(sig)})
		},
	}
	f := cmd.Flags()
	AddEthKeyFlags(cmd, "your Ethereum key: its account pays, its address receives")
	f.Uint64(flagNonce, 0, "the nonce (default: a random one)")
	f.Duration(flagValidFor, time.Hour, "how long it may be submitted")
	f.String(flagMaxRelayerFee, "", "the most a submitter may be paid, e.g. 0.02usdc or 20000uusdc (default none)")
	_ = cmd.MarkFlagRequired(flagEthKey)
	flags.AddQueryFlagsToCmd(cmd)
	f.String(flags.FlagChainID, "", "the chain the signature is bound to (default: client.toml's chain-id)")
	return cmd
}

// withdrawAmounts reads sign-withdraw's <amount> and --max-relayer-fee as
// every amount is read (units.ParseCoin); the amount is in the bridged
// denom, at least its minimum withdrawal, and a fee left out is zero in
// that denom.
func withdrawAmounts(cmd *cobra.Command, arg string, metas []banktypes.Metadata, bp bridgetypes.Params) (amount, maxFee sdk.Coin, err error) {
	if amount, err = units.ParseCoin(arg, metas, bp.Denom); err != nil {
		return sdk.Coin{}, sdk.Coin{}, fmt.Errorf("amount: %w", err)
	}
	// The words of precheck.Withdrawal, which withdraw-to-evm runs.
	show := units.NewUnits(metas).Coin
	if amount.Denom != bp.Denom {
		return sdk.Coin{}, sdk.Coin{}, fmt.Errorf("amount: the bridge pays out %s, not %s (x/bridge denom)", bp.Denom, amount.Denom)
	}
	if !bp.MinWithdrawal.IsNil() && amount.Amount.LT(bp.MinWithdrawal) {
		return sdk.Coin{}, sdk.Coin{}, fmt.Errorf("amount: %s is below the minimum withdrawal of %s (x/bridge min_withdrawal)",
			show(amount), show(sdk.Coin{Denom: bp.Denom, Amount: bp.MinWithdrawal}))
	}
	if maxFee, err = feeFlag(cmd, flagMaxRelayerFee, metas, amount.Denom); err != nil {
		return sdk.Coin{}, sdk.Coin{}, err
	}
	return amount, maxFee, nil
}
