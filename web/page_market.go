package web

import (
	"html/template"
	"net/http"
	"time"
)

// priceWindow is how far back the market's price chart reaches.
const priceWindow = 30 * 24 * time.Hour

type marketData struct {
	Title       string
	M           *Market
	CapacityBar template.HTML
	PriceChart  template.HTML
	Models      []string
	Asks        asksView
}

// marketPage: capacity by model, region and lane, the cheapest asks, the
// fill rate, and clearing prices over time per model.
func (s *Server) marketPage(r *http.Request) (string, any, error) {
	ctx := r.Context()
	m, err := s.market.get(ctx)
	if err != nil {
		return "", nil, err
	}
	d := marketData{Title: "Market", M: m, CapacityBar: capacityBars(m.ByModel), Asks: s.asks(r, m)}
	if d.PriceChart, d.Models, err = s.priceChart(r, time.Now().Add(-priceWindow)); err != nil {
		return "", nil, err
	}
	return "market", d, nil
}
