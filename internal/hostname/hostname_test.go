package hostname

import "testing"

func TestCanonical(t *testing.T) {
	for in, want := range map[string]string{
		"Lease-1.GPU.example.com:443": "lease-1.gpu.example.com",
		"lease-1.gpu.example.com.":    "lease-1.gpu.example.com",
		"chat.example.com":            "chat.example.com",
		"[::1]:8443":                  "::1",
		"":                            "",
	} {
		if got := Canonical(in); got != want {
			t.Errorf("Canonical(%q) = %q, want %q", in, got, want)
		}
	}
}
