package web

import (
	"fmt"
	"github.com/idlegpu/idlegpu/x/auction/client/units"
	"html/template"
	"io/fs"
	"strings"
	"time"

	sdkmath "cosmossdk.io/math"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/base/chaincfg"
)

// parsePages parses each page with the shared layout into its own set, so
// pages may define the same blocks ("title", "main").
func parsePages(funcs template.FuncMap) (map[string]*template.Template, error) {
	names, err := fs.Glob(templateFS, "templates/*.html")
	if err != nil {
		return nil, err
	}
	pages := map[string]*template.Template{}
	for _, n := range names {
		name := strings.TrimSuffix(strings.TrimPrefix(n, "templates/"), ".html")
		if name == "layout" {
			continue
		}
		t, err := template.New(name).Funcs(funcs).ParseFS(templateFS, "templates/layout.html", n)
		if err != nil {
			return nil, fmt.Errorf("page %s: %w", name, err)
		}
		pages[name] = t
	}
	return pages, nil
}

func (s *Server) funcs() template.FuncMap {
	u := s.units
	return template.FuncMap{
		"coin":   u.Coin,
		"coins":  u.Coins,
		"amount": func(a sdkmath.Int, denom string) string { return u.Amount(a, denom) },
		"perGPUh": func(c sdk.Coin) string {
			if c.Denom == "" || c.Amount.IsNil() || c.Amount.IsZero() {
				return "—" // a job that has not cleared has a zero clearing price
			}
			return u.Coin(c) + "/GPU-h"
		},
		"bps":       units.Bps,
		"amountI":   func(a int64, denom string) string { return u.Amount(sdkmath.NewInt(a), denom) },
		"watts":     func(mw uint32) string { return chartNumber(float64(mw)/1000) + " W" },
		"energy":    Energy,
		"mib":       units.MiB,
		"seconds":   units.Seconds,
		"when":      When,
		"whenShort": WhenShort,
		"short":     Short,
		"enum":      Enum,
		"unix":      func(sec int64) string { return When(time.Unix(sec, 0)) },
		"chainID":   func() string { return s.cfg.ChainID },
		"fresh":     s.freshness,
		"proofList": proofList,
		// relayerFee is what this app's relayer asks per message in denom.
		"relayerFee": func(denom string) string { return u.Coin(s.actionFee(denom)) },
		"ago":        Ago,
		"since":      func(t time.Time) time.Duration { return s.head.now().Sub(t) },
		"bondDenom":  func() string { return chaincfg.BondDenom },
		// stake names the staking token as a token: "400.00 GPU" alone
		// reads as four hundred graphics cards.
		"stake": func(c sdk.Coin) string {
			if c.Denom == chaincfg.BondDenom {
				return u.Coin(c) + " tokens"
			}
			return u.Coin(c)
		},
		"join":  strings.Join,
		"sub":   func(a, b int) int { return a - b },
		"tiers": func() []string { return []string{"gold", "silver", "bronze"} },
		"lanes": func() []string {
			out := make([]string, len(lanes))
			for i, l := range lanes {
				out[i] = Enum(l.String(), "LANE_")
			}
			return out
		},
		"workloads": func() []string { return []string{"inference", "training", "batch", "render"} },
		"fill": func(leased, gpus int) string {
			if gpus == 0 {
				return "—"
			}
			return units.Bps(uint32(leased * 10_000 / gpus))
		},
	}
}
