// Package v8 is the upgrade that lets a lease serve inbound traffic: offers
// gain ingress_domain and ingress_tls_cert_sha256, jobs gain ingress_port,
// and clearing and explicit bids match them by one rule
// (offertypes.IngressFits). The fields are new and read as empty on every
// stored offer and job, so there is no store migration; but the EIP-712
// JobBid type signs ingressPort, so a bid signed against the old type is
// refused from the upgrade height on (ErrSignerMismatch: its nonce stays
// unused and no funds move), and every node must change the rule at the same
// height.
package v8

import "github.com/idlegpu/idlegpu/app/upgrades"

// UpgradeName is the name a governance upgrade plan gives.
const UpgradeName = "v8-inference-ingress"

// Upgrade runs the module migrations (none change version here).
var Upgrade = upgrades.Upgrade{
	Name:          UpgradeName,
	CreateHandler: upgrades.RunMigrations,
}
