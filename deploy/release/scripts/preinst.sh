# The service's system group and user exist before the package's files are
# unpacked. Run by dpkg (preinst install|upgrade) and rpm (%pre 1|2).
ensure_group() {
	getent group "$1" >/dev/null || groupadd --system "$1"
}

ensure_group "$SVC_GROUP"
if ! getent passwd "$SVC_USER" >/dev/null; then
	useradd --system --gid "$SVC_GROUP" --home-dir "$STATE_DIR" --no-create-home \
		--shell /usr/sbin/nologin --comment "$SVC_COMMENT" "$SVC_USER"
fi
# Groups the unit names in SupplementaryGroups must exist or systemd refuses
# to start it (docker: Docker's packages take an existing group as theirs).
for g in $EXTRA_GROUPS; do
	ensure_group "$g"
	usermod --append --groups "$g" "$SVC_USER"
done
