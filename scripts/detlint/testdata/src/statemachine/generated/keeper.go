// Package generated checks that generated files are skipped, while floats
// they declare are still reported where hand-written code uses them.
package generated

// RatioPercent reads a float field declared in a generated file.
func RatioPercent(p *Params) int64 {
	return int64(p.Ratio * 100) // want `Ratio involves float64`
}

// RatioGetter reads it through the generated getter.
func RatioGetter(p *Params) int64 {
	return int64(p.GetRatio()) // want `GetRatio involves float64`
}

// Count uses the generated type without touching the float.
func Count(ps []*Params) int {
	_ = noise
	return len(ps)
}
