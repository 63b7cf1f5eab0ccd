package chart_test

import (
	"encoding/xml"
	"fmt"
	"html/template"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/idlegpu/idlegpu/web/chart"
)

const evil = `<script>alert("x")</script> & 'co'`

var t0 = time.Date(2026, 12, 5, 0, 0, 0, 0, time.UTC)

// hourly is n points an hour apart with values f(i).
func hourly(n int, f func(i int) float64) []chart.Point {
	pts := make([]chart.Point, n)
	for i := range pts {
		pts[i] = chart.Point{X: t0.Add(time.Duration(i) * time.Hour), Y: f(i)}
	}
	return pts
}

// node is a parsed element: enough of the tree to ask what a chart drew.
type node struct {
	name     string
	attrs    map[string]string
	text     string
	children []*node
}

// parse checks that out is well-formed XML with one <svg> root and returns that root.
func parse(t *testing.T, out template.HTML) *node {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(string(out)))
	d.Strict = true
	var root *node
	var stack []*node
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v\n%s", err, out)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			n := &node{name: tok.Name.Local, attrs: map[string]string{}}
			for _, a := range tok.Attr {
				n.attrs[a.Name.Local] = a.Value
			}
			if len(stack) == 0 {
				if root != nil {
					t.Fatal("more than one root element")
				}
				root = n
			} else {
				p := stack[len(stack)-1]
				p.children = append(p.children, n)
			}
			stack = append(stack, n)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if len(stack) > 0 {
				stack[len(stack)-1].text += string(tok)
			}
		}
	}
	if root == nil || root.name != "svg" {
		t.Fatalf("root is not <svg>: %s", out)
	}
	return root
}

// all returns the elements named name under n, in document order.
func (n *node) all(name string) []*node {
	var out []*node
	for _, c := range n.children {
		if c.name == name {
			out = append(out, c)
		}
		out = append(out, c.all(name)...)
	}
	return out
}

// checkAccessible asserts the root's role, aria-label and leading <title>.
func checkAccessible(t *testing.T, root *node, title string) {
	t.Helper()
	if root.attrs["role"] != "img" || root.attrs["aria-label"] != title {
		t.Fatalf("role %q aria-label %q, want img and %q", root.attrs["role"], root.attrs["aria-label"], title)
	}
	if len(root.children) == 0 || root.children[0].name != "title" || root.children[0].text != title {
		t.Fatalf("first child is not <title>%s</title>", title)
	}
	if root.attrs["viewBox"] == "" {
		t.Fatal("no viewBox")
	}
}

func usdc(v float64) string { return fmt.Sprintf("%.2f USDC/GPU-h", v) }

func TestLineEscapesText(t *testing.T) {
	out := chart.Line(chart.LineOpts{Title: evil, YFormat: func(v float64) string { return fmt.Sprintf("%.0f <%%> &", v) }},
		chart.Series{Name: evil, Points: hourly(3, func(i int) float64 { return float64(i) })},
		chart.Series{Name: "b & c", Points: hourly(3, func(i int) float64 { return 1 })},
	)
	s := string(out)
	if strings.Contains(s, "<script") || strings.Contains(s, `"x"`) {
		t.Fatalf("unescaped markup in output:\n%s", s)
	}
	for _, want := range []string{"&lt;script&gt;", "&amp; &#39;co&#39;", "b &amp; c", "&lt;%&gt; &amp;"} {
		if !strings.Contains(s, want) {
			t.Fatalf("missing %q in output", want)
		}
	}
	root := parse(t, out)
	checkAccessible(t, root, evil)
	var legend []string
	for _, tx := range root.all("text") {
		legend = append(legend, tx.text)
	}
	if !strings.Contains(strings.Join(legend, "\n"), evil) {
		t.Fatalf("series name not in the legend: %q", legend)
	}
}

func TestEscapingDropsCharactersXMLForbids(t *testing.T) {
	out := chart.Bars(chart.BarOpts{Title: "a\x00b\x01c\xffd"}, chart.Bar{Label: "x\x1fy", Parts: []chart.Part{{"p", 1}}})
	root := parse(t, out)
	if got := root.attrs["aria-label"]; got != "abc\uFFFDd" {
		t.Fatalf("aria-label %q", got)
	}
}

func TestLinePointsAndTooltips(t *testing.T) {
	out := chart.Line(chart.LineOpts{Title: "Clearing price", YFormat: usdc},
		chart.Series{Name: "H100", Points: hourly(24, func(i int) float64 { return 1.5 + float64(i%3)/10 })})
	root := parse(t, out)
	checkAccessible(t, root, "Clearing price")
	dots := root.all("circle")
	if len(dots) != 24 {
		t.Fatalf("%d dots, want 24", len(dots))
	}
	if got := dots[0].all("title")[0].text; got != "H100: 1.50 USDC/GPU-h at 2026-12-05 00:00 UTC" {
		t.Fatalf("tooltip %q", got)
	}
	if n := len(root.all("rect")); n != 0 {
		t.Fatalf("a single series has no legend, got %d swatches", n)
	}
	// Y axis from zero with nice ticks in the given format.
	var labels []string
	for _, g := range root.all("g") {
		if g.attrs["class"] == "ch-yaxis" {
			for _, tx := range g.all("text") {
				labels = append(labels, tx.text)
			}
		}
	}
	want := []string{"0.00 USDC/GPU-h", "0.50 USDC/GPU-h", "1.00 USDC/GPU-h", "1.50 USDC/GPU-h", "2.00 USDC/GPU-h"}
	if strings.Join(labels, "|") != strings.Join(want, "|") {
		t.Fatalf("y labels %q, want %q", labels, want)
	}
	// More than 60 points: no dots.
	out = chart.Line(chart.LineOpts{}, chart.Series{Points: hourly(61, func(i int) float64 { return float64(i) })})
	if n := len(parse(t, out).all("circle")); n != 0 {
		t.Fatalf("%d dots for 61 points", n)
	}
}

func TestLineStepAndFromMin(t *testing.T) {
	out := chart.Line(chart.LineOpts{Title: "Reliability", Step: true, YFromMin: true,
		YFormat: func(v float64) string { return fmt.Sprintf("%.0f %%", v) }},
		chart.Series{Name: "p1", Points: hourly(4, func(i int) float64 { return []float64{97, 98, 96, 99}[i] })})
	root := parse(t, out)
	d := root.all("path")[0].attrs["d"]
	if !regexp.MustCompile(`^M[\d.]+ [\d.]+(H[\d.]+V[\d.]+){3}$`).MatchString(d) {
		t.Fatalf("step path %q", d)
	}
	if strings.Contains(string(out), ">0 %<") {
		t.Fatal("YFromMin axis starts at zero")
	}
	if !strings.Contains(string(out), ">96 %<") || !strings.Contains(string(out), ">99 %<") {
		t.Fatal("YFromMin axis does not cover 96..99")
	}
}

func TestEmptyInputSaysNoData(t *testing.T) {
	for name, out := range map[string]template.HTML{
		"line, no series":    chart.Line(chart.LineOpts{Title: "Price"}),
		"line, empty series": chart.Line(chart.LineOpts{Title: "Price"}, chart.Series{Name: "a"}),
		"line, only NaN":     chart.Line(chart.LineOpts{Title: "Price"}, chart.Series{Points: []chart.Point{{t0, math.NaN()}}}),
		"bars":               chart.Bars(chart.BarOpts{Title: "Price"}),
		"columns":            chart.Columns(chart.ColumnOpts{Title: "Price"}, chart.Series{Name: "a"}),
	} {
		t.Run(name, func(t *testing.T) {
			root := parse(t, out)
			checkAccessible(t, root, "Price")
			if !strings.Contains(string(out), "no data yet") {
				t.Fatalf("no message: %s", out)
			}
			if root.attrs["viewBox"] != "0 0 720 60" {
				t.Fatalf("viewBox %q", root.attrs["viewBox"])
			}
		})
	}
	root := parse(t, chart.Spark(nil, 80, 20))
	if root.attrs["aria-label"] != "no data yet" {
		t.Fatalf("spark aria-label %q", root.attrs["aria-label"])
	}
}

func TestLineDownsamples100k(t *testing.T) {
	const n = 100_000
	pts := make([]chart.Point, n)
	for i := range pts {
		pts[i] = chart.Point{X: t0.Add(time.Duration(i) * time.Minute), Y: 50 + 10*math.Sin(float64(i)/300)}
	}
	pts[12_345].Y = 1000 // one spike must still reach the top
	out := chart.Line(chart.LineOpts{Title: "Utilisation"}, chart.Series{Name: "u", Points: pts})
	root := parse(t, out)
	d := root.all("path")[0].attrs["d"]
	verts := strings.Count(d, "L") + 1
	if verts > 2*720 {
		t.Fatalf("%d vertices, want <= %d", verts, 2*720)
	}
	if len(out) > 40_000 {
		t.Fatalf("output %d bytes", len(out))
	}
	// The spike is the highest vertex: its y is the plot top's mapping of 1000 on a 0..1000 axis.
	minY := math.Inf(1)
	for _, m := range regexp.MustCompile(`[ML][\d.]+ ([\d.]+)`).FindAllStringSubmatch(d, -1) {
		var y float64
		fmt.Sscan(m[1], &y)
		minY = min(minY, y)
	}
	if minY != 10 { // top margin
		t.Fatalf("highest vertex at y=%v, want the spike at the top (10)", minY)
	}
}

func TestDeterministic(t *testing.T) {
	render := func() string {
		s := []chart.Series{
			{Name: "b", Points: hourly(100, func(i int) float64 { return float64(i * i % 17) })},
			{Name: "a", Points: hourly(50, func(i int) float64 { return float64(i) / 3 })},
		}
		bars := []chart.Bar{{Label: "H100", Parts: []chart.Part{{"leased", 6}, {"free", 2}}}, {Label: "A100", Parts: []chart.Part{{"free", 4}, {"leased", 1}}}}
		return string(chart.Line(chart.LineOpts{Title: "x"}, s...)) + string(chart.Bars(chart.BarOpts{Title: "y"}, bars...)) +
			string(chart.Columns(chart.ColumnOpts{Title: "z"}, s...)) + string(chart.Spark(s[0].Points, 80, 20))
	}
	first := render()
	for range 20 {
		if render() != first {
			t.Fatal("output differs between equal inputs")
		}
	}
}

func TestBars(t *testing.T) {
	out := chart.Bars(chart.BarOpts{Title: "GPUs by model", Format: func(v float64) string { return fmt.Sprintf("%.0f GPUs", v) }},
		chart.Bar{Label: "H100 80GB", Parts: []chart.Part{{"leased", 12}, {"free", 4}}},
		chart.Bar{Label: evil, Parts: []chart.Part{{"free", 3}, {"leased", 0}, {"leased", math.NaN()}}},
	)
	root := parse(t, out)
	checkAccessible(t, root, "GPUs by model")
	var tips, classes []string
	for _, r := range root.all("rect") {
		classes = append(classes, r.attrs["class"])
		for _, tt := range r.all("title") {
			tips = append(tips, tt.text)
		}
	}
	// Two legend swatches, then three segments; "free" keeps its colour in both bars.
	wantClasses := []string{"ch-key ch-c0", "ch-key ch-c1", "ch-seg ch-c0", "ch-seg ch-c1", "ch-seg ch-c1"}
	if strings.Join(classes, "|") != strings.Join(wantClasses, "|") {
		t.Fatalf("classes %q, want %q", classes, wantClasses)
	}
	wantTips := []string{"H100 80GB — leased: 12 GPUs", "H100 80GB — free: 4 GPUs", evil + " — free: 3 GPUs"}
	if strings.Join(tips, "|") != strings.Join(wantTips, "|") {
		t.Fatalf("tips %q, want %q", tips, wantTips)
	}
	var texts []string
	for _, tx := range root.all("text") {
		texts = append(texts, tx.text)
	}
	joined := strings.Join(texts, "|")
	for _, want := range []string{"|16 GPUs|", "|3 GPUs", "|12 GPUs|", "leased|free|"} {
		if !strings.Contains(joined, want) {
			t.Fatalf("missing %q in texts %q", want, texts)
		}
	}
}

func TestSpark(t *testing.T) {
	out := chart.Spark(hourly(5000, func(i int) float64 { return float64(i % 100) }), 80, 20)
	root := parse(t, out)
	if root.attrs["width"] != "80" || root.attrs["height"] != "20" {
		t.Fatalf("size %s×%s", root.attrs["width"], root.attrs["height"])
	}
	if got := root.attrs["aria-label"]; got != "trend: last 99, min 0, max 99" {
		t.Fatalf("aria-label %q", got)
	}
	if v := strings.Count(root.all("path")[0].attrs["d"], "L") + 1; v > 160 {
		t.Fatalf("%d vertices for an 80-pixel spark", v)
	}
}

func TestColumns(t *testing.T) {
	day := func(i int) time.Time { return t0.AddDate(0, 0, i) }
	out := chart.Columns(chart.ColumnOpts{Title: "Earnings per day", YFormat: func(v float64) string { return fmt.Sprintf("%.1f USDC", v) }},
		chart.Series{Name: "leases", Points: []chart.Point{{day(2), 3}, {day(0), 10}, {day(1), 5}}},
		chart.Series{Name: "audits", Points: []chart.Point{{day(0), 1.5}, {day(2), -1}}},
	)
	root := parse(t, out)
	checkAccessible(t, root, "Earnings per day")
	var tips []string
	for _, r := range root.all("rect") {
		for _, tt := range r.all("title") {
			tips = append(tips, tt.text)
		}
	}
	want := []string{
		"leases: 10.0 USDC at 2026-12-05 00:00 UTC", "audits: 1.5 USDC at 2026-12-05 00:00 UTC",
		"leases: 5.0 USDC at 2026-12-06 00:00 UTC", "leases: 3.0 USDC at 2026-12-07 00:00 UTC",
	}
	if strings.Join(tips, "|") != strings.Join(want, "|") {
		t.Fatalf("tips %q, want %q", tips, want)
	}
	if !strings.Contains(string(out), ">Dec 6<") {
		t.Fatal("no day label")
	}
}

func TestEmbedsInTemplateUnescaped(t *testing.T) {
	tmpl := template.Must(template.New("p").Parse(`<figure>{{.}}</figure>`))
	var b strings.Builder
	out := chart.Line(chart.LineOpts{Title: "t"}, chart.Series{Points: hourly(2, func(int) float64 { return 1 })})
	if err := tmpl.Execute(&b, out); err != nil {
		t.Fatal(err)
	}
	if b.String() != "<figure>"+string(out)+"</figure>" {
		t.Fatal("template escaped the chart")
	}
}

func BenchmarkLine100k(b *testing.B) {
	pts := make([]chart.Point, 100_000)
	for i := range pts {
		pts[i] = chart.Point{X: t0.Add(time.Duration(i) * time.Minute), Y: 50 + 10*math.Sin(float64(i)/300) + float64(i%7)}
	}
	opts := chart.LineOpts{Title: "Utilisation", YFormat: func(v float64) string { return fmt.Sprintf("%.0f %%", v) }}
	var out template.HTML
	b.ReportAllocs()
	for b.Loop() {
		out = chart.Line(opts, chart.Series{Name: "u", Points: pts})
	}
	b.ReportMetric(float64(len(out)), "svg-bytes")
}

func TestLineTimeAxisLabels(t *testing.T) {
	// A week of hourly points: one label per UTC day, none overlapping the "UTC" note.
	out := chart.Line(chart.LineOpts{Title: "week"}, chart.Series{Points: hourly(7*24+1, func(i int) float64 { return 1 })})
	root := parse(t, out)
	var labels []string
	for _, g := range root.all("g") {
		if g.attrs["class"] == "ch-xaxis" {
			for _, tx := range g.all("text") {
				labels = append(labels, tx.text)
				x, _ := strconv.ParseFloat(tx.attrs["x"], 64)
				w := 7 * float64(len(tx.text)) // the package's layout estimate
				switch tx.attrs["text-anchor"] {
				case "middle":
					x -= w / 2
				case "end":
					x -= w
				}
				if tx.text != "UTC" && x < 4+3*7 {
					t.Fatalf("label %q starts at x=%v, over the UTC note", tx.text, x)
				}
			}
		}
	}
	want := "Dec 5|Dec 6|Dec 7|Dec 8|Dec 9|Dec 10|Dec 11|Dec 12|UTC"
	if got := strings.Join(labels, "|"); got != want {
		t.Fatalf("x labels %q, want %q", got, want)
	}
}

func TestLineLegendColoursMatchSeries(t *testing.T) {
	flat := func(int) float64 { return 1 }
	out := chart.Line(chart.LineOpts{Title: "c"},
		chart.Series{Name: "empty"}, chart.Series{Name: "a", Points: hourly(3, flat)}, chart.Series{Name: "b", Points: hourly(3, flat)})
	root := parse(t, out)
	var keys, series []string
	for _, r := range root.all("rect") {
		keys = append(keys, strings.TrimPrefix(r.attrs["class"], "ch-key "))
	}
	for _, g := range root.all("g") {
		if c, ok := strings.CutPrefix(g.attrs["class"], "ch-series "); ok {
			series = append(series, c)
		}
	}
	if strings.Join(keys, " ") != "ch-c1 ch-c2" || strings.Join(series, " ") != "ch-c1 ch-c2" {
		t.Fatalf("legend %q, series %q, want ch-c1 ch-c2 for both", keys, series)
	}
}

func TestBarsClipLongLabelsKeepingThemAsTooltips(t *testing.T) {
	long := strings.Repeat("NVIDIA H100 80GB HBM3 ", 10)
	root := parse(t, chart.Bars(chart.BarOpts{Title: "b"}, chart.Bar{Label: long}))
	var clipped string
	for _, tx := range root.all("text") {
		if strings.HasSuffix(tx.text, "…") {
			clipped = tx.text
		}
	}
	if clipped == "" || len([]rune(clipped)) > 40 {
		t.Fatalf("label not clipped: %q", clipped)
	}
	found := false
	for _, tt := range root.all("title") {
		found = found || tt.text == long
	}
	if !found {
		t.Fatal("full label not kept as a tooltip")
	}
}
