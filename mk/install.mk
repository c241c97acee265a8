# mk/install.mk - included by the Makefile: the build-dependency check, the
# commit the binary is built from, make install / uninstall, the Debian
# package (make deb) and its test (make package-test).
#
#   make install [PREFIX=/usr/local] [DESTDIR=]   make uninstall (same variables)
#   make deb          dpkg-buildpackage -b -us -uc on a copy of the tree; the
#                     .deb, .buildinfo and .changes land in $(DEBDIR)
#   make package-test builds the .deb twice (byte-identical?), lintian, and
#                     installs, runs, purges it with apt-get (root; tests/package)

PREFIX     ?= /usr/local
BINDIR     ?= $(PREFIX)/bin
DATADIR    ?= $(PREFIX)/share
MANDIR     ?= $(DATADIR)/man
LOCALEDIR  ?= $(DATADIR)/locale
# The binary reads $(SYSCONFDIR)/gpudoctor.conf; /etc whatever the prefix
# (the path gpudoctor(1) documents), unless told otherwise.
SYSCONFDIR ?= /etc
# Where systemd and bash-completion look: their pkg-config files say for
# /usr (Debian 12: /lib/systemd/system); /usr/local has its own directories,
# which both search too.
ifeq ($(PREFIX),/usr)
SYSTEMDUNITDIR ?= $(or $(shell pkg-config --variable=systemdsystemunitdir systemd 2>/dev/null),/lib/systemd/system)
BASHCOMPDIR ?= $(or $(shell pkg-config --variable=completionsdir bash-completion 2>/dev/null),/usr/share/bash-completion/completions)
else
SYSTEMDUNITDIR ?= $(PREFIX)/lib/systemd/system
BASHCOMPDIR ?= $(DATADIR)/bash-completion/completions
endif
DEBDIR ?= $(BUILD)/deb
# The message catalogues (issue 15) are built into $(LOCALEBUILD)/<lang>/
# LC_MESSAGES/gpudoctor.mo; install takes whatever is there.
LOCALEBUILD ?= $(BUILD)/locale

ifneq ($(SYSCONFDIR),/etc)
$(BUILD)/obj/src/cli/cli.o $(BUILD)/obj/src/cli/usage.o: CPPFLAGS_ALL += -DGD_DEFAULT_CONFIG='"$(SYSCONFDIR)/gpudoctor.conf"'
endif

.PHONY: install uninstall deb package-test FORCE

# ---- a missing build dependency: one line, before the compiler speaks --------
# Only for the goals that compile without running `make deps` first (test,
# check, run, mutate and fuzz install what is missing themselves).
GOALS := $(or $(MAKECMDGOALS),all)
ifneq ($(filter all unit install $(BUILD)/gpudoctor,$(GOALS)),)
ifeq ($(filter deps test check run mutate fuzz,$(GOALS)),)
BUILD_DEPS_MISSING := $(shell scripts/build-deps-check.sh "$(CC)" $(XML_CFLAGS))
ifneq ($(BUILD_DEPS_MISSING),)
$(error $(BUILD_DEPS_MISSING))
endif
endif
endif

# ---- the commit: build/gen/commit.h, rewritten only when it changes ---------
# GD_COMMIT from the environment wins (make deb builds a copy without .git
# and passes it); else git, when this directory is the top of a work tree
# (not a tarball unpacked inside some other repository); "-dirty" when
# tracked or new files differ from the commit; empty without git.
GD_COMMIT ?= $(shell [ "$$(git rev-parse --show-toplevel 2>/dev/null)" = "$(CURDIR)" ] && \
	c=$$(git rev-parse --short=12 HEAD 2>/dev/null) && \
	{ [ -z "$$(git status --porcelain 2>/dev/null)" ] && echo "$$c" || echo "$$c-dirty"; })

$(BUILD)/gen/commit.h: FORCE
	@mkdir -p $(dir $@)
	@printf '/* written by the Makefile (mk/install.mk) */\n#define GD_COMMIT "%s"\n' '$(GD_COMMIT)' >$@.tmp
	@if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi

$(BUILD)/obj/src/cli/version.o: $(BUILD)/gen/commit.h
$(BUILD)/obj/src/cli/version.o: CPPFLAGS_ALL += -I$(BUILD)/gen

# ---- what gets installed ------------------------------------------------------
# /etc/gpudoctor.conf is written by the binary from its thresholds table.
$(BUILD)/gpudoctor.conf: $(BUILD)/gpudoctor
	$(BUILD)/gpudoctor config --config /dev/null >$@.tmp && mv $@.tmp $@

# deploy/ goes to share/gpudoctor/ as it is, but for the unit (installed in
# systemd's directory) and the generator of alerts.yml (and alerts.zh_CN.yml).
# The man page in Chinese (docs/gpudoctor.zh_CN.1) goes where man looks for
# it under a zh_CN locale: $(MANDIR)/zh_CN/man1/gpudoctor.1.
SHARE_FILES := $(sort $(filter-out systemd/% %.py,$(patsubst deploy/%,%,$(shell find deploy -type f 2>/dev/null))))
COMPLETION := scripts/completion/gpudoctor
UNITS := deploy/systemd/gpudoctor.service deploy/systemd/gpudoctor-probe.service deploy/systemd/gpudoctor-probe.timer
D := $(DESTDIR)

install: all $(BUILD)/gpudoctor.conf
	install -d $(D)$(BINDIR) $(D)$(MANDIR)/man1 $(D)$(MANDIR)/zh_CN/man1 $(D)$(SYSCONFDIR) $(D)$(SYSTEMDUNITDIR) $(D)$(BASHCOMPDIR)
	install -m 0755 $(BUILD)/gpudoctor $(D)$(BINDIR)/gpudoctor
	install -m 0644 docs/gpudoctor.1 $(D)$(MANDIR)/man1/gpudoctor.1
	install -m 0644 docs/gpudoctor.zh_CN.1 $(D)$(MANDIR)/zh_CN/man1/gpudoctor.1
	for u in $(UNITS); do \
		sed 's|/usr/local/bin/gpudoctor|$(BINDIR)/gpudoctor|g' $$u >$(BUILD)/$${u##*/} && \
		install -m 0644 $(BUILD)/$${u##*/} $(D)$(SYSTEMDUNITDIR)/$${u##*/} || exit 1; \
	done
	install -m 0644 $(COMPLETION) $(D)$(BASHCOMPDIR)/gpudoctor
	for f in $(SHARE_FILES); do m=0644; [ -x deploy/$$f ] && m=0755; install -D -m $$m deploy/$$f $(D)$(DATADIR)/gpudoctor/$$f || exit 1; done
	@# the probes' SKU table: the binary carries it; this copy is for reading
	install -D -m 0644 data/probe-sku.ini $(D)$(DATADIR)/gpudoctor/probe-sku.ini
	@# a changed configuration is kept; the new sample goes beside it
	@conf=$(D)$(SYSCONFDIR)/gpudoctor.conf; \
	if [ -e "$$conf" ] && ! cmp -s $(BUILD)/gpudoctor.conf "$$conf"; then \
		install -m 0644 $(BUILD)/gpudoctor.conf "$$conf.new"; \
		echo "kept your $$conf; the new sample is $$conf.new"; \
	else \
		echo "install -m 0644 $(BUILD)/gpudoctor.conf $$conf"; install -m 0644 $(BUILD)/gpudoctor.conf "$$conf"; \
	fi
	@# message catalogues (issue 15): $(LOCALEBUILD)/<lang>/LC_MESSAGES/gpudoctor.mo
	@if [ -d $(LOCALEBUILD) ]; then \
		for mo in $(LOCALEBUILD)/*/LC_MESSAGES/gpudoctor.mo; do \
			[ -e "$$mo" ] || continue; \
			lang=$${mo#$(LOCALEBUILD)/}; lang=$${lang%%/*}; \
			echo "install -D -m 0644 $$mo $(D)$(LOCALEDIR)/$$lang/LC_MESSAGES/gpudoctor.mo"; \
			install -D -m 0644 "$$mo" $(D)$(LOCALEDIR)/$$lang/LC_MESSAGES/gpudoctor.mo || exit 1; \
		done; \
	fi

# Removes what install put there; a configuration that differs from the
# sample is someone's settings: kept, and said so.
uninstall:
	@conf=$(D)$(SYSCONFDIR)/gpudoctor.conf; g=$(D)$(BINDIR)/gpudoctor; [ -x "$$g" ] || g=$(BUILD)/gpudoctor; \
	if [ -e "$$conf" ] && [ -x "$$g" ] && "$$g" config --config /dev/null | cmp -s - "$$conf"; then \
		echo "rm -f $$conf"; rm -f "$$conf"; \
	elif [ -e "$$conf" ]; then echo "kept $$conf (changed, or no gpudoctor to compare it with)"; fi
	rm -f $(D)$(SYSCONFDIR)/gpudoctor.conf.new
	rm -f $(D)$(BINDIR)/gpudoctor $(D)$(MANDIR)/man1/gpudoctor.1 $(D)$(MANDIR)/zh_CN/man1/gpudoctor.1 \
	  $(addprefix $(D)$(SYSTEMDUNITDIR)/,$(notdir $(UNITS))) $(D)$(BASHCOMPDIR)/gpudoctor \
	  $(D)$(LOCALEDIR)/*/LC_MESSAGES/gpudoctor.mo
	rm -rf $(D)$(DATADIR)/gpudoctor

# ---- the Debian package ---------------------------------------------------------
# dpkg-buildpackage writes its results into the parent of the source
# directory, so it runs in a copy of the tree under $(DEBDIR)/src: the
# tracked and new (not ignored) files as they are now, or without git every
# file but the build trees.  The copy has no .git: the commit is passed on.
deb:
	scripts/deb.sh $(DEBDIR) '$(GD_COMMIT)'

package-test: all
	tests/package/run.sh
