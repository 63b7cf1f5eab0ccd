package indexer_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/cosmos/gogoproto/proto"
	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/scripts/pgtest"

	"github.com/idlegpu/idlegpu/indexer"
	auctiontypes "github.com/idlegpu/idlegpu/x/auction/types"
	offertypes "github.com/idlegpu/idlegpu/x/offer/types"
	settlementtypes "github.com/idlegpu/idlegpu/x/settlement/types"
)

// leaseBlocks are well-formed blocks in which leases jobs are posted,
// cleared against one offer, started, proven for one epoch and ended, per
// lease per block: n blocks of per leases each, from height 2 (height 1
// creates the offer).
func leaseBlocks(n, per int) []indexer.BlockData {
	offer := offertypes.Offer{Id: 1, Provider: provider, GpuUuids: []string{"GPU-a"}, Model: model, Region: "eu",
		Status: offertypes.OFFER_STATUS_OPEN}
	out := []indexer.BlockData{{Height: 1, Time: t0, End: []proto.Message{&offertypes.EventOfferCreated{Offer: offer}}}}
	id := uint64(0)
	for h := int64(2); h < int64(n)+2; h++ {
		at := t0.Add(time.Duration(h) * 6 * time.Second)
		b := indexer.BlockData{Height: h, Time: at}
		for range per {
			id++
			job := auctiontypes.Job{Id: id, Renter: renter, Deposit: usdc(1_000_000), Spec: auctiontypes.JobSpec{GpuCount: 1,
				Models: []string{model}, DurationSeconds: 20, MaxPrice: usdc(1_000_000)}}
			lease := auctiontypes.Lease{Id: id, JobId: id, Renter: renter, Provider: provider, OfferId: 1, GpuUuids: []string{"GPU-a"},
				Price: usdc(900_000 + int64(id%7)), DurationSeconds: 20, Escrow: usdc(5_000), Paid: usdc(0)}
			b.End = append(b.End,
				&auctiontypes.EventJobPosted{Job: job},
				&auctiontypes.EventJobCleared{JobId: id, ClearingPrice: lease.Price, LeaseIds: []uint64{id}, Leases: []auctiontypes.Lease{lease}},
				&auctiontypes.EventLeaseStarted{LeaseId: id, Provider: provider},
				&settlementtypes.EventProofAccepted{LeaseId: id, Provider: provider, Paid: usdc(5_000), Fee: usdc(50)},
				&auctiontypes.EventLeasePaid{LeaseId: id, Amount: usdc(5_000), Paid: usdc(5_000)},
				&auctiontypes.EventLeaseEnded{LeaseId: id, Status: auctiontypes.LEASE_STATUS_COMPLETED, Paid: usdc(5_000), JobId: id,
					JobStatus: auctiontypes.JOB_STATUS_COMPLETED},
			)
		}
		out = append(out, b)
	}
	return out
}

// BenchmarkIndexEndedLeases is the cost of indexing one lease's life
// (posted, cleared, started, proven, paid, ended), 100 per block.
func BenchmarkIndexEndedLeases(b *testing.B) {
	ctx := context.Background()
	db, err := indexer.Open(pgtest.BenchTarget(b, b.TempDir()))
	require.NoError(b, err)
	defer db.Close()
	blocks := leaseBlocks(b.N/100+1, 100)
	b.ResetTimer()
	for _, blk := range blocks {
		if err := db.IndexBlock(ctx, blk); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64((len(blocks)-1)*100), "ns/lease")
	leases, err := db.Leases(ctx, indexer.LeaseFilter{Provider: provider, Limit: 1})
	require.NoError(b, err)
	require.Equal(b, fmt.Sprint((len(blocks)-1)*100), fmt.Sprint(leases[0].ID))
}

// BenchmarkIndexProofBlock is one block at the load benchmark's proof
// peak (docs/benchmarks.md: 3,322 proofs/s at 1 s blocks): 34 txs of
// MsgSubmitProofs, 100 proofs each with one GPU's summary, and their 3,400
// EventProofAccepted, written as the indexer writes a block. The indexer
// keeps up while a block takes well under the block interval.
//
//	go test ./indexer -run '^$' -bench BenchmarkIndexProofBlock -benchtime 20x
func BenchmarkIndexProofBlock(b *testing.B) {
	const txs, perTx = 34, 100
	ctx := context.Background()
	db, err := indexer.Open(pgtest.BenchTarget(b, b.TempDir()))
	require.NoError(b, err)
	defer db.Close()
	block := func(h int64) indexer.BlockData {
		blk := indexer.BlockData{Height: h, Time: t0.Add(time.Duration(h) * time.Second)}
		for t := range txs {
			msg := &settlementtypes.MsgSubmitProofs{}
			tx := indexer.TxData{Hash: fmt.Sprintf("%062X%02X", h, t)}
			for i := range perTx {
				lease, epoch := uint64(t*perTx+i+1), uint64(h)
				msg.Proofs = append(msg.Proofs, settlementtypes.ExecutionProof{LeaseId: lease, Epoch: epoch,
					Gpus: []settlementtypes.GPUSummary{{Uuid: fmt.Sprintf("GPU-%d", lease), Samples: 3, UtilAvgBps: 9500, MemUsedMaxMib: 70_000,
						EnergyMj: 1_000_000, PowerAvgMw: 500_000}}})
				tx.Events = append(tx.Events, &settlementtypes.EventProofAccepted{LeaseId: lease, Epoch: epoch, Provider: provider,
					Paid: usdc(250), Fee: usdc(2), SamplesRoot: []byte{1, 2, 3}})
			}
			tx.Msgs = []proto.Message{msg}
			blk.Txs = append(blk.Txs, tx)
		}
		return blk
	}
	blocks := make([]indexer.BlockData, b.N)
	for i := range blocks {
		blocks[i] = block(int64(i + 1))
	}
	b.ResetTimer()
	for _, blk := range blocks {
		if err := db.IndexBlock(ctx, blk); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/block")
	b.ReportMetric(float64(b.N*txs*perTx)/b.Elapsed().Seconds(), "proofs/s")
}
