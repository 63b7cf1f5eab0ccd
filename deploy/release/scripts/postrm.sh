# systemd forgets the removed unit. The user, group, state directory and
# keyring passphrase stay, even on purge: the state holds keys and chain
# data that a package manager must not delete (deploy/release/README.md).
if [ -d /run/systemd/system ]; then
	systemctl daemon-reload || true
fi
