# Directories, modes and the keyring passphrase; never overwrites state or a
# passphrase that exists. Run by dpkg (postinst configure [old-version]) and
# rpm (%post 1 on install, 2 on upgrade).
upgrade=0
case "$1" in
configure) [ -z "${2:-}" ] || upgrade=1 ;;
[2-9]) upgrade=1 ;;
esac

# The state directory is the program's home: created once, then the
# operator's (its contents are keys and chain data).
if [ ! -d "$STATE_DIR" ]; then
	install -d -o "$SVC_USER" -g "$SVC_GROUP" -m 0750 "$STATE_DIR"
fi

# Configuration: root's to write, the service's group to read (an env
# file the operator deleted stays deleted, as dpkg keeps it).
chown root:"$SVC_GROUP" "$CONF_DIR"
chmod 0750 "$CONF_DIR"
if [ -e "$CONF_DIR/$PKG.env" ]; then
	chown root:"$SVC_GROUP" "$CONF_DIR/$PKG.env"
	chmod 0640 "$CONF_DIR/$PKG.env"
fi

# The file keyring's passphrase: random, made once, kept on removal and
# purge (the keyring it unlocks stays in the state directory).
if [ -n "$PASSPHRASE_FILE" ] && [ ! -e "$PASSPHRASE_FILE" ]; then
	tmp=$(mktemp "$PASSPHRASE_FILE.XXXXXX")
	od -An -tx1 -N32 /dev/urandom | tr -d ' \n' >"$tmp"
	echo >>"$tmp"
	chown root:"$SVC_GROUP" "$tmp"
	chmod 0640 "$tmp"
	mv "$tmp" "$PASSPHRASE_FILE"
fi

# Units are not enabled or started here: each needs its setup first
# (deploy/release/README.md). An upgrade restarts a running one.
if [ -d /run/systemd/system ]; then
	systemctl daemon-reload || true
	if [ "$upgrade" = 1 ]; then
		systemctl try-restart "$PKG.service" || true
	fi
fi
