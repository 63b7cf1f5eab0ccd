package types_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/internal/msgtest"
	"github.com/idlegpu/idlegpu/x/offer/types"
)

// TestValidateBasic: every stateless rule the msg server checks refuses its
// field before any state is read, with the module's error and the text a
// client sees; a well-formed message of every type passes. Terms are
// checked without params, so a denom no market takes passes here.
func TestValidateBasic(t *testing.T) {
	terms := func(edit func(*types.OfferTerms)) types.OfferTerms {
		tt := types.OfferTerms{PriceOnDemand: usdc(2_000_000), PricePreemptible: usdc(900_000), Lanes: types.AllLanes, Workloads: types.AllWorkloads}
		edit(&tt)
		return tt
	}
	create := func(edit func(*types.MsgCreateOffer)) *types.MsgCreateOffer {
		m := &types.MsgCreateOffer{Signer: bob, Provider: alice, GpuUuids: []string{uuid(1), uuid(2)}, Region: "eu-de",
			Terms: terms(func(*types.OfferTerms) {})}
		edit(m)
		return m
	}
	update := func(edit func(*types.MsgUpdateOffer)) *types.MsgUpdateOffer {
		m := &types.MsgUpdateOffer{Signer: bob, OfferId: 1, Terms: terms(func(*types.OfferTerms) {}), Status: types.OFFER_STATUS_PAUSED}
		edit(m)
		return m
	}
	many := make([]string, 65)
	for i := range many {
		many[i] = uuid(i)
	}
	badParams := types.DefaultParams()
	badParams.PaymentDenoms = nil
	badBech32 := `decoding bech32 failed: invalid bech32 string length 3`

	msgtest.RunValidateBasic(t, msgtest.Cases{
		{"create", create(func(*types.MsgCreateOffer) {}), nil, ""},
		{"create: the provider's region", create(func(m *types.MsgCreateOffer) { m.Region = "" }), nil, ""},
		{"create: any denom", create(func(m *types.MsgCreateOffer) { m.Terms.PriceOnDemand.Denom = "uatom" }), nil, ""},
		{"create: signer", create(func(m *types.MsgCreateOffer) { m.Signer = "bad" }),
			types.ErrInvalidAddress, `signer "bad": ` + badBech32 + `: invalid address`},
		{"create: provider", create(func(m *types.MsgCreateOffer) { m.Provider = "" }),
			types.ErrInvalidAddress, `provider "": empty address string is not allowed: invalid address`},
		{"create: no gpus", create(func(m *types.MsgCreateOffer) { m.GpuUuids = nil }),
			types.ErrNoGPUs, "an offer needs at least one GPU: offer has no gpus"},
		{"create: more gpus than any lease", create(func(m *types.MsgCreateOffer) { m.GpuUuids = many }),
			types.ErrTooManyGPUs, "65 GPUs, at most 64: too many gpus in offer"},
		{"create: gpu twice", create(func(m *types.MsgCreateOffer) { m.GpuUuids = []string{uuid(1), uuid(1)} }),
			types.ErrDuplicateGPU, uuid(1) + ": duplicate gpu"},
		{"create: region", create(func(m *types.MsgCreateOffer) { m.Region = "eu-west" }),
			types.ErrInvalidRegion, `"eu-west": "west" is not an ISO 3166-1 alpha-2 country code (lower-case): invalid region: invalid region`},
		{"create: lanes", create(func(m *types.MsgCreateOffer) { m.Terms.Lanes = 8 }),
			types.ErrInvalidLanes, "lanes mask 0x8: must be a non-empty set of ON_DEMAND(1), PREEMPTIBLE(2), RESERVED(4): invalid lanes"},
		{"create: zero price", create(func(m *types.MsgCreateOffer) { m.Terms.PriceOnDemand = usdc(0) }),
			types.ErrInvalidPrice, "price_on_demand 0uusdc: must be positive: invalid price"},
		{"create: price denom syntax", create(func(m *types.MsgCreateOffer) { m.Terms.PricePreemptible.Denom = "x" }),
			types.ErrInvalidPrice, "price_preemptible: invalid denom: x: invalid price"},
		{"create: workloads", create(func(m *types.MsgCreateOffer) { m.Terms.Workloads = 0 }),
			types.ErrInvalidWorkloads, "workloads mask 0x0: must be a non-empty set of INFERENCE(1), TRAINING(2), BATCH(4), RENDER(8): invalid workloads"},
		{"create: window", create(func(m *types.MsgCreateOffer) { m.Terms.Windows = []types.Window{{Start: t0, End: t0}} }),
			types.ErrInvalidWindows, "window 0: end 2026-03-01T12:00:00Z is not after start 2026-03-01T12:00:00Z: invalid availability windows"},
		{"create: allowlist", create(func(m *types.MsgCreateOffer) { m.Terms.ImageAllowlist = []string{"sha256:AB12"} }),
			types.ErrInvalidImageAllowlist, `entry 0 "sha256:AB12": must be "sha256:" followed by 4–64 lowercase hex digits: invalid image allowlist`},
		{"create: image prefix", create(func(m *types.MsgCreateOffer) { m.Terms.ImagePrefixes = []string{"ghcr.io/a b"} }),
			types.ErrInvalidImagePrefixes, `entry 0 "ghcr.io/a b": must be 1..256 printable bytes without spaces: invalid image prefixes`},
		{"create: resources", create(func(m *types.MsgCreateOffer) { m.Terms.CpuCoresPerGpu = 1025 }),
			types.ErrInvalidResources, "cpu_cores_per_gpu 1025: at most 1024: invalid resources per gpu"},
		{"create: egress at the bound", create(func(m *types.MsgCreateOffer) { m.Terms.EgressMbpsPerGpu = 100_000 }), nil, ""},
		{"create: egress over the bound", create(func(m *types.MsgCreateOffer) { m.Terms.EgressMbpsPerGpu = 100_001 }),
			types.ErrInvalidResources, "egress_mbps_per_gpu 100001: at most 100000: invalid resources per gpu"},
		{"create: ingress with a pinned certificate", create(func(m *types.MsgCreateOffer) {
			m.Terms.IngressDomain, m.Terms.IngressTlsCertSha256 = "gpu.example.com", strings.Repeat("ab", 32)
		}), nil, ""},
		{"create: ingress under a CA's certificate", create(func(m *types.MsgCreateOffer) { m.Terms.IngressDomain = "gpu.example.com" }), nil, ""},
		{"create: ingress domain not a DNS name", create(func(m *types.MsgCreateOffer) { m.Terms.IngressDomain = "gpu example" }),
			types.ErrInvalidIngress, `ingress_domain "gpu example": a name of at least two labels, such as gpu.example.com: invalid ingress`},
		{"create: certificate pin without a domain", create(func(m *types.MsgCreateOffer) { m.Terms.IngressTlsCertSha256 = strings.Repeat("ab", 32) }),
			types.ErrInvalidIngress, "ingress_tls_cert_sha256 without an ingress_domain: invalid ingress"},
		{"create: certificate pin not hex", create(func(m *types.MsgCreateOffer) {
			m.Terms.IngressDomain, m.Terms.IngressTlsCertSha256 = "gpu.example.com", strings.Repeat("AB", 32)
		}), types.ErrInvalidIngress, `ingress_tls_cert_sha256 "` + strings.Repeat("AB", 32) + `": must be 64 lower-case hex digits: invalid ingress`},

		{"update", update(func(*types.MsgUpdateOffer) {}), nil, ""},
		{"update: signer", update(func(m *types.MsgUpdateOffer) { m.Signer = "bad" }),
			types.ErrInvalidAddress, `signer "bad": ` + badBech32 + `: invalid address`},
		{"update: duration", update(func(m *types.MsgUpdateOffer) { m.Terms.MaxDurationSeconds = 3_153_600_001 }),
			types.ErrInvalidDuration, "max_duration_seconds must be at most 3153600000 (100 years), got 3153600001: invalid duration"},
		{"update: close", update(func(m *types.MsgUpdateOffer) { m.Status = types.OFFER_STATUS_CLOSED }),
			types.ErrInvalidStatus, "OFFER_STATUS_CLOSED: an update may only OPEN or PAUSE (close with MsgCloseOffer): invalid offer status"},

		{"close", &types.MsgCloseOffer{Signer: bob, OfferId: 1}, nil, ""},
		{"close: signer", &types.MsgCloseOffer{Signer: "bad", OfferId: 1},
			types.ErrInvalidAddress, `signer "bad": ` + badBech32 + `: invalid address`},

		{"update params", &types.MsgUpdateParams{Authority: alice, Params: marketParams()}, nil, ""},
		{"update params: authority", &types.MsgUpdateParams{Authority: "bad", Params: marketParams()},
			types.ErrInvalidAuthority, `authority "bad": ` + badBech32 + `: signer is not the module authority`},
		{"update params: params", &types.MsgUpdateParams{Authority: alice, Params: badParams},
			types.ErrInvalidParams, "payment_denoms must not be empty: invalid params"},
	})
}

// TestTermsValidateBasicIsValidateWithoutParams: the params add only the
// window bound and the payment denoms; everything else is one rule.
func TestTermsValidateBasicIsValidateWithoutParams(t *testing.T) {
	p := marketParams()
	p.MaxWindows = 1
	tt := types.OfferTerms{PriceOnDemand: usdc(2), Lanes: uint32(types.LANE_ON_DEMAND), Workloads: types.AllWorkloads,
		Windows: []types.Window{{Start: t0, End: t0.Add(1)}, {Start: t0.Add(2), End: t0.Add(3)}}}
	require.NoError(t, tt.ValidateBasic())
	require.ErrorIs(t, tt.Validate(p), types.ErrInvalidWindows)

	tt.Windows = nil
	tt.PriceOnDemand = &sdk.Coin{Denom: "uatom", Amount: usdc(2).Amount}
	require.NoError(t, tt.ValidateBasic())
	require.EqualError(t, tt.Validate(p), "price_on_demand 2uatom: the market accepts ugpu, uusdc: denom not accepted")
}
