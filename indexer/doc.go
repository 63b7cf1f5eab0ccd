// Package index is the web app's indexer: it follows the chain block by block
// from a CometBFT RPC node and keeps, in an embedded SQLite database, the
// history the chain itself does not keep.
//
// The chain stores only the present: a job, lease or offer as it is now, a
// provider's reputation now, and it deletes what has ended. The web pages
// need the past, so the indexer keeps:
//
//   - blocks: height, time, proposer and counts of every indexed block;
//   - jobs: each posted job's terms, how it cleared (price, leases,
//     candidates), expired or was cancelled, what was refunded and who relayed
//     a wallet-signed bid;
//   - offers: each offer's model, region, GPUs, prices and status, which name
//     the model and region of the leases made from them;
//   - leases: each lease from clearing to its end (status, reason, paid);
//   - epochs and epoch_gpus: every epoch proven, missed or excused, with the
//     per-GPU telemetry summary of the accepted proof;
//   - clearings and models: one row per cleared job and model (price per
//     GPU-hour), for prices over time;
//   - reputation: a provider's reputation after each block that changed it;
//   - slashes, audits, claims and payouts: stake taken, audits and their
//     verdicts, rewards claimed, and what proofs paid each provider per block.
//
// Each block is indexed in one SQL transaction that also advances the cursor
// (the last indexed height) and that refuses a block not at cursor+1, so a
// crash or restart never leaves a gap or a duplicate. Amounts are INTEGER
// micro-units with a denom column; times are unix seconds (UTC).
package indexer
