package indexer

// migrations are the schema, one numbered step each; step i+1 is
// migrations[i]. A step is applied once, in its own transaction, and
// recorded in schema_migrations. Never edit a released step: add one.
var migrations = []string{
	// 1: the initial schema.
	`
CREATE TABLE cursor (
	id     INTEGER PRIMARY KEY CHECK (id = 1),
	height INTEGER NOT NULL
);
INSERT INTO cursor (id, height) VALUES (1, 0);

CREATE TABLE blocks (
	height   INTEGER PRIMARY KEY,
	time     INTEGER NOT NULL,
	proposer TEXT    NOT NULL,
	txs      INTEGER NOT NULL,
	events   INTEGER NOT NULL
);

CREATE TABLE jobs (
	id                INTEGER PRIMARY KEY,
	renter            TEXT    NOT NULL,
	models            TEXT    NOT NULL,
	regions           TEXT    NOT NULL,
	tier              TEXT    NOT NULL,
	preemptible       INTEGER NOT NULL,
	gpu_count         INTEGER NOT NULL,
	duration_seconds  INTEGER NOT NULL,
	image             TEXT    NOT NULL,
	denom             TEXT    NOT NULL,
	max_price         INTEGER NOT NULL,
	deposit           INTEGER NOT NULL,
	status            TEXT    NOT NULL,
	created_height    INTEGER NOT NULL,
	created_time      INTEGER NOT NULL,
	clearing_price    INTEGER NOT NULL DEFAULT 0,
	lease_ids         TEXT    NOT NULL DEFAULT '',
	candidates        INTEGER NOT NULL DEFAULT 0,
	cleared_height    INTEGER NOT NULL DEFAULT 0,
	cleared_time      INTEGER NOT NULL DEFAULT 0,
	ended_height      INTEGER NOT NULL DEFAULT 0,
	ended_time        INTEGER NOT NULL DEFAULT 0,
	refunded          INTEGER NOT NULL DEFAULT 0,
	submitter         TEXT    NOT NULL DEFAULT '',
	relayer_fee       INTEGER NOT NULL DEFAULT 0,
	relayer_fee_denom TEXT    NOT NULL DEFAULT ''
);
CREATE INDEX jobs_by_renter ON jobs (renter, id DESC);

CREATE TABLE offers (
	id                INTEGER PRIMARY KEY,
	provider          TEXT    NOT NULL,
	model             TEXT    NOT NULL,
	region            TEXT    NOT NULL,
	memory_mib        INTEGER NOT NULL,
	gpu_count         INTEGER NOT NULL,
	denom             TEXT    NOT NULL,
	price_on_demand   INTEGER NOT NULL,
	price_preemptible INTEGER NOT NULL,
	lanes             INTEGER NOT NULL,
	status            TEXT    NOT NULL,
	created_height    INTEGER NOT NULL,
	updated_height    INTEGER NOT NULL,
	closed_height     INTEGER NOT NULL DEFAULT 0,
	removed_height    INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX offers_by_provider ON offers (provider, id DESC);

CREATE TABLE leases (
	id               INTEGER PRIMARY KEY,
	job_id           INTEGER NOT NULL,
	renter           TEXT    NOT NULL,
	provider         TEXT    NOT NULL,
	offer_id         INTEGER NOT NULL,
	model            TEXT    NOT NULL,
	region           TEXT    NOT NULL,
	gpus             INTEGER NOT NULL,
	gpu_uuids        TEXT    NOT NULL,
	tier             TEXT    NOT NULL,
	duration_seconds INTEGER NOT NULL,
	denom            TEXT    NOT NULL,
	price            INTEGER NOT NULL,
	escrow           INTEGER NOT NULL,
	paid             INTEGER NOT NULL DEFAULT 0,
	refunded         INTEGER NOT NULL DEFAULT 0,
	status           TEXT    NOT NULL,
	final_status     TEXT    NOT NULL DEFAULT '',
	reason           TEXT    NOT NULL DEFAULT '',
	ended            INTEGER NOT NULL DEFAULT 0,
	created_height   INTEGER NOT NULL,
	created_time     INTEGER NOT NULL,
	started_height   INTEGER NOT NULL DEFAULT 0,
	started_time     INTEGER NOT NULL DEFAULT 0,
	stopped_time     INTEGER NOT NULL DEFAULT 0,
	ended_height     INTEGER NOT NULL DEFAULT 0,
	ended_time       INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX leases_by_renter   ON leases (renter, ended, id DESC);
CREATE INDEX leases_by_provider ON leases (provider, ended, id DESC);
CREATE INDEX leases_by_ended    ON leases (ended, id DESC);
CREATE INDEX leases_by_job      ON leases (job_id, id);

CREATE TABLE epochs (
	lease_id      INTEGER NOT NULL,
	epoch         INTEGER NOT NULL,
	provider      TEXT    NOT NULL,
	status        TEXT    NOT NULL,
	height        INTEGER NOT NULL,
	time          INTEGER NOT NULL,
	denom         TEXT    NOT NULL DEFAULT '',
	paid          INTEGER NOT NULL DEFAULT 0,
	fee           INTEGER NOT NULL DEFAULT 0,
	samples_root  TEXT    NOT NULL DEFAULT '',
	reason        TEXT    NOT NULL DEFAULT '',
	missed_in_row INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (lease_id, epoch)
) WITHOUT ROWID;
CREATE INDEX epochs_by_provider ON epochs (provider, height DESC);

CREATE TABLE epoch_gpus (
	lease_id         INTEGER NOT NULL,
	epoch            INTEGER NOT NULL,
	gpu_uuid         TEXT    NOT NULL,
	samples          INTEGER NOT NULL,
	util_avg_bps     INTEGER NOT NULL,
	util_min_bps     INTEGER NOT NULL,
	mem_used_max_mib INTEGER NOT NULL,
	energy_mj        INTEGER NOT NULL,
	power_avg_mw     INTEGER NOT NULL,
	temp_max_c       INTEGER NOT NULL,
	sm_clock_avg_mhz INTEGER NOT NULL,
	xid_errors       INTEGER NOT NULL,
	PRIMARY KEY (lease_id, epoch, gpu_uuid),
	FOREIGN KEY (lease_id, epoch) REFERENCES epochs (lease_id, epoch)
) WITHOUT ROWID;

CREATE TABLE clearings (
	job_id           INTEGER NOT NULL,
	model            TEXT    NOT NULL,
	height           INTEGER NOT NULL,
	time             INTEGER NOT NULL,
	denom            TEXT    NOT NULL,
	price            INTEGER NOT NULL,
	gpus             INTEGER NOT NULL,
	duration_seconds INTEGER NOT NULL,
	PRIMARY KEY (job_id, model)
) WITHOUT ROWID;
CREATE INDEX clearings_by_model ON clearings (model, time);
CREATE INDEX clearings_by_time  ON clearings (time);

CREATE TABLE models (
	model          TEXT PRIMARY KEY,
	clearings      INTEGER NOT NULL,
	first_height   INTEGER NOT NULL,
	last_height    INTEGER NOT NULL,
	last_denom     TEXT    NOT NULL,
	last_price     INTEGER NOT NULL
) WITHOUT ROWID;

CREATE TABLE reputation (
	provider         TEXT    NOT NULL,
	height           INTEGER NOT NULL,
	time             INTEGER NOT NULL,
	reliability_bps  INTEGER NOT NULL,
	proven           INTEGER NOT NULL,
	missed           INTEGER NOT NULL,
	leases_completed INTEGER NOT NULL,
	leases_failed    INTEGER NOT NULL,
	preemptions      INTEGER NOT NULL,
	frauds           INTEGER NOT NULL,
	PRIMARY KEY (provider, height)
) WITHOUT ROWID;

CREATE TABLE slashes (
	height       INTEGER NOT NULL,
	idx          INTEGER NOT NULL,
	time         INTEGER NOT NULL,
	provider     TEXT    NOT NULL,
	kind         TEXT    NOT NULL,
	reason       TEXT    NOT NULL DEFAULT '',
	fraction_bps INTEGER NOT NULL DEFAULT 0,
	denom        TEXT    NOT NULL DEFAULT '',
	slashed      INTEGER NOT NULL DEFAULT 0,
	beneficiary  TEXT    NOT NULL DEFAULT '',
	reward       INTEGER NOT NULL DEFAULT 0,
	burned       INTEGER NOT NULL DEFAULT 0,
	jailed_until INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (height, idx)
) WITHOUT ROWID;
CREATE INDEX slashes_by_provider ON slashes (provider, height DESC, idx DESC);

CREATE TABLE audits (
	id              INTEGER PRIMARY KEY,
	provider        TEXT    NOT NULL,
	auditor         TEXT    NOT NULL,
	gpu_uuid        TEXT    NOT NULL,
	workload        TEXT    NOT NULL,
	work_units      INTEGER NOT NULL,
	deadline        INTEGER NOT NULL,
	denom           TEXT    NOT NULL,
	fee             INTEGER NOT NULL,
	status          TEXT    NOT NULL,
	opened_height   INTEGER NOT NULL,
	opened_time     INTEGER NOT NULL,
	answered_height INTEGER NOT NULL DEFAULT 0,
	resolved_height INTEGER NOT NULL DEFAULT 0,
	resolved_time   INTEGER NOT NULL DEFAULT 0,
	fee_paid_to     TEXT    NOT NULL DEFAULT '',
	slashed         INTEGER NOT NULL DEFAULT 0,
	leases_failed   INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX audits_by_provider ON audits (provider, id DESC);

CREATE TABLE claims (
	height   INTEGER NOT NULL,
	idx      INTEGER NOT NULL,
	denom    TEXT    NOT NULL,
	time     INTEGER NOT NULL,
	operator TEXT    NOT NULL,
	amount   INTEGER NOT NULL,
	PRIMARY KEY (height, idx, denom)
) WITHOUT ROWID;
CREATE INDEX claims_by_operator ON claims (operator, height DESC, idx DESC, denom);

CREATE TABLE payouts (
	provider TEXT    NOT NULL,
	height   INTEGER NOT NULL,
	denom    TEXT    NOT NULL,
	time     INTEGER NOT NULL,
	paid     INTEGER NOT NULL,
	fee      INTEGER NOT NULL,
	epochs   INTEGER NOT NULL,
	PRIMARY KEY (provider, height, denom)
) WITHOUT ROWID;
CREATE INDEX payouts_by_time ON payouts (provider, time);
`,
}
