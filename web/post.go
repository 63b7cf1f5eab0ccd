package web

import (
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"github.com/idlegpu/idlegpu/x/auction/client/units"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	sdkmath "cosmossdk.io/math"

	sdk "github.com/cosmos/cosmos-sdk/types"

	auctiontypes "github.com/idlegpu/idlegpu/x/auction/types"
	"github.com/idlegpu/idlegpu/x/base/chaincfg"
	offertypes "github.com/idlegpu/idlegpu/x/offer/types"
)

// bidValidFor is how long a signed bid may be submitted: long enough to
// sign in a wallet, short enough that a stale bid cannot land tomorrow.
const bidValidFor = 15 * time.Minute

// jobForm is the post-a-job form as people fill it, in human units; the
// same names are the form's fields and the query string of its preview.
type jobForm struct {
	GPUs, Model, MinMemory, Region, Tier, Duration, MaxPrice string
	Image, Manifest, Workload, BidWindow, MaxRelayerFee      string
	AllowSplit                                               bool
}

func readJobForm(v url.Values) jobForm {
	f := jobForm{
		GPUs: v.Get("gpus"), Model: v.Get("model"), MinMemory: v.Get("min_memory"), Region: v.Get("region"),
		Tier: v.Get("tier"), Duration: v.Get("duration"), MaxPrice: v.Get("max_price"), Image: v.Get("image"),
		Manifest: v.Get("manifest"), Workload: v.Get("workload"), BidWindow: v.Get("bid_window"),
		MaxRelayerFee: v.Get("max_relayer_fee"), AllowSplit: v.Get("allow_split") != "",
	}
	return f
}

// defaults fill an empty form with a job that can run on the demo market.
func (f *jobForm) defaults(feeDisplay string) {
	set := func(p *string, v string) {
		if *p == "" {
			*p = v
		}
	}
	set(&f.GPUs, "1")
	set(&f.MinMemory, "0")
	set(&f.Tier, "silver")
	set(&f.Duration, "1h")
	set(&f.Workload, "batch")
	set(&f.Manifest, `{"command":["python","train.py"]}`)
	set(&f.MaxRelayerFee, feeDisplay)
}

// escrowPreview is what a form means in chain terms, before signing.
type escrowPreview struct {
	Spec     auctiontypes.JobSpec
	Escrow   sdk.Coin
	MaxFee   sdk.Coin
	Total    sdk.Coin
	GPUHours string
}

// parse turns the form into a job spec with the CLI's parsers (so "1.5usdc",
// "80GB" and "2h" mean exactly what they mean to idlegpud) and works out the
// escrow with the chain's own rule (types.Deposit).
func (s *Server) parse(f jobForm, params auctiontypes.Params) (escrowPreview, error) {
	var p escrowPreview
	spec := &p.Spec
	n, err := strconv.ParseUint(strings.TrimSpace(f.GPUs), 10, 32)
	if err != nil || n == 0 {
		return p, badRequest("GPUs: want a whole number, at least 1")
	}
	spec.GpuCount = uint32(n)
	if m := strings.TrimSpace(f.Model); m != "" {
		spec.Models = []string{m}
	}
	if r := strings.TrimSpace(f.Region); r != "" {
		spec.Regions = []string{r}
	}
	if spec.MinMemoryMib, err = units.ParseMemoryMiB(f.MinMemory); err != nil {
		return p, badRequest("memory per GPU: %v", err)
	}
	if spec.Tier, err = units.ParseTier(f.Tier); err != nil {
		return p, badRequest("%v", err)
	}
	spec.Preemptible = spec.Tier == auctiontypes.TIER_BRONZE
	if spec.DurationSeconds, err = units.ParseDurationSeconds(strings.TrimSpace(f.Duration)); err != nil {
		return p, badRequest("duration %q: %v (e.g. 90m or 2h)", f.Duration, err)
	}
	price := strings.ReplaceAll(strings.TrimSpace(f.MaxPrice), " ", "")
	if price == "" {
		return p, badRequest("maximum price: e.g. 1.5usdc/gpu-h")
	}
	if spec.MaxPrice, err = units.ParsePrice(strings.ToLower(price), s.units.Metadata()); err != nil {
		return p, badRequest("%v", err)
	}
	// The parser takes a denom it does not know as a base denom; the app
	// prices only in the chain's named denoms, so "1e309usdc" is refused
	// here as a price, not later as a relayer fee in "e309usdc".
	if s.units.Display(spec.MaxPrice.Denom) == spec.MaxPrice.Denom {
		return p, badRequest("maximum price %q: %q is not a denom of this chain; e.g. 1.5usdc/gpu-h", f.MaxPrice, spec.MaxPrice.Denom)
	}
	if spec.Image, spec.ImageDigest, err = units.ParseImage(strings.TrimSpace(f.Image)); err != nil {
		return p, badRequest("%v", err)
	}
	if strings.TrimSpace(f.Manifest) == "" {
		return p, badRequest("manifest: paste the JSON you will send the provider; only its sha256 goes on chain")
	}
	spec.ManifestHash = auctiontypes.ManifestHash([]byte(f.Manifest))
	wl, ok := offertypes.Workload_value["WORKLOAD_"+strings.ToUpper(strings.TrimSpace(f.Workload))]
	if !ok || wl == 0 {
		return p, badRequest("workload %q: want inference, training, batch or render", f.Workload)
	}
	spec.Workload = offertypes.Workload(wl)
	spec.BidWindowBlocks = params.DefaultBidWindowBlocks
	if w := strings.TrimSpace(f.BidWindow); w != "" {
		b, err := strconv.ParseUint(w, 10, 32)
		if err != nil || b > auctiontypes.MaxBidWindowBlocks {
			return p, badRequest("bid window: 0..%d blocks", auctiontypes.MaxBidWindowBlocks)
		}
		spec.BidWindowBlocks = uint32(b)
	}
	spec.AllowSplit = f.AllowSplit
	if err := spec.Validate(params); err != nil {
		return p, badRequest("%v", err)
	}
	fee, err := s.feeCap(f.MaxRelayerFee, spec.MaxPrice.Denom)
	if err != nil {
		return p, err
	}
	p.Escrow = auctiontypes.Deposit(spec.MaxPrice, spec.GpuCount, spec.DurationSeconds)
	p.MaxFee = sdk.NewCoin(spec.MaxPrice.Denom, fee)
	p.Total = p.Escrow.Add(p.MaxFee)
	p.GPUHours = strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.4f", float64(spec.GpuCount)*float64(spec.DurationSeconds)/3600), "0"), ".")
	return p, nil
}

// feeCap reads the most a signer lets the relayer take, in denom: a bare
// number is in denom's display unit ("0.05" USDC); empty or "0" is zero.
func (s *Server) feeCap(in, denom string) (sdkmath.Int, error) {
	v := strings.ToLower(strings.ReplaceAll(strings.TrimSpace(in), " ", ""))
	if v == "" || v == "0" {
		return sdkmath.ZeroInt(), nil
	}
	if strings.Trim(v, "0123456789.") == "" {
		v += s.units.Display(denom)
	}
	c, err := units.ParsePrice(v, s.units.Metadata())
	if err != nil || c.Denom != denom {
		return sdkmath.Int{}, badRequest("relayer fee %q: an amount of %s, e.g. 0.05", in, s.units.Symbol(denom))
	}
	return c.Amount, nil
}

// newNonce is a random 63-bit bid nonce (bids are unordered).
func newNonce() uint64 {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return binary.BigEndian.Uint64(b[:]) >> 1
}

type postData struct {
	Title      string
	Form       jobForm
	Models     []string
	Preview    *escrowPreview
	Clearing   *clearingPreview
	Problem    string
	RelayerFee string
	Relaying   bool
}

// postPage is the form; with ?preview it shows, without JavaScript, the
// escrow the job will lock.
func (s *Server) postPage(r *http.Request) (string, any, error) {
	ctx := r.Context()
	params, err := auctiontypes.NewQueryClient(s.conn).Params(ctx, &auctiontypes.QueryParamsRequest{})
	if err != nil {
		return "", nil, err
	}
	m, err := s.market.get(ctx)
	if err != nil {
		return "", nil, err
	}
	d := postData{Title: "Post a job", Relaying: s.relayer != nil, RelayerFee: s.units.Amount(s.cfg.RelayerFee, chaincfg.USDCDenom)}
	for _, c := range m.ByModel {
		d.Models = append(d.Models, c.Key)
	}
	q := r.URL.Query()
	d.Form = readJobForm(q)
	d.Form.defaults(strings.Fields(d.RelayerFee)[0])
	if d.Form.MaxPrice == "" && len(m.ByModel) > 0 && len(m.ByModel[0].From) > 0 {
		// Suggest the biggest model's cheapest free ask; "1.50USDC" parses.
		from := m.ByModel[0].From[0]
		d.Form.MaxPrice = strings.ToLower(strings.NewReplacer(" ", "", ",", "").Replace(s.units.Coin(from))) + "/gpu-h"
	}
	if q.Has("preview") {
		p, err := s.parse(d.Form, params.Params)
		if err != nil {
			d.Problem = err.Error()
		} else {
			d.Preview = &p
			if d.Clearing, err = s.previewClearing(ctx, p.Spec, params.Params, p.Escrow); err != nil {
				return "", nil, err
			}
		}
	}
	return "post", d, nil
}
