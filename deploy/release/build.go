package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/goreleaser/nfpm/v2"
	_ "github.com/goreleaser/nfpm/v2/deb" // registers the deb packager
	"github.com/goreleaser/nfpm/v2/files"
	_ "github.com/goreleaser/nfpm/v2/rpm" // registers the rpm packager
)

// options are the flags every package shares.
type options struct {
	version, arch, units, out, maintainer, homepage, compression string
	pkgVersion                                                   pkgVersion
}

// build writes program p's package in format (deb or rpm) into o.out and
// returns its path.
func (o options) build(p program, bin string, st staged, format string) (string, error) {
	packager, err := nfpm.Get(format)
	if err != nil {
		return "", err
	}
	info := &nfpm.Info{
		Name:            p.Name,
		Arch:            o.arch,
		Platform:        "linux",
		Version:         o.pkgVersion.Version,
		VersionSchema:   "none",
		Prerelease:      o.pkgVersion.Prerelease,
		VersionMetadata: o.pkgVersion.Metadata,
		Release:         "1",
		Section:         "net",
		Priority:        "optional",
		Maintainer:      o.maintainer,
		Description:     p.Summary + "\n" + p.Description,
		Vendor:          "idlegpu",
		Homepage:        o.homepage,
		Overridables: nfpm.Overridables{
			Contents: o.contents(p, bin, st.env),
			Scripts: nfpm.Scripts{
				PreInstall:  st.scripts["preinst"],
				PostInstall: st.scripts["postinst"],
				PreRemove:   st.scripts["prerm"],
				PostRemove:  st.scripts["postrm"],
			},
		},
	}
	// The scripts make the user with useradd and groupadd: Debian's passwd;
	// on RPM systems a file dependency, as Fedora's shadow-utils is SUSE's
	// shadow.
	switch format {
	case "deb":
		info.Depends = []string{"passwd"}
		info.Recommends = p.Recommends
		info.Deb.Compression = o.compression
	case "rpm":
		info.Depends = []string{"/usr/sbin/useradd", "/usr/sbin/groupadd"}
		info.RPM.Summary = p.Summary
		info.RPM.Compression = o.compression
	default:
		return "", fmt.Errorf("format %q: want deb or rpm", format)
	}
	info = nfpm.WithDefaults(info)
	if err := nfpm.PrepareForPackager(info, format); err != nil {
		return "", err
	}
	path := filepath.Join(o.out, packager.ConventionalFileName(info))
	f, err := os.Create(path)
	if err != nil {
		return "", err
	}
	if err := packager.Package(info, f); err != nil {
		f.Close()
		os.Remove(path)
		return "", err
	}
	return path, f.Close()
}

// contents are the package's files: the binary, the unit and the unit's
// environment file (a conffile the operator edits, kept on upgrade).
// Directories and modes the package cannot own (the state directory, the
// passphrase) are made by postinst.
func (o options) contents(p program, bin, env string) files.Contents {
	return files.Contents{
		{Source: bin, Destination: "/usr/bin/" + p.Name, FileInfo: &files.ContentFileInfo{Mode: 0o755}},
		{
			Source:      filepath.Join(o.units, p.Name+".service"),
			Destination: "/usr/lib/systemd/system/" + p.Name + ".service",
			FileInfo:    &files.ContentFileInfo{Mode: 0o644},
		},
		{Destination: p.confDir(), Type: files.TypeDir, FileInfo: &files.ContentFileInfo{Mode: 0o750}},
		{
			Source:      env,
			Destination: p.confDir() + "/" + p.Name + ".env",
			Type:        files.TypeConfigNoReplace,
			FileInfo:    &files.ContentFileInfo{Mode: 0o640},
		},
	}
}
