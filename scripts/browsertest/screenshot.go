package browsertest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/chromedp/chromedp"
)

// EnvScreenshots names the directory Screenshot writes to; see the package doc.
const EnvScreenshots = "IDLEGPU_SCREENSHOTS"

// Screenshot writes a full-page PNG of the tab to <dir>/<name>.png, dir being
// $IDLEGPU_SCREENSHOTS or <repository root>/build/screenshots, and returns its
// path.
func (p *Page) Screenshot(name string) string {
	p.t.Helper()
	dir, err := ScreenshotDir()
	if err != nil {
		p.t.Fatalf("browser: Screenshot(%q): %v", name, err)
	}
	ctx, cancel := context.WithTimeout(p.ctx, p.Timeout)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)) // quality 100 means PNG
	if err != nil {
		p.fail(fmt.Sprintf("Screenshot(%q)", name), err)
	}
	path := filepath.Join(dir, name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		p.t.Fatalf("browser: Screenshot(%q): %v", name, err)
	}
	return path
}

// ScreenshotDir returns, creating it, the directory screenshots go to.
func ScreenshotDir() (string, error) {
	dir := os.Getenv(EnvScreenshots)
	if dir == "" {
		root, err := repoRoot()
		if err != nil {
			return "", err
		}
		dir = filepath.Join(root, "build", "screenshots")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	return dir, nil
}

// repoRoot walks up from the working directory to the one holding go.mod.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory; set " + EnvScreenshots)
		}
		dir = parent
	}
}
