package cli

import (
	"crypto/ecdsa"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	sdkmath "cosmossdk.io/math"

	"github.com/cosmos/cosmos-sdk/client"
	"github.com/cosmos/cosmos-sdk/client/flags"
	"github.com/cosmos/cosmos-sdk/client/tx"
	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/idlegpu/idlegpu/x/auction/client/wallet"
	"github.com/idlegpu/idlegpu/x/auction/types"
	"github.com/idlegpu/idlegpu/x/base/chaincfg"
	"github.com/idlegpu/idlegpu/x/client/precheck"
)

const (
	flagEthKey         = "eth-key"
	flagPassphraseFile = "passphrase-file"
	flagNonce          = "nonce"
	flagValidFor       = "valid-for"
	flagMaxRelayerFee  = "max-relayer-fee"
	flagRelayerFee     = "relayer-fee"
	// EnvEthPassphrase holds a keystore passphrase for services.
	EnvEthPassphrase = "IDLEGPU_ETH_PASSPHRASE"
)

// SignJobCmd is `tx auction sign-job`.
func SignJobCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "sign-job",
		Short: "Sign a job bid with an Ethereum key (EIP-712), for anyone to submit",
		Long: `Sign a job as a wallet would (EIP-712 typed data) with an Ethereum key, and print
the signed bid as JSON. The renter is the key's address: its idle1… account
pays the deposit and the relayer fee. Anyone may submit the bid with
submit-signed-job and is paid at most --max-relayer-fee from the renter: an
amount in the price's denom, written as prices are (0.05usdc or 50000uusdc).

The job flags are post-job's. The node is asked for the denom metadata,
the default bid window and the EIP-712 domain (x/bridge's evm_chain_id and
vault_address); nothing is broadcast.`,
		Example: `idlegpud tx auction sign-job --eth-key wallet.json --passphrase-file pass.txt --gpus 1 \
  --duration 2h --max-price 1.5usdc/gpu-h --image ghcr.io/acme/train@sha256:<64 hex> --manifest job.json \
  --max-relayer-fee 0.05usdc > bid.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			clientCtx, err := client.GetClientQueryContext(cmd)
			if err != nil {
				return err
			}
			key, err := EthKey(cmd)
			if err != nil {
				return err
			}
			spec, err := specFromFlags(cmd, clientCtx)
			if err != nil {
				return err
			}
			params, err := types.NewQueryClient(clientCtx).Params(cmd.Context(), &types.QueryParamsRequest{})
			if err != nil {
				return fmt.Errorf("reading the EIP-712 domain: %w", err)
			}
			bid, err := bidFromFlags(cmd, clientCtx, params, spec, key.PublicKey)
			if err != nil {
				return err
			}
			sig, err := wallet.SignJobBid(bid, key)
			if err != nil {
				return err
			}
			bz, err := clientCtx.Codec.MarshalJSON(&bid)
			if err != nil {
				return err
			}
			return printSigned(cmd, wallet.SignedJob{Bid: bz, Signature: "0x" + hex.EncodeToString(sig)})
		},
	}
	addSpecFlags(cmd)
	f := cmd.Flags()
	AddEthKeyFlags(cmd, "the renter's Ethereum key")
	f.Uint64(flagNonce, 0, "the bid's nonce (default: a random one; any number not used in a bid still within its deadline)")
	f.Duration(flagValidFor, time.Hour, "how long the bid may be submitted")
	f.String(flagMaxRelayerFee, "", "the most a submitter may be paid, in the price's denom, e.g. 0.05usdc or 50000uusdc (default none)")
	_ = cmd.MarkFlagRequired(flagEthKey)
	flags.AddQueryFlagsToCmd(cmd)
	f.String(flags.FlagChainID, "", "the chain the signature is bound to (default: client.toml's chain-id)")
	return cmd
}

func bidFromFlags(cmd *cobra.Command, clientCtx client.Context, params *types.QueryParamsResponse, spec types.JobSpec, pub ecdsa.PublicKey) (types.JobBid, error) {
	t, err := termsFromFlags(cmd, clientCtx, pub)
	if err != nil {
		return types.JobBid{}, err
	}
	metas, err := precheck.DenomMetadata(cmd.Context(), clientCtx)
	if err != nil {
		return types.JobBid{}, err
	}
	fee, err := feeIn(cmd, flagMaxRelayerFee, metas, spec.MaxPrice.Denom, "a bid's fee, like its price,")
	if err != nil {
		return types.JobBid{}, err
	}
	return types.JobBid{
		Renter: t.renter, Spec: spec, CosmosChainId: t.chainID, Nonce: t.nonce, Deadline: t.deadline, MaxRelayerFee: fee.Amount,
		EvmChainId: params.EvmChainId, VerifyingContract: params.VerifyingContract,
	}, nil
}

// printSigned writes a signed message as the JSON submit-signed-job reads
// (on stdout as is: `> bid.json`, whatever --output says).
func printSigned(cmd *cobra.Command, sj wallet.SignedJob) error {
	out, err := json.MarshalIndent(sj, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(cmd.OutOrStdout(), string(out))
	return err
}

// SubmitSignedJobCmd is `tx auction submit-signed-job`.
func SubmitSignedJobCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:     "submit-signed-job <signed.json>",
		Aliases: []string{"submit-signed"},
		Short:   "Submit a wallet-signed job bid, cancel, close or withdrawal for its signer; the signer pays you --relayer-fee",
		Long: `Submit what sign-job, sign-cancel, sign-close or sign-withdraw printed (or a wallet
signed through the web app). The action is the signer's; you pay the gas and
receive --relayer-fee from the signer: an amount written as prices are
(0.05usdc or 50000uusdc), in the job's price denom for a bid and in the
signed fee's denom otherwise, at most the signed maximum. A withdrawal
always pays the signer's own EVM address.`,
		Example: `idlegpud tx auction submit-signed-job bid.json --relayer-fee 0.05usdc --from relayer`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			clientCtx, err := client.GetClientTxContext(cmd)
			if err != nil {
				return err
			}
			raw, err := os.ReadFile(args[0])
			if err != nil {
				return fmt.Errorf("reading the signed bid: %w", err)
			}
			var sj wallet.SignedJob
			if err := json.Unmarshal(raw, &sj); err != nil {
				return fmt.Errorf("%s: not a signed bid: %w", args[0], err)
			}
			sig, err := hex.DecodeString(strings.TrimPrefix(sj.Signature, "0x"))
			if err != nil {
				return fmt.Errorf("%s: signature: %w", args[0], err)
			}
			submitter := clientCtx.GetFromAddress().String()
			// Each message fixes its fee's denom; the fee is read in it.
			var denom string
			var build func(fee sdkmath.Int) sdk.Msg
			switch {
			case len(sj.Bid) > 0:
				var bid types.JobBid
				if err := wallet.UnmarshalSignedJSON(clientCtx.Codec, "bid", sj.Bid, &bid); err != nil {
					return fmt.Errorf("%s: bid: %w", args[0], err)
				}
				denom = bid.Spec.MaxPrice.Denom
				build = func(fee sdkmath.Int) sdk.Msg {
					return &types.MsgSubmitSignedJob{Submitter: submitter, Bid: bid, Signature: sig, RelayerFee: fee}
				}
			case len(sj.Cancel) > 0:
				var a types.CancelJobAuth
				if err := wallet.UnmarshalSignedJSON(clientCtx.Codec, "cancel", sj.Cancel, &a); err != nil {
					return fmt.Errorf("%s: cancel: %w", args[0], err)
				}
				denom = a.MaxRelayerFee.Denom
				build = func(fee sdkmath.Int) sdk.Msg {
					return &types.MsgSubmitSignedCancel{Submitter: submitter, Auth: a, Signature: sig, RelayerFee: fee}
				}
			case len(sj.Close) > 0:
				var a types.CloseLeaseAuth
				if err := wallet.UnmarshalSignedJSON(clientCtx.Codec, "close", sj.Close, &a); err != nil {
					return fmt.Errorf("%s: close: %w", args[0], err)
				}
				denom = a.MaxRelayerFee.Denom
				build = func(fee sdkmath.Int) sdk.Msg {
					return &types.MsgSubmitSignedClose{Submitter: submitter, Auth: a, Signature: sig, RelayerFee: fee}
				}
			case len(sj.Withdraw) > 0:
				var a types.WithdrawAuth
				if err := wallet.UnmarshalSignedJSON(clientCtx.Codec, "withdraw", sj.Withdraw, &a); err != nil {
					return fmt.Errorf("%s: withdraw: %w", args[0], err)
				}
				denom = a.MaxRelayerFee.Denom
				build = func(fee sdkmath.Int) sdk.Msg {
					return &types.MsgSubmitSignedWithdraw{Submitter: submitter, Auth: a, Signature: sig, RelayerFee: fee}
				}
			default:
				return fmt.Errorf("%s holds no bid, cancel, close or withdraw", args[0])
			}
			metas, err := precheck.DenomMetadata(cmd.Context(), clientCtx)
			if err != nil {
				return err
			}
			fee, err := feeIn(cmd, flagRelayerFee, metas, denom, "the signed fee")
			if err != nil {
				return err
			}
			return tx.GenerateOrBroadcastTxCLI(clientCtx, cmd.Flags(), build(fee.Amount))
		},
	}
	cmd.Flags().String(flagRelayerFee, "", "the fee you ask, in the signed fee's denom (a bid's: its price's), e.g. 0.05usdc or 50000uusdc (default none)")
	flags.AddTxFlagsToCmd(cmd)
	return cmd
}

// SignCancelCmd is `tx auction sign-cancel`.
func SignCancelCmd() *cobra.Command {
	cmd := signActionCmd("sign-cancel <job-id>", "Sign the cancellation of your job with an Ethereum key, for anyone to submit",
		func(clientCtx client.Context, params *types.QueryParamsResponse, t signedTerms, id uint64, key *ecdsa.PrivateKey) (wallet.SignedJob, error) {
			a := types.CancelJobAuth{Renter: t.renter, JobId: id, CosmosChainId: t.chainID, Nonce: t.nonce, Deadline: t.deadline,
				MaxRelayerFee: t.maxFee, EvmChainId: params.EvmChainId, VerifyingContract: params.VerifyingContract}
			sig, err := wallet.SignCancelJob(a, key)
			if err != nil {
				return wallet.SignedJob{}, err
			}
			bz, err := clientCtx.Codec.MarshalJSON(&a)
			return wallet.SignedJob{Cancel: bz, Signature: "0x" + hex.EncodeToString(sig)}, err
		})
	return cmd
}

// SignCloseCmd is `tx auction sign-close`.
func SignCloseCmd() *cobra.Command {
	cmd := signActionCmd("sign-close <lease-id>", "Sign the early close of your lease with an Ethereum key, for anyone to submit",
		func(clientCtx client.Context, params *types.QueryParamsResponse, t signedTerms, id uint64, key *ecdsa.PrivateKey) (wallet.SignedJob, error) {
			a := types.CloseLeaseAuth{Renter: t.renter, LeaseId: id, Reason: t.reason, CosmosChainId: t.chainID, Nonce: t.nonce,
				Deadline: t.deadline, MaxRelayerFee: t.maxFee, EvmChainId: params.EvmChainId, VerifyingContract: params.VerifyingContract}
			sig, err := wallet.SignCloseLease(a, key)
			if err != nil {
				return wallet.SignedJob{}, err
			}
			bz, err := clientCtx.Codec.MarshalJSON(&a)
			return wallet.SignedJob{Close: bz, Signature: "0x" + hex.EncodeToString(sig)}, err
		})
	cmd.Flags().String(flagReason, "", "a short note for the record")
	return cmd
}

const flagReason = "reason"

// signedTerms are what every signed message binds besides its content
// (termsFromFlags: signer, chain, nonce, deadline; a cancel or close also
// its fee coin and reason).
type signedTerms struct {
	renter, chainID, reason string
	nonce, deadline         uint64
	maxFee                  sdk.Coin
}

func signActionCmd(use, short string, build func(client.Context, *types.QueryParamsResponse, signedTerms, uint64, *ecdsa.PrivateKey) (wallet.SignedJob, error)) *cobra.Command {
	cmd := &cobra.Command{
		Use:   use,
		Short: short,
		Long: short + `. The output is JSON for submit-signed-job; the submitter is paid at most
--max-relayer-fee from your account: an amount written as prices are
(0.02usdc or 20000uusdc).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			clientCtx, err := client.GetClientQueryContext(cmd)
			if err != nil {
				return err
			}
			id, err := strconv.ParseUint(args[0], 10, 64)
			if err != nil {
				return fmt.Errorf("%s: %q is not an id", strings.Fields(use)[1], args[0])
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
			metas, err := precheck.DenomMetadata(cmd.Context(), clientCtx)
			if err != nil {
				return err
			}
			// Any denom may pay; no fee is written in the bond denom, as before.
			if t.maxFee, err = feeFlag(cmd, flagMaxRelayerFee, metas, chaincfg.BondDenom); err != nil {
				return err
			}
			if cmd.Flags().Lookup(flagReason) != nil {
				t.reason, _ = cmd.Flags().GetString(flagReason)
			}
			out, err := build(clientCtx, params, t, id, key)
			if err != nil {
				return err
			}
			return printSigned(cmd, out)
		},
	}
	f := cmd.Flags()
	AddEthKeyFlags(cmd, "your Ethereum key")
	f.Uint64(flagNonce, 0, "the nonce (default: a random one)")
	f.Duration(flagValidFor, time.Hour, "how long it may be submitted")
	f.String(flagMaxRelayerFee, "", "the most a submitter may be paid, e.g. 0.02usdc or 20000uusdc (default none)")
	_ = cmd.MarkFlagRequired(flagEthKey)
	flags.AddQueryFlagsToCmd(cmd)
	f.String(flags.FlagChainID, "", "the chain the signature is bound to (default: client.toml's chain-id)")
	return cmd
}

// termsFromFlags reads what every sign-* command binds: the key's account,
// --chain-id, --nonce and --valid-for.
func termsFromFlags(cmd *cobra.Command, clientCtx client.Context, pub ecdsa.PublicKey) (signedTerms, error) {
	f := cmd.Flags()
	nonce, err := nonceFromFlags(cmd)
	if err != nil {
		return signedTerms{}, err
	}
	validFor, _ := f.GetDuration(flagValidFor)
	if validFor <= 0 {
		return signedTerms{}, fmt.Errorf("--%s must be positive", flagValidFor)
	}
	if clientCtx.ChainID == "" {
		return signedTerms{}, fmt.Errorf("--%s is needed: the signature is bound to one chain", flags.FlagChainID)
	}
	return signedTerms{
		renter: sdk.AccAddress(crypto.PubkeyToAddress(pub).Bytes()).String(), chainID: clientCtx.ChainID,
		nonce: nonce, deadline: uint64(time.Now().Add(validFor).Unix()),
	}, nil
}

// nonceFromFlags is --nonce, or a random 63-bit number.
func nonceFromFlags(cmd *cobra.Command) (uint64, error) {
	if cmd.Flags().Changed(flagNonce) {
		return cmd.Flags().GetUint64(flagNonce)
	}
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return 0, err
	}
	return binary.BigEndian.Uint64(b[:]) >> 1, nil
}
