# On removal (dpkg prerm remove, rpm %preun 0) the service is stopped and
# disabled; an upgrade leaves it to postinst's restart.
case "$1" in
remove | 0)
	if [ -d /run/systemd/system ]; then
		systemctl stop "$PKG.service" || true
	fi
	if command -v systemctl >/dev/null; then
		systemctl --no-reload disable "$PKG.service" >/dev/null 2>&1 || true
	fi
	;;
esac
