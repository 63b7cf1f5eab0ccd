package wallet

import "encoding/json"

// SignedJob is what sign-job, sign-cancel, sign-close and sign-withdraw
// print and submit-signed-job reads: one of bid, cancel, close or
// withdraw, and the signature.
type SignedJob struct {
	Bid       json.RawMessage `json:"bid,omitempty"`
	Cancel    json.RawMessage `json:"cancel,omitempty"`
	Close     json.RawMessage `json:"close,omitempty"`
	Withdraw  json.RawMessage `json:"withdraw,omitempty"`
	Signature string          `json:"signature"`
}
