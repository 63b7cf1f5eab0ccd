package bridge

import (
	"fmt"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/spf13/cobra"

	sdk "github.com/cosmos/cosmos-sdk/types"

	bridgetypes "github.com/idlegpu/idlegpu/x/bridge/types"
)

const flagOrchestrator = "orchestrator"

// registerCmd binds a validator's EVM signing key and its orchestrator
// account. The EVM key signs a proof of possession over the chain id, the
// validator and the orchestrator, so nobody can register a key they do not
// hold, nor replay the proof for another validator or chain.
func registerCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "register",
		Short: "Register this validator's EVM signer and orchestrator (signed by the validator's operator key)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, key, cl, err := validatorSession(cmd)
			if err != nil {
				return err
			}
			defer cl.Close()
			operator := cl.Address()
			orch, _ := cmd.Flags().GetString(flagOrchestrator)
			if orch == "" {
				orch = operator.String()
			}
			if _, err := sdk.AccAddressFromBech32(orch); err != nil {
				return fmt.Errorf("--%s: %w", flagOrchestrator, err)
			}
			chainID, _ := cmd.Flags().GetString(flagChainID)
			// The operator account's bytes are the validator's.
			valoper := sdk.ValAddress(operator).String()
			evmAddr := crypto.PubkeyToAddress(key.PublicKey)
			proof, err := bridgetypes.SignDigest(key, bridgetypes.SignerProofDigest(chainID, valoper, orch, evmAddr))
			if err != nil {
				return err
			}
			res, err := cl.Submit(cmd.Context(), &bridgetypes.MsgRegisterEvmSigner{
				Operator: operator.String(), Orchestrator: orch, EvmAddress: evmAddr.Hex(), Proof: proof,
			})
			if err != nil {
				return fmt.Errorf("registering %s for %s: %w", evmAddr, valoper, err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "validator %s: EVM signer %s, orchestrator %s (tx %s, height %d)\n",
				valoper, evmAddr.Hex(), orch, res.TxHash, res.Height)
			return nil
		},
	}
	addNodeFlags(cmd)
	addCosmosKeyFlags(cmd)
	addEthKeyFlags(cmd, "the validator's EVM signing key")
	cmd.Flags().String(flagOrchestrator, "", "account that submits for this validator (default: the operator account)")
	return cmd
}
