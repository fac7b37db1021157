# handyd: build, install and uninstall.
#
#   make                                   release build of handyd and handyctl
#   sudo make install                      PREFIX=/usr/local: binaries, systemd units, udev rule
#   make install DESTDIR=/tmp/stage PREFIX=/usr     staged install for packaging
#   sudo make uninstall
#   make check-guest                       the qemu guest suite (scripts/vm/run-guest-tests.sh)
#   make deb                               .build/deb/handyd_VERSION_ARCH.deb for kiosks (static Swift runtime)
#   make version                           Sources/HandyProtocol/Version.swift from VERSION
#
# systemd, udev and systemd-sysusers all read $(PREFIX)/lib/... for PREFIX=/usr and /usr/local.

PREFIX ?= /usr/local
DESTDIR ?=
BINDIR ?= $(PREFIX)/bin
LIBDIR ?= $(PREFIX)/lib
SYSTEMDUNITDIR ?= $(LIBDIR)/systemd/system
UDEVRULESDIR ?= $(LIBDIR)/udev/rules.d
SYSUSERSDIR ?= $(LIBDIR)/sysusers.d
DOCDIR ?= $(PREFIX)/share/doc/handyd

SWIFT ?= swift
CONFIGURATION ?= release
# Where the built binaries are; `make install-files BUILDBIN=.build/debug` installs a debug build.
BUILDBIN ?= $(shell $(SWIFT) build -c $(CONFIGURATION) --show-bin-path)

INSTALLED = \
	$(BINDIR)/handyd \
	$(BINDIR)/handyctl \
	$(SYSTEMDUNITDIR)/handyd.service \
	$(SYSTEMDUNITDIR)/handyd.socket \
	$(UDEVRULESDIR)/70-handyd.rules \
	$(UDEVRULESDIR)/90-handyd-systemd.rules \
	$(SYSUSERSDIR)/handyd.conf \
	$(DOCDIR)/DEVICES.md \
	$(DOCDIR)/PROTOCOL.md \
	$(DOCDIR)/handyd-websocket.conf \
	$(DOCDIR)/handyd-metrics.conf \
	$(SYSTEMDUNITDIR)/handyd-actions.service \
	$(UDEVRULESDIR)/70-handyd-actions.rules \
	$(SYSUSERSDIR)/handyd-actions.conf \
	$(DOCDIR)/ACTIONS.md \
	$(DOCDIR)/actions.example.toml

.PHONY: all build install install-files uninstall check-guest

all: build

build:
	$(SWIFT) build -c $(CONFIGURATION) --product handyd
	$(SWIFT) build -c $(CONFIGURATION) --product handyctl

install: build install-files

install-files:
	install -D -m 0755 $(BUILDBIN)/handyd $(DESTDIR)$(BINDIR)/handyd
	install -D -m 0755 $(BUILDBIN)/handyctl $(DESTDIR)$(BINDIR)/handyctl
	install -d $(DESTDIR)$(SYSTEMDUNITDIR)
	sed -e 's|/usr/local/bin/|$(BINDIR)/|g' -e 's|/usr/local/share/doc/handyd|$(DOCDIR)|g' systemd/handyd.service \
		> $(DESTDIR)$(SYSTEMDUNITDIR)/handyd.service
	chmod 0644 $(DESTDIR)$(SYSTEMDUNITDIR)/handyd.service
	install -m 0644 systemd/handyd.socket $(DESTDIR)$(SYSTEMDUNITDIR)/handyd.socket
	install -D -m 0644 udev/70-handyd.rules $(DESTDIR)$(UDEVRULESDIR)/70-handyd.rules
	install -m 0644 udev/90-handyd-systemd.rules $(DESTDIR)$(UDEVRULESDIR)/90-handyd-systemd.rules
	install -D -m 0644 systemd/handyd.sysusers $(DESTDIR)$(SYSUSERSDIR)/handyd.conf
	install -d $(DESTDIR)$(DOCDIR)
	for f in docs/DEVICES.md docs/PROTOCOL.md; do [ ! -f $$f ] || install -m 0644 $$f $(DESTDIR)$(DOCDIR)/; done
	# Not active: the WebSocket drop-in for web kiosks, to copy to /etc/systemd/system/handyd.service.d/.
	sed -e 's|/usr/local/bin/|$(BINDIR)/|g' -e 's|/usr/local/share/doc/handyd|$(DOCDIR)|g' systemd/handyd-websocket.conf \
		> $(DESTDIR)$(DOCDIR)/handyd-websocket.conf
	# Not active either: the metrics drop-in for fleets (docs/FLEET.md).
	sed -e 's|/usr/local/bin/|$(BINDIR)/|g' -e 's|/usr/local/share/doc/handyd|$(DOCDIR)|g' systemd/handyd-metrics.conf \
		> $(DESTDIR)$(DOCDIR)/handyd-metrics.conf
	# handyctl actions as a service (docs/ACTIONS.md); its bindings go in /etc/handyd/actions.toml.
	sed -e 's|/usr/local/bin/|$(BINDIR)/|g' -e 's|/usr/local/share/doc/handyd|$(DOCDIR)|g' systemd/handyd-actions.service \
		> $(DESTDIR)$(SYSTEMDUNITDIR)/handyd-actions.service
	chmod 0644 $(DESTDIR)$(SYSTEMDUNITDIR)/handyd-actions.service
	install -m 0644 udev/70-handyd-actions.rules $(DESTDIR)$(UDEVRULESDIR)/70-handyd-actions.rules
	install -m 0644 systemd/handyd-actions.sysusers $(DESTDIR)$(SYSUSERSDIR)/handyd-actions.conf
	install -m 0644 docs/ACTIONS.md $(DESTDIR)$(DOCDIR)/ACTIONS.md
	install -m 0644 examples/actions.toml $(DESTDIR)$(DOCDIR)/actions.example.toml
ifeq ($(DESTDIR),)
	# Live system: create the user/group, make systemd and udev see the new files.
	-systemd-sysusers $(SYSUSERSDIR)/handyd.conf $(SYSUSERSDIR)/handyd-actions.conf
	-systemctl daemon-reload
	-udevadm control --reload
	# /dev/uinput takes the handyd-actions group now, not at the next boot.
	-udevadm trigger --action=change --sysname-match=uinput
	@echo "installed. Start with: systemctl enable --now handyd.socket  (touchscreens start handyd.service via udev)"
endif

uninstall:
ifeq ($(DESTDIR),)
	-systemctl disable --now handyd-actions.service handyd.socket handyd.service 2>/dev/null
endif
	rm -f $(addprefix $(DESTDIR),$(INSTALLED))
	-rmdir $(DESTDIR)$(DOCDIR) 2>/dev/null
ifeq ($(DESTDIR),)
	-systemctl daemon-reload
	-udevadm control --reload
	@echo "uninstalled (the handyd and handyd-actions users are left in place; remove with userdel)"
endif

check-guest:
	scripts/vm/run-guest-tests.sh

# The version comes from the file VERSION (see CHANGELOG.md): `make version` writes it into the
# checked-in Sources/HandyProtocol/Version.swift. VersionTests checks both and debian/changelog agree.
.PHONY: version
version:
	@v=$$(cat VERSION); printf '%s\n' \
	  '// Generated by `make version` from the file VERSION. Do not edit: edit VERSION and run `make version`.' \
	  '// (Checked in so that a plain `swift build` needs no generation step; VersionTests fails when it' \
	  "// differs from VERSION or from debian/changelog's top entry.)" \
	  '' \
	  '/// handyd'"'"'s release version: `handyd --version`, `handyctl --version`, `hello.version`, the .deb.' \
	  "public let handydVersion = \"$$v\"" > Sources/HandyProtocol/Version.swift.tmp
	@if cmp -s Sources/HandyProtocol/Version.swift.tmp Sources/HandyProtocol/Version.swift; then \
	  rm Sources/HandyProtocol/Version.swift.tmp; else mv Sources/HandyProtocol/Version.swift.tmp Sources/HandyProtocol/Version.swift; fi
	@echo "version $$(cat VERSION)"

# The Debian package for kiosks (no Swift toolchain there: the Swift runtime is linked statically).
#   make deb        .build/deb/handyd_$(VERSION)_<arch>.deb, then lintian on it
# dpkg-buildpackage runs on a copy of the tree in .build/deb/handyd-$(VERSION), so its outputs land
# in .build/deb/; the static release build (slow) lives in .build/static and is reused.
DEBDIR = .build/deb
.PHONY: deb
deb:
	@v=$$(cat VERSION); c=$$(dpkg-parsechangelog -SVersion); [ "$$v" = "$$c" ] || \
	  { echo "make deb: VERSION is $$v, debian/changelog's top entry is $$c (dch -v $$v)" >&2; exit 1; }
	rm -rf $(DEBDIR)/handyd-* $(DEBDIR)/handyd_* $(DEBDIR)/handyd-dbgsym_*
	mkdir -p $(DEBDIR)/handyd-$$(cat VERSION)
	tar -c --exclude=./.git --exclude='./.build*' --exclude=./.swiftpm --exclude=__pycache__ --exclude=./debian/handyd \
	  --exclude=./debian/.debhelper -f - . | tar -x -C $(DEBDIR)/handyd-$$(cat VERSION)
	cd $(DEBDIR)/handyd-$$(cat VERSION) && HANDYD_PACKAGE=$(CURDIR) HANDYD_SCRATCH=$(CURDIR)/.build/static \
	  dpkg-buildpackage -b -us -uc
	rm -rf $(DEBDIR)/handyd-$$(cat VERSION)
	lintian --info --display-info --fail-on error,warning $(DEBDIR)/handyd_$$(cat VERSION)_*.changes
	@ls -l $(DEBDIR)/*.deb
