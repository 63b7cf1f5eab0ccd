package endpoint

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// keyBook stands for the agent's key store: what each lease's service takes.
type keyBook struct {
	keys map[uint64][]string
	max  int
}

func (k *keyBook) AddKey(lease uint64, h string) error {
	if len(h) != 64 || strings.Trim(h, "0123456789abcdef") != "" {
		return fmt.Errorf("%w: %q", ErrBadKeyHash, h)
	}
	if len(k.keys[lease]) >= k.max {
		return ErrTooManyKeys
	}
	k.keys[lease] = append(k.keys[lease], h)
	return nil
}

func (k *keyBook) RevokeKey(lease uint64, h string) error {
	var kept []string
	for _, x := range k.keys[lease] {
		if x != h {
			kept = append(kept, x)
		}
	}
	k.keys[lease] = kept
	return nil
}

// TestKeysAreTheRentersToChange: only the lease's renter adds or revokes a
// key, a key is added to a lease that has not ended only, revoked in any
// state, and a malformed hash or one past the bound is refused with its
// reason; a provider without an ingress says so.
func TestKeysAreTheRentersToChange(t *testing.T) {
	book := &keyBook{keys: map[uint64][]string{}, max: 2}
	f := setup(t, WithKeys(book))
	now := time.Now()
	hash := strings.Repeat("ab", 32)
	body := func(h string) []byte {
		b, err := json.Marshal(KeyRequest{KeySHA256: h})
		require.NoError(t, err)
		return b
	}

	code, msg := f.do(t, f.stranger, "POST", "/v1/leases/1/keys", body(hash), now, "")
	require.Equal(t, http.StatusForbidden, code, msg)
	code, msg = f.do(t, nil, "POST", "/v1/leases/1/keys", body(hash), now, "")
	require.Equal(t, http.StatusUnauthorized, code, msg)
	require.Empty(t, book.keys, "nothing added by anyone but the renter")

	code, msg = f.do(t, f.renter, "POST", "/v1/leases/1/keys", body(hash), now, "")
	require.Equal(t, http.StatusNoContent, code, msg, "a PENDING lease takes keys for its start")
	code, msg = f.do(t, f.renter, "POST", "/v1/leases/2/keys", body(hash), now, "")
	require.Equal(t, http.StatusNoContent, code, msg)
	code, msg = f.do(t, f.renter, "POST", "/v1/leases/4/keys", body(hash), now, "")
	require.Equal(t, http.StatusConflict, code, msg)
	require.Contains(t, msg, "lease 4 is LEASE_STATUS_COMPLETED: keys are added to a PENDING or ACTIVE lease")
	code, msg = f.do(t, f.renter, "POST", "/v1/leases/2/keys", body("igk_the-key-itself"), now, "")
	require.Equal(t, http.StatusBadRequest, code, msg)
	require.Contains(t, msg, "key_sha256 is not 64 hex digits")
	code, _ = f.do(t, f.renter, "POST", "/v1/leases/2/keys", body(strings.Repeat("cd", 32)), now, "")
	require.Equal(t, http.StatusNoContent, code)
	code, msg = f.do(t, f.renter, "POST", "/v1/leases/2/keys", body(strings.Repeat("ef", 32)), now, "")
	require.Equal(t, http.StatusConflict, code, msg)
	require.Contains(t, msg, "too many keys for the lease")
	require.Equal(t, map[uint64][]string{1: {hash}, 2: {hash, strings.Repeat("cd", 32)}}, book.keys)

	code, msg = f.do(t, f.stranger, "POST", "/v1/leases/2/keys/revoke", body(hash), now, "")
	require.Equal(t, http.StatusForbidden, code, msg)
	code, msg = f.do(t, f.renter, "POST", "/v1/leases/2/keys/revoke", body(hash), now, "")
	require.Equal(t, http.StatusNoContent, code, msg)
	code, _ = f.do(t, f.renter, "POST", "/v1/leases/4/keys/revoke", body(hash), now, "")
	require.Equal(t, http.StatusNoContent, code, "revoking is always allowed")
	require.Equal(t, []string{strings.Repeat("cd", 32)}, book.keys[2])

	plain := setup(t)
	code, msg = plain.do(t, plain.renter, "POST", "/v1/leases/2/keys", body(hash), now, "")
	require.Equal(t, http.StatusNotFound, code, msg)
	require.Contains(t, msg, "this provider runs no ingress")
}
