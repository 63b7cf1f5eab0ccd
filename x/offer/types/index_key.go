package types

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"

	"cosmossdk.io/collections/codec"
	"cosmossdk.io/math"
)

// IndexKey orders OPEN offers for the clearing walk: within one (lane,
// model, continent, denom) the keys sort by price, then offer id, so a range
// scan visits the cheapest offer first and stops at the job's max price.
//
// Each offer is indexed twice per lane: under Continent "" (every region,
// for jobs that take any) and under its region's continent, so a job bound
// to one continent never scans the others' offers.
type IndexKey struct {
	Lane      Lane
	Model     string // "" in the any-model index
	Continent string // "" for the every-region keys
	Denom     string
	Price     math.Int
	OfferID   uint64
}

// Equal reports whether two keys are the same index entry.
func (k IndexKey) Equal(o IndexKey) bool {
	return k.Lane == o.Lane && k.Model == o.Model && k.Continent == o.Continent && k.Denom == o.Denom &&
		k.OfferID == o.OfferID && k.Price.Equal(o.Price)
}

// maxPriceBytes bounds the big-endian price magnitude (math.Int holds 256 bits).
const maxPriceBytes = 32

// IndexKeyCodec encodes IndexKey so that byte order is key order:
//
//	lane (1 byte) | model | 0x00 | continent | 0x00 | denom | 0x00 | len(price) (1 byte) | price big-endian | offer id (8 bytes)
//
// The price has no leading zero bytes, so a shorter magnitude is a smaller
// number and the length byte sorts before the digits. Decoding rejects any
// non-canonical form, so every stored key has exactly one encoding.
var IndexKeyCodec codec.KeyCodec[IndexKey] = indexKeyCodec{}

type indexKeyCodec struct{}

var errIndexKey = errors.New("offer index key")

func (indexKeyCodec) Size(k IndexKey) int {
	return 1 + len(k.Model) + 1 + len(k.Continent) + 1 + len(k.Denom) + 1 + 1 + priceLen(k.Price) + 8
}

func priceLen(p math.Int) int {
	if p.IsNil() {
		return 0
	}
	return (p.BigIntMut().BitLen() + 7) / 8
}

func (c indexKeyCodec) Encode(buf []byte, k IndexKey) (int, error) {
	if k.Lane < 0 || k.Lane > 0xff {
		return 0, fmt.Errorf("%w: lane %d out of range", errIndexKey, k.Lane)
	}
	if k.Price.IsNil() || k.Price.IsNegative() {
		return 0, fmt.Errorf("%w: price must be non-negative", errIndexKey)
	}
	pl := priceLen(k.Price)
	if pl > maxPriceBytes {
		return 0, fmt.Errorf("%w: price has %d bytes", errIndexKey, pl)
	}
	if len(buf) < c.Size(k) {
		return 0, fmt.Errorf("%w: buffer too small", errIndexKey)
	}
	n := 0
	buf[n] = byte(k.Lane)
	n++
	for _, s := range []string{k.Model, k.Continent, k.Denom} {
		if bytes.IndexByte([]byte(s), 0) >= 0 {
			return 0, fmt.Errorf("%w: %q holds a NUL byte", errIndexKey, s)
		}
		n += copy(buf[n:], s)
		buf[n] = 0
		n++
	}
	buf[n] = byte(pl)
	n++
	k.Price.BigIntMut().FillBytes(buf[n : n+pl])
	n += pl
	binary.BigEndian.PutUint64(buf[n:], k.OfferID)
	return n + 8, nil
}

func (indexKeyCodec) Decode(buf []byte) (int, IndexKey, error) {
	var k IndexKey
	if len(buf) < 1 {
		return 0, k, fmt.Errorf("%w: empty", errIndexKey)
	}
	k.Lane = Lane(buf[0])
	n := 1
	var strs [3]string
	for i := range strs {
		end := bytes.IndexByte(buf[n:], 0)
		if end < 0 {
			return 0, k, fmt.Errorf("%w: unterminated string", errIndexKey)
		}
		strs[i] = string(buf[n : n+end])
		n += end + 1
	}
	k.Model, k.Continent, k.Denom = strs[0], strs[1], strs[2]
	if len(buf) < n+1 {
		return 0, k, fmt.Errorf("%w: no price length", errIndexKey)
	}
	pl := int(buf[n])
	n++
	if pl > maxPriceBytes || len(buf) < n+pl+8 {
		return 0, k, fmt.Errorf("%w: truncated price or id", errIndexKey)
	}
	if pl > 0 && buf[n] == 0 {
		return 0, k, fmt.Errorf("%w: price has a leading zero byte", errIndexKey)
	}
	k.Price = math.NewIntFromBigInt(new(big.Int).SetBytes(buf[n : n+pl]))
	n += pl
	k.OfferID = binary.BigEndian.Uint64(buf[n:])
	return n + 8, k, nil
}

// The key ends in fixed-width fields after self-delimiting ones, so it can
// sit inside a multipart key unchanged.
func (c indexKeyCodec) EncodeNonTerminal(buf []byte, k IndexKey) (int, error) {
	return c.Encode(buf, k)
}

func (c indexKeyCodec) DecodeNonTerminal(buf []byte) (int, IndexKey, error) {
	return c.Decode(buf)
}

func (c indexKeyCodec) SizeNonTerminal(k IndexKey) int { return c.Size(k) }

type indexKeyJSON struct {
	Lane      Lane   `json:"lane"`
	Model     string `json:"model"`
	Continent string `json:"continent"`
	Denom     string `json:"denom"`
	Price     string `json:"price"`
	OfferID   uint64 `json:"offer_id,string"`
}

func (indexKeyCodec) EncodeJSON(k IndexKey) ([]byte, error) {
	return json.Marshal(indexKeyJSON{k.Lane, k.Model, k.Continent, k.Denom, k.Price.String(), k.OfferID})
}

func (indexKeyCodec) DecodeJSON(b []byte) (IndexKey, error) {
	var j indexKeyJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return IndexKey{}, err
	}
	p, ok := math.NewIntFromString(j.Price)
	if !ok {
		return IndexKey{}, fmt.Errorf("%w: price %q", errIndexKey, j.Price)
	}
	return IndexKey{j.Lane, j.Model, j.Continent, j.Denom, p, j.OfferID}, nil
}

func (indexKeyCodec) Stringify(k IndexKey) string {
	return fmt.Sprintf("%s/%q/%q/%s/%s/%d", k.Lane, k.Model, k.Continent, k.Denom, k.Price, k.OfferID)
}

func (indexKeyCodec) KeyType() string { return "idlegpu.offer.IndexKey" }
